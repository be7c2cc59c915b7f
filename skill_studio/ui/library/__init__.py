"""The library browser: the model over the store, cards and list, filters, the detail panel and the skill actions."""
