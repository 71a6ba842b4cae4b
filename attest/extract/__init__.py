"""Extraction: entities and relations from chunk text (LLM or offline rules), then validated."""
