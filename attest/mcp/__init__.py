"""Attest as an MCP server: tools, resources and a prompt over stdio (`attest mcp`) and streamable HTTP (/mcp)."""
