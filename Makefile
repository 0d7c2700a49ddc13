# `make run` / `make test` work on a fresh machine: they create .venv and install the project into it.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench render-all clean dist

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/tabletop

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# Standalone one-folder build (dist/tabletop/) with PyInstaller; see docs/install.md.
dist: $(STAMP)
	$(BIN)/python -c 'import PyInstaller' 2>/dev/null || $(BIN)/python -m pip install -q 'pyinstaller>=6,<7'
	$(BIN)/python packaging/build.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
