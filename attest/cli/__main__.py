"""`python -m attest.cli` runs the command line."""

from attest.cli import main

main()
