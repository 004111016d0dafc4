"The committed notebooks carry their outputs, without volatile metadata; `make notebooks`' tidying, checked on a made-up notebook."
import importlib.util, json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("run_notebooks", ROOT / "scripts" / "run_notebooks.py")
rn = importlib.util.module_from_spec(spec); spec.loader.exec_module(rn)

def code(outputs, **meta): return {"cell_type": "code", "id": "c1", "metadata": meta, "source": [], "outputs": outputs, "execution_count": 1}
def stream(name, text): return {"name": name, "output_type": "stream", "text": [text]}

def test_tidy_drops_timestamps_and_progress_keeps_what_was_said():
    nb = {"cells": [code([stream("stderr", "Loading: 100%|##| 272/272 [00:00<00:00, 9e3it/s]\nUserWarning: keep me\n"),
                          stream("stdout", "step 1\rstep 2\nloss 0.5\n"), stream("stderr", "  0%|  | 0/2 [00:00<?, ?it/s]\n")],
                         execution={"iopub.execute_input": "2026-12-02T16:45:57"})]}
    c = rn.tidy(nb, {})["cells"][0]
    assert c["metadata"] == {}
    assert ["".join(o["text"]) for o in c["outputs"]] == ["UserWarning: keep me\n", "step 2\nloss 0.5\n"]

def test_flagged_cells_that_ran_are_labelled():
    c = rn.tidy({"cells": [code([stream("stdout", "42\n")])]}, {"c1": "[output of a slow cell, kept from a run on X, 2026-12-02]"})["cells"][0]
    assert c["outputs"][0]["text"] == ["[output of a slow cell, kept from a run on X, 2026-12-02]\n"]

def test_committed_notebooks_keep_outputs_without_timestamps():
    with_outputs = 0
    for p in sorted((ROOT / "nbs").glob("*.ipynb")):
        cells = [c for c in json.loads(p.read_text())["cells"] if c["cell_type"] == "code"]
        assert not any("execution" in c.get("metadata", {}) for c in cells), p.name
        with_outputs += any(c.get("outputs") for c in cells)
    assert with_outputs == len(list((ROOT / "nbs").glob("*.ipynb")))
