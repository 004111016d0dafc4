"""Did GRPO improve the policy it trains? A learn_cpu run's SFT and SFT+GRPO checkpoints played at temperature 1, as GRPO samples.

learn_cpu judges the greedy policy. GRPO trains the sampled one: it draws groups at temperature 1 on the pre-screened
edge tasks and pays the better rollouts. This plays both checkpoints of a recorded run (its `stage_sft.json`,
`stage_grpo.json` and, if it screened, `stage_prescreen.json`) at temperature 1 on three sets, same seed for both, and
reports the paired SFT -> SFT+GRPO differences of per-task means with 95% bootstrap intervals:
  trained    the tasks GRPO trained on (the grpo stage's list; for older runs, the edge tasks of pre-screening)
  screened   the other candidates (the pre-screened ones, or without pre-screening the GRPO pool), not trained on
  seen       the run's held-out seen view (as learn_cpu's greedy evaluation, but sampled)
and, beside them, the run's greedy seen-view numbers.

    python bench/sampled_policy.py --run runs/learn_cpu-full             # 24 candidates x 8, 150 seen tasks x 1, both models
    python bench/sampled_policy.py --run runs/learn_cpu-quick --k 2 --seen 6
    python bench/sampled_policy.py --run R --screened 18 --sft-from EARLIER/sampled/stage_candidates_sft.json   # a wider run, fewer plays
Writes RUN/sampled/results.json; with --name, also bench/results/NAME.json.
"""
import argparse, json, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from learn_cpu import EVAL_BATCH, LIMITS, MAX_NEW, ROOT, make_views, mean, stage
from prove_nb.evaluate import run_trials
from prove_nb.grpo import at_the_edge, paired_gain
from prove_nb.rollout import HFPolicy, load_model

STAGES = {"sft": "sft", "sft+grpo": "grpo"}  # each model's stage record in the run folder, which names its checkpoint
MODELS = tuple(STAGES)

def play(checkpoint: str, name: str, tasks: list, k: int, seed: int) -> dict:
    "Per-task means over `k` attempts at temperature 1: success, PROVE, calls and the share of episodes ending at the step limit."
    model, tok = load_model(checkpoint, dtype="auto")
    model.eval()
    rows = run_trials(tasks, HFPolicy(model, tok, MAX_NEW, 1.0, name=name), k, LIMITS, rewards=("prove",), batch_size=EVAL_BATCH, seed=seed)
    per = {t.id: [r for r in rows if r["task"] == t.id] for t in tasks}
    return {"k": k, "per_task": {i: {"success": mean(r["success"] for r in rs), "prove": mean(r["rewards"]["prove"] for r in rs),
                                     "calls": mean(r["calls"] for r in rs), "at_limit": mean(r["stop"] == "step_limit" for r in rs)} for i, rs in per.items()}}

def play_reusing(checkpoint: str, name: str, tasks: list, k: int, seed: int, known: dict | None = None) -> dict:
    "`play`, keeping the per-task records an earlier `play` of the same checkpoint at the same `k` (`known`) holds for any of `tasks`."
    known = known or {"k": k, "per_task": {}}
    if known["k"] != k: raise SystemExit(f"--sft-from: its records are over k={known['k']} attempts, this check uses k={k}")
    kept = {t.id: known["per_task"][t.id] for t in tasks if t.id in known["per_task"]}
    todo = [t for t in tasks if t.id not in kept]
    new = play(checkpoint, name, todo, k, seed)["per_task"] if todo else {}
    return {"k": k, "reused": len(kept), "per_task": {t.id: kept[t.id] if t.id in kept else new[t.id] for t in tasks}}

def split_candidates(run: Path, pool: list, screened: int | None = None) -> tuple[set, set]:
    "The ids of `pool` GRPO trained on in `run` and of the first `screened` candidates it did not (pre-screened ones, or the whole pool)."
    grpo, rates_file = json.loads((run / "stage_grpo.json").read_text()), run / "stage_prescreen.json"
    rates = json.loads(rates_file.read_text())["rates"] if rates_file.exists() else None
    if rates is None and screened is None: raise SystemExit(f"{run} did not pre-screen: name how many untrained tasks of its GRPO pool to compare (--screened)")
    candidates = [t for t in pool if t.id in rates] if rates else pool
    trained = set(grpo["tasks"]) if "tasks" in grpo else {t.id for t in at_the_edge(candidates, rates)}
    return trained, {t.id for t in [t for t in candidates if t.id not in trained][:screened]}

