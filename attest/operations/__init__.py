"""What the service does, as plain functions over its AppResources: the HTTP routes (attest/api) and the MCP tools (attest/mcp) both call these."""
