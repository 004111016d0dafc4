"""Reward scoring speed: 10,000 completions of synthesized tasks, without and with live tool execution, on one core.

Completions are the scripted policies' conversations (gold, minimal, spray, repeat, wrong order, alternative path,
abstain) serialized to JSON and read back, as `prove score` reads them; they are cycled up to --n. Each reward scores
all of them from scratch (alignment, parsing, matching and, where the reward needs it, execution on a fresh world).
Prints one JSON line with wall and CPU seconds (other jobs may share the machine). Targets (CPU) per 10,000 completions:
every reward without execution under 5 s, every reward with execution under 60 s.

    python bench/reward_bench.py [--n 10000] [--tasks 200] [--seed 0]    # writes bench/results/reward_bench.json
    python bench/reward_bench.py --quick                                 # 1,000 completions of 50 tasks, printed only
"""
import argparse, json, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from prove_nb.policies import POLICIES, policy_messages
from prove_nb.rewards import REWARDS, Prove, score_all
from prove_nb.synth.dataset import synthesize
from record import save

def completions(tasks: list, n: int) -> list:
    "(task, completion record) pairs: every applicable policy of every task, through JSON, cycled to `n`."
    base = [(t, json.loads(json.dumps({"id": t.id, "messages": m})))
            for t in tasks for p in POLICIES if (m := policy_messages(t, p)) is not None]
    return [base[i % len(base)] for i in range(n)], len(base)

def seconds(fn, pairs) -> dict:
    "Wall and CPU seconds to score every pair with `fn` (CPU time is what counts on a shared machine)."
    w, c = time.perf_counter(), time.process_time()
    for task, comp in pairs: fn(task, comp)
    return {"wall": round(time.perf_counter() - w, 3), "cpu": round(time.process_time() - c, 3)}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="1,000 completions of 50 tasks")
    ap.add_argument("--n", type=int)
    ap.add_argument("--tasks", type=int)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    a.n, a.tasks = a.n or (1_000 if a.quick else 10_000), a.tasks or (50 if a.quick else 200)
    if hasattr(os, "sched_setaffinity"): os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    t0 = time.perf_counter()
    tasks = synthesize(a.tasks, seed=a.seed, progress=False)
    pairs, distinct = completions(tasks, a.n)
    setup = round(time.perf_counter() - t0, 2)
    fast = {"recall": REWARDS["recall"], "graduated": REWARDS["graduated"], "toolrl": REWARDS["toolrl"], "prove_no_exec": Prove(execute=False)}
    live = {"prove": REWARDS["prove"], "tier": REWARDS["tier"], "outcome": REWARDS["outcome"]}
    no_exec = {k: seconds(r, pairs) for k, r in fast.items()}
    with_exec = {k: seconds(r, pairs) for k, r in live.items()}
    every = seconds(score_all, pairs)
    res = {"n": a.n, "tasks": len(tasks), "distinct_completions": distinct, "setup_s": setup,
           "no_exec_s": no_exec, "exec_s": with_exec, "all_six_rewards_s": every, "target_no_exec_s": 5, "target_exec_s": 60,
           "ok": max(v["cpu"] for v in no_exec.values()) * 10_000 / a.n < 5 and max(v["cpu"] for v in with_exec.values()) * 10_000 / a.n < 60}
    print(json.dumps(res))
    if not a.quick: save("reward_bench", res)

if __name__ == "__main__":
    main()
