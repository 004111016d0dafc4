"""Learning you can see on a CPU: base vs SFT vs SFT+GRPO with SmolLM2-135M-Instruct on held-out tasks, live servers.

The recipe (the levers weighed in bench/RESULTS.md):
- Tasks (`prove_nb.grpo.recipe_tasks`): one user turn, one or two chained calls, 3 tools of one server, no distractors, so a prompt
  is about 0.5-0.8k tokens and a 135M model sits at the edge of its ability instead of far below it.
- SFT on gold conversations until the model calls tools and stops (SFT_TASKS conversations, a few epochs).
- Pre-screening: the SFT model plays PRESCREEN candidate GRPO tasks PRESCREEN_K times each at temperature 1, and
  GRPO trains only on those whose pass rate lies strictly between 0 and 1 (`prove_nb.grpo.pass_rates`, `at_the_edge`).
  With SCREEN "state_changing" the candidates are only tasks whose gold final state differs from the seed state, so
  that the outcome cannot be met by answering without the calls (the sixth run's GRPO learned exactly that shortcut;
  the seventh run screened this way and gained nothing, so the default stays "all", the sixth run's recipe).
  With SCREEN "stratified" the candidates take one task of each kind in turn (gold call count, changes the state or
  not), so that two-call read-then-write tasks are screened as often as single reads.
  With --prescreen-from an earlier run's stage_prescreen.json of the same SFT checkpoint, the candidates it rated keep
  their rates and only the new ones play (the seventeenth run widened the fourteenth's 24 candidates to 96).
- GRPO from the SFT checkpoint with groups of GROUP rollouts of one task a step, reward PROVE + outcome (PROVE's
  process reward plus 1 for gold final state and every answer fact). With --prescreen 0, dynamic sampling judged on the
  outcome instead: a group whose rollouts all succeed or all fail is replaced by a fresh task's group (up to RESAMPLE
  rounds) during training. `--reward outcome` trains on the outcome alone (the tenth run), PROVE and recall only logged.
  With --unfinished K an episode that hits the step limit before replying keeps only the share K of its trained rewards
  (the fifteenth run used 0, the sixteenth 0.5: the fourteenth run's sampled policy had learned to call until it was cut off).
  With --guide a group whose rollouts all have the same outcome gets the gold episode in its last place when that gives it
  a spread (off-policy guidance): the seventeenth run's edge held 3 read-then-write tasks of 19, so their groups rarely taught.
  With --prescreen 0 --grpo-tasks N, GRPO trains on the first N tasks of its pool, of every kind and pass rate (the eighteenth run, guided).
  With --grpo-kind K as well, only tasks of that kind (the nineteenth run: read-then-write tasks, each guided three times).
- With --sft-tasks N --sft-steps S, SFT takes the first N conversations of the shuffled training split instead of 288 (the
  twentieth run: 576 in 144 steps, twice the data, still one pass) and GRPO's pool starts after them.
- GRPO runs on the recipe's settings (`RECIPE_GRPO`: 4 tasks a step in groups of 4, no KL term, the grouped step of
  09b_grpo_step); the runs recorded in bench/RESULTS.md before that change used one task a step and beta 0.04.
- A second GRPO arm from the same checkpoint and seeds with recall + outcome instead (PROVE's thesis: recall pays for
  verbosity, PROVE's budget term stops it); it is logged, not evaluated.

Held-out views (world seeds 0-5 train, 6-7 never trained on):
  seen_combinations    train-split tool combinations that occur in training, played on the unseen world seeds 6-7
  unseen_combinations  test-split tasks: tool combinations held out of training altogether
Every model plays the same tasks greedily in `fast_dtype()` (bfloat16 where it is native; 3 assistant steps, 128 new
tokens a step, 1,500 characters of a tool result read), every call executed live; success is `prove_nb.evaluate.grade`'s:
gold final state AND every answer fact in the final reply. For SFT -> SFT+GRPO the paired per-task differences get 95% bootstrap intervals.

    python bench/learn_cpu.py --quick     # a few minutes: the same pipeline at toy sizes
    python bench/learn_cpu.py             # the benchmark: at most 90 minutes on 2 cores
    python bench/learn_cpu.py --resume    # continue a stopped run from its recorded stages
    python bench/learn_cpu.py --sft-from CK --sft-skip 128   # SFT continues from a checkpoint that saw the first 128
    python bench/learn_cpu.py --resume --grpo-seed 1 --recall-steps 0   # a replicate: new pre-screening and GRPO from the recorded SFT
Writes runs/learn_cpu-{quick,full}/ and, for the full size, bench/results/learn_cpu.json (learn_cpu_grpo_seedN.json for a replicate,
a _REWARD suffix for another --reward, _unfinishedK with --unfinished K).
"""
import argparse, itertools, json, os, sys, time
from dataclasses import replace
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from prove_nb.evaluate import run_trials
from prove_nb.grpo import (RECIPE_GRPO, RECIPE_LIMITS, RECIPE_MAX_NEW, at_the_edge, changes_state, paired_gain, pass_rates,
                           plot_learning, recipe_tasks, task_kind)
