"""Which demo SFT beats the base model on the demo's held-out tasks? SFT variants (TASKS:STEPS:LR), each greedy on the demo's 24 and the next 24.

    python bench/demo_sft_probe.py runs/demo_probe 48:12:0.0001 96:24:0.0002   # resumable: results.jsonl in the folder
"""
import json, sys, time
from dataclasses import replace
from pathlib import Path
from prove_nb.demo import DEMO_SIZES
from prove_nb.evaluate import summarize
from prove_nb.recipe import recipe_sft, recipe_tasks, recipe_trials

def evaluate(r, held: list, name: str, model) -> dict:
    "`model` greedy on `held`: its success on the first 24 (the demo's) and on all, and which of the 24 it solved."
    t0 = time.perf_counter()
    rows = recipe_trials(r, held, model, name)
    demo = {t.id for t in held[:24]}
    s24, s_all = summarize([x for x in rows if x["task"] in demo], held[:24], 1, name), summarize(rows, held, 1, name)
    return {"name": name, "solved24": sorted(x["task"] for x in rows if x["task"] in demo and x["success"]), "success24": s24["success"],
            "success48": s_all["success"], "calls24": s24["calls_per_task"], "eval_s": time.perf_counter() - t0}

def main(out: Path, variants: list[str]):
    out.mkdir(parents=True, exist_ok=True)
    r0, res_f = DEMO_SIZES["small"].recipe, out / "results.jsonl"
    done = {json.loads(l)["name"] for l in res_f.read_text().splitlines()} if res_f.exists() else set()
    views = recipe_tasks(r0.pool, r0.sft_tasks, r0.seed)
    train, held = views["sft"] + views["grpo"], views["seen_combinations"][:48]  # a variant's SFT view is the first sft_tasks of train
    jobs = [("base", {})] + [(f"sft_{a}_{b}_{float(c):g}", {"sft_tasks": int(a), "sft_steps": int(b), "sft_lr": float(c)}) for a, b, c in (v.split(":") for v in variants)]
    for name, v in jobs:
        if name in done: continue
        r, t0 = replace(r0, **v), time.perf_counter()
        model, trained = (recipe_sft(r, train[:r.sft_tasks], out / name), {"sft_s": time.perf_counter() - t0}) if v else ("smollm2-135m", {})
        rec = evaluate(r0, held, name, model) | v | trained
        print(json.dumps(rec), flush=True)
        with res_f.open("a") as f: f.write(json.dumps(rec) + "\n")

if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
