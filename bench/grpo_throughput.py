"""GRPO throughput: the engine before the token-in/token-out rewrite against today's, side by side in one run.

Both train the same model on the same recipe tasks with the same group size for the same number of steps, each in its
own process (one after the other, so they never share the cores): the old engine as commit 45400b6 ran it (one task a
step, micro-batches of 2, beta 0.04, completions cut at 1,024 tokens), the new one with RECIPE_GRPO's batch (4 tasks a
step), beta 0, no cut. Reported: seconds per step, rollouts and distinct groups per hour, trained tokens per second,
peak resident memory, and the two correctness counters: trained ids that were not the sampled ones, and episodes cut
(old) or masked (new) at the completion budget.

    python bench/grpo_throughput.py --model /path/to/sft/checkpoint          # about 20 minutes on 2 cores
    python bench/grpo_throughput.py --model smollm2-135m --steps 1 --quick    # a smoke run
"""
import argparse, json, os, platform, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OLD_COMMIT = "45400b6"

OLD_RUNNER = r'''
import json, resource, sys, time
cfg = json.loads(sys.argv[1])
import prove_nb.rollout as R, prove_nb.grpo as G
from prove_nb.task import load_tasks
sampled, counts = {}, {"mismatched_ids": 0, "mismatched_episodes": 0, "clipped": 0, "episodes": 0, "trained_tokens": 0}
generate = R.HFPolicy.generate
def recording_generate(self, convs, tools):  # remember what was sampled for each conversation
    gens = generate(self, convs, tools)
    for c, g in zip(convs, gens): sampled.setdefault(id(c), []).extend(g.ids)
    return gens
R.HFPolicy.generate = recording_generate
episode_tokens = G.episode_tokens
def counting_episode_tokens(tok, messages, n_prompt, tools, max_completion):
    p, c, m = episode_tokens(tok, messages, n_prompt, tools, 10**9)
    trained, ids = [i for i, k in zip(c, m) if k], sampled.pop(id(messages), [])
    bad = sum(a != b for a, b in zip(trained, ids)) + abs(len(trained) - len(ids))
    counts["mismatched_ids"] += bad; counts["mismatched_episodes"] += bad > 0; counts["episodes"] += 1
    counts["clipped"] += len(c) > max_completion; counts["trained_tokens"] += sum(m[:max_completion])
    return p, c[:max_completion], m[:max_completion]
G.episode_tokens = counting_episode_tokens
tasks = load_tasks(cfg["tasks"])
t0 = time.perf_counter()
G.train_grpo(tasks, cfg["out"], cfg["model"], steps=cfg["steps"], reward="prove+outcome", group=cfg["group"], batch_size=cfg["group"],
             lr=2e-5, beta=0.04, resample=0, max_new_tokens=128, max_completion=1024, limits=G.RECIPE_LIMITS, micro_batch=2)
print(json.dumps({"seconds": time.perf_counter() - t0, "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, **counts}))
'''

NEW_RUNNER = r'''
import json, resource, sys, time
from dataclasses import replace
cfg = json.loads(sys.argv[1])
from prove_nb.grpo import train_grpo
from prove_nb.recipe import RECIPE_GRPO
from prove_nb.task import load_tasks
tasks = load_tasks(cfg["tasks"])
t0 = time.perf_counter()
train_grpo(tasks, cfg["out"], replace(RECIPE_GRPO, model=cfg["model"], steps=cfg["steps"], group=cfg["group"], tasks_per_step=cfg["tasks_per_step"], resample=0))
rows = [json.loads(l) for l in open(cfg["out"] + "/metrics.jsonl") if '"reward"' in l]
print(json.dumps({"seconds": time.perf_counter() - t0, "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
                  "mismatched_ids": sum(r["tokens/mismatched_ids"] for r in rows), "clipped": sum(r["tokens/clipped"] for r in rows),
                  "episodes": len(rows) * cfg["group"] * cfg["tasks_per_step"],
                  "trained_tokens": sum(r["completions/mean_length"] * cfg["group"] * cfg["tasks_per_step"] for r in rows),
                  "positions_read": sum(r.get("step/positions_read", 0) for r in rows), "positions_plain": sum(r.get("step/positions_plain", 0) for r in rows)}))
'''

def old_package(dest: Path) -> Path:
    "The package as it was at OLD_COMMIT, unpacked under `dest` (importable as `prove_nb` with `dest` on the path)."
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", OLD_COMMIT, "prove_nb"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest

