#!/usr/bin/env bash
# One short GPU check for a lent machine without network (under 8 minutes on one H200): random Qwen3-architecture
# models of 0.6B and 4B parameters built from a config, the tokenizer carried in bench/tokenizer, GRPO steps of LoRA
# training with live rollouts on a banking MCP server, timed with Unsloth against plain TRL + PEFT. Uses the Python
# environment there (.venv if present, else $PYTHON or python3; bench/device/run.sh first installs the carried wheels);
# prints a markdown table and one JSON line, and writes $OUT/gpu_check.json and $OUT/gpu_check.md when $OUT is set.
# GPU_CHECK_BUDGET (seconds, default 440) bounds all cases together. Extra arguments go to bench/gpu_check.py.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export TRL_EXPERIMENTAL_SILENCE=1 UNSLOTH_DISABLE_STATISTICS=1 VLLM_NO_USAGE_STATS=1 PYTHONUNBUFFERED=1
PY=${PYTHON:-$([ -x .venv/bin/python ] && echo .venv/bin/python || echo python3)}
BUDGET=${GPU_CHECK_BUDGET:-440}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: no GPU visible"
"$PY" -c 'import torch, transformers, trl, peft, datasets, mcp; print("torch", torch.__version__, "cuda", torch.version.cuda, "| transformers", transformers.__version__, "| trl", trl.__version__, "| peft", peft.__version__, "| datasets", datasets.__version__)' || echo "an import failed: the cases below record why"
"$PY" -c 'import importlib.util as u; print("unsloth", "installed (imported by its own case)" if u.find_spec("unsloth") else "not installed")'
exec timeout $(( BUDGET + 30 )) "$PY" bench/gpu_check.py --budget "$BUDGET" ${OUT:+--out "$OUT/gpu_check.json"} "$@"
