"""The learning-rate and KL sweep behind learn_cpu's GRPO choice: short GRPO arms from one SFT checkpoint, judged on validation tasks.

Every arm starts from the SFT checkpoint and trains on the edge tasks recorded in a learn_cpu run folder (its
`stage_sft.json` and `stage_prescreen.json`), with learn_cpu's recipe except the learning rate and beta (the KL
coefficient; beta > 0 loads a frozen reference copy of the SFT model). Every arm and the SFT model then play the same
validation tasks greedily: GRPO-pool tasks after the pre-screened ones, so never trained on by SFT or GRPO and disjoint
from both held-out views (choosing on a held-out view would tune on the test). The choice: the arm with the highest
paired validation success gain over SFT, ties to fewer calls per task.

    python bench/sweep_grpo.py --run runs/learn_cpu-full                       # the recorded sweep (about 93 minutes on 2 cores)
    python bench/sweep_grpo.py --run runs/learn_cpu-quick --quick              # toy sizes
Writes OUT/sweep.json and, for the full size, bench/results/grpo_sweep.json.
"""
import argparse, json, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from learn_cpu import LIMITS, MAX_NEW, ROOT, SIZES, evaluate, grpo_curve, make_views, paired, screen_candidates, stage
from prove_nb.grpo import RECIPE_MICRO_BATCH, at_the_edge

ARMS = ((5e-6, 0.0), (2e-5, 0.0), (6e-5, 0.0), (2e-5, 0.04))  # (lr, beta): the sixth run's 2e-5 / 0, a quarter and 3x its lr, and a KL arm
SWEEP = {"quick": dict(steps=2, validation=6), "full": dict(steps=6, validation=60)}

def arm_name(lr: float, beta: float) -> str: return f"lr{lr:g}_beta{beta:g}"

def validation_tasks(views: dict, cfg: dict, trained: list, n: int) -> list:
    "The first `n` GRPO-pool tasks that were neither pre-screened nor trained on."
    used = {t.id for t in screen_candidates(views["grpo"], cfg) + trained}
    return [t for t in views["grpo"] if t.id not in used][:n]

def choose(arms: dict) -> str:
    "The arm with the highest paired validation success gain over SFT; ties go to fewer calls per task."
    return max(arms, key=lambda a: (arms[a]["paired"]["success"]["gain"], -arms[a]["validation"]["calls_per_task"]))

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", required=True, help="a learn_cpu output folder with stage_sft.json (and, at the full size, stage_prescreen.json)")
    ap.add_argument("--quick", action="store_true", help="toy sizes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="output folder (default RUN/sweep)")
    a = ap.parse_args(argv)
    size = "quick" if a.quick else "full"
    cfg, sw = SIZES[size], SWEEP[size]
    run = Path(a.run); out = Path(a.out or run / "sweep"); out.mkdir(parents=True, exist_ok=True)
    from prove_nb.grpo import train_grpo
    sft = json.loads((run / "stage_sft.json").read_text())
    views = make_views(cfg, a.seed)
    screened = run / "stage_prescreen.json"  # the quick size screens nothing: its arms train on the first GRPO tasks
    edge = at_the_edge(screen_candidates(views["grpo"], cfg), json.loads(screened.read_text())["rates"]) if screened.exists() else views["grpo"][:4]
    val = validation_tasks(views, cfg, edge, sw["validation"])
    print(f"sweep: {len(ARMS)} arms x {sw['steps']} steps on {len(edge)} edge tasks; {len(val)} validation tasks", flush=True)
    base = stage(out, "eval_sft", lambda: evaluate("sft", sft["checkpoint"], val, "validation", out), True)
    arms = {}
    for lr, beta in ARMS:
        name = arm_name(lr, beta)
        g = stage(out, f"grpo_{name}", lambda: {"checkpoint": str(train_grpo(
            edge, str(out / name), model=sft["checkpoint"], steps=sw["steps"], reward="prove+outcome", monitor=("recall",), group=cfg["group"],
            batch_size=cfg["group"], lr=lr, beta=beta, limits=LIMITS, max_new_tokens=MAX_NEW, max_completion=1024, seed=a.seed,
            micro_batch=min(cfg["group"], RECIPE_MICRO_BATCH)))}, True)
        v = stage(out, f"eval_{name}", lambda: evaluate(name, g["checkpoint"], val, "validation", out), True)
        per_sft, per_arm = (json.loads((out / f"eval_{m}_validation.json").read_text()) for m in ("sft", name))
        arms[name] = {"lr": lr, "beta": beta, "grpo_s": g["stage_s"], "curve": grpo_curve(out / name / "metrics.jsonl"), "validation": v,
                      "paired": {k: paired(per_sft, per_arm, key) for k, key in (("success", "success"), ("prove", "prove"), ("calls_per_task", "calls"))}}
        print(f"  {name}: " + json.dumps(arms[name]["paired"]), flush=True)
    res = {"bench": "sweep_grpo", "size": size, "seed": a.seed, "run": str(run), "steps": sw["steps"], "edge_tasks": len(edge),
           "validation_tasks": len(val), "sft_validation": base, "arms": arms, "chosen": choose(arms)}
    (out / "sweep.json").write_text(json.dumps(res, indent=1))
    if size == "full": (ROOT / "bench" / "results" / "grpo_sweep.json").write_text(json.dumps(res, indent=1))
    print(f"\n| arm | lr | beta | GRPO s | train reward, first -> last 3 | val success | paired gain [95% CI] | calls/task |\n|---|---|---|---|---|---|---|---|")
    for n, r in arms.items():
        c, p = r["curve"]["reward"], r["paired"]["success"]
        print(f"| {n} | {r['lr']:g} | {r['beta']:g} | {r['grpo_s']} | {sum(c[:3]) / 3:.2f} -> {sum(c[-3:]) / 3:.2f} | {r['validation']['success']:.3f} | "
              f"{p['gain']:+.3f} [{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}] | {r['validation']['calls_per_task']:.2f} |")
    print(f"SFT validation success {base['success']:.3f}, calls/task {base['calls_per_task']:.2f}; chosen: {res['chosen']}")

if __name__ == "__main__":
    main()
