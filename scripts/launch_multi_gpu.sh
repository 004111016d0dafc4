#!/usr/bin/env bash
# Multi-GPU GRPO on one node, in three steps:
#   1. `trl vllm-serve` on GPU 0 generates for every rank (the trainer pushes new weights to it before each batch);
#   2. `prove serve NAME --transport http` once per server the tasks use, shared by all ranks (a session per rollout);
#   3. `accelerate launch` with DeepSpeed ZeRO-2/3 on the other GPUs runs scripts/train_grpo_multi.py.
# The servers are stopped when training ends (or fails). Logs go to OUT/logs, the server map to OUT/mcp.json.
#
# usage: scripts/launch_multi_gpu.sh --data DIR|FILE [--model Qwen/Qwen3-4B] [--out runs/multi] [--zero 3] [--gpus N]
#            [--vllm-port 8000] [--mcp-port 8765] [--size small] [--max-model-len 8192] [-- args for train_grpo_multi.py]
# e.g.   prove synth --n 20000 --out data/synth && scripts/launch_multi_gpu.sh --data data/synth -- --steps 350 --lora-rank 0
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL=Qwen/Qwen3-4B DATA="" OUT=runs/multi ZERO=3 GPUS="" VLLM_PORT=8000 MCP_PORT=8765 SIZE=small MAX_MODEL_LEN=8192
PY=${PYTHON:-python}
while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --zero) ZERO=$2; shift 2 ;;
    --gpus) GPUS=$2; shift 2 ;;
    --vllm-port) VLLM_PORT=$2; shift 2 ;;
    --mcp-port) MCP_PORT=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --max-model-len) MAX_MODEL_LEN=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown option: $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
EXTRA=("$@")
[ -n "$DATA" ] || { echo "--data DIR|FILE is required (a prove synth output folder or its tasks.jsonl)" >&2; exit 2; }
TASKS=$DATA; [ -d "$DATA" ] && TASKS=$DATA/tasks.jsonl
[ -f "$TASKS" ] || { echo "no tasks file at $TASKS" >&2; exit 2; }
case "$ZERO" in 2|3) ;; *) echo "--zero must be 2 or 3" >&2; exit 2 ;; esac
GPUS=${GPUS:-$(nvidia-smi -L | wc -l)}
[ "$GPUS" -ge 2 ] || { echo "need at least 2 GPUs: one for vLLM, the rest for training (found $GPUS)" >&2; exit 1; }
NPROC=$((GPUS - 1))
mkdir -p "$OUT/logs"

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

wait_port() {  # wait_port PORT SECONDS PID: until 127.0.0.1:PORT accepts connections; fails if PID exits first
  for _ in $(seq 1 "$2"); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || { echo "the process for port $1 exited (see $OUT/logs)" >&2; return 1; }
    sleep 1
  done
  echo "nothing listens on port $1 after $2 s (see $OUT/logs)" >&2; return 1
}

# Step 1: the generation server on GPU 0 (model weights are updated in place by the trainer over NCCL).
echo "[1/3] trl vllm-serve $MODEL on GPU 0, port $VLLM_PORT"
CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model "$MODEL" --port "$VLLM_PORT" --gpu_memory_utilization 0.9 \
  --max_model_len "$MAX_MODEL_LEN" > "$OUT/logs/vllm.log" 2>&1 &
VLLM_PID=$!
PIDS+=($VLLM_PID)

# Step 2: one MCP server per server name the tasks use, on consecutive ports.
SERVERS=$("$PY" -c 'import json, sys; print(" ".join(sorted({s for l in open(sys.argv[1]) if l.strip() for s in json.loads(l)["servers"]})))' "$TASKS")
echo "[2/3] MCP servers over HTTP from port $MCP_PORT: $SERVERS"
MAP="{" PORT=$MCP_PORT
for s in $SERVERS; do
  prove serve "$s" --transport http --port "$PORT" --size "$SIZE" --admin > "$OUT/logs/mcp-$s.log" 2>&1 &
  PIDS+=($!)
  MAP+="\"$s\": \"http://127.0.0.1:$PORT/mcp\", "
  PORT=$((PORT + 1))
done
echo "${MAP%, }}" > "$OUT/mcp.json"
for ((i = 0; i < PORT - MCP_PORT; i++)); do wait_port $((MCP_PORT + i)) 60 "${PIDS[i + 1]}"; done
wait_port "$VLLM_PORT" 900 "$VLLM_PID"
for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$VLLM_PORT/health" > /dev/null && break; sleep 2; done

# Step 3: the training ranks on GPUs 1..N-1.
DEVICES=$(seq -s, 1 "$NPROC")
echo "[3/3] accelerate launch, ZeRO-$ZERO, $NPROC ranks on GPUs $DEVICES"
CUDA_VISIBLE_DEVICES=$DEVICES accelerate launch --config_file "scripts/accelerate/zero$ZERO.yaml" --num_processes "$NPROC" \
  scripts/train_grpo_multi.py --model "$MODEL" --data "$TASKS" --out "$OUT" --vllm-url "http://127.0.0.1:$VLLM_PORT" \
  --mcp "$OUT/mcp.json" --size "$SIZE" "${EXTRA[@]}"
echo "done: $OUT/checkpoint, $OUT/metrics.jsonl, $OUT/rewards.png"
