"""A skill's Markdown rendered to safe, self-contained HTML."""
