"""HTTP routes: thin FastAPI routers over the pipeline modules."""
