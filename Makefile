# Courtyard Ludo. User-facing targets:
#   make serve   install what is needed, then serve the game at http://127.0.0.1:8000/
#   make test    install test dependencies (and Debian's chromium, redis-server and coturn if
#                missing), lint, run all tests
#                and list the slowest ones
#   make dist    write dist/, a self-contained static copy of the site
#   make bench   boot-time (and other) benchmarks in bench/ (installs requirements-bench.txt too)
# HOST and PORT choose where `make serve` listens, e.g. `HOST=0.0.0.0 PORT=8080 make serve`.
# Each of serve, test, dist and bench first renders icons/*.png from icons/icon.svg, packs the
# page's Python modules into py.zip and writes sw.js (the service worker with its precache
# list); all three are build output, not committed.
# Every install step leaves a stamp file inside the tree it fills (.venv, node_modules, vendor),
# so a second run does nothing, and deleting that tree forgets the stamp with it.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := serve

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
PIP := $(VPY) -m pip --disable-pip-version-check

REQ_STAMP := $(VENV)/.requirements.stamp
TEST_STAMP := $(VENV)/.requirements-test.stamp
BENCH_STAMP := $(VENV)/.requirements-bench.stamp
NPM_STAMP := node_modules/.npm-ci.stamp
VENDOR_STAMP := vendor/.vendored.stamp

.PHONY: serve test dist bench pyscript-toml chromium debian-programs icons pybundle sw

serve: $(REQ_STAMP) $(VENDOR_STAMP) pyscript-toml icons sw
	$(VPY) -m server

# -n 2: two pytest-xdist workers, each with its own server and Chromium (tests/e2e/conftest.py's
# session fixtures are per worker). --dist loadgroup: the tests marked with an xdist_group (the
# online tests, several browsers each) share one worker; tests/conftest.py orders the tests.
# --durations lists the slowest tests after the summary.
# `make test PYTEST_ARGS=` runs the suite in one process, as a plain `pytest` does.
PYTEST_ARGS ?= -n 2 --dist loadgroup --durations=15

# pyscript.toml is deliberately not regenerated here: tests/test_pyscript_toml.py checks that the
# committed file is what the generator writes, and regenerating first would hide that drift.
test: $(TEST_STAMP) $(VENDOR_STAMP) debian-programs icons sw
	$(VPY) -m ruff check .
	$(VPY) -m mypy
	$(VPY) -m pytest $(PYTEST_ARGS)

# build_dist.py builds py.zip itself, and writes dist/sw.js from the files it copied.
dist: $(VENDOR_STAMP) pyscript-toml icons
	$(PYTHON) tools/build_dist.py

# Every bench/*.py script with a main guard is a benchmark (boot.py starts its own server and
# browser); the others (outside_gilgiti.py, outside_royal.py) are players that outside.py
# imports, which print nothing when run.
bench: $(BENCH_STAMP) $(VENDOR_STAMP) pyscript-toml debian-programs icons sw
	for script in bench/*.py; do \
	  grep -q '^if __name__ == "__main__":' "$$script" || continue; \
	  echo "== $$script"; $(VPY) "$$script"; \
	done

$(VPY):
	$(PYTHON) -m venv $(VENV)

# The editable install puts py/ludo on the venv's path, so `.venv/bin/python -m ludo` works.
$(REQ_STAMP): requirements.txt pyproject.toml | $(VPY)
	$(PIP) install --quiet -r requirements.txt
	$(PIP) install --quiet -e .
	touch $@

$(TEST_STAMP): requirements-test.txt $(REQ_STAMP)
	$(PIP) install --quiet -r requirements-test.txt
	touch $@

# Only the benchmarks need ludopy and its numpy and opencv (about 260 MB): not `make test`.
$(BENCH_STAMP): requirements-bench.txt $(TEST_STAMP)
	$(PIP) install --quiet -r requirements-bench.txt
	touch $@

# Install scripts are not needed: the packages ship their files ready-made.
$(NPM_STAMP): package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# The venv's Python: it also copies the pinned pure-Python packages the page imports (segno).
$(VENDOR_STAMP): $(NPM_STAMP) $(REQ_STAMP) tools/vendor.py tools/make_snapshot.mjs \
		tools/pyodide_boot.mjs
	$(VPY) tools/vendor.py
	touch $@

# Cheap, and writes only when its text changed, so it runs every time.
pyscript-toml:
	$(PYTHON) tools/gen_pyscript_toml.py

# All three write only what changed, so they run every time. sw.js hashes the icons, the
# vendored runtime, py.zip and pyscript.toml as they are (test does not regenerate the
# latter, see above), so it comes after them in each target's list. py.zip compiles its
# bytecode with the vendored Pyodide in node (a few seconds), but only when a module changed.
icons: $(REQ_STAMP)
	$(VPY) tools/build_icons.py

pybundle: $(VENDOR_STAMP)
	$(PYTHON) tools/build_pybundle.py

sw: $(VENDOR_STAMP) icons pybundle
	$(PYTHON) tools/build_sw.py

# Debian programs the tests drive, installed with apt-get (as root) when missing: chromium for
# the browser tests (Playwright cannot download its own browsers here), redis-server for the
# signalling helpers sharing rooms across instances, and coturn's turnserver for TURN relaying
# (tests/test_signal_redis.py, tests/test_signal_cluster.py, tests/e2e/test_turn.py). Each is
# "program:package". LUDO_CHROMIUM or CHROMIUM_PATH naming a browser stands for chromium.
DEBIAN_PROGRAMS := chromium:chromium redis-server:redis-server turnserver:coturn

debian-programs:
	@missing=""; programs=""; \
	for pair in $(DEBIAN_PROGRAMS); do \
	  program="$${pair%%:*}"; package="$${pair#*:}"; \
	  if [ "$$program" = chromium ] && [ -n "$${LUDO_CHROMIUM:-}$${CHROMIUM_PATH:-}" ]; then continue; fi; \
	  command -v "$$program" >/dev/null 2>&1 || { missing="$$missing $$package"; programs="$$programs $$program"; }; \
	done; \
	if [ -z "$$missing" ]; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "Installing Debian's$$missing for the tests"; \
	  apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  for program in $$programs; do command -v "$$program" >/dev/null 2>&1 || { \
	    echo "error: $$program still missing after apt-get install$$missing" >&2; exit 1; }; done; \
	else \
	  costs=""; without=""; skipped=""; \
	  case " $$programs " in *" chromium "*) costs="; without chromium the browser tests fail (or set LUDO_CHROMIUM to a Chromium)";; esac; \
	  case " $$programs " in *" redis-server "*) without="redis-server"; skipped="Redis";; esac; \
	  case " $$programs " in *" turnserver "*) \
	    without="$${without:+$$without and }coturn"; skipped="$${skipped:+$$skipped and }TURN";; esac; \
	  if [ -n "$$skipped" ]; then costs="$$costs; without $$without the $$skipped tests skip"; fi; \
	  echo "warning: missing$$missing and no root apt-get: install with \`apt-get install$$missing\` as root$$costs" >&2; \
	fi

# The old name of the step above.
chromium: debian-programs
