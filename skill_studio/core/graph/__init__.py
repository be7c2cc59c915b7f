"""The dependency graph: relations, problems, load order and layouts."""
