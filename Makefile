# `make run` / `make test` work on a fresh machine: they create .venv and install the project into it.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-all mutate bench render-all clean dist screenshots

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# OpenCV's contrib wheel (ximgproc's EdgeDrawing) replaces the plain one: the two must never be installed together.
	$(BIN)/python -m pip uninstall -q -y opencv-python-headless opencv-python 2>/dev/null || true
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/tabletop

# The everyday run: everything but the slow tests (soak, kill-mid-write, real window, builds), well
# under two minutes. pytest-xdist runs one worker per core; --dist loadfile keeps each file's tests
# together in one worker (its module fixtures computed once, its tests in their written order).
# WORKERS=0 runs everything in one process; WORKERS=2 picks the number.
WORKERS ?= auto
# One BLAS thread per worker: the workers already fill every core, and numpy's OpenBLAS threads beside them only
# wait for each other (test_photo_markers.py on 2 workers, 2 cores: 110 and 97 s of CPU against 119 and 127 s).
TEST_ENV = OPENBLAS_NUM_THREADS=1
test: $(STAMP)
	$(TEST_ENV) $(BIN)/python -m pytest -q -m "not slow" -n $(WORKERS) --dist loadfile --no-loadscope-reorder

# Everything, slow tests included (what CI runs), in one run on every core. tests/conftest.py orders the files
# heaviest first (the `slow` files that are not photo work: the soak, kills, real windows, builds; then the files
# with a `cpu` test: 12 MP photos), and --no-loadscope-reorder keeps that order, so the run ends on short files. Until 2026-11-28 the slow tests ran
# in a second, one-process stage so that nothing competed with them; that stage left a core idle for most of its
# 7 minutes, and CI took 17-19 min. Every slow test waits for conditions, not for time, and the soak measures
# its memory against its own warm-up, so a second worker beside it changes nothing they check.
test-all: $(STAMP)
	$(TEST_ENV) $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadfile --no-loadscope-reorder

# Mutation testing of the core (config: [tool.mutmut] in pyproject.toml; scores: docs/testing.md).
# Niced: it keeps the machine's cores busy for a long while. MUTANTS="tabletop.contact*" narrows it.
MUTANTS ?=
mutate: $(STAMP)
	$(BIN)/python -m pip install -q 'mutmut>=3.8,<4'
	HYPOTHESIS_PROFILE=mutation nice -n 19 $(BIN)/mutmut run $(foreach m,$(MUTANTS),'$(m)')
	$(BIN)/python -m tests.mutation_score

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# The README's pictures (docs/images): the app's from the real app under Xvfb driven by xdotool, the
# others from the command line. tests/test_xvfb_screenshots.py fails when one no longer matches.
screenshots: $(STAMP)
	$(BIN)/python -m tests.screenshots

# Standalone one-folder build (dist/tabletop/) with PyInstaller; see docs/install.md.
dist: $(STAMP)
	$(BIN)/python -c 'import PyInstaller' 2>/dev/null || $(BIN)/python -m pip install -q 'pyinstaller>=6,<7'
	$(BIN)/python packaging/build.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
