"""The OpenAI-compatible chat proxy: graph context in, verified citations out, conversations kept as graph memory."""
