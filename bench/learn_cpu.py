"""Learning beyond noise on a CPU: SFT -> SFT+GRPO on held-out tasks against a shuffled-advantage floor, RFT and more SFT.

SmolLM2-135M-Instruct, the `RECIPE` of `prove_nb.recipe` (short one-turn tasks of 3 tools, live servers), every arm from one
SFT checkpoint and evaluated on the same held-out tasks:

  sft              SFT on SFT_TASKS gold conversations (trained once, fingerprinted, reused by every arm)
  grpo_seedS       GRPO (`RECIPE.grpo`: 4 tasks a step in groups of 4, the outcome reward with PROVE logged, a cut-off episode earns 0) over the
                   GRPO pool, each task drawn about once; groups whose rollouts all score alike are dropped and replaced by
                   fresh tasks (no pre-screening); GRPO_STEPS steps or GRPO_MINUTES of wall-clock, whichever comes first
  shuffled_seedS   the same GRPO with each group's advantages permuted among its rollouts: the noise floor
  rft              rejection-sampling fine-tuning: K samples of each of RFT_TASKS pool tasks at temperature 1, the successful
                   episode with the fewest calls per task kept, one SFT pass over them
  more_sft         SFT continued on fresh gold conversations for as long as the first GRPO arm trained
  prove_seedS      the same GRPO rewarded by PROVE + outcome (the reward comparison that chose the outcome alone)
  shuffled_prove_seedS    prove_seedS with each group's advantages permuted: the noise floor of PROVE + outcome

Views (world seeds 0-5 train, 6-7 never trained on): `seen_combinations` (train-split tool combinations, unseen worlds)
and `unseen_combinations` (tool combinations held out of training); greedy, every call live; `sampled` is pass@1 at
temperature 1 over SAMPLES samples on the first SAMPLED_TASKS seen-view tasks. Success is `prove_nb.evaluate.grade`'s.

Every stage is recorded in the run folder (stage_*.json, eval_*.json: per-task records) and a rerun reuses them; an
arm's records carry the SFT checkpoint's fingerprint, and the results pair only records of the same checkpoint.
`--records FILE` seeds a run folder from a committed bundle of records (bench/results/learn_cpu/<date>_<name>.json), so that a run
continues in another session: its SFT is retrained from the same data and seed, and the records are used only when the
fingerprint matches.

    python bench/learn_cpu.py --quick                       # minutes: every arm at toy size
    python bench/learn_cpu.py --arms grpo_seed0 --views seen_combinations     # one arm, one view (stages add up)
    python bench/learn_cpu.py --arms grpo_seed0,grpo_seed1,grpo_seed2,shuffled_seed0,shuffled_seed1,rft,more_sft   # the benchmark
Writes runs/learn_cpu-{quick,full}/ and, at full size, bench/results/learn_cpu.json, learn_cpu_forest.png, learn_cpu_curves.png
and the bundle of the run's records, bench/results/learn_cpu/<date>_<name>.json. A CPU whose arithmetic trains another SFT
checkpoint from the same data and seed writes learn_cpu_<fingerprint>.json instead, and its RFT and more-SFT controls, each
paired against that checkpoint's own SFT, are added to learn_cpu.json marked with it.
"""
import argparse, hashlib, json, os, re, shutil, sys, time
from collections import Counter
from dataclasses import asdict, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from prove_nb.core import mean
from prove_nb.lm import HFPolicy, compute_facts, load_model
from prove_nb.recipe import (RECIPE, Recipe, changes_state, forest_plot, paired_gain, plot_learning, recipe_sft, recipe_tasks, recipe_trials,
                             rft_attempts, rft_conversations, task_kind)

RECIPES = {  # the recipe each size runs (`eval_tasks`: the seen view)
    "quick": replace(RECIPE, pool=400, sft_tasks=16, sft_steps=4, grpo_tasks=16, eval_tasks=6, grpo=replace(RECIPE.grpo, steps=2, group=2, tasks_per_step=2, max_minutes=10)),
    "full": replace(RECIPE, grpo=replace(RECIPE.grpo, max_minutes=60)),
}
SIZES = {  # what the benchmark adds to its recipe: the other views and the RFT arm
    "quick": dict(unseen=4, sampled_tasks=3, samples=2, rft_tasks=4, rft_k=2),
    "full": dict(unseen=100, sampled_tasks=50, samples=4, rft_tasks=150, rft_k=4),
}
VIEWS = ("seen_combinations", "unseen_combinations", "sampled")
ARM = re.compile(r"^(sft|rft|more_sft|(grpo|shuffled|prove|shuffled_prove)_seed(\d+))$")

