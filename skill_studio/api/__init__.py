"""The local skills API: the dashboard's REST endpoints over a studio store (``skill-studio serve``)."""

#: Where a running server leaves its address and write token for the window (the store's settings).
SERVER_SETTING = "api.server"
