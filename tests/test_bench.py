"bench/ as a maintained suite: `make bench` runs each maintained benchmark quick; results follow one layout."
import json, re, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT / "bench"))

def make_bench_commands() -> list:
    "The commands of the Makefile's `bench` recipe, as argument lists after `$(PY)`."
    lines = (ROOT / "Makefile").read_text().split("\nbench:", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    return [l.split()[1:] for l in lines if l.startswith("\t$(PY) ")]

def test_make_bench_runs_every_maintained_benchmark_quick():
    cmds = make_bench_commands()
    assert [c[0] for c in cmds] == [f"bench/{b}_bench.py" for b in ("env", "reward", "synth", "serve", "adapters")]
    for c in cmds:
        assert "--quick" in c
        res = subprocess.run([sys.executable, str(ROOT / c[0]), "--help"], capture_output=True, text=True, cwd=ROOT)
        assert res.returncode == 0 and "--quick" in res.stdout, res.stderr[-2000:]

def test_save_stamps_a_current_result(tmp_path):
    import record
    from record import save
    path = save("x_bench", {"n": 3}, tmp_path)
    got = json.loads(path.read_text())
    assert path == tmp_path / "x_bench.json" and got["bench"] == "x_bench" and got["n"] == 3
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", got["date"]) and got["machine"]["cores"] >= 1 and [len(v) for v in got["load_average"].values()] == [3, 3]
    assert got["machine"]["vector"] in (*record.VECTOR, None)

def test_results_layout():
    "A benchmark's current result is results/<bench>.json; its older records are results/<bench>/<date>_<what it tests>.*"
    folders = [p for p in RESULTS.iterdir() if p.is_dir()]
    assert folders, "no history folder"
    for d in folders:
        assert (RESULTS / f"{d.name}.json").exists(), f"{d.name}/ holds history but results/{d.name}.json is missing"
        for f in d.rglob("*"):
            assert f.is_file() and f.parent == d, f"{f}: history records lie flat in {d.name}/"
            assert re.fullmatch(r"\d{4}-\d\d-\d\d_[a-z0-9.-]+(_[a-z_]+)?\.(json|jsonl|png)", f.name), f"{f.name}: not <YYYY-MM-DD>_<what>"
