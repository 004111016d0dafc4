"""Synthesis speed and quality: PROVE's 13,517 conversations over every server with the template realizer.

Runs `synthesize` (two worker processes by default), then measures the output independently: replays every task on a
fresh world (executable rate, state-match rate), checks grounding, split leaks and tool coverage of the train split.
With --check-determinism a second run in a fresh process (one worker, another PYTHONHASHSEED) must give byte-identical
records. Prints one JSON line with wall seconds and CPU seconds (parent and worker processes): on a shared machine the
wall time includes waiting for other jobs, so `cpu_seconds / workers` is the time two idle cores would need. Targets:
synthesis in at most 120 s on 2 cores; executable_rate = grounded_rate = 1.0; no split leaks; every tool of the train
split's servers in train; identical output for the same seed.

    python bench/synth_bench.py [--n 13517] [--seed 0] [--workers 2] [--out DIR] [--check-determinism]   # writes bench/results/synth_bench.json
    python bench/synth_bench.py --quick --check-determinism       # 1,000 conversations, printed only
"""
import argparse, hashlib, json, os, resource, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from prove_nb.synth.config import SynthConfig
from prove_nb.synth.dataset import dataset_stats, synthesize, write_dataset
from record import save

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="1,000 conversations")
    ap.add_argument("--n", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="")
    ap.add_argument("--check-determinism", action="store_true")
    ap.add_argument("--digest-only", action="store_true", help="print only the sha256 of the records (used by --check-determinism)")
    a = ap.parse_args()
    a.n = a.n or (1_000 if a.quick else 13_517)
    digest = lambda tasks: hashlib.sha256(json.dumps([t.to_dict() for t in tasks]).encode()).hexdigest()
    if a.digest_only:
        print(digest(synthesize(a.n, seed=a.seed, config=SynthConfig(workers=a.workers), progress=False)))
        return
    report = {}
    kids = lambda: (lambda r: r.ru_utime + r.ru_stime)(resource.getrusage(resource.RUSAGE_CHILDREN))
    w, c, k = time.perf_counter(), time.process_time(), kids()
    tasks = synthesize(a.n, seed=a.seed, config=SynthConfig(workers=a.workers), progress=False, report=report)
    seconds, cpu = time.perf_counter() - w, time.process_time() - c + kids() - k
    t = time.perf_counter()
    stats = write_dataset(tasks, a.out, a.seed, seconds, report) if a.out else dataset_stats(tasks)
    check_s = time.perf_counter() - t
    out = {"n": len(tasks), "seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1), "idle_cores_seconds": round(cpu / a.workers, 1),
           "conversations_per_s": round(len(tasks) / seconds, 1), "workers": a.workers, "servers": len(report["servers"]), "check_seconds": round(check_s, 1),
           **{k: stats[k] for k in ("executable_rate", "state_match_rate", "grounded_rate", "split_leaks", "tools_in_train",
                                    "tools_of_train_servers", "tools_missing_from_train", "categories", "structures", "depths", "turns",
                                    "calls_per_task", "max_error_rate", "description_leak", "repeated_wording")},
           "generation": {k: v for k, v in report.items() if k != "servers"}}
    if a.check_determinism:
        env = {**os.environ, "PYTHONHASHSEED": "12345"}
        again = subprocess.run([sys.executable, __file__, "--n", str(a.n), "--seed", str(a.seed), "--workers", "1", "--digest-only"],
                               env=env, capture_output=True, text=True, check=True).stdout.strip()
        out["deterministic"] = again == digest(tasks)
    print(json.dumps(out))
    if not a.quick: save("synth_bench", out)

if __name__ == "__main__":
    main()
