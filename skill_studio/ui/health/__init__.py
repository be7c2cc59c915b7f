"""The health view: run a health check off the GUI thread, read the scores, plan, pairs and trends."""