def make_views(r: Recipe, sizes: dict) -> dict:
    "The recipe's SFT and GRPO tasks and its held-out views, cut to this size (`fresh_sft`: GRPO tasks past its pool; `sampled`: the first seen-view tasks)."
    v = recipe_tasks(r.pool, r.sft_tasks, r.seed)
    seen = v["seen_combinations"][:r.eval_tasks]
    return {"sft": v["sft"], "grpo": v["grpo"][:r.grpo_tasks], "fresh_sft": v["grpo"][r.grpo_tasks:], "seen_combinations": seen,
            "unseen_combinations": v["unseen_combinations"][:sizes["unseen"]], "sampled": seen[:sizes["sampled_tasks"]]}

def fingerprint(checkpoint) -> str:
    "The first 12 hex digits of the sha256 of a checkpoint's weights."
    h = hashlib.sha256()
    for f in sorted(Path(checkpoint).glob("*.safetensors")): h.update(f.read_bytes())
    return h.hexdigest()[:12]

def stage(out: Path, name: str, run, resume: bool) -> dict:
    "Run a stage and keep its record in out/stage_NAME.json; with `resume`, a recorded stage is read back instead."
    f = out / f"stage_{name}.json"
    if resume and f.exists(): return json.loads(f.read_text())
    t = time.perf_counter()
    rec = run()
    rec["stage_s"] = round(time.perf_counter() - t, 1)
    f.write_text(json.dumps(rec, indent=1))
    return rec

# ------------------------------------------------------------------------------------------------------- evaluate
def view_metrics(per: dict) -> dict:
    "Summary of one model's per-task records on one view."
    return {"n": len(per), "success": mean((p["success"] for p in per.values()), 0.0), "success_state_only": mean((p["state"] for p in per.values()), 0.0),
            "success_state_changing": mean((p["success"] for p in per.values() if p["write"]), 0.0), "n_state_changing": sum(p["write"] for p in per.values()),
            "prove": mean((p["prove"] for p in per.values()), 0.0), "calls_per_task": mean((p["calls"] for p in per.values()), 0.0),
            "stops": dict(Counter(p["stop"] for p in per.values()))}

def evaluate(r: Recipe, name: str, model_path: str, tasks: list, view: str, out: Path, samples: int = 1) -> dict:
    "A view's tasks played by the model at `model_path` (greedy, or `samples` times at temperature 1): per-task means kept in `out`, and the summary."
    tasks = sorted(tasks, key=lambda t: len(json.dumps(t.tools)) + len(t.turns[0].user))  # less padding
    t0 = time.perf_counter()
    rows = recipe_trials(r, tasks, model_path, name, samples)
    wall = time.perf_counter() - t0
    per = {t.id: {"success": 0.0, "state": 0.0, "prove": 0.0, "calls": 0.0, "tokens": 0, "stop": None, "write": changes_state(t)} for t in tasks}
    for r in rows:
        p = per[r["task"]]
        for k, v in (("success", int(r["success"])), ("state", int(r["state"])), ("prove", r["rewards"]["prove"]), ("calls", r["calls"])): p[k] += v / samples
        p["tokens"] += r["tokens"]; p["stop"] = r["stop"]
    (out / f"eval_{name}_{view}.json").write_text(json.dumps(per))
    res = view_metrics(per) | {"eval_s": round(wall, 1), "gen_tok_s": round(sum(p["tokens"] for p in per.values()) / wall, 1), "samples": samples}
    print(f"  {name} {view}: " + json.dumps({k: v for k, v in res.items() if k != "stops"}), flush=True)
    return res