def compare(before: dict, after: dict, ids: list) -> dict:
    "Means of both models over `ids` and the paired differences of their per-task means."
    keys = ("success", "prove", "calls", "at_limit")
    return {"n": len(ids), **{m: {k: round(mean(rec[i][k] for i in ids), 4) for k in keys} for m, rec in (("sft", before), ("sft+grpo", after))},
            "paired": {k: paired_gain([before[i][k] for i in ids], [after[i][k] for i in ids]) for k in keys}}

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", required=True, help="a learn_cpu output folder with results.json, stage_sft, stage_grpo and, if it screened, stage_prescreen")
    ap.add_argument("--k", type=int, default=8, help="attempts per pre-screened candidate")
    ap.add_argument("--k-seen", type=int, default=1, help="attempts per seen-view task")
    ap.add_argument("--seen", type=int, help="seen-view tasks (default: all the run evaluated)")
    ap.add_argument("--seed", type=int, default=1, help="sampling seed (pre-screening used the run's seed)")
    ap.add_argument("--screened", type=int, help="untrained candidates compared: the first N in pool order (default: every pre-screened one; needed for a run that did not pre-screen)")
    ap.add_argument("--sft-from", help="an earlier check's sampled/stage_candidates_sft.json of the same SFT checkpoint at the same --k: its tasks' records are kept, only the rest play")
    ap.add_argument("--name", help="also write bench/results/NAME.json")
    a = ap.parse_args(argv)
    run = Path(a.run)
    res = json.loads((run / "results.json").read_text())
    views = make_views(res["config"], res["seed"])
    trained, untrained = split_candidates(run, views["grpo"], a.screened)
    candidates = [t for t in views["grpo"] if t.id in trained | untrained]
    seen = views["seen_combinations"][:a.seen]
    ck = {m: json.loads((run / f"stage_{s}.json").read_text())["checkpoint"] for m, s in STAGES.items()}
    out = run / "sampled"; out.mkdir(exist_ok=True)
    known = {"sft": json.loads(Path(a.sft_from).read_text()) if a.sft_from else None, "sft+grpo": None}
    cand = {m: stage(out, f"candidates_{m}", lambda m=m: play_reusing(ck[m], m, candidates, a.k, a.seed, known[m]), True) for m in MODELS}
    view = {m: stage(out, f"seen_{m}", lambda m=m: play(ck[m], m, seen, a.k_seen, a.seed), True) for m in MODELS}
    b, c = cand["sft"]["per_task"], cand["sft+grpo"]["per_task"]
    greedy = {m: json.loads((run / f"eval_{m}_seen_combinations.json").read_text()) for m in MODELS}
    ids = [t.id for t in seen]
    summary = {"run": str(run), "seed": a.seed, "k": a.k, "k_seen": a.k_seen, "temperature": 1.0, "sft_reused": cand["sft"].get("reused", 0),
               "trained": compare(b, c, sorted(trained)), "screened": compare(b, c, sorted(untrained)),
               "seen": compare(view["sft"]["per_task"], view["sft+grpo"]["per_task"], ids),
               "seen_greedy": {"paired": {"success": paired_gain([greedy["sft"][i]["success"] for i in ids], [greedy["sft+grpo"][i]["success"] for i in ids]),
                                          "calls": paired_gain([greedy["sft"][i]["calls"] for i in ids], [greedy["sft+grpo"][i]["calls"] for i in ids])}},
               "seconds": {f"{s}_{m}": r["stage_s"] for s, d in (("candidates", cand), ("seen", view)) for m, r in d.items()}}
    (out / "results.json").write_text(json.dumps(summary, indent=1))
    if a.name: (ROOT / "bench" / "results" / f"{a.name}.json").write_text(json.dumps(summary, indent=1))
    print("| set | tasks x k | SFT success | SFT+GRPO success | paired success | paired calls | at the step limit |\n|---|---|---|---|---|---|---|")
    for s, k in (("trained", a.k), ("screened", a.k), ("seen", a.k_seen)):
        r, p = summary[s], summary[s]["paired"]
        print(f"| {s} | {r['n']} x {k} | {r['sft']['success']:.3f} | {r['sft+grpo']['success']:.3f} | {p['success']['gain']:+.3f} {p['success']['ci95']} | "
              f"{p['calls']['gain']:+.2f} {p['calls']['ci95']} | {r['sft']['at_limit']:.2f} -> {r['sft+grpo']['at_limit']:.2f} |")
    print(json.dumps(summary["seconds"]))

if __name__ == "__main__":
    main()
