"""Every evaluated `bench/learn_cpu.py` run side by side: SFT -> SFT+GRPO on the seen view, as a table and a forest plot.

    python bench/learn_cpu_runs.py    # reads the pre-screened runs' records, bench/results/learn_cpu/*.json, writes bench/results/learn_cpu_runs.{md,png}

The runs share the evaluation tasks (seed 0) and most share an SFT checkpoint, so they are not independent draws: their
spread is a reading of how much GRPO's randomness and the recipe changes move the gain, not a test."""
import json, math, statistics, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import learn_cpu

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
HISTORY = RESULTS / "learn_cpu"  # runs 6-20, learn_cpu/<date>_<what it changed>.json (the broad recipe's records are in subfolders)

RUNS = {"2026-12-03_prescreen-24": "6", "2026-12-03_prescreen-state-changing-32": "7", "2026-12-03_kl-beta-0.04": "8",
        "2026-12-03_kl-beta-0.04-grpo-seed-1": "8 (seed 1)", "2026-12-03_prescreen-48-stratified": "9",
        "2026-12-03_outcome-reward-run9-tasks": "10a", "2026-12-04_outcome-reward-run8-tasks": "10b",
        "2026-12-04_outcome-reward-seed1-tasks": "10c", "2026-12-04_prescreen-96": "11", "2026-12-04_prescreen-96-grpo-seed-1": "11 (seed 1)",
        "2026-12-04_prescreen-96-outcome-reward": "12", "2026-12-04_prescreen-96-state-changing": "13", "2026-12-04_default-command": "14",
        "2026-12-05_cutoff-scores-zero": "15", "2026-12-05_cutoff-keeps-half": "16", "2026-12-05_prescreen-96-48-steps": "17",
        "2026-12-05_guided-40-tasks": "18", "2026-12-05_guided-read-then-write": "19", "2026-12-05_sft-576-conversations": "20"}  # RESULTS.md's run numbers

def run_number(stem: str) -> str:
    "The run's number in RESULTS.md's history table."
    return RUNS[stem]

def order(row: dict) -> tuple:
    "Sort key: the run's number, then its suffix."
    n = row["number"]
    return int("".join(c for c in n.split()[0] if c.isdigit())), n

def lever(d: dict) -> str:
    "What a run changed, from its recorded options (runs 6-9 did not record the reward, PROVE + outcome; runs 6-7 not beta, 0)."
    ps = d.get("prescreen") or {}
    parts = [f"reward {d.get('reward') or 'prove+outcome'}", f"beta {d.get('grpo_beta')}" if d.get("grpo_beta") is not None else "beta 0",
             f"prescreen {ps['tasks']} ({ps['edge']} edge)" if ps else "no prescreen"]
    cfg, full = d.get("config") or {}, vars(learn_cpu.RECIPES["full"])
    if any(k in cfg and cfg[k] != full[k] for k in ("sft_tasks", "sft_steps")): parts.insert(0, f"SFT {cfg['sft_tasks']} conversations, {cfg['sft_steps']} steps")
    if d.get("grpo_tasks"): parts.append(f"{d['grpo_tasks']} GRPO tasks" + (f" of kind {d['grpo_kind']}" if d.get("grpo_kind") else ""))
    if d.get("guide"): parts.append("guided")
    if d.get("unfinished") not in (None, 1.0): parts.append(f"unfinished {d['unfinished']}")
    if d.get("grpo_seed"): parts.append(f"GRPO seed {d['grpo_seed']}")
    return ", ".join(parts)

def paired_se(p: dict) -> float:
    "Standard error of a paired success gain from its counts of tasks won and lost."
    n, g = p["n"], p["gain"]
    return math.sqrt(max((p["better"] + p["worse"]) / n - g * g, 0) / n)

def runs() -> list[dict]:
    "One row per result file that evaluated SFT and SFT+GRPO on the seen view."
    rows = []
    for f in sorted(HISTORY.glob("*.json")):
        d = json.loads(f.read_text())
        s = d.get("seen_combinations") or {}
        if "paired" not in s: continue
        p = s["paired"]
        rows.append({"run": f.stem, "number": run_number(f.stem), "lever": lever(d), "sft": s["sft"]["success"], "grpo": s["sft+grpo"]["success"],
                     "gain": p["success"]["gain"], "ci95": p["success"]["ci95"], "better": p["success"]["better"], "worse": p["success"]["worse"],
                     "se": paired_se(p["success"]), "calls": p["calls_per_task"]["gain"], "met": bool(d.get("target_met"))})
    return sorted(rows, key=order)

def summary(rows: list[dict]) -> dict:
    "Mean gain over runs, its spread, and the count of runs on each side of zero."
    g = [r["gain"] for r in rows]
    return {"runs": len(g), "mean_gain": round(statistics.mean(g), 4), "sd_gain": round(statistics.stdev(g), 4),
            "median_within_run_se": round(statistics.median(r["se"] for r in rows), 4),
            "positive": sum(x > 0 for x in g), "negative": sum(x < 0 for x in g), "target_met": sum(r["met"] for r in rows),
            "fewer_calls": sum(r["calls"] < 0 for r in rows)}

def table(rows: list[dict]) -> str:
    "The runs as a markdown table."
    head = "| run | file | what it changed | SFT | SFT+GRPO | gain [95% CI] | won/lost | calls/task change | target |\n|---|---|---|---|---|---|---|---|---|\n"
    return head + "\n".join(f"| {r['number']} | {r['run']} | {r['lever']} | {r['sft']:.3f} | {r['grpo']:.3f} | {r['gain']:+.3f} [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] "
                            f"| {r['better']}/{r['worse']} | {r['calls']:+.2f} | {'met' if r['met'] else ''} |" for r in rows)

def forest(rows: list[dict], path: Path):
    "Each run's gain with its interval, the +8-point target and zero marked."
    import matplotlib; matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 0.32 * len(rows) + 1.2))
    for i, r in enumerate(rows):
        ax.plot(r["ci95"], [i, i], color="tab:green" if r["met"] else "tab:blue")
        ax.plot(r["gain"], i, "o", color="tab:green" if r["met"] else "tab:blue")
    ax.axvline(0, color="black", lw=0.8); ax.axvline(0.08, color="tab:red", ls="--", lw=0.8, label="target +0.08")
    ax.set_yticks(range(len(rows)), [f"run {r['number']}" for r in rows], fontsize=8); ax.invert_yaxis()
    ax.set_xlabel("success gain, SFT -> SFT+GRPO, seen view (paired, 95% CI)")
    ax.set_title("Every evaluated learn_cpu run (what each changed: learn_cpu_runs.md)", fontsize=9); ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout(); fig.savefig(path, dpi=110); plt.close(fig)

def main():
    rows = runs()
    s = summary(rows)
    md = table(rows) + "\n\n" + json.dumps(s)
    (RESULTS / "learn_cpu_runs.md").write_text(md + "\n")
    forest(rows, RESULTS / "learn_cpu_runs.png")
    print(md)

if __name__ == "__main__":
    main()
