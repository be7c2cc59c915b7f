"""The library served to agents over the Model Context Protocol: the tools (tools), the server and
its transports (server)."""
