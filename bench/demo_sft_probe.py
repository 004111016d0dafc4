"""Which demo SFT beats the base model on the demo's held-out tasks? SFT variants (TASKS:STEPS:LR), each greedy on the demo's 24 and the next 24.

    python bench/demo_sft_probe.py runs/demo_probe 48:12:0.0001 96:24:0.0002   # resumable: results.jsonl in the folder
"""
import json, sys, time
from dataclasses import replace
from pathlib import Path
from prove_nb.demo import DEMO_SIZES
from prove_nb.recipe import recipe_tasks, recipe_sft, recipe_trials
from prove_nb.evaluate import summarize

out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
variants = [dict(zip(("sft_tasks", "sft_steps", "sft_lr"), (int(a), int(b), float(c)))) for a, b, c in (v.split(":") for v in sys.argv[2:])]
base_r = DEMO_SIZES["small"].recipe
res_f = out / "results.jsonl"
done = {json.loads(l)["name"] for l in res_f.read_text().splitlines()} if res_f.exists() else set()
views0 = recipe_tasks(base_r.pool, base_r.sft_tasks, base_r.seed)
held = views0["seen_combinations"][:48]
print("held-out", len(views0["seen_combinations"]), "train", len(views0["sft"]) + len(views0["grpo"]), flush=True)
def ev(name, path, extra):
    if name in done: return
    t = time.perf_counter(); rows = recipe_trials(base_r, held, path, name)
    ids = {t.id for t in held[:24]}; s24, s48 = summarize([x for x in rows if x["task"] in ids], held[:24], 1, name), summarize(rows, held, 1, name)
    rec = {"name": name, "solved24": sorted(x["task"] for x in rows if x["task"] in ids and x["success"]), **extra, "success24": s24["success"], "success48": s48["success"], "calls24": s24["calls_per_task"], "eval_s": time.perf_counter() - t}
    print(json.dumps(rec), flush=True)
    with res_f.open("a") as f: f.write(json.dumps(rec) + "\n")
ev("base", "smollm2-135m", {})
for v in variants:
    name = "sft_{sft_tasks}_{sft_steps}_{sft_lr:g}".format(**v)
    if name in done: continue
    r = replace(base_r, **v); views = recipe_tasks(r.pool, r.sft_tasks, r.seed)
    t = time.perf_counter(); ck = recipe_sft(r, views["sft"], out / name); sft_s = time.perf_counter() - t
    ev(name, ck, v | {"sft_s": sft_s})
