# Two entry points for a fresh machine: `make demo` (install, ingest the demo corpus, serve) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo serve test test-fast bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,bench]'
	touch $(STAMP)

demo: install
	$(BIN)/attest ingest demo/
	$(BIN)/attest serve

serve: install
	$(BIN)/attest serve

test: install
	$(BIN)/pytest -q -p no:cacheprovider

bench: install
	$(BIN)/python bench/sparql_endpoint.py
	$(BIN)/python bench/reasoner.py
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/answer.py

clean:
	rm -rf $(VENV) data build *.egg-info
