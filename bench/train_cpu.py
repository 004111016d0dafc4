"""CPU training benchmark: base vs SFT vs SFT+GRPO with SmolLM2-135M-Instruct on held-out test-split tasks, live servers.

Every model plays the same held-out tasks with the rollout engine (greedy decoding, the same limits and token caps),
every call executed on the task's own fresh world. For each model:
  success        share of tasks whose final World hash equals the task's gold_state_hash
  success_write  the same over the tasks whose gold changes the state (a model that does nothing passes the others)
  prove          mean PROVE reward (prove_nb.rewards, published weights), scored on the recorded conversation
  calls          mean tool calls per task
  gen_tok_s      generated tokens per second during evaluation (2 cores, batched generation)
and for the GRPO stage: wall seconds per GRPO step (TRL's step_time: rollouts, reward and update) and the policy
tokens generated per step (tool results excluded).

Tasks: prove_nb.synthesis.synthesize (train split to train, test split held out), configured for a 2-core CPU
(CPU_SYNTH): at most 3 chained calls, one user turn, 3 tools of the server shown (the gold tools always among
them) and no distractors, so a prompt is 0.5-1.2k tokens (median 0.7k) instead of 2-4k; every assistant step re-reads
its whole prompt, and prompt reading dominates on CPU. test_frac 0.25 holds out a quarter of the tool combinations,
and synthesis grows until the test split has enough tasks.

Sizes. Evaluation: greedy in bfloat16 (all three models alike; 1.5x faster than float32 here), at most 64 new tokens
per assistant step, 3 steps, one user turn, at most 1,500 characters of each tool result read (a listing of many rows
otherwise makes every later step re-read thousands of tokens), batches of 10 tasks of similar prompt length. Measured on 2 idle cores:
reading a 1k-token prompt takes about 1.1 s per task and a decoding step of a batch of 10 about 0.19 s, so one
assistant step of a batch costs 20-30 s, and a model that calls tools takes three. A first full run with two user
turns and 96 tokens a step took 23 min for the base model and 16 s a task for the SFT model (55 min projected for
200 tasks), so the default was cut to one turn and 64 tokens to fit. SFT: 20 steps of batch 4 (80 gold conversations
of at most 1,024 tokens, about 27 s a step, learning rate 1e-4 so that few steps teach the format). GRPO: 4 steps of
group 4 and batch 8 (two tasks, eight live rollouts a step), learning rate 1e-5, no KL term (beta 0: PROVE uses 0.01,
but on a CPU the reference model's forward pass costs a third of the update and 4 steps barely move the policy from
it), completions cut at 512 tokens. --quick: 20 test tasks, 40 train tasks, 20 SFT steps of batch 2, 2 GRPO steps of
group 4 and batch 4. On a loaded machine everything stretches with the load; --test, --sft-steps and --grpo-steps
trade time for precision or training.

    python bench/train_cpu.py --quick           # a few minutes
    python bench/train_cpu.py                   # about 90 minutes on 2 cores
    python bench/train_cpu.py --resume          # continue a stopped run: recorded stages are read back
Writes runs/train_cpu-{quick,full}/ (checkpoints, metrics.jsonl, eval_*.jsonl, results.json); prints a markdown table
and one JSON line.
"""
import argparse, json, os, sys, time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from prove_nb.rollout import HFPolicy, Limits, gold_policy, load_model, rollout_batch
from prove_nb.rewards import get_reward, replay_gold
from prove_nb.synthesis import SynthConfig, synthesize
from prove_nb.server import World

SIZES = {
    "quick": dict(test=20, train=40, sft_steps=20, sft_batch=2, grpo_steps=2, group=4, grpo_batch=4, eval_tokens=64, eval_batch=10),
    "full": dict(test=200, train=300, sft_steps=20, sft_batch=4, grpo_steps=4, group=4, grpo_batch=8, eval_tokens=64, eval_batch=10),
}
LIMITS = Limits(max_steps=3, max_turns=1, max_tokens=256, max_result_chars=1500)

# ---------------------------------------------------------------------------------------------------------- tasks
CPU_SYNTH = dict(tools_per_server=3, p_distractors=0.0, p_cross_server=0.0, test_frac=0.25, max_turns=1)
CPU_DEPTH = 3  # at most 3 chained calls a task

