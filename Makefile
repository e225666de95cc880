# The README's two commands: `make demo` (the main job) and `make test` (the test suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test test-slow demo lint bench soak clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt torch==2.13.0
	$(BIN)/pip install --quiet -c constraints.txt -e '.[train,eval,fast,rllib,video,dev]'
	touch $(STAMP)

# --dist loadgroup: the Ray tests (xdist_group "ray") share one worker, one Ray and one set of runs
test: install
	$(BIN)/pytest -q -n 2 --dist loadgroup

test-slow: install
	$(BIN)/pytest -q -n 2 -m slow

# The main job: train a short PPO run of the default config, evaluate it against the built-in
# agents, export it (runs/demo/model), print the table.
demo: install
	$(BIN)/kc train configs/default.yaml --run runs/demo --overwrite
	$(BIN)/kc export runs/demo runs/demo/model --deals 1000 --against random,greedy,heuristic --overwrite

lint: install
	$(BIN)/ruff check kc_env training tests benchmarks

bench: install
	$(BIN)/kc bench

soak: install
	$(BIN)/python benchmarks/soak.py

clean:
	rm -rf $(VENV) build *.egg-info
