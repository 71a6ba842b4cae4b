"""What the service does, as plain functions over its AppResources, which the HTTP routes and the MCP tools both call."""
