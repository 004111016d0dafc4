"""One thread against two on this CPU, side by side: a float32 training step and greedy generation of SmolLM2-135M.

Both arms run in one process (`torch.set_num_threads`), after a warm-up each, alternating (1, 2, 1, 2, ...), so a change
of load hits both:
  train    forward and backward of BATCH random sequences of LENGTH tokens (the language-model loss, no optimizer step)
  prefill/decode  `CachedLM` reads ROWS random prompts of PROMPT tokens and decodes NEW tokens greedily (as dtype_bench)
Reported per arm: medians of training-step seconds, prefill seconds and milliseconds per decode step, and the ratios.

    python bench/threads_bench.py                # 4 x 1,024 tokens; 10 rows x 800 tokens, 32 new; 2 rounds
"""
import argparse, json, statistics, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / "bench"))

def train_step(model, ids) -> float:
    "Seconds for one forward and backward pass of the language-model loss on `ids`."
    t0 = time.perf_counter()
    model(input_ids=ids, labels=ids).loss.backward()
    model.zero_grad(set_to_none=True)
    return time.perf_counter() - t0

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--length", type=int, default=1024)
    ap.add_argument("--rows", type=int, default=10)
    ap.add_argument("--prompt", type=int, default=800)
    ap.add_argument("--new", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "threads_bench.json"))
    a = ap.parse_args(argv)
    import torch
    from dtype_bench import prefill_decode
    from prove_nb.rollout import compute_facts, load_model
    model, tok = load_model("smollm2-135m")
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(100, 20000, (a.batch, a.length), generator=g)
    prompts = [torch.randint(100, 20000, (a.prompt,), generator=g).tolist() for _ in range(a.rows)]
    runs = {n: {"train_s": [], "prefill_s": [], "decode_ms": []} for n in (1, 2)}
    for n in runs:  # warm-up
        torch.set_num_threads(n); model.train(); train_step(model, ids[:1, :128]); model.eval(); prefill_decode(model, tok, prompts[:2], 4)
    for _ in range(a.rounds):
        for n, r in runs.items():
            torch.set_num_threads(n)
            model.train(); r["train_s"].append(round(train_step(model, ids), 2))
            model.eval()
            with torch.no_grad(): p, d = prefill_decode(model, tok, prompts, a.new)
            r["prefill_s"].append(round(p, 2)); r["decode_ms"].append(round(d, 1))
            print(n, json.dumps({k: v[-1] for k, v in r.items()}), flush=True)
    med = {n: {k: statistics.median(v) for k, v in r.items()} for n, r in runs.items()}
    res = {"bench": "threads_bench", "machine": compute_facts(), "sizes": vars(a), "runs": runs, "median": med,
           "one_over_two": {k: round(med[1][k] / med[2][k], 2) for k in med[1]}}
    Path(a.out).write_text(json.dumps(res, indent=1))
    print(json.dumps({"median": med, "one_over_two": res["one_over_two"]}))

if __name__ == "__main__":
    main()
