"""Health on demand: per-skill scores, skill vectors, near-duplicates and the maintenance plan."""
