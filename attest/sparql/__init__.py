"""SPARQL 1.1 Protocol: request parsing, content negotiation, the query executor and result streaming."""
