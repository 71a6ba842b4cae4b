"""`python -m app.cli` runs the command line."""

from app.cli import main

main()
