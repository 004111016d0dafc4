"""Write README.md from nbs/index.ipynb (markdown cells as they are, code cells fenced). nbdev-readme needs Quarto."""
import json, pathlib
root = pathlib.Path(__file__).resolve().parents[1]
nb = json.loads((root / "nbs" / "index.ipynb").read_text())
parts = []
for c in nb["cells"]:
    src = "".join(c["source"])
    parts.append(src if c["cell_type"] == "markdown" else f"```python\n{src}\n```")
(root / "README.md").write_text("\n\n".join(parts) + "\n")
