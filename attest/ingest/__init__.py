"""Ingestion: load -> chunk -> extract -> validate -> resolve -> map to RDF -> SHACL gate -> atomic commit."""
