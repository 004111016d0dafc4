"""Write README.md from nbs/index.ipynb: markdown cells as they are, code cells fenced with their text outputs, cells
flagged `colab` left out. (nbdev's own `nbdev-readme` renders through Quarto, which does not install here.)"""
import json, pathlib
root = pathlib.Path(__file__).resolve().parents[1]
MAX_LINES = 30

def text_of(outputs: list) -> str:
    "The cell's text outputs (streams and plain-text results), at most MAX_LINES lines."
    parts = ["".join(o["text"]) if o["output_type"] == "stream" else "".join(o.get("data", {}).get("text/plain", ""))
             for o in outputs if o["output_type"] in ("stream", "execute_result")]
    lines = "".join(p if p.endswith("\n") else p + "\n" for p in parts if p).splitlines()
    return "\n".join(lines[:MAX_LINES] + (["..."] if len(lines) > MAX_LINES else []))

def render(cell: dict) -> str | None:
    src = "".join(cell["source"])
    if cell["cell_type"] == "markdown": return src
    if src.startswith("#| colab"): return None
    out = text_of(cell.get("outputs", []))
    return f"```python\n{src}\n```" + (f"\n\n```\n{out}\n```" if out else "")

nb = json.loads((root / "nbs" / "index.ipynb").read_text())
(root / "README.md").write_text("\n\n".join(r for c in nb["cells"] if (r := render(c)) is not None) + "\n")
