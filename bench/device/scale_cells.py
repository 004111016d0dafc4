"""Run the scale notebook's GPU cells (`#| gpu` in nbs/11_scale.ipynb) once on a lent GPU, where their needs are met.

Each GPU cell is checked for what it needs before it runs, so that device time is not spent on a known failure:
the one-GPU cell (`train_grpo_unsloth`) needs a CUDA device, Unsloth and vLLM (Unsloth's `fast_inference` engine);
the multi-GPU cell (`launch_multi_gpu.sh`) needs at least 2 GPUs, vLLM, TRL's `vllm-serve` and the hub model it names (never met on a machine without network). A cell that can run
is executed with its own source, in the notebook's namespace, with two substitutions so that it fits a short device
check with no network: the hub model becomes a random Qwen3-0.6B built from its config (bench/gpu_check.py), and it
trains --steps steps on at most --tasks synthesized tasks. Writes one JSON record per cell (source, status, seconds,
printed output) to --out.

    python bench/device/scale_cells.py --out $OUT/scale_gpu_cells.json --budget 120
"""
import argparse, contextlib, importlib.util, io, json, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
NOTEBOOK = ROOT / "nbs/11_scale.ipynb"

def gpu_cells(nb: Path = NOTEBOOK) -> list:
    "(cell id, source) of every `#| gpu` code cell of `nb`."
    cells = json.loads(nb.read_text())["cells"]
    return [(c.get("id"), "".join(c["source"])) for c in cells if c["cell_type"] == "code" and "".join(c["source"]).startswith("#| gpu")]

def missing(source: str) -> list:
    "What a GPU cell needs that this machine lacks."
    import torch
    n_gpu = torch.cuda.device_count() if torch.cuda.is_available() else 0
    need = [("a CUDA device", n_gpu >= 1), ("vllm", importlib.util.find_spec("vllm") is not None)]
    if "train_grpo_unsloth" in source: need.append(("unsloth", importlib.util.find_spec("unsloth") is not None))
    if "launch_multi_gpu" in source:  # it names a hub model, and the device has no network
        need += [(f"at least 2 GPUs (found {n_gpu})", n_gpu >= 2), ("the hub model it names (no network there)", False)]
    return [what for what, ok in need if not ok]

def run_cell(source: str, steps: int, n_tasks: int) -> str:
    "Execute the one-GPU cell with a random local Qwen3-0.6B, `steps` steps and at most `n_tasks` tasks; its printed output."
    import gpu_check, prove_nb.scale as scale, prove_nb.synth.dataset as synth_dataset
    folder = Path(tempfile.mkdtemp()) / "qwen3-0.6b"
    gpu_check.build("0.6b", folder)
    train = lambda tasks, out, **kw: scale.train_grpo_unsloth(tasks, out, **{**kw, "model": str(folder), "steps": steps, "max_new_tokens": 128, "max_completion": 1024})
    synth = lambda n, **kw: synth_dataset.synthesize(min(n, n_tasks), **kw)
    ns = {**vars(scale), "train_grpo_unsloth": train, "SCRIPTS": ROOT / "scripts"}
    source = (source.replace("from prove_nb.synth.dataset import synthesize", "synthesize = synth")  # no IPython on the device: the figure's path is printed
                    .replace("from IPython.display import Image", "Image = lambda filename: print('figure:', filename)"))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf): exec(compile(source, "11_scale.ipynb[gpu]", "exec"), {**ns, "synth": synth})
    return buf.getvalue()

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=120, help="seconds; a cell is not started with less than 30 left")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--tasks", type=int, default=64)
    a = ap.parse_args(argv)
    t0, records = time.monotonic(), []
    for cid, src in gpu_cells():
        rec = {"cell": cid, "source": src}
        if lacks := missing(src): rec["status"] = "not run: needs " + ", ".join(lacks)
        elif a.budget - (time.monotonic() - t0) < 30: rec["status"] = "not run: time budget"
        else:
            t = time.monotonic()
            try: rec.update(status="ok", output=run_cell(src, a.steps, a.tasks)[-4000:])
            except Exception as e: rec["status"] = f"failed: {type(e).__name__}: {str(e)[:300]}"
            rec["seconds"] = round(time.monotonic() - t, 1)
        records.append(rec); print(f"scale GPU cell {cid}: {rec['status']}", flush=True)
    Path(a.out).write_text(json.dumps(records, indent=1) + "\n")

if __name__ == "__main__":
    main()