def split_tasks(n_test: int, n_train: int, seed: int) -> tuple[list, list]:
    "(train tasks, held-out test tasks)."
    n = max(int(1.3 * n_test / CPU_SYNTH["test_frac"]), int(1.6 * n_train))
    while True:  # whole tool combinations are held out, so the test share varies: grow until there are enough
        tasks = synthesize(n, seed=seed, depth_max=CPU_DEPTH, config=SynthConfig(**CPU_SYNTH), progress=False)
        have = sum(t["split"] == "test" for t in tasks)
        if have >= n_test or n >= 40 * n_test: break
        n = int(n * 1.2 * n_test / max(have, n_test / 8))
    test = [t for t in tasks if t.get("split") == "test"][:n_test]
    train = [t for t in tasks if t.get("split") == "train"][:n_train]
    return train, test

# ------------------------------------------------------------------------------------------------------- evaluate
def gold_ceiling(tasks: list) -> float:
    "Share of tasks the gold policy completes within LIMITS: the best success any model can reach here."
    trajs = rollout_batch(tasks, gold_policy(), LIMITS)
    return mean(tr.final_hash == t["gold_state_hash"] for tr, t in zip(trajs, tasks))

def mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0

def evaluate(name: str, model_path: str, tasks: list, max_new_tokens: int, batch: int, out: Path) -> dict:
    "Play every task greedily with the model at `model_path`; success, PROVE reward, calls and generation speed."
    model, tok = load_model(model_path, dtype="bfloat16")  # bf16 reads prompts ~1.5x faster than fp32 on AVX512-BF16 CPUs
    model.eval()
    tasks = sorted(tasks, key=lambda t: len(json.dumps(t["tools"])))  # similar prompt lengths share a batch: less padding
    policy, prove = HFPolicy(model, tok, max_new_tokens, 0.0), get_reward("prove")
    t0, trajs = time.perf_counter(), []
    for i in range(0, len(tasks), batch):
        trajs += rollout_batch(tasks[i:i + batch], policy, LIMITS)
        print(f"  {name}: {len(trajs)}/{len(tasks)} tasks played, {time.perf_counter() - t0:.0f} s", flush=True)
    wall = time.perf_counter() - t0
    rewards = [prove(t, tr.to_completion()).total for t, tr in zip(tasks, trajs)]
    ok = [tr.final_hash == t["gold_state_hash"] for t, tr in zip(tasks, trajs)]
    writes = [World.for_task(t).hash() != t["gold_state_hash"] for t in tasks]
    with (out / f"eval_{name}.jsonl").open("w") as f:
        for t, tr, r, s in zip(tasks, trajs, rewards, ok):
            f.write(json.dumps({"id": t["id"], "success": s, "prove": r, "calls": tr.n_calls, "stop": tr.stop, "messages": tr.messages}) + "\n")
    gen = sum(tr.gen_tokens for tr in trajs)
    return {"model": name, "n": len(tasks), "success": mean(ok), "success_write": mean(s for s, w in zip(ok, writes) if w),
            "n_write": sum(writes), "prove": mean(rewards), "calls": mean(tr.n_calls for tr in trajs), "gen_tokens": gen,
            "eval_s": round(wall, 1), "gen_tok_s": round(gen / wall, 1), "stops": dict(Counter(tr.stop for tr in trajs))}

def grpo_timing(metrics: Path, completions_per_step: int) -> dict:
    "Mean wall seconds per GRPO step and policy tokens generated per step, from TRL's logged rows."
    rows = [r for l in metrics.read_text().splitlines() if l.strip() and "reward" in (r := json.loads(l))]
    steps = [r["step_time"] for r in rows if "step_time" in r]
    lengths = [r["completions/mean_length"] for r in rows if "completions/mean_length" in r]
    tokens = mean(lengths) * completions_per_step
    return {"grpo_step_s": round(mean(steps), 2), "grpo_tokens_per_step": round(tokens, 1),
            "grpo_tok_s": round(tokens / mean(steps), 1) if steps else 0.0,
            "grpo_reward_first": rows[0].get("reward") if rows else None, "grpo_reward_last": rows[-1].get("reward") if rows else None}

# ----------------------------------------------------------------------------------------------------------- main
def table(rows: list) -> str:
    head = "| model | tasks | success | success (state-changing) | PROVE reward | calls/task | gen tok/s | eval s |\n|---|---|---|---|---|---|---|---|\n"
    return head + "\n".join(f"| {r['model']} | {r['n']} | {r['success']:.3f} | {r['success_write']:.3f} ({r['n_write']}) | {r['prove']:.3f} | "
                            f"{r['calls']:.2f} | {r['gen_tok_s']} | {r['eval_s']} |" for r in rows)

