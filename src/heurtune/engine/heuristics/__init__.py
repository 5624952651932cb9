"""Per-game heuristics: each module exports ``HEURISTICS`` and ``PRESETS``."""
