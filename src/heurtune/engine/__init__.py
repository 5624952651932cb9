"""Search (one implementation, specialised per game), heuristics and their parameters."""
