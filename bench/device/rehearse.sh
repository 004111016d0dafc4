#!/usr/bin/env bash
# The device check rehearsed on this CPU machine, end to end (about 5 minutes on 2 cores, PyPI reachable):
#  1. the device's wheel folder: bench/device/prepare.py for CPython 3.12 -> build/device-wheels (sizes in its manifest);
#  2. its install by a CPython 3.12 with pip --no-index into a target folder, and the import of its compiled
#     cp312 wheels (pydantic-core, rpds-py, msgspec, cffi, cryptography) under 3.12;
#  3. a stand-in for the device: a CPython 3.11 venv with CPU torch 2.13, transformers 5.17, peft 0.21, accelerate 1.15
#     and the device-image packages the wheels need (no torch 2.11 or CPU torch wheel for 3.12 can be had here), and the
#     same wheel set prepared for 3.11;
#  4. the device command itself, bench/device/run.sh, on that stand-in and without network: install, requirement check, imports, the GPU
#     check on the CPU with a tiny random Qwen3 (both backends: Unsloth's row records why it cannot run on a CPU),
#     and the scale notebook's GPU cells (recorded as not runnable without a GPU).
# Writes everything under build/device-rehearsal/ (ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=$PWD/build/device-rehearsal; rm -rf "$R"; mkdir -p "$R/out"
PY312=${PY312:-$(ls /root/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | head -1)}; PY312=${PY312:-python3.12}
STANDIN=${STANDIN:-/tmp/device-standin}
t() { echo "[$(date -u +%T)] $*"; }
t "1. prepare the cp312 wheel folder"; time .venv/bin/python bench/device/prepare.py
t "2. install it with CPython 3.12, --no-index, into a target folder"
time "$PY312" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$R/site312" build/device-wheels/part*/*.whl
du -sh "$R/site312"
"$PY312" -m pip install -q --target "$R/standin312" typing-extensions  # on the device already: the one the imports below need
PYTHONPATH="$R/site312:$R/standin312" "$PY312" -c 'import pydantic_core, rpds, msgspec, cffi, cryptography, multiprocess, dill, json5, structlog, sys; print("cp312 compiled wheels import under", sys.version.split()[0], "| pydantic-core", pydantic_core.__version__, "| cryptography", cryptography.__version__)'
t "3. the stand-in for the device (CPython 3.11) and the same wheel set for 3.11"
if [ ! -x "$STANDIN/bin/python" ]; then
  python3.11 -m venv "$STANDIN"
  "$STANDIN/bin/pip" install -q torch==2.13.0 transformers==5.17.0 peft==0.21.2 accelerate==1.15.0 huggingface-hub==1.33.0 safetensors==0.8.0 \
    tokenizers sentencepiece anyio attrs certifi click einops filelock fsspec h11 httpx idna jinja2 numpy packaging pandas pillow protobuf \
    psutil pyarrow pyyaml regex requests rich tqdm typer typing-extensions wheel xxhash matplotlib
fi
.venv/bin/python bench/device/prepare.py --python-version 3.11 --out "$R/wheels311"
t "4. the device command on the stand-in"
# without network, as there: a network namespace with only loopback (where unshare is allowed)
NONET=(); unshare -n true 2>/dev/null && NONET=(unshare -n sh -c 'ip link set lo up && exec "$@"' -) && echo "no network: ${NONET[*]}"
time "${NONET[@]}" env PYTHON="$STANDIN/bin/python" SITE="$R/site311" OUT="$R/out" WHEELS_DIR="$R/wheels311" BUDGET=${BUDGET:-420} OMP_NUM_THREADS=1 \
  bash bench/device/run.sh --cpu --sizes tiny
ls -la "$R/out"
