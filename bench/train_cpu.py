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

Tasks: prove_nb.synthesis.synthesize (train split to train, test split held out) when that module is importable,
configured for a 2-core CPU (CPU_SYNTH): at most 3 chained calls, at most 2 user turns, 3 tools of the server shown
(the gold tools always among them) and no distractors, so a prompt is 0.5-1.2k tokens (median 0.7k) instead of 2-4k; every
assistant step re-reads its whole prompt, and prompt reading dominates on CPU. test_frac 0.25 holds out a quarter of
the tool combinations, and synthesis grows until the test split has enough tasks. Without the synthesis module:
data/sample/tasks.jsonl (or another data/*/tasks.jsonl), else a stand-in of banking tasks built here. The JSON line
names the source used.

Sizes. Evaluation: greedy in bfloat16 (all three models alike), at most 48 new tokens per assistant step, 3 steps per user turn, 2 turns, batches of 10
tasks of similar prompt length. --quick (20 test tasks, 40 train tasks, 20 SFT steps of batch 2, 2 GRPO steps of
group 4 and batch 4) checks the whole pipeline in minutes on an idle machine. The default is budgeted for 90 minutes
on 2 dedicated cores from costs measured with SmolLM2 on this project's prompts (about 0.7k tokens read per task and
step; roughly 15 s per batched assistant step of 10 tasks, 100 training tokens/s): synthesis ~3 min; 200 held-out
tasks evaluated three times, ~40 min (the base model answers in one step and costs least, trained models call tools
and take 2-3 steps); SFT 40 steps of batch 4 (~160 conversations, ~20 min, learning rate 1e-4 so that few steps
teach the format); GRPO 8 steps of group 4 and batch 8 (two tasks, eight live rollouts per step, ~20 min). On a
shared machine everything scales with the load; --test, --sft-steps and --grpo-steps trade time for precision or
training.

    python bench/train_cpu.py --quick           # a few minutes
    python bench/train_cpu.py                   # about 90 minutes on 2 cores
Writes runs/train_cpu-{quick,full}/ (checkpoints, metrics.jsonl, eval_*.jsonl, results.json); prints a markdown table
and one JSON line.
"""
import argparse, json, os, random, sys, time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from prove_nb.rollout import HFPolicy, Limits, load_model, rollout_batch
from prove_nb.rewards import get_reward, replay_gold
from prove_nb.synthesis import load_tasks
from prove_nb.server import World, load_server

SIZES = {
    "quick": dict(test=20, train=40, sft_steps=20, sft_batch=2, grpo_steps=2, group=4, grpo_batch=4, eval_tokens=48, eval_batch=10),
    "full": dict(test=200, train=300, sft_steps=40, sft_batch=4, grpo_steps=8, group=4, grpo_batch=8, eval_tokens=48, eval_batch=10),
}
LIMITS = Limits(max_steps=3, max_turns=2, max_tokens=384)

# ---------------------------------------------------------------------------------------------------------- tasks
def standin_tasks(n: int, seed: int) -> list[dict]:
    "Banking tasks with one or two write turns on live accounts (a stand-in until synthesis is importable)."
    rng, bank, out = random.Random(seed), load_server("banking"), []
    tools = bank.schemas(["get_account", "list_accounts", "deposit", "withdraw", "transfer"])
    asks = {"deposit": ["Please deposit {amount} into account {a}.", "Put {amount} on account {a}, please.", "I'd like to add {amount} to {a}."],
            "withdraw": ["Withdraw {amount} from account {a}.", "Please take {amount} out of {a}.", "I need to withdraw {amount} from {a}."],
            "transfer": ["Transfer {amount} from {a} to {b}.", "Please move {amount} from account {a} to account {b}.", "Send {amount} from {a} to {b}."]}
    for i in range(n):
        s = i % 8
        w = World(["banking"], seed=s)
        accs = [a for c in w.call("find_customers", {"name": ""}).content for a in w.call("list_accounts", {"customer_id": c["customer_id"]}).content
                if a["status"] == "open" and a["type"] != "credit" and a["balance"] > 200]
        turns = []
        for _ in range(1 + (rng.random() < 0.3)):
            kind = rng.choice(sorted(asks))
            a = rng.choice(accs)
            same = [x for x in accs if x["currency"] == a["currency"] and x["account_id"] != a["account_id"]]
            if kind == "transfer" and not same: kind = "deposit"
            amount = float(rng.randint(2, 40) * 5)
            if kind == "transfer":
                b = rng.choice(same)
                gold = {"name": "transfer", "arguments": {"from_account": a["account_id"], "to_account": b["account_id"], "amount": amount}}
                text = rng.choice(asks[kind]).format(amount=f"{amount:g} {a['currency']}", a=a["account_id"], b=b["account_id"])
            else:
                gold = {"name": kind, "arguments": {"account_id": a["account_id"], "amount": amount}}
                text = rng.choice(asks[kind]).format(amount=f"{amount:g} {a['currency']}", a=a["account_id"])
            turns.append({"user": text, "gold": [[gold]], "answer_facts": []})
        t = {"id": f"bank-{i:05d}", "servers": ["banking"], "seed": s, "size": "small", "tools": tools,
             "system": "You are a banking assistant. Use the tools to do what the customer asks.", "turns": turns, "deps": [],
             "depth": len(turns), "category": "base", "structure": "chain" if len(turns) > 1 else "none",
             "split": "test" if i % 5 == 0 else "train"}
        t["gold_state_hash"] = replay_gold(t).hash()
        out.append(t)
    return out

CPU_SYNTH = dict(tools_per_server=3, p_distractors=0.0, p_cross_server=0.0, test_frac=0.25, max_turns=2)
CPU_DEPTH = 3  # at most 3 chained calls a task

def split_tasks(n_test: int, n_train: int, seed: int) -> tuple[list, list, str]:
    "(train tasks, held-out test tasks, source name)."
    try:
        from prove_nb.synthesis import SynthConfig, synthesize
        n, source = max(int(1.3 * n_test / CPU_SYNTH["test_frac"]), int(1.6 * n_train)), "synthesis"
        while True:  # whole tool combinations are held out, so the test share varies: grow until there are enough
            tasks = synthesize(n, seed=seed, depth_max=CPU_DEPTH, config=SynthConfig(**CPU_SYNTH), progress=False)
            have = sum(t["split"] == "test" for t in tasks)
            if have >= n_test or n >= 40 * n_test: break
            n = int(n * 1.2 * n_test / max(have, n_test / 8))
    except ImportError:
        samples = sorted(ROOT.glob("data/sample/tasks.jsonl")) + sorted(ROOT.glob("data/*/tasks.jsonl"))
        if samples: tasks, source = load_tasks(samples[0]), str(samples[0].relative_to(ROOT))
        else: tasks, source = standin_tasks(5 * max(n_test, n_train // 4), seed), "standin-banking"
    test = [t for t in tasks if t.get("split") == "test"][:n_test]
    train = [t for t in tasks if t.get("split") == "train"][:n_train]
    return train, test, source

# ------------------------------------------------------------------------------------------------------- evaluate
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
    rows = [json.loads(l) for l in metrics.read_text().splitlines() if l.strip()]
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

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few minutes instead of about 90")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--test", type=int, help="held-out test tasks (default: by size)")
    ap.add_argument("--sft-steps", type=int)
    ap.add_argument("--grpo-steps", type=int)
    ap.add_argument("--sft-lr", type=float, default=1e-4)
    ap.add_argument("--grpo-lr", type=float, default=5e-6)
    ap.add_argument("--out", help="output folder (default runs/train_cpu-quick or runs/train_cpu-full)")
    a = ap.parse_args(argv)
    size = "quick" if a.quick else "full"
    cfg = {**SIZES[size], **{k: v for k, v in (("test", a.test), ("sft_steps", a.sft_steps), ("grpo_steps", a.grpo_steps)) if v is not None}}
    out = Path(a.out or ROOT / "runs" / f"train_cpu-{size}"); out.mkdir(parents=True, exist_ok=True)
    from prove_nb.sft import train_sft
    from prove_nb.grpo import train_grpo
    t_all = time.perf_counter()
    train, test, source = split_tasks(cfg["test"], cfg["train"], a.seed)
    print(f"tasks: {len(train)} train, {len(test)} held-out test, from {source}", flush=True)
    rows, times = [], {}
    rows.append(evaluate("base", "smollm2-135m", test, cfg["eval_tokens"], cfg["eval_batch"], out))
    print(table(rows[-1:]), flush=True)
    t = time.perf_counter()
    sft_ck = train_sft(train, str(out / "sft"), steps=cfg["sft_steps"], lr=a.sft_lr, batch_size=cfg["sft_batch"], seed=a.seed)
    times["sft_s"] = round(time.perf_counter() - t, 1)
    rows.append(evaluate("sft", str(sft_ck), test, cfg["eval_tokens"], cfg["eval_batch"], out))
    print(table(rows[-1:]), flush=True)
    t = time.perf_counter()
    grpo_ck = train_grpo(train, str(out / "grpo"), model=str(sft_ck), steps=cfg["grpo_steps"], group=cfg["group"], batch_size=cfg["grpo_batch"],
                         lr=a.grpo_lr, limits=LIMITS, max_new_tokens=cfg["eval_tokens"], seed=a.seed)
    times["grpo_s"] = round(time.perf_counter() - t, 1)
    rows.append(evaluate("sft+grpo", str(grpo_ck), test, cfg["eval_tokens"], cfg["eval_batch"], out))
    timing = grpo_timing(out / "grpo" / "metrics.jsonl", cfg["grpo_batch"])
    res = {"bench": "train_cpu", "size": size, "source": source, "train_tasks": len(train), "test_tasks": len(test), "config": cfg,
           "sft_lr": a.sft_lr, "grpo_lr": a.grpo_lr, "rows": rows, **timing, **times, "total_s": round(time.perf_counter() - t_all, 1),
           "sft_beats_base": rows[1]["prove"] > rows[0]["prove"],
           "grpo_beats_sft": rows[2]["success"] >= rows[1]["success"] and rows[2]["prove"] > rows[1]["prove"] and rows[2]["calls"] <= rows[1]["calls"]}
    (out / "results.json").write_text(json.dumps(res, indent=1))
    print(table(rows))
    print(f"\nGRPO: {timing['grpo_step_s']} s/step, {timing['grpo_tokens_per_step']} policy tokens/step ({timing['grpo_tok_s']} tok/s incl. update); "
          f"SFT {times['sft_s']} s, GRPO {times['grpo_s']} s, total {res['total_s']} s")
    print(json.dumps(res))

if __name__ == "__main__":
    main()