def solved_by_kind(per: dict, tasks: list) -> dict:
    "Per `task_kind` of `tasks`: how many there are and how many each model's per-task records (`per`: model -> records) solved."
    kinds = {t.id: task_kind(t) for t in tasks}
    return {k: {"n": n, **{m: sum(r[i]["success"] for i in kinds if kinds[i] == k) for m, r in per.items()}} for k, n in sorted(Counter(kinds.values()).items())}

def paired(a: dict, b: dict, key: str) -> dict:
    "`paired_gain` of per-task records `a` -> `b` on `key`."
    ids = sorted(a)
    return paired_gain([a[i][key] for i in ids], [b[i][key] for i in ids])

def seeds_mean(records: list) -> dict:
    "Per-task records averaged over several seeds' records of the same tasks."
    return {i: {k: mean((r[i][k] for r in records), 0.0) for k in ("success", "state", "prove", "calls")} for i in records[0]}

# ------------------------------------------------------------------------------------------------------- arms
def train_arm(arm: str, views: dict, r: Recipe, sizes: dict, sft: dict, out: Path) -> dict:
    "Train one arm from the SFT checkpoint: its checkpoint, what it trained on, and the SFT fingerprint it started from."
    from prove_nb.grpo import train_grpo
    m, base = ARM.match(arm), {"sft": sft["fingerprint"]}
    if m.group(2):
        kind, seed = m.group(2), int(m.group(3))
        prove = kind.endswith("prove")  # the comparison: PROVE in the trained reward, so not also logged beside it
        st = replace(r.grpo, model=sft["checkpoint"], seed=seed, shuffle_advantages=kind.startswith("shuffled"),
                     reward="prove+outcome" if prove else r.grpo.reward, monitor=() if prove else r.grpo.monitor)
        ck = train_grpo(views["grpo"], str(out / arm), st).resolve()
        rows = [json.loads(l) for l in (out / arm / "metrics.jsonl").read_text().splitlines() if l.strip()]
        steps = [r for r in rows if "reward" in r]
        played = sum(st.tasks_per_step + r.get("groups/resampled", 0) - r.get("groups/repeats", 0) for r in steps)
        return base | {"checkpoint": str(ck), "steps": len(steps), "distinct_tasks": int(played), "settings": {"reward": st.reward, "shuffled": st.shuffle_advantages,
                       "lr": st.lr, "group": st.group, "tasks_per_step": st.tasks_per_step, "unfinished": st.unfinished, "resample": st.resample}}
    if arm == "rft":
        model, tok = load_model(sft["checkpoint"], dtype="auto")
        tasks = views["grpo"][:sizes["rft_tasks"]]
        log = out / arm / f"attempts_{sft['fingerprint']}.jsonl"  # resumable: sampling takes about an hour here
        log.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        attempts = rft_attempts(tasks, HFPolicy(model.eval(), tok, r.grpo.max_new_tokens, 1.0, name="sft"), sizes["rft_k"], r.grpo.limits, log=log, progress=True)
        sampling_s, convs = time.perf_counter() - t0, rft_conversations(attempts)
        kept = [t for t in tasks if t.id in convs]
        del model
        ck = recipe_sft(r, kept, out / arm, model=sft["checkpoint"], steps=max(1, len(kept) // r.sft_batch), conversations=[convs[t.id] for t in kept])
        return base | {"checkpoint": str(ck.resolve()), "tasks": len(tasks), "samples": sizes["rft_k"], "successes": sum(a["success"] for a in attempts),
                       "kept": len(kept), "sampling_s_this_invocation": round(sampling_s, 1)}
    if arm == "more_sft":  # as long as the first GRPO arm trained (else the budget), at the SFT stage's pace
        grpo = out / "stage_grpo_seed0.json"
        budget = json.loads(grpo.read_text())["stage_s"] if grpo.exists() else r.grpo.max_minutes * 60
        steps = max(1, round(budget / (sft["stage_s"] / r.sft_steps)))
        ck = recipe_sft(r, views["fresh_sft"][:r.sft_batch * steps], out / arm, model=sft["checkpoint"], steps=steps)
        return base | {"checkpoint": str(ck.resolve()), "steps": steps, "conversations": r.sft_batch * steps}
    raise SystemExit(f"unknown arm {arm!r}")

# ------------------------------------------------------------------------------------------------------- results
def gains(per: dict, arm: str, view: str, base: str = "sft") -> dict:
    "`base` (SFT) -> arm paired gains on a view (success, PROVE, calls, state only)."
    a, b = per[base, view], per[arm, view]
    return {k: paired(a, b, key) for k, key in (("success", "success"), ("prove", "prove"), ("calls_per_task", "calls"), ("success_state_only", "state"))}

def results(out: Path, cfg: dict, views: dict, sft: dict, machine: dict, seconds: dict) -> dict:
    "The benchmark's record from every arm and view evaluated so far on this SFT checkpoint: the mean over GRPO seeds, each seed, the controls."
    arms = {p.stem.removeprefix("stage_"): json.loads(p.read_text()) for p in sorted(out.glob("stage_*.json")) if ARM.match(p.stem.removeprefix("stage_"))}
    arms = {a: r for a, r in arms.items() if a == "sft" or r.get("sft") == sft["fingerprint"]}
    summary = {(a, v): rec for a in arms for v in VIEWS if (f := out / f"stage_eval_{a}_{v}.json").exists()
               and (rec := json.loads(f.read_text())).get("sft") in (None, sft["fingerprint"])}  # evaluations of this checkpoint only
    per = {(a, v): json.loads((out / f"eval_{a}_{v}.json").read_text()) for a, v in summary}
    seeds = sorted(a for a in arms if a.startswith("grpo_seed"))
    res = {"bench": "learn_cpu", "config": cfg, "machine": machine, "sft": {k: sft[k] for k in ("checkpoint", "fingerprint", "stage_s")},
           "sizes": {k: len(v) for k, v in views.items()}, "seconds": seconds, "arms": {a: {k: v for k, v in r.items() if k != "checkpoint"} for a, r in arms.items()}}
    for v in VIEWS:
        done = [a for a in seeds if (a, v) in per]
        if ("sft", v) not in per: continue
        res[v] = {"sft": summary["sft", v]}
        if done:
            per["sft+grpo", v] = seeds_mean([per[a, v] for a in done])
            res[v] |= {"sft+grpo": view_metrics({i: r | {"write": per["sft", v][i]["write"], "stop": None} for i, r in per["sft+grpo", v].items()}),
                       "seeds_in_mean": done, "paired": gains(per, "sft+grpo", v)}
            res[v]["solved_by_kind"] = solved_by_kind({"sft": per["sft", v], "sft+grpo": per["sft+grpo", v]}, views[v])
            if shuffs := [a for a in sorted(arms) if a.startswith("shuffled_seed") and (a, v) in per]:  # GRPO against its own noise floor, task by task
                per["shuffled_mean", v] = seeds_mean([per[a, v] for a in shuffs])
                res[v]["over_shuffled"] = {"shuffled_in_mean": shuffs, "paired": gains(per, "sft+grpo", v, base="shuffled_mean")}
        if len(proves := [a for a in sorted(arms) if a.startswith("prove_seed") and (a, v) in per]) > 1:
            per["prove_mean", v] = seeds_mean([per[a, v] for a in proves])
            res[v]["prove_mean"] = {"seeds_in_mean": proves, "paired": gains(per, "prove_mean", v)}
        for a in arms:
            if a != "sft" and (a, v) in per: res[v][a] = summary[a, v] | {"paired": gains(per, a, v)}
    g = lambda a, v, k="success": res.get(v, {}).get(a, {}).get("paired", {}).get(k, {})
    res["seeds"] = [{"seed": int(a.removeprefix("grpo_seed")), "seen_gain": g(a, "seen_combinations").get("gain"), "seen_ci95": g(a, "seen_combinations").get("ci95"),
                     "unseen_gain": g(a, "unseen_combinations").get("gain"), "sampled_gain": g(a, "sampled").get("gain"),
                     "calls_gain": g(a, "seen_combinations", "calls_per_task").get("gain")} for a in seeds]
    res["controls"] = {"shuffled": [{"seed": int(a.removeprefix("shuffled_seed")), "seen_gain": g(a, "seen_combinations").get("gain"),
                                     "seen_ci95": g(a, "seen_combinations").get("ci95")} for a in sorted(arms) if a.startswith("shuffled_seed")],
                       **{c: {"seen_gain": g(c, "seen_combinations").get("gain"), "ci95": g(c, "seen_combinations").get("ci95")} for c in ("rft", "more_sft") if c in arms},
                       **{name: [{"seed": int(a.removeprefix(f"{kind}_seed")), "seen_gain": g(a, "seen_combinations").get("gain"), "seen_ci95": g(a, "seen_combinations").get("ci95"),
                                   "calls_gain": g(a, "seen_combinations", "calls_per_task").get("gain")} for a in sorted(arms) if a.startswith(f"{kind}_seed")]
                          for name, kind in (("prove_outcome", "prove"), ("shuffled_prove_outcome", "shuffled_prove"))},
                       "grpo_over_shuffled": {"seen_gain": g("over_shuffled", "seen_combinations").get("gain"), "ci95": g("over_shuffled", "seen_combinations").get("ci95")},
                       "prove_outcome_mean": {"seen_gain": g("prove_mean", "seen_combinations").get("gain"), "ci95": g("prove_mean", "seen_combinations").get("ci95"),
                                              "calls_gain": g("prove_mean", "seen_combinations", "calls_per_task").get("gain")}}
    wanted = ["sft"] + [f"grpo_seed{s}" for s in range(3)] + ["shuffled_seed0", "shuffled_seed1", "rft", "more_sft"]
    res["pending"] = [f"{a} {v}" for a in wanted for v in VIEWS if (a, v) not in per]
    band = max([c["seen_gain"] for c in res["controls"]["shuffled"] if c["seen_gain"] is not None], default=None)
    seen = [s["seen_gain"] for s in res["seeds"] if s["seen_gain"] is not None]
    res["target_met"] = bool(len(seen) >= 3 and band is not None and mean(seen, 0.0) >= 0.08 and all(x > max(0, band) for x in seen)
                             and res["seen_combinations"]["paired"]["calls_per_task"]["gain"] <= 0)
    return res

def forest_rows(res: dict) -> list:
    "(label, gain, ci95) of every evaluated arm on the seen view, GRPO seeds and their mean first."
    v = res.get("seen_combinations", {})
    rows = [(a, v[a]["paired"]["success"]) for a in sorted(k for k in v if ARM.match(k) and "paired" in v[k])]
    if "prove_mean" in v: rows = [("PROVE + outcome, mean of seeds", v["prove_mean"]["paired"]["success"])] + rows
    if "paired" in v: rows = [("GRPO, mean of seeds", v["paired"]["success"])] + rows
    return [(a, p["gain"], p["ci95"]) for a, p in rows]

def table(res: dict) -> str:
    "A markdown table of every model on every evaluated view."
    out = ["| view | model | tasks | success | state only | PROVE | calls/task | gain [95% CI] |", "|---|---|---|---|---|---|---|---|"]
    for v in VIEWS:
        for m, r in res.get(v, {}).items():
            if not isinstance(r, dict) or "n" not in r: continue  # the view's paired gains and counts are not models
            p = r.get("paired", {}).get("success") or (res[v]["paired"]["success"] if m == "sft+grpo" else None)
            gain = f"{100 * p['gain']:+.1f} [{100 * p['ci95'][0]:+.1f}, {100 * p['ci95'][1]:+.1f}]" if p else ""
            out.append(f"| {v} | {m} | {r['n']} | {r['success']:.3f} | {r['success_state_only']:.3f} | {r['prove']:.3f} | {r['calls_per_task']:.2f} | {gain} |")
    return "\n".join(out)

def publish(res: dict, rows: list, dest: Path) -> tuple:
    """Write `res` as bench/results/learn_cpu.json, or, when the committed one is of another SFT checkpoint (another CPU's
    arithmetic trains other weights from the same data and seed), beside it as learn_cpu_<fingerprint>.json, adding its
    controls to the committed record, each paired against its own SFT and marked with that checkpoint; returns the record and forest rows written."""
    main_f, fp = dest / "learn_cpu.json", res["sft"]["fingerprint"]
    prev = json.loads(main_f.read_text()) if main_f.exists() else None
    if prev is None or prev["sft"]["fingerprint"] == fp:
        main_f.write_text(json.dumps(res, indent=1))
        return res, rows
    side = dest / f"learn_cpu_{fp}.json"
    side.write_text(json.dumps(res, indent=1))
    for c in ("rft", "more_sft"):
        have = prev["controls"].get(c) or {}
        if res["controls"].get(c, {}).get("seen_gain") is not None and (have.get("seen_gain") is None or "sft" in have):  # the committed checkpoint's own measure wins
            prev["controls"][c] = res["controls"][c] | {"sft": fp, "sft_seen_success": res["seen_combinations"]["sft"]["success"], "record": side.name}
            prev["pending"] = [p for p in prev["pending"] if p != f"{c} seen_combinations"]
    main_f.write_text(json.dumps(prev, indent=1))
    own = [(f"{c} (its own SFT, {fp})", r["seen_gain"], r["ci95"]) for c, r in prev["controls"].items() if isinstance(r, dict) and r.get("sft") == fp]
    return prev, forest_rows(prev) + own

def seed_records(out: Path, records: Path | None):
    "Unpack a committed bundle of a run's records (stages, per-task evaluations, training curves; no checkpoints) into the run folder, keeping what is there."
    if not records: return
    bundle = json.loads(Path(records).read_text())
    for name, rec in bundle["records"].items():
        if not (out / name).exists(): (out / name).write_text(json.dumps(rec, indent=1))
    for arm, rows in bundle["metrics"].items():
        (out / arm).mkdir(exist_ok=True)
        if not (out / arm / "metrics.jsonl").exists(): (out / arm / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

def keep_records(out: Path, dest: Path):
    "The run's records as one bundle at `dest` (to commit): every stage and per-task evaluation, and each arm's training curve."
    metrics = {f.parent.name: [json.loads(l) for l in f.read_text().splitlines() if l.strip()] for f in sorted(out.glob("*/metrics.jsonl"))}
    dest.write_text(json.dumps({"records": {f.name: json.loads(f.read_text()) for f in sorted(out.glob("*.json")) if f.name != "results.json"},
                                "metrics": metrics}))

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="toy sizes: a few minutes")
    ap.add_argument("--seed", type=int, default=0, help="the synthesis and SFT seed (GRPO seeds are the arms')")
    ap.add_argument("--arms", default="grpo_seed0", help="comma-separated arms to train and evaluate: grpo_seedS, shuffled_seedS, prove_seedS, shuffled_prove_seedS, rft, more_sft")
    ap.add_argument("--views", default=",".join(VIEWS), help="comma-separated views to evaluate: " + ", ".join(VIEWS))
    ap.add_argument("--grpo-minutes", type=float, help="an arm's training wall-clock budget (default: the size's)")
    ap.add_argument("--out", help="output folder (default runs/learn_cpu-quick or runs/learn_cpu-full)")
    ap.add_argument("--records", help="a committed bundle of a run's records to continue from (bench/results/learn_cpu/<date>_<name>.json)")
    ap.add_argument("--name", default="broad-recipe", help="the run's bundle is bench/results/learn_cpu/<date>_<name>.json")
    ap.add_argument("--no-resume", action="store_true", help="rerun stages already recorded in the output folder")
    for k in ("sft_tasks", "sft_steps", "grpo_tasks", "grpo_steps", "seen", "unseen", "sampled_tasks"): ap.add_argument("--" + k.replace("_", "-"), type=int, help="override the size's value")
    a = ap.parse_args(argv)
    size = "quick" if a.quick else "full"
    r, sizes = RECIPES[size], {**SIZES[size], **{k: v for k, v in vars(a).items() if k in SIZES[size] and v is not None}}
    given = lambda k, default: default if getattr(a, k) is None else getattr(a, k)
    r = replace(r, seed=a.seed, sft_tasks=given("sft_tasks", r.sft_tasks), sft_steps=given("sft_steps", r.sft_steps), grpo_tasks=given("grpo_tasks", r.grpo_tasks),
                eval_tasks=given("seen", r.eval_tasks), grpo=replace(r.grpo, steps=given("grpo_steps", r.grpo.steps), max_minutes=given("grpo_minutes", r.grpo.max_minutes)))
    arms, views_wanted = [x for x in a.arms.split(",") if x], [x for x in a.views.split(",") if x]
    for x in arms:
        if not ARM.match(x) or x == "sft": raise SystemExit(f"--arms: unknown arm {x!r} (grpo_seedS, shuffled_seedS, prove_seedS, shuffled_prove_seedS, rft, more_sft)")
    for x in views_wanted:
        if x not in VIEWS: raise SystemExit(f"--views: unknown view {x!r} ({', '.join(VIEWS)})")
    out = Path(a.out or ROOT / "runs" / f"learn_cpu-{size}").resolve(); out.mkdir(parents=True, exist_ok=True)
    seed_records(out, a.records)
    resume = not a.no_resume
    t_all, machine = time.perf_counter(), compute_facts()
    print("machine: " + json.dumps(machine), flush=True)
    views = make_views(r, sizes)
    print("tasks: " + ", ".join(f"{k} {len(v)}" for k, v in views.items()), flush=True)
    def sft_stage():
        ck = recipe_sft(r, views["sft"], out / "sft")
        return {"checkpoint": str(Path(ck).resolve())}
    sft = stage(out, "sft", sft_stage, resume)
    if not Path(sft["checkpoint"]).exists():  # recorded in another session: retrain from the same data and seed, and compare fingerprints
        recorded = sft.get("fingerprint")
        sft = stage(out, "sft", sft_stage, False)
        sft["recorded_fingerprint"] = recorded
    if "fingerprint" not in sft:
        sft["fingerprint"] = fingerprint(sft["checkpoint"])
        (out / "stage_sft.json").write_text(json.dumps(sft, indent=1))
    print(f"SFT {sft['checkpoint']} ({sft['fingerprint']})", flush=True)
    models = {"sft": sft["checkpoint"]}
    for arm in arms:
        rec = stage(out, arm, lambda arm=arm: train_arm(arm, views, r, sizes, sft, out), resume)
        if rec.get("sft") != sft["fingerprint"] or not Path(rec["checkpoint"]).exists():
            rec = stage(out, arm, lambda arm=arm: train_arm(arm, views, r, sizes, sft, out), False)
        models[arm] = rec["checkpoint"]
        print(f"{arm}: " + json.dumps({k: v for k, v in rec.items() if k not in ("checkpoint", "settings")}), flush=True)
    for v in views_wanted:
        for m, path in models.items():
            samples = sizes["samples"] if v == "sampled" else 1
            f = out / f"stage_eval_{m}_{v}.json"
            if f.exists() and json.loads(f.read_text()).get("sft") not in (None, sft["fingerprint"]): f.unlink()
            stage(out, f"eval_{m}_{v}", lambda m=m, v=v, path=path, samples=samples: evaluate(r, m, path, views[v], v, out, samples) | {"sft": sft["fingerprint"]}, resume)
    seconds = {p.stem.removeprefix("stage_"): json.loads(p.read_text()).get("stage_s") for p in sorted(out.glob("stage_*.json"))}
    res = results(out, {"recipe": asdict(r), **sizes}, views, sft, machine, seconds | {"this_invocation": round(time.perf_counter() - t_all, 1)})
    (out / "results.json").write_text(json.dumps(res, indent=1))
    curves = {a: out / a / "metrics.jsonl" for a in res["arms"] if (out / a / "metrics.jsonl").exists()}
    if curves: plot_learning(curves, out / "curves.png", window=5, keys=("reward", "calls_per_episode"))
    rows = forest_rows(res)
    if rows: forest_plot(rows, out / "forest.png")
    if size == "full":
        dest = ROOT / "bench" / "results"
        res, rows = publish(res, rows, dest)
        curves = {a: out / a / "metrics.jsonl" for a in res["arms"] if (out / a / "metrics.jsonl").exists()}
        keep_records(out, dest / "learn_cpu" / f"{time.strftime('%Y-%m-%d')}_{a.name}.json")
        if rows: forest_plot(rows, dest / "learn_cpu_forest.png")
        if curves: plot_learning(curves, dest / "learn_cpu_curves.png", window=5, keys=("reward", "calls_per_episode"))
    print("\n" + table(res))
    print(json.dumps({k: res[k] for k in ("seeds", "controls", "pending", "target_met")}))

if __name__ == "__main__":
    main()
