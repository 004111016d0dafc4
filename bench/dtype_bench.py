"""Generation in float32 against bfloat16 on this CPU, side by side: what `fast_dtype()` decides.

Both arms run in one process, after one warm-up generation each, alternating (float32, bfloat16, float32, ...), so a
change of load hits both:
  prefill/decode  `CachedLM` reads ROWS random prompts of PROMPT tokens and decodes NEW tokens greedily
  evaluate        the learning benchmark's evaluation path: TASKS held-out recipe tasks played greedily
                  (`run_trials`, the recipe's limits, 128 new tokens a step, batches of 10), every call executed live
Reported per arm: prefill seconds, milliseconds per decode step, evaluation seconds and generated tokens per second,
and success per task in each arm (greedy choices between nearly tied tokens may differ between dtypes).

    python bench/dtype_bench.py                  # 10 rows x 800 tokens, 32 new; 10 tasks; 2 rounds
"""
import argparse, json, statistics, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

def prefill_decode(model, tok, prompts: list, n_new: int) -> tuple[float, float]:
    "(prefill s, decode ms a step) of one greedy generation of `n_new` tokens after `prompts`."
    from prove_nb.rollout import CachedLM
    t0 = time.perf_counter(); CachedLM(model, tok).generate(prompts, 1); t1 = time.perf_counter()
    CachedLM(model, tok).generate(prompts, n_new); t2 = time.perf_counter()
    return t1 - t0, ((t2 - t1) - (t1 - t0)) / (n_new - 1) * 1000

def evaluate(model, tok, tasks: list) -> tuple[float, int, list]:
    "(seconds, generated tokens, success per task) of one greedy pass over `tasks`."
    from prove_nb.evaluate import run_trials
    from prove_nb.grpo import RECIPE_LIMITS, RECIPE_MAX_NEW
    from prove_nb.rollout import HFPolicy
    t0 = time.perf_counter()
    rows = run_trials(tasks, HFPolicy(model, tok, RECIPE_MAX_NEW, 0.0), 1, RECIPE_LIMITS, rewards=(), batch_size=10)
    return time.perf_counter() - t0, sum(r["tokens"] for r in rows), [int(r["success"]) for r in rows]

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10)
    ap.add_argument("--prompt", type=int, default=800)
    ap.add_argument("--new", type=int, default=32)
    ap.add_argument("--tasks", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "dtype_bench.json"))
    a = ap.parse_args(argv)
    import torch
    from prove_nb.grpo import recipe_tasks
    from prove_nb.rollout import CachedLM, compute_facts, load_model
    base, tok = load_model("smollm2-135m")
    models = {"float32": base.eval(), "bfloat16": load_model("smollm2-135m", dtype="bfloat16")[0].eval()}
    g = torch.Generator().manual_seed(0)
    prompts = [torch.randint(100, 20000, (a.prompt,), generator=g).tolist() for _ in range(a.rows)]
    tasks = recipe_tasks(400, 24, 0)["seen_combinations"][:a.tasks]
    for m in models.values(): CachedLM(m, tok).generate(prompts, 2)  # warm-up: the first call of each dtype pays one-time costs
    runs = {d: {"prefill_s": [], "decode_ms": [], "eval_s": [], "eval_tokens": [], "success": None} for d in models}
    for _ in range(a.rounds):
        for d, m in models.items():
            p, dec = prefill_decode(m, tok, prompts, a.new)
            s, n, ok = evaluate(m, tok, tasks)
            r = runs[d]
            r["prefill_s"].append(round(p, 2)); r["decode_ms"].append(round(dec, 1)); r["eval_s"].append(round(s, 1)); r["eval_tokens"].append(n); r["success"] = ok
            print(d, json.dumps({k: v[-1] for k, v in r.items() if k != "success"}), flush=True)
    med = statistics.median
    out = {d: {"prefill_s": med(r["prefill_s"]), "decode_ms_per_step": med(r["decode_ms"]), "eval_s": med(r["eval_s"]),
               "eval_tok_s": round(sum(r["eval_tokens"]) / sum(r["eval_s"]), 1), "success": r["success"], "rounds": {k: r[k] for k in ("prefill_s", "decode_ms", "eval_s", "eval_tokens")}}
           for d, r in runs.items()}
    f, b = out["float32"], out["bfloat16"]
    out["bfloat16_over_float32"] = {"prefill": round(b["prefill_s"] / f["prefill_s"], 2), "decode": round(b["decode_ms_per_step"] / f["decode_ms_per_step"], 2),
                                    "evaluate": round(b["eval_s"] / f["eval_s"], 2)}
    out["machine"] = compute_facts()
    out["sizes"] = {k: v for k, v in vars(a).items() if k != "out"}
    Path(a.out).write_text(json.dumps(out, indent=1))
    print(json.dumps({k: out[k] for k in ("bfloat16_over_float32", "machine")}, indent=1))

if __name__ == "__main__":
    main()
