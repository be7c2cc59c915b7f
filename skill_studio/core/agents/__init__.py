"""What agents see: matching, the reliability gate, the prompt block and the JSON views."""
