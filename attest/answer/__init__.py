"""Grounded answers: retrieval (/context), answer composition (LLM or extractive) and citation verification (/verify)."""