from prove_nb.rollout import HFPolicy, compute_facts, load_model

SIZES = {
    "quick": dict(pool=400, seen=12, unseen=8, sft_tasks=24, sft_steps=6, sft_batch=4, prescreen=0, prescreen_k=2, screen="all", grpo_steps=3, group=4,
                  resample=1, recall_steps=2),  # 6 SFT steps leave hardly any task at the edge: resampling instead
    "full": dict(pool=3000, seen=150, unseen=100, sft_tasks=288, sft_steps=72, sft_batch=4, prescreen=24, prescreen_k=4, screen="all", grpo_steps=16, group=8,
                 resample=0, recall_steps=8),
}
LIMITS = RECIPE_LIMITS
VIEWS = ("seen_combinations", "unseen_combinations")
MAX_NEW, EVAL_BATCH = RECIPE_MAX_NEW, 10  # 128: at 64, 13% of the gold tool calls were cut off (the stopped run's writes failed)

def make_views(cfg: dict, seed: int) -> dict:
    "The recipe's SFT and GRPO tasks and its two held-out views, cut to this size."
    views = recipe_tasks(cfg["pool"], cfg["sft_tasks"], seed)
    return {**views, "seen_combinations": views["seen_combinations"][:cfg["seen"]], "unseen_combinations": views["unseen_combinations"][:cfg["unseen"]]}

# ------------------------------------------------------------------------------------------------------- evaluate
def mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0


def round_robin(tasks: list, key) -> list:
    "`tasks` reordered to take one from each `key` group in turn (groups in order of first appearance, each in pool order)."
    groups = {}
    for t in tasks: groups.setdefault(key(t), []).append(t)
    return [t for row in itertools.zip_longest(*groups.values()) for t in row if t is not None]

def screen_candidates(grpo: list, cfg: dict, block: int = 0) -> list:
    "The `block`-th PRESCREEN GRPO tasks to pre-screen: of all, of those that change the state, or (SCREEN 'stratified') one of each `task_kind` in turn."
    pool = {"all": grpo, "state_changing": [t for t in grpo if changes_state(t)], "stratified": round_robin(grpo, task_kind)}[cfg["screen"]]
    n = cfg["prescreen"]
    return pool[block * n:(block + 1) * n]

def first_of_kind(tasks: list, kind: str | None, n: int | None) -> list:
    "The first `n` of `tasks` whose `task_kind` is `kind` (any kind when None; all of them when `n` is None), in order."
    return [t for t in tasks if kind in (None, task_kind(t))][:n]