def stage(out: Path, name: str, run, resume: bool) -> dict:
    "Run a stage and keep its record in out/stage_NAME.json; with `resume`, a recorded stage is read back instead."
    f = out / f"stage_{name}.json"
    if resume and f.exists(): return json.loads(f.read_text())
    t = time.perf_counter()
    rec = run()
    rec["stage_s"] = round(time.perf_counter() - t, 1)
    f.write_text(json.dumps(rec, indent=1))
    return rec

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few minutes instead of about 90")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--test", type=int, help="held-out test tasks (default: by size)")
    ap.add_argument("--sft-steps", type=int)
    ap.add_argument("--grpo-steps", type=int)
    ap.add_argument("--sft-lr", type=float, default=1e-4)
    ap.add_argument("--grpo-lr", type=float, default=1e-5)
    ap.add_argument("--out", help="output folder (default runs/train_cpu-quick or runs/train_cpu-full)")
    ap.add_argument("--resume", action="store_true", help="reuse the stages already recorded in the output folder")
    a = ap.parse_args(argv)
    size = "quick" if a.quick else "full"
    cfg = {**SIZES[size], **{k: v for k, v in (("test", a.test), ("sft_steps", a.sft_steps), ("grpo_steps", a.grpo_steps)) if v is not None}}
    out = Path(a.out or ROOT / "runs" / f"train_cpu-{size}"); out.mkdir(parents=True, exist_ok=True)
    from prove_nb.sft import train_sft
    from prove_nb.grpo import train_grpo
    t_all = time.perf_counter()
    train, test = split_tasks(cfg["test"], cfg["train"], a.seed)
    print(f"tasks: {len(train)} train, {len(test)} held-out test", flush=True)
    ev = lambda name, path: lambda: evaluate(name, path, test, cfg["eval_tokens"], cfg["eval_batch"], out)
    rows = [stage(out, "eval_base", ev("base", "smollm2-135m"), a.resume)]
    print(table(rows[-1:]), flush=True)
    sft = stage(out, "sft", lambda: {"checkpoint": str(train_sft(train, str(out / "sft"), steps=cfg["sft_steps"], lr=a.sft_lr,
                                                                  batch_size=cfg["sft_batch"], max_length=1024, seed=a.seed))}, a.resume)
    rows.append(stage(out, "eval_sft", ev("sft", sft["checkpoint"]), a.resume))
    print(table(rows[-1:]), flush=True)
    grpo = stage(out, "grpo", lambda: {"checkpoint": str(train_grpo(train, str(out / "grpo"), model=sft["checkpoint"], steps=cfg["grpo_steps"],
                                                                    group=cfg["group"], batch_size=cfg["grpo_batch"], lr=a.grpo_lr, beta=0.0,
                                                                    limits=LIMITS, max_new_tokens=cfg["eval_tokens"], max_completion=512,
                                                                    seed=a.seed))}, a.resume)
    rows.append(stage(out, "eval_sft+grpo", ev("sft+grpo", grpo["checkpoint"]), a.resume))
    times = {"sft_s": sft["stage_s"], "grpo_s": grpo["stage_s"]}
    timing = grpo_timing(out / "grpo" / "metrics.jsonl", cfg["grpo_batch"])
    res = {"bench": "train_cpu", "size": size, "gold_ceiling": gold_ceiling(test), "train_tasks": len(train), "test_tasks": len(test), "config": cfg,
           "sft_lr": a.sft_lr, "grpo_lr": a.grpo_lr, "rows": rows, **timing, **times,
           "total_s": round(sum(r["stage_s"] for r in rows) + sum(times.values()), 1), "wall_s": round(time.perf_counter() - t_all, 1),
           "sft_beats_base": rows[1]["prove"] > rows[0]["prove"],
           "grpo_beats_sft": rows[2]["success"] >= rows[1]["success"] and rows[2]["prove"] > rows[1]["prove"] and rows[2]["calls"] <= rows[1]["calls"]}
    (out / "results.json").write_text(json.dumps(res, indent=1))
    print(table(rows))
    print(f"\nGRPO: {timing['grpo_step_s']} s/step, {timing['grpo_tokens_per_step']} policy tokens/step ({timing['grpo_tok_s']} tok/s incl. update); "
          f"SFT {times['sft_s']} s, GRPO {times['grpo_s']} s, total {res['total_s']} s")
    print(json.dumps(res))

if __name__ == "__main__":
    main()
