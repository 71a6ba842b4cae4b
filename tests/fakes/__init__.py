"""Test doubles at the boundary: a real HTTP server that speaks the OpenAI wire format."""
