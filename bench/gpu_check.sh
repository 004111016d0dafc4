#!/usr/bin/env bash
# One short GPU check for a lent machine without network (under 8 minutes on one H200): random Qwen3-architecture
# models of 0.6B and 4B parameters built from a config, the tokenizer carried in bench/tokenizer, one GRPO step of
# LoRA training timed with Unsloth against plain TRL + PEFT. Uses the Python environment already installed there
# (.venv if present, else $PYTHON or python3); prints a markdown table and one JSON line, and writes the JSON to
# $OUT/gpu_check.json when $OUT is set. Extra arguments go to bench/gpu_check.py (e.g. --sizes 0.6b).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export TRL_EXPERIMENTAL_SILENCE=1 UNSLOTH_DISABLE_STATISTICS=1 VLLM_NO_USAGE_STATS=1 PYTHONUNBUFFERED=1
PY=${PYTHON:-$([ -x .venv/bin/python ] && echo .venv/bin/python || echo python3)}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: no GPU visible"
"$PY" -c 'import torch, transformers, trl, peft; print("torch", torch.__version__, "cuda", torch.version.cuda, "| transformers", transformers.__version__, "| trl", trl.__version__, "| peft", peft.__version__)'
"$PY" -c 'import unsloth; print("unsloth", unsloth.__version__)' 2>/dev/null || echo "unsloth not importable"
exec timeout 470 "$PY" bench/gpu_check.py --budget 440 ${OUT:+--out "$OUT/gpu_check.json"} "$@"
