"""SFT with and without gradient checkpointing, side by side: seconds per step, peak memory and the losses.

`train_sft` on the CPU recipe's gold conversations (`recipe_tasks`, the first STEPS x BATCH of its SFT split, max_length
1,536 as `bench/learn_cpu.py`), once per arm and round, each run in its own process so its peak resident size is its
own. Arms alternate (on, off, on, off, ...) so a change of load hits both. Both arms see the same batches in the same
order from the same seed, so their losses must agree (to float rounding): checkpointing recomputes activations, it
does not change the math. Reported per arm: the median seconds of the steps after the first, peak RSS, the losses.

    python bench/sft_bench.py                # 4 steps of 4 conversations per run, 2 rounds
"""
import argparse, json, resource, statistics, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

def one_run(checkpointing: bool, steps: int, batch: int, out: str) -> dict:
    "Train `steps` SFT steps in this process; per-step seconds, losses and this process's peak RSS."
    import tempfile
    from transformers import TrainerCallback
    from prove_nb.grpo import RECIPE_LIMITS, recipe_tasks
    from prove_nb.sft import train_sft
    class StepTimer(TrainerCallback):
        "Seconds of each optimizer step."
        def __init__(self): self.t, self.s = None, []
        def on_step_begin(self, *a, **k): self.t = time.perf_counter()
        def on_step_end(self, *a, **k): self.s.append(round(time.perf_counter() - self.t, 2))
    timer, d = StepTimer(), tempfile.mkdtemp()
    tasks = recipe_tasks(600, steps * batch)["sft"]
    train_sft(tasks, d, steps=steps, batch_size=batch, lr=1e-4, max_length=1536, max_result_chars=RECIPE_LIMITS.max_result_chars,
              log_fn=timer, gradient_checkpointing=checkpointing)
    log = json.loads((Path(d) / "sft_log.json").read_text())
    res = {"gradient_checkpointing": checkpointing, "step_s": timer.s, "loss": [float(r["loss"]) for r in log if "loss" in r],
           "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
    Path(out).write_text(json.dumps(res))
    return res

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "sft_bench.json"))
    ap.add_argument("--one", choices=["on", "off"], help=argparse.SUPPRESS)  # a single run, in a child process
    ap.add_argument("--one-out", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.one: return one_run(a.one == "on", a.steps, a.batch, a.one_out)
    import tempfile
    from prove_nb.rollout import compute_facts
    runs = {"on": [], "off": []}
    for _ in range(a.rounds):
        for arm in runs:
            f = Path(tempfile.mkdtemp()) / "run.json"
            subprocess.run([sys.executable, __file__, "--one", arm, "--one-out", str(f), "--steps", str(a.steps), "--batch", str(a.batch)],
                           check=True)
            runs[arm].append(json.loads(f.read_text()))
            print(arm, json.dumps(runs[arm][-1]), flush=True)
    med = {arm: {"step_s": statistics.median(s for r in rs for s in r["step_s"][1:]),
                 "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in rs)} for arm, rs in runs.items()}
    gap = max(abs(x - y) for r_on, r_off in zip(runs["on"], runs["off"]) for x, y in zip(r_on["loss"], r_off["loss"]))
    res = {"bench": "sft_bench", "machine": compute_facts(), "sizes": {k: v for k, v in vars(a).items() if not k.startswith("one")},
           "runs": runs, "median": med, "on_over_off": {k: round(med["on"][k] / med["off"][k], 2) for k in med["on"]},
           "max_loss_gap": gap}
    Path(a.out).write_text(json.dumps(res, indent=1))
    print(json.dumps({"median": med, "on_over_off": res["on_over_off"], "max_loss_gap": gap}))

if __name__ == "__main__":
    main()
