"""Paired self-play matches, run in parallel, and their statistics."""
