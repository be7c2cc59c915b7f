"""What reviewers do: lifecycle moves, trust and pins, the review queue and merges."""
