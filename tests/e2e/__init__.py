"""End-to-end tests: the app over HTTP, real servers, the CLI in a subprocess, a browser, ingestion on a store."""
