"""`make lab`'s pieces, without opening a browser: the development environment has JupyterLab, nbconvert, nbclient and
the widgets extension, and the project's `.venv` registers as the `prove_nb` kernel (here into a temporary prefix)."""
import json, subprocess, sys
from pathlib import Path

BIN = Path(sys.executable).parent


def _run(*args, **kw):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=120, check=True, **kw)


def test_jupyter_tools():
    assert _run(BIN / "jupyter", "lab", "--version").stdout.strip()[:1].isdigit()
    import nbclient, nbconvert, ipywidgets, jupyterlab_widgets  # noqa: F401
    # the prebuilt extension JupyterLab loads to render ipywidgets (what `jupyter labextension list` reports)
    assert (Path(sys.prefix) / "share/jupyter/labextensions/@jupyter-widgets/jupyterlab-manager/package.json").exists()


def test_kernel_spec(tmp_path):
    _run(sys.executable, "-m", "ipykernel", "install", "--prefix", tmp_path, "--name", "prove_nb",
         "--display-name", "Python (prove_nb)")
    spec = json.loads((tmp_path / "share/jupyter/kernels/prove_nb/kernel.json").read_text())
    assert Path(spec["argv"][0]).resolve() == Path(sys.executable).resolve()
    assert spec["display_name"] == "Python (prove_nb)" and spec["language"] == "python"