def view_metrics(per: dict) -> dict:
    "Summary of one model's per-task records on one view."
    return {"n": len(per), "success": mean(p["success"] for p in per.values()), "success_state_only": mean(p["state"] for p in per.values()),
            "success_state_changing": mean(p["success"] for p in per.values() if p["write"]), "n_state_changing": sum(p["write"] for p in per.values()),
            "prove": mean(p["prove"] for p in per.values()), "calls_per_task": mean(p["calls"] for p in per.values()),
            "stops": dict(Counter(p["stop"] for p in per.values()))}

def evaluate(name: str, model_path: str, tasks: list, view: str, out: Path) -> dict:
    "One view's tasks played greedily by the model at `model_path`: per-task records (kept in `out`) and summary metrics."
    model, tok = load_model(model_path, dtype="auto")
    model.eval()
    tasks = sorted(tasks, key=lambda t: len(json.dumps(t.tools)) + len(t.turns[0].user))  # less padding
    t0 = time.perf_counter()
    rows = run_trials(tasks, HFPolicy(model, tok, MAX_NEW, 0.0, name=name), 1, LIMITS, rewards=("prove",), batch_size=EVAL_BATCH)
    wall = time.perf_counter() - t0
    per = {r["task"]: {"success": int(r["success"]), "state": int(r["state"]), "prove": r["rewards"]["prove"], "calls": r["calls"],
                       "tokens": r["tokens"], "stop": r["stop"], "write": changes_state(t)} for r, t in zip(rows, tasks, strict=True)}
    (out / f"eval_{name}_{view}.json").write_text(json.dumps(per))
    res = view_metrics(per) | {"eval_s": round(wall, 1), "gen_tok_s": round(sum(p["tokens"] for p in per.values()) / wall, 1)}
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

# ------------------------------------------------------------------------------------------------------- training
def prescreen(checkpoint: str, tasks: list, k: int, seed: int, known: dict | None = None) -> dict:
    "Pass rates of the SFT model over `k` samples at temperature 1 on candidate GRPO tasks (those in `known` not replayed), and how many lie strictly between 0 and 1."
    model, tok = load_model(checkpoint, dtype="auto")
    model.eval()
    known = {t.id: known[t.id] for t in tasks if t.id in (known or {})}
    rates = known | pass_rates([t for t in tasks if t.id not in known], HFPolicy(model, tok, MAX_NEW, 1.0, name="sft"), k, LIMITS, batch_size=EVAL_BATCH, seed=seed)
    rates = {t.id: rates[t.id] for t in tasks}
    hist = dict(sorted(Counter(f"{r:.2f}" for r in rates.values()).items()))
    print(f"  prescreen: {len(tasks)} tasks x {k}: pass rates {hist}", flush=True)
    return {"tasks": len(tasks), "k": k, "rates": rates, "edge": sum(0 < r < 1 for r in rates.values()), "histogram": hist, "reused": len(known)}

def known_rates(path: str | None, k: int, checkpoint: str) -> dict:
    "The pass rates an earlier pre-screening of the same SFT checkpoint at the same `k` recorded in `path` (its stage_prescreen.json)."
    if not path: return {}
    rec = json.loads(Path(path).read_text())
    if rec["k"] != k: raise SystemExit(f"--prescreen-from {path}: screened with k={rec['k']}, this run uses k={k}")
    if rec.get("checkpoint", checkpoint) != checkpoint: raise SystemExit(f"--prescreen-from {path}: screened {rec['checkpoint']}, this run's SFT is {checkpoint}")
    return rec["rates"]

def grpo_curve(metrics: Path) -> dict:
    "Per-step reward, calls per episode, PROVE efficiency, zero-variance share, calls gap and push, and the mean step time."
    rows = [r for l in metrics.read_text().splitlines() if l.strip() and "reward" in (r := json.loads(l))]
    pick = lambda k: [round(r[k], 4) for r in rows if k in r]
    return {"reward": pick("reward"), "calls_per_episode": pick("calls_per_episode"), "prove_efficiency": pick("prove/efficiency"),
            "outcome": pick("outcome/state"), "zero_variance": pick("groups/zero_variance"),
            "zero_variance_after": pick("groups/zero_variance_after"), "calls_gap": pick("groups/calls_gap"),
            "calls_push": pick("groups/calls_push"), "step_s": round(mean(pick("step_time")), 1)}

