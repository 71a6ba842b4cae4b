"""Limits on questions and texts that the HTTP API, MCP and the CLI share."""

MAX_QUESTION_BYTES = 10 * 1024
MAX_HINTS = 50
MAX_HOPS = 3
MAX_LIMIT = 100
MAX_PASSAGES = 20  # source passages a request may ask for (`k`)
MAX_VERIFY_CHARS = 200_000