def run(runner: str, cfg: dict, pythonpath: str) -> dict:
    "Run one engine in its own process, from the folder of the package it imports; its last stdout line is its JSON result."
    env = {**os.environ, "PYTHONPATH": pythonpath, "TRL_EXPERIMENTAL_SILENCE": "1"}
    p = subprocess.run([sys.executable, "-c", runner, json.dumps(cfg)], env=env, capture_output=True, text=True, cwd=pythonpath)
    if p.returncode: sys.exit(f"{cfg['engine']} engine failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])

def rates(r: dict, steps: int, rollouts_per_step: int, groups_per_step: int) -> dict:
    "Per-step and per-hour figures of one engine's run."
    s = r["seconds"]
    return {**r, "seconds_per_step": round(s / steps, 1), "rollouts_per_hour": round(3600 * steps * rollouts_per_step / s, 1),
            "groups_per_hour": round(3600 * steps * groups_per_step / s, 1), "trained_tokens_per_second": round(r["trained_tokens"] / s, 2)}

ROWS = (("seconds per step", "seconds_per_step"), ("rollouts per hour", "rollouts_per_hour"), ("distinct groups per hour", "groups_per_hour"),
        ("trained tokens per second", "trained_tokens_per_second"), ("peak resident memory (GB)", "peak_rss_gb"),
        ("trained ids not sampled (episodes)", "mismatched"), ("episodes over the completion budget", "clipped"))

def table(res: dict) -> str:
    "The markdown table of a result: old, new and their ratio."
    cell = lambda r, k: f"{r['mismatched_ids']:g} ids ({r.get('mismatched_episodes', 0 if not r['mismatched_ids'] else '?')} of {r['episodes']})" if k == "mismatched" else \
        f"{r['clipped']:g} of {r['episodes']}" if k == "clipped" else f"{r[k]:,.2f}" if k == "peak_rss_gb" else f"{r[k]:,.1f}"
    ratio = lambda k: f"{res['new'][k] / res['old'][k]:.2f}x" if k not in ("mismatched", "clipped") and res["old"][k] else ""
    return "\n".join(["| | old (45400b6) | new | new / old |", "|---|---|---|---|"] +
                     [f"| {name} | {cell(res['old'], k)} | {cell(res['new'], k)} | {ratio(k)} |" for name, k in ROWS])

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="the model both engines train (an SFT checkpoint: a base model calls no tools)")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--group", type=int, default=4)
    ap.add_argument("--tasks-per-step", type=int, default=4, help="the new engine's groups a step (the old one trains one)")
    ap.add_argument("--n-tasks", type=int, default=1200, help="recipe tasks synthesized; the GRPO view's first ones are trained")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "grpo_throughput.json"))
    ap.add_argument("--quick", action="store_true", help="write the JSON beside --out with a .quick suffix (a smoke run)")
    ap.add_argument("--table", action="store_true", help="print the markdown table of the JSON at --out, run nothing")
    a = ap.parse_args()
    if a.table: return print(table(json.loads(Path(a.out).read_text())))
    from prove_nb.recipe import recipe_tasks
    from prove_nb.lm import compute_facts
    from prove_nb.task import save_tasks
    work = Path(tempfile.mkdtemp(prefix="grpo_throughput_"))
    views = recipe_tasks(a.n_tasks, 160, seed=0)
    n = a.steps * a.tasks_per_step
    save_tasks(views["grpo"][:n], work / "tasks.jsonl")  # both engines draw from the same tasks, in TRL's sampler order
    base = {"model": a.model, "steps": a.steps, "group": a.group, "tasks": str(work / "tasks.jsonl")}
    t, load = time.time(), os.getloadavg()[0]
    old = run(OLD_RUNNER, {**base, "engine": "old", "out": str(work / "old")}, str(old_package(work / "old_pkg")))
    new = run(NEW_RUNNER, {**base, "engine": "new", "out": str(work / "new"), "tasks_per_step": a.tasks_per_step}, str(ROOT))
    old, new = rates(old, a.steps, a.group, 1), rates(new, a.steps, a.group * a.tasks_per_step, a.tasks_per_step)
    res = {"command": "python " + " ".join([Path(sys.argv[0]).relative_to(ROOT).as_posix() if Path(sys.argv[0]).is_absolute() else sys.argv[0], *sys.argv[1:]]),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t)), "old_commit": OLD_COMMIT, "old": old, "new": new,
           "groups_per_hour_ratio": round(new["groups_per_hour"] / old["groups_per_hour"], 2),
           "mismatched_ids": new["mismatched_ids"], "clipped": new["clipped"], "cpu": compute_facts()["cpu"],
           "machine": {**compute_facts(), "cores": os.cpu_count(), "python": platform.python_version(), "load_before": load}}
    out = Path(a.out + ".quick" if a.quick else a.out)
    out.parent.mkdir(parents=True, exist_ok=True); out.write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1)); print(table(res))

if __name__ == "__main__": main()