def stage(out: Path, name: str, run, resume: bool) -> dict:
    "Run a stage and keep its record in out/stage_NAME.json; with `resume`, a recorded stage is read back instead."
    f = out / f"stage_{name}.json"
    if resume and f.exists(): return json.loads(f.read_text())
    t = time.perf_counter()
    rec = run()
    rec["stage_s"] = round(time.perf_counter() - t, 1)
    f.write_text(json.dumps(rec, indent=1))
    return rec

def table(rows: dict, view: str) -> str:
    head = ("| model | tasks | success | state only | success, state-changing | PROVE | calls/task | gen tok/s | eval s |\n"
            "|---|---|---|---|---|---|---|---|---|\n")
    return head + "\n".join(f"| {m} | {r[view]['n']} | {r[view]['success']:.3f} | {r[view]['success_state_only']:.3f} | "
                            f"{r[view]['success_state_changing']:.3f} ({r[view]['n_state_changing']}) | {r[view]['prove']:.3f} | "
                            f"{r[view]['calls_per_task']:.2f} | {r[view]['gen_tok_s']} | {r[view]['eval_s']} |" for m, r in rows.items())

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="toy sizes: a few minutes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--grpo-seed", type=int, help="a replicate of pre-screening and GRPO from the same views and SFT: seeds their sampling and screens "
                                                   "the GRPO_SEED-th block of candidates (default: --seed, block 0)")
    ap.add_argument("--sft-lr", type=float, default=1e-4)
    ap.add_argument("--grpo-lr", type=float, default=RECIPE_GRPO.lr)
    ap.add_argument("--reward", default="prove+outcome", help="GRPO's trained reward (the tenth run tried 'outcome' alone); PROVE and recall are logged beside it")
    ap.add_argument("--guide", action="store_true", help="a group whose rollouts all have the same outcome gets the gold episode in its last place (off-policy guidance)")
    ap.add_argument("--unfinished", type=float, default=1.0, help="the share of its trained rewards an episode keeps when it hits the step limit before replying (1: all)")
    ap.add_argument("--out", help="output folder (default runs/learn_cpu-quick or runs/learn_cpu-full)")
    ap.add_argument("--resume", action="store_true", help="reuse the stages already recorded in the output folder")
    ap.add_argument("--sft-from", help="continue SFT from this checkpoint, which already trained on the first --sft-skip SFT conversations")
    ap.add_argument("--screen", choices=("all", "state_changing", "stratified"), help="which GRPO tasks to pre-screen (default: the size's)")
    ap.add_argument("--prescreen-from", help="an earlier run's stage_prescreen.json of the same SFT checkpoint: its candidates' pass rates are reused, only new candidates play")
    ap.add_argument("--grpo-tasks", type=int, help="with --prescreen 0: GRPO trains on the first GRPO_TASKS tasks of its pool (default: all), so a run of as many steps trains each once")
    ap.add_argument("--grpo-kind", help="with --prescreen 0: GRPO trains only on tasks of this `task_kind`, e.g. '2-call write' (the first --grpo-tasks of them)")
    ap.add_argument("--sft-skip", type=int, default=0, help="SFT conversations the --sft-from checkpoint already saw (one epoch, in order)")
    for k in ("sft_tasks", "sft_steps", "prescreen", "prescreen_k", "grpo_steps", "resample", "recall_steps", "seen", "unseen"): ap.add_argument("--" + k.replace("_", "-"), type=int, help="override the size's value")
    a = ap.parse_args(argv)
    size = "quick" if a.quick else "full"
    cfg = {**SIZES[size], **{k: v for k, v in vars(a).items() if k in SIZES[size] and v is not None}}
    out = Path(a.out or ROOT / "runs" / f"learn_cpu-{size}"); out.mkdir(parents=True, exist_ok=True)
    from prove_nb.sft import train_sft
    from prove_nb.grpo import train_grpo
    t_all, machine = time.perf_counter(), compute_facts()
    print("machine: " + json.dumps(machine), flush=True)  # without native bfloat16, SFT and GRPO train in float32: about 3x slower (bench/RESULTS.md)
    views = make_views(cfg, a.seed)
    print("tasks: " + ", ".join(f"{k} {len(v)}" for k, v in views.items()), flush=True)
    skip = a.sft_skip if a.sft_from else 0
    sft = stage(out, "sft", lambda: {"checkpoint": str(train_sft(views["sft"][skip:], str(out / "sft"), model=a.sft_from or "smollm2-135m",
                                                                  steps=cfg["sft_steps"] - skip // cfg["sft_batch"], lr=a.sft_lr, batch_size=cfg["sft_batch"],
                                                                  max_length=1536, seed=a.seed, max_result_chars=LIMITS.max_result_chars)),
                                     "from": a.sft_from, "skipped": skip}, a.resume)
    gseed = a.seed if a.grpo_seed is None else a.grpo_seed
    candidates = screen_candidates(views["grpo"], cfg, block=a.grpo_seed or 0)
    screen = stage(out, "prescreen", lambda: prescreen(sft["checkpoint"], candidates, cfg["prescreen_k"], gseed,
                                                       known_rates(a.prescreen_from, cfg["prescreen_k"], sft["checkpoint"])) | {"checkpoint": sft["checkpoint"]},
                   a.resume) if cfg["prescreen"] else None
    grpo_tasks = at_the_edge(candidates, screen["rates"]) if screen else first_of_kind(views["grpo"], a.grpo_kind, a.grpo_tasks)
    if not grpo_tasks: raise SystemExit(f"prescreen: none of {cfg['prescreen']} tasks has a pass rate strictly between 0 and 1: {screen['histogram']}; screen more (--prescreen)" if screen else
                                        f"no GRPO task selected (--grpo-kind {a.grpo_kind!r}, --grpo-tasks {a.grpo_tasks}); kinds are like '1-call read' or '2-call write'")
    print(f"GRPO tasks: {len(grpo_tasks)}" + (f" of {cfg['prescreen']} screened ({screen['histogram']})" if screen else ""), flush=True)
    grpo_st = replace(RECIPE_GRPO, model=sft["checkpoint"], group=cfg["group"], lr=a.grpo_lr, limits=LIMITS, max_new_tokens=MAX_NEW, seed=gseed,
                      resample=cfg["resample"], resample_on=("outcome",), unfinished=a.unfinished, guide=a.guide)
    monitor = tuple(n for n in ("prove", "recall") if n not in a.reward.split("+"))
    grpo = stage(out, "grpo", lambda: {"checkpoint": str(train_grpo(grpo_tasks, str(out / "grpo"),
                                                                    replace(grpo_st, steps=cfg["grpo_steps"], reward=a.reward, monitor=monitor))),
                                     "tasks": [t.id for t in grpo_tasks]}, a.resume)
    models, order = {"base": "smollm2-135m", "sft": sft["checkpoint"], "sft+grpo": grpo["checkpoint"]}, []
    for view in VIEWS: order += [("sft", view), ("sft+grpo", view)]  # the paired comparison first, view by view
    order += [("base", view) for view in VIEWS]
    done = {k: stage(out, f"eval_{k[0]}_{k[1]}", lambda k=k: evaluate(k[0], models[k[0]], views[k[1]], k[1], out), a.resume) for k in order}
    rows = {m: {v: done[(m, v)] for v in VIEWS} for m in models}
    recall = None if not cfg["recall_steps"] else stage(out, "grpo_recall", lambda: {"checkpoint": str(train_grpo(grpo_tasks, str(out / "grpo_recall"),
                                                                             replace(grpo_st, steps=cfg["recall_steps"], reward="recall+outcome", monitor=("prove",))))}, a.resume)
    logs = {a.reward: out / "grpo" / "metrics.jsonl", **({"recall+outcome": out / "grpo_recall" / "metrics.jsonl"} if recall else {})}
    per = {(m, v): json.loads((out / f"eval_{m}_{v}.json").read_text()) for m in models for v in VIEWS}
    res = {"bench": "learn_cpu", "size": size, "machine": machine, "config": cfg, "seed": a.seed, "grpo_seed": gseed, "sft_lr": a.sft_lr, "grpo_lr": a.grpo_lr, "reward": a.reward,
           "unfinished": a.unfinished, "guide": a.guide, "grpo_tasks": len(grpo_tasks), "grpo_kind": a.grpo_kind, "sizes": {k: len(v) for k, v in views.items()},
           "sft_from": sft.get("from"), "sft_skipped": sft.get("skipped", 0),
           "prescreen": {k: screen[k] for k in ("tasks", "k", "edge", "histogram")} if screen else None,
           "seconds": {"sft": sft["stage_s"], **({"prescreen": screen["stage_s"]} if screen else {}), "grpo": grpo["stage_s"], **({"grpo_recall": recall["stage_s"]} if recall else {}),
                       **{f"eval_{m}_{v}": r["stage_s"] for (m, v), r in done.items()}, "wall": round(time.perf_counter() - t_all, 1)},
           "grpo_curve": {k: grpo_curve(f) for k, f in logs.items()}}
    for v in VIEWS:
        res[v] = {m: r[v] for m, r in rows.items()}
        res[v]["paired"] = {k: paired(per[("sft", v)], per[("sft+grpo", v)], key) for k, key in
                            (("success", "success"), ("prove", "prove"), ("calls_per_task", "calls"), ("success_state_only", "state"))}
        res[v]["solved_by_kind"] = solved_by_kind({m: per[(m, v)] for m in models}, views[v])
    s = res["seen_combinations"]["paired"]
    res["target_met"] = s["success"]["ci95"][0] > 0 and s["success"]["gain"] >= 0.08 and s["calls_per_task"]["gain"] <= 0
    (out / "results.json").write_text(json.dumps(res, indent=1))
    arms = {k.replace("prove", "PROVE").replace("+", " + "): f for k, f in logs.items()}
    plot_learning(arms, out / "arms.png", window=3, keys=("reward", "calls_per_episode", "prove/efficiency"))
    if size == "full":
        (ROOT / "bench" / "results").mkdir(exist_ok=True)
        name = "learn_cpu" if a.grpo_seed is None else f"learn_cpu_grpo_seed{a.grpo_seed}"  # a replicate never overwrites the benchmark's file
        if a.reward != ap.get_default("reward"): name += "_" + a.reward.replace("+", "_")  # nor does another reward's run
        if a.unfinished != 1: name += f"_unfinished{a.unfinished:g}"
        if a.guide: name += "_guided"
        if a.grpo_kind: name += "_" + a.grpo_kind.replace("-", "").replace(" ", "_")
        if cfg["sft_tasks"] != SIZES[size]["sft_tasks"]: name += f"_sft{cfg['sft_tasks']}"
        (ROOT / "bench" / "results" / f"{name}.json").write_text(json.dumps(res, indent=1))
        plot_learning(arms, ROOT / "bench" / "results" / f"{name}_arms.png", window=3, keys=("reward", "calls_per_episode", "prove/efficiency"))
    for v in VIEWS:
        print(f"\n### {v}\n\n" + table(rows, v) + "\n\nSFT -> SFT+GRPO, paired: " + json.dumps(res[v]["paired"]))
    print(json.dumps({k: res[k] for k in ("seconds", "target_met")}))

if __name__ == "__main__":
    main()
