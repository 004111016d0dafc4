"""Decoding before and after the reserved cache and one-query attention, side by side: SmolLM2-135M.

Both arms decode the same rows after the same prompt, greedily, in one process, alternating (A B A B ...) so that a
change of machine load hits both. `copying` is the engine before: transformers' `DynamicCache` (a `torch.cat` of each
layer's whole cache per token) and SDPA for the one query; `reserved` is `CachedLM` today. Reported: prefill seconds,
milliseconds per decode step, generated tokens per second, and how many rows both arms decoded to the same tokens.

    python bench/decode_bench.py                    # bfloat16, 10 rows, 800 prompt tokens, 64 new tokens, 3 rounds
    python bench/decode_bench.py --dtype float32 --rounds 1
"""
import argparse, json, statistics, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

def decode(arm: str, model, tok, prompts: list, n_new: int) -> tuple[float, float, list]:
    "(prefill s, decode ms/step, tokens) of one greedy generation in `arm`."
    from prove_nb import rollout
    saved = rollout.reserve, rollout.use_decode_attention
    if arm == "copying":
        rollout.reserve, rollout.use_decode_attention = (lambda cache, extra: cache), (lambda m: m)
        model.set_attn_implementation("sdpa")
    try:
        t0 = time.perf_counter(); rollout.CachedLM(model, tok).generate(prompts, 1); t1 = time.perf_counter()
        gens = rollout.CachedLM(model, tok).generate(prompts, n_new); t2 = time.perf_counter()
    finally: rollout.reserve, rollout.use_decode_attention = saved
    return t1 - t0, ((t2 - t1) - (t1 - t0)) / (n_new - 1) * 1000, [g.ids for g in gens]

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10)
    ap.add_argument("--prompt", type=int, default=800)
    ap.add_argument("--new", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dtype", default="bfloat16", help="bfloat16 (what rollouts use) or float32")
    a = ap.parse_args(argv)
    import torch
    from prove_nb.rollout import load_model
    model, tok = load_model("smollm2-135m", dtype=a.dtype); model.eval()
    g = torch.Generator().manual_seed(0)
    prompts = [torch.randint(100, 20000, (a.prompt,), generator=g).tolist() for _ in range(a.rows)]
    res = {arm: {"prefill_s": [], "decode_ms": [], "ids": None} for arm in ("copying", "reserved")}
    for _ in range(a.rounds):
        for arm in res:
            p, d, ids = decode(arm, model, tok, prompts, a.new)
            res[arm]["prefill_s"].append(round(p, 2)); res[arm]["decode_ms"].append(round(d, 1)); res[arm]["ids"] = ids
    out = {arm: {"prefill_s": statistics.median(r["prefill_s"]), "decode_ms_per_step": statistics.median(r["decode_ms"]),
                 "decode_tok_s": round(a.rows * 1000 / statistics.median(r["decode_ms"]), 1), "rounds_ms": r["decode_ms"]} for arm, r in res.items()}
    out["decode_speedup"] = round(out["copying"]["decode_ms_per_step"] / out["reserved"]["decode_ms_per_step"], 2)
    from prove_nb.rollout import common_prefix
    pairs = list(zip(res["copying"]["ids"], res["reserved"]["ids"]))
    out["rows_identical"] = f"{sum(a == b for a, b in pairs)} of {len(pairs)}"
    out["mean_shared_prefix"] = round(statistics.mean(common_prefix(a, b) for a, b in pairs), 1)
    out["sizes"] = vars(a)
    print(json.dumps(out, indent=1))

if __name__ == "__main__":
    main()
