"""NESTFUL v1 offline (prove_nb.nestful): gold (the maximum) and the do-nothing policy (the floor) on every set, and
models, greedy, on a stated subset of the executable set, with their wall time.

    python bench/nestful_bench.py                                   # gold + noop on all sets; SmolLM2-135M on executable[:20]
    python bench/nestful_bench.py --limit 20 --model smollm2-135m --model runs/recipe/sft --model runs/recipe/grpo

`--model` (repeatable; default `smollm2-135m`, the SmolLM2-135M-Instruct base) takes what `policy_from_name` takes: a
checkpoint folder or a `prove train` run folder (its `checkpoint/` is used), a Hub name, `openai:MODEL`. The SFT and
SFT+GRPO checkpoints of the learning recipe are not kept in the repository: pass their folders where a run made them.
Writes bench/results/nestful.json; each run's report.json and samples.jsonl go under --out.
"""
import argparse, datetime, json, os, platform, shlex, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
KEYS = ("accuracy", "f1_function", "f1_param", "partial_sequence_accuracy", "full_sequence_accuracy", "win_rate")

def cpu_model() -> str:
    "The CPU's model name as lscpu reports it."
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    return next((l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("Model name")), platform.processor())

def figures(rep: dict) -> dict:
    "The numbers of a report worth keeping."
    return {**{k: rep[k] for k in KEYS}, **{k: rep[k] for k in ("samples", "calls_per_sample", "tokens_per_sample", "stops", "seconds", "seconds_per_sample")}}

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", help="a model for policy_from_name (repeatable; default smollm2-135m)")
    ap.add_argument("--limit", type=int, default=20, help="the first N samples of the executable set for the models")
    ap.add_argument("--max-new-tokens", type=int, default=256)
    ap.add_argument("--out", default=str(ROOT / ".tmp" / "nestful_bench"))
    ap.add_argument("--json", default=str(ROOT / "bench" / "results" / "nestful.json"))
    a = ap.parse_args(argv)
    import torch
    from prove_nb.cli import resolve_model
    from prove_nb.evaluate import policy_from_name
    from prove_nb.nestful import SPLITS, nestful_samples, run_nestful
    from prove_nb.rollout import noop_policy, gold_policy
    out, models = Path(a.out), a.model or ["smollm2-135m"]
    res = {"command": "python " + " ".join(map(shlex.quote, [os.path.relpath(__file__, ROOT), *sys.argv[1:]])),
           "cpu": cpu_model(), "cores": os.cpu_count(), "torch_threads": torch.get_num_threads(), "date": datetime.date.today().isoformat(),
           "gold": {}, "floor": {}, "models": {}}
    for sp in SPLITS:
        res["gold"][sp] = figures(run_nestful(gold_policy(), sp, out_dir=out / "gold" / sp))
        res["floor"][sp] = figures(run_nestful(noop_policy(), sp, out_dir=out / "noop" / sp))
    res["subset"] = {"split": "executable", "samples": f"the first {a.limit}", "ids": [s.id for s in nestful_samples("executable", limit=a.limit)[0]],
                     "decoding": f"greedy, at most {a.max_new_tokens} new tokens a step", "distractors": 2, "max_steps": 12}
    for m in models:
        t0 = time.perf_counter()
        policy = policy_from_name(resolve_model(m), temperature=0.0, max_new_tokens=a.max_new_tokens)
        load = time.perf_counter() - t0
        rep = run_nestful(policy, "executable", limit=a.limit, out_dir=out / Path(m).name)
        res["models"][m] = {**figures(rep), "load_seconds": round(load, 1)}
        print(m, json.dumps(res["models"][m]), flush=True)
    Path(a.json).write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps({k: res[k] for k in ("gold", "floor")}, indent=1)[:2000])

if __name__ == "__main__": main()
