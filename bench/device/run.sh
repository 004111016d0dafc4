#!/usr/bin/env bash
# The device command: on the lent GPU machine (Python 3.12, torch 2.11, transformers 5.17, peft, accelerate; no network),
# install the wheels carried in build/device-wheels/part*/ into a target folder with no index, check that every
# requirement is met, then run the GPU check (bench/gpu_check.py) and the scale notebook's GPU cells within a budget.
# Everything lands in $OUT (at most 8 files): verify.txt, gpu_check.json, gpu_check.md, gpu_check.log, scale_gpu_cells.json.
#
#   run(command="bash bench/device/run.sh", carry=["build/device-wheels"], timeout_s=480)     # one call, when the wheels fit
#   run(command="bash bench/device/run.sh --install-only", carry=["build/device-wheels/part1"]) # two calls on the same warm
#   run(command="bash bench/device/run.sh", carry=["build/device-wheels/part2"])                # machine, when they do not
#
# Extra arguments go to bench/gpu_check.py (e.g. --sizes 0.6b). BUDGET (seconds, default 360) bounds the whole command;
# PYTHON, SITE (the target folder), WHEELS_DIR and OUT can be set (the local rehearsal does: see bench/device/rehearse.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
T0=$(date +%s); BUDGET=${BUDGET:-360}
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
PY=${PYTHON:-python3}; SITE=${SITE:-$PWD/build/device-site}; OUT=${OUT:-$PWD/build/device-out}
mkdir -p "$OUT" "$SITE"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: no GPU visible"
"$PY" --version
shopt -s nullglob; WHEELS=("${WHEELS_DIR:-build/device-wheels}"/part*/*.whl)
echo "installing ${#WHEELS[@]} wheels into $SITE"
if [ ${#WHEELS[@]} -gt 0 ]; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" "${WHEELS[@]}" 2>&1 | grep -v "^WARNING: Running pip as" || true
fi
export PYTHONPATH="$SITE:$PWD${PYTHONPATH:+:$PYTHONPATH}"
"$PY" bench/device/verify.py --site "$SITE" 2>&1 | tee "$OUT/verify.txt"
# torchao (an Unsloth requirement, used only for fp8 and QAT) is built for one torch; if it breaks the plain imports, drop it
if ! "$PY" -c 'import peft, trl, datasets, mcp' >/dev/null 2>"$SITE/.import_err"; then
  tail -3 "$SITE/.import_err" | tee -a "$OUT/verify.txt"
  if grep -q torchao "$SITE/.import_err"; then rm -rf "$SITE"/torchao "$SITE"/torchao-*.dist-info; echo "torchao removed: it broke the imports" | tee -a "$OUT/verify.txt"; fi
fi
echo "install and verify: $(( $(date +%s) - T0 )) s"
[ "${1:-}" = "--install-only" ] && exit 0
PYTHON="$PY" GPU_CHECK_BUDGET=$(( $(left) - 30 )) bash bench/gpu_check.sh "$@" 2>&1 | tee "$OUT/gpu_check.log"
"$PY" bench/device/scale_cells.py --out "$OUT/scale_gpu_cells.json" --budget $(( $(left) - 10 )) 2>&1 | tail -5
echo "device command: $(( $(date +%s) - T0 )) s"
