# The README's two commands: `make demo` (the main job) and `make test` (the test suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install browser test test-slow demo lint bench soak screenshots video clean

install: $(STAMP)

# setup.py: a change to the packages it finds needs a reinstall
$(STAMP): pyproject.toml constraints.txt setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt torch==2.13.0
	$(BIN)/pip install --quiet -c constraints.txt -e '.[train,eval,rllib,video,web,dev,openspiel,rlcard,torchrl,tianshou]'
	touch $(STAMP)

# The web table's browser tests (tests/test_web_browser.py) drive Debian's chromium through
# Playwright (no browser can be downloaded): installed here, as root, when it is missing.
browser:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null; then \
		echo "make: installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			chromium fonts-liberation fonts-dejavu-core > /dev/null; \
	else \
		echo "make: no /usr/bin/chromium and not root to apt-get install it: the browser tests will skip"; \
	fi

# --dist loadgroup: the Ray tests (xdist_group "ray") share one worker, one Ray and one set of runs
test: install browser
	$(BIN)/pytest -q -n 2 --dist loadgroup

test-slow: install browser
	$(BIN)/pytest -q -n 2 -m slow

# The web table's pictures in docs/media (README, docs/web.md), taken in the headless browser
screenshots: install browser
	$(BIN)/python tests/browser.py docs/media

# The recorded game in docs/media (docs/environments.md): the heuristic against the heuristic
video: install
	$(BIN)/python docs/media/record_video.py --out docs/media

# The main job: train the default config (PPO over whole turns), evaluate it against the built-in
# agents, export it (runs/demo/exported), print the table.
demo: install
	$(BIN)/kc train configs/default.yaml --run runs/demo --overwrite
	$(BIN)/kc export runs/demo runs/demo/exported --deals 1000 --against random,greedy,heuristic --overwrite

lint: install
	$(BIN)/ruff check kc_env training tests benchmarks research docs/media setup.py

bench: install
	$(BIN)/kc bench

soak: install
	$(BIN)/python benchmarks/soak.py

clean:
	rm -rf $(VENV) build *.egg-info
