# Two entry points for a fresh machine: `make demo` (install, ingest the demo corpus, serve) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
VENDOR := attest/static/vendor/yasgui.min.js attest/static/vendor/cytoscape.min.js

.PHONY: install wordnet chromium virtuoso nginx docs demo serve test test-fast test-oxigraph test-virtuoso bench clean

install: $(STAMP) $(VENDOR) wordnet

# Debian packages the UI build and the browser test need, installed only when missing (sudo when not root)
APT := $(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get

# the browser UI: YASGUI and Cytoscape.js pinned in ui/package-lock.json, copied into the package's static files
$(VENDOR) &: ui/package.json ui/package-lock.json
	command -v npm >/dev/null || { $(APT) update -q && $(APT) install -y -q nodejs npm; }
	npm ci --prefix ui --no-audit --no-fund
	mkdir -p attest/static/vendor
	cp ui/node_modules/@zazuko/yasgui/build/yasgui.min.js ui/node_modules/@zazuko/yasgui/build/yasgui.min.css attest/static/vendor/
	cp ui/node_modules/cytoscape/dist/cytoscape.min.js attest/static/vendor/

# WordNet 3.0's database, read in place by attest/answer/lexicon.py: the relation words of a question meet a
# graph's predicate names through its synonyms, derivations and hypernyms ("couple" ~ "spouse"); without it,
# matching falls back to spelling alone
wordnet:
	test -f /usr/share/wordnet/index.noun || { $(APT) update -q && $(APT) install -y -q --no-install-recommends wordnet-base; }

chromium:
	test -x /usr/bin/chromium || { $(APT) update -q && $(APT) install -y -q chromium; }

# Virtuoso open source for ATTEST_TEST_STORE=virtuoso (the tests start their own server; no service is enabled).
# The package asks for a dba password: preseeded, it only guards the package's own database, which the tests never use.
VIRTUOSO_PRESEED := virtuoso-opensource-7 virtuoso-opensource-7/dba-password password dba\nvirtuoso-opensource-7 virtuoso-opensource-7/dba-password-again password dba\n
virtuoso:
	command -v virtuoso-t >/dev/null || { printf '$(VIRTUOSO_PRESEED)' | $(if $(filter 0,$(shell id -u)),,sudo) debconf-set-selections \
		&& $(APT) update -q && $(APT) install -y -q --no-install-recommends virtuoso-opensource-7; }

# nginx for the test that runs the compose `cluster` profile's balancer config in front of two replicas (tests/e2e/test_cluster.py)
nginx:
	command -v nginx >/dev/null || test -x /usr/sbin/nginx || { $(APT) update -q && $(APT) install -y -q --no-install-recommends nginx-light; }

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,bench]'
	touch $(STAMP)

# the documentation site (docs/, mkdocs.yml) into attest/static/guide/, which `attest serve` serves at /guide/
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

demo: install docs
	$(BIN)/attest ingest demo/corpus/
	$(BIN)/attest serve

serve: install
	$(BIN)/attest serve

# the tests live in tests/unit (fast, no server) and tests/e2e; the end-to-end modules marked `remote` run a second
# time against a real Oxigraph server (ATTEST_TEST_STORE=oxigraph) or Virtuoso (docs/development.md, "Tests")
test: install chromium nginx
	$(BIN)/ruff check
	$(BIN)/mypy
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict
	$(BIN)/pytest -q -p no:cacheprovider
	ATTEST_TEST_STORE=oxigraph $(BIN)/pytest -q -p no:cacheprovider -m remote

# the unit tests but the slow ones, for use while working (under 2 minutes); `make test` is what CI runs
test-fast: install
	$(BIN)/pytest -q -p no:cacheprovider -m "not slow" tests/unit

test-oxigraph: install
	ATTEST_TEST_STORE=oxigraph $(BIN)/pytest -q -p no:cacheprovider -m remote
	ATTEST_TEST_STORE=oxigraph $(BIN)/pytest -q -p no:cacheprovider tests/e2e/test_remote_store.py

# the same end-to-end modules against a real Virtuoso open-source server (see README, "Remote store"); not part of
# `make test`, whose two steps already take most of CI's 30 minutes on 2 cores
test-virtuoso: install virtuoso
	ATTEST_TEST_STORE=virtuoso $(BIN)/pytest -q -p no:cacheprovider -m remote

bench: install
	$(BIN)/python bench/sparql_endpoint.py
	$(BIN)/python bench/reasoner.py
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/answer.py

clean:
	rm -rf $(VENV) data build *.egg-info attest/static/guide
