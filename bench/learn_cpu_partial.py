"""Assemble bench/results/NAME.json (default learn_cpu.json) from the stages a stopped `bench/learn_cpu.py` run recorded (those missing are named)."""
import json, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import learn_cpu

def main(out: str, note: str = "", name: str = "learn_cpu"):
    out, views = Path(out), ("seen_combinations", "unseen_combinations")
    rows = {m: {v: json.loads(f.read_text()) for v in views if (f := out / f"stage_eval_{m}_{v}.json").exists()} for m in ("base", "sft", "sft+grpo")}
    rows = {m: r for m, r in rows.items() if r}
    res = {"bench": "learn_cpu", "size": "full", "partial": True, "note": note, "stages": sorted(f.stem[6:] for f in out.glob("stage_*.json")),
           "config": learn_cpu.SIZES["full"], "sft": json.loads((out / "stage_sft.json").read_text()),
           "prescreen": {k: v for k, v in json.loads(ps.read_text()).items() if k != "rates"} if (ps := out / "stage_prescreen.json").exists() else None,
           "seconds": {f.stem[6:]: json.loads(f.read_text())["stage_s"] for f in out.glob("stage_*.json")},
           "grpo_curve": {n: learn_cpu.grpo_curve(out / d / "metrics.jsonl") for n, d in (("prove+outcome", "grpo"), ("recall+outcome", "grpo_recall"))
                          if (out / d / "metrics.jsonl").exists()}}
    for v in views:
        res[v] = {m: r[v] for m, r in rows.items() if v in r}
        if {"sft", "sft+grpo"} <= res[v].keys():
            a, b = (json.loads((out / f"eval_{m}_{v}.json").read_text()) for m in ("sft", "sft+grpo"))
            res[v]["paired"] = {k: learn_cpu.paired(a, b, key) for k, key in
                                (("success", "success"), ("prove", "prove"), ("calls_per_task", "calls"), ("success_state_only", "state"))}
        print(f"\n### {v}\n\n" + learn_cpu.table({m: r for m, r in rows.items() if v in r}, v) + "\n\nSFT -> SFT+GRPO, paired: " + json.dumps(res[v].get("paired")))
    s = res["seen_combinations"].get("paired")
    res["target_met"] = bool(s) and s["success"]["ci95"][0] > 0 and s["success"]["gain"] >= 0.08 and s["calls_per_task"]["gain"] <= 0
    (learn_cpu.ROOT / "bench" / "results").mkdir(exist_ok=True)
    (learn_cpu.ROOT / "bench" / "results" / f"{name}.json").write_text(json.dumps(res, indent=1))
    print(json.dumps({k: res[k] for k in ("stages", "seconds", "target_met")}))

if __name__ == "__main__":
    main(*sys.argv[1:])
