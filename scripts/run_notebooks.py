"""Execute the notebooks and keep their outputs (`make notebooks`).

Each notebook runs in its own process through nbdev's test runner (the cells `nbdev-test` runs, in the same shell), and is
written back with its outputs only when every cell passed. Cells flagged in `tst_flags` (slow, gpu, colab, notest) are
skipped and keep the outputs of their last real run; `--flags slow` runs the slow cells too, with no 10-minute limit per
cell, and labels their outputs with the machine and date. Volatile metadata (execution timestamps) is dropped and
progress bars keep their final state, so a re-run changes only what really changed.

    python scripts/run_notebooks.py                    # every notebook, two at a time
    python scripts/run_notebooks.py nbs/07_rewards.ipynb --flags slow
"""
import argparse, datetime, json, multiprocessing, os, platform, re, sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"

def machine() -> str:
    "A short description of this machine: cores, memory and GPU."
    import torch
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return f"{os.cpu_count()} CPU cores, {mem:.0f} GiB, {gpu}, {platform.system()}"

def final_text(text: str) -> str:
    "A terminal's view of `text`: each line keeps what follows its last carriage return (tqdm's final state)."
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))

NOISE = re.compile(r"\|\s*\d+/\d+ \[|Ignoring clean_up_tokenization_spaces")  # progress bars and tokenizer chatter

def quiet(text: str) -> str:
    "Standard error without the lines that change on every run and say nothing: progress bars and library chatter."
    return "".join(l for l in final_text(text).splitlines(keepends=True) if not NOISE.search(l))

def tidy(nb: dict, labels: dict) -> dict:
    "`nb` without volatile metadata and progress noise, with a label on the outputs of the flagged cells that ran."
    for c in nb["cells"]:
        c.get("metadata", {}).pop("execution", None)
        if c["cell_type"] != "code": continue
        for o in c["outputs"]:
            if o["output_type"] == "stream":
                text = "".join(o["text"])
                o["text"] = (quiet(text) if o["name"] == "stderr" else final_text(text)).splitlines(keepends=True)
        c["outputs"] = [o for o in c["outputs"] if o["output_type"] != "stream" or "".join(o["text"]).strip()]
        if c["id"] in labels: c["outputs"].insert(0, {"name": "stdout", "output_type": "stream", "text": [labels[c["id"]] + "\n"]})
    return nb

def run_one(path: str, flags: tuple = ()) -> tuple:
    "Execute one notebook; write it back with its outputs when every cell passed. Returns (name, passed, seconds)."
    from nbdev.config import get_config
    from nbdev.test import test_nb
    import nbdev.test
    skip = set(get_config().tst_flags.split()) - set(flags)
    ran, record = set(), nbdev.test.CaptureShell.cell
    def cell(self, c, *a, **kw):  # note the flagged cells that run, to label their outputs
        if set(getattr(c, "directives_", {}) or {}) & set(flags): ran.add(c.id)
        return record(self, c, *a, **kw)
    nbdev.test.CaptureShell.cell = cell
    p = Path(path).resolve()
    # nbdev stops a cell after 10 minutes; a flagged cell (a slow run) is allowed as long as it takes
    ok, secs = test_nb(p, skip_flags=sorted(skip), basepath=ROOT, save=True, showerr=True, cell_timeout=None if flags else 600)
    if ok:
        stamp = f"[output of a {'/'.join(flags)} cell, kept from a run on {machine()}, {datetime.date.today()}]"
        nb = tidy(json.loads(p.read_text()), {i: stamp for i in ran})
        p.write_text(json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    return p.name, ok, round(secs, 1)

def retidy(paths) -> None:
    "Tidy notebooks already executed (no cell runs)."
    for p in map(Path, paths): p.write_text(json.dumps(tidy(json.loads(p.read_text()), {}), indent=1, ensure_ascii=False, sort_keys=True) + "\n")

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="notebooks (default: every notebook in nbs/)")
    ap.add_argument("--flags", default="", help="space-separated tst_flags to run as well (e.g. slow)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--tidy-only", action="store_true", help="only strip volatile metadata and progress noise, running nothing")
    a = ap.parse_args(argv)
    paths = [str(Path(p).resolve()) for p in a.paths] or sorted(str(p) for p in NBS.glob("*.ipynb"))
    if a.tidy_only: return retidy(paths)
    os.chdir(NBS)
    # a fresh process per notebook: the notebook's shell takes over the worker's __main__
    with ProcessPoolExecutor(a.workers, mp_context=multiprocessing.get_context("spawn"), max_tasks_per_child=1) as ex:
        results = list(ex.map(run_one, paths, [tuple(a.flags.split())] * len(paths)))
    for name, ok, secs in results: print(f"{'ok  ' if ok else 'FAIL'} {secs:7.1f} s  {name}")
    if not all(ok for _, ok, _ in results): sys.exit(1)

if __name__ == "__main__":
    main()
