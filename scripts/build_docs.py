"""Build the docs site into `_docs/` from `nbs/`, without running a single notebook cell.

Every notebook goes through nbdev's own doc processors (`nbdev.serve.proc_nbs`, what `nbdev-proc-nbs` and
`nbdev-docs` run): exported cells hidden, `show_doc` API reference added after each exported function and class,
title and description taken from the first markdown cell. Two changes to nbdev's defaults, both here and not in
the notebooks:

- nbdev's `exec_show_docs` runs every cell that contains an import (to render `show_doc`); in these notebooks that
  includes `#| slow` cells that train models. It is replaced by `show_docs_from_module`, which imports the
  notebook's exported module (what `import prove_nb.x` does anyway) and runs only the `show_doc(...)` cells.
- nbdev turns the whole first markdown cell into the page's title and description and drops the rest of it; here
  that cell is split first, so its body stays on the page.

Then the pages are rendered: by Quarto (nbdev's `render_quarto`, as `nbdev-docs` does) when a `quarto` binary runs,
else by nbconvert into a static site with the same pages (one per notebook, `index.html` from `index.ipynb`).
No page loads anything from another host: the site must work offline (the browser test in tests/test_docs.py
checks it).

    python scripts/build_docs.py [--renderer auto|quarto|nbconvert]      (`make docs`; PROVE_DOCS_RENDERER=nbconvert make docs)
"""
import argparse, ast, html, json, os, re, shutil, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.chdir(ROOT)
for k, v in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "MPLBACKEND": "Agg",
             "TRL_EXPERIMENTAL_SILENCE": "1"}.items():
    os.environ.setdefault(k, v)

import yaml
from fastcore.nbio import first
from execnb.shell import CaptureShell
import nbdev.processors as P
from nbdev.config import get_config, nbpath2html
from nbdev.process import Processor, mk_cell
from nbdev.serve import proc_nbs


class split_title_cell(Processor):
    "Keep the body of a first markdown cell `# title / > description / body...`: nbdev's frontmatter would drop it."
    _head = re.compile(r"\A\s*#[ \t]+\S[^\n]*\n(?:[ \t]*\n)*(?:>[ \t]+\S[^\n]*(?:\n|\Z))?")

    def begin(self):
        cells = self.nb.cells
        md = first(c for c in cells if c.cell_type == "markdown")
        if md is None or md.source.lstrip().startswith("---"): return
        m = self._head.match(md.source)
        if not m: return
        rest = md.source[m.end():]
        if not rest.strip(): return
        md.source = md.source[:m.end()].rstrip() + "\n"
        cells.insert(cells.index(md) + 1, mk_cell(rest.strip("\n"), "markdown"))


def _only_show_docs(trees):
    return bool(trees) and all(isinstance(t, ast.Expr) and isinstance(t.value, ast.Call)
                               and getattr(t.value.func, "id", None) == "show_doc" for t in trees)


class show_docs_from_module(Processor):
    "Render `show_doc` cells from the notebook's exported module; no other cell runs."
    def begin(self):
        self.k = None
        if not getattr(self.nb, "has_docs_", None): return
        cfg = get_config()
        mods = {str(v).split()[0] for c in self.nb.cells if c.cell_type == "code"
                for k, v in (getattr(c, "directives_", None) or {}).items()
                if k in ("default_exp", "export", "exports", "exporti") and v and str(v).split()}
        self.k = CaptureShell()
        self.k.run_cell("from nbdev.showdoc import show_doc\nimport importlib")
        for mod in sorted(mods):
            self.k.run_cell(f"globals().update({{k: v for k, v in vars(importlib.import_module("
                            f"{cfg.lib_name + '.' + mod!r})).items() if not k.startswith('__')}})")
            if self.k.exc: raise RuntimeError(f"{self.nb.path_}: importing {cfg.lib_name}.{mod} failed: {self.k.exc!r}")

    def __call__(self, cell):
        if self.k is None or cell.cell_type != "code" or not cell.source: return
        if not _only_show_docs(cell.parsed_()): return
        self.k.cell(cell)
        if self.k.exc: raise RuntimeError(f"{self.nb.path_}: {cell.source!r} failed: {self.k.exc!r}")


def _procs(self):
    procs = [show_docs_from_module if p is P.exec_show_docs else p for p in type(self)._nbdev_base_procs(self)]
    return [split_title_cell] + procs

P.FilterDefaults._nbdev_base_procs = P.FilterDefaults.base_procs
P.FilterDefaults.base_procs = _procs


def process(nbs: Path) -> Path:
    "nbdev's doc processing of every notebook into `_proc/`, in this process (so the patched processors apply)."
    return proc_nbs(str(nbs), n_workers=0, force=True)


# ---------------------------------------------------------------- Quarto, as nbdev-docs does it
def render_with_quarto(cfg, nbs: Path):
    from nbdev.quarto import refresh_quarto_yml, nbdev_sidebar, _fix_quarto_nav
    from nbdev.quarto_render import render_quarto
    refresh_quarto_yml()
    nbdev_sidebar.__wrapped__(path=nbs)
    cache = process(nbs)
    render_quarto(cache, cache / cfg.doc_path.name, n_workers=0)
    shutil.rmtree(cfg.doc_path, ignore_errors=True)
    shutil.move(str(cache / cfg.doc_path.name), str(cfg.config_path))
    _fix_quarto_nav(cfg.doc_path)


# ---------------------------------------------------------------- nbconvert, when there is no Quarto
TEMPLATE = r"""{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{% block extra_css %}<style type="text/css">{{ resources.site_css }}</style>{% endblock extra_css %}
{%- block body_header -%}
<body class="jp-Notebook" data-jp-theme-light="true" data-jp-theme-name="JupyterLab Light">
<nav class="site-nav"><a class="site-title" href="index.html">{{ resources.site_title }}</a><ul>{{ resources.site_nav }}</ul></nav>
<main class="site-main">
<header class="page-header"><h1 class="title">{{ resources.page_title }}</h1>
{%- if resources.page_description %}<p class="description">{{ resources.page_description }}</p>{% endif -%}
</header>
{%- endblock body_header -%}
"""

SITE_CSS = """
body.jp-Notebook { margin: 0; padding: 0; display: flex; }
nav.site-nav { position: sticky; top: 0; align-self: flex-start; height: 100vh; overflow-y: auto; width: 15rem;
  flex: none; padding: 1rem; box-sizing: border-box; border-right: 1px solid #ddd; background: #f8f9fa;
  font-family: system-ui, sans-serif; font-size: 0.9rem; }
nav.site-nav .site-title { font-weight: bold; font-size: 1.1rem; display: block; margin-bottom: 0.8rem; }
nav.site-nav ul { list-style: none; padding: 0; margin: 0; }
nav.site-nav li { margin: 0.25rem 0; }
nav.site-nav a { color: #2c3e50; text-decoration: none; }
nav.site-nav li.active a { font-weight: bold; color: #0d6efd; }
main.site-main { flex: 1; min-width: 0; max-width: 64rem; padding: 1rem 2rem; }
header.page-header h1.title { font-family: system-ui, sans-serif; margin-bottom: 0.3rem; }
header.page-header .description { color: #555; font-size: 1.1rem; margin-top: 0; }
"""

_re_attr = re.compile(r"(\]\([^)\s]*\))\{[^}\n]*\}")                 # Quarto link attributes: [x](u){target="_blank"}
_re_fence = re.compile(r"^:::.*$", re.M)                              # Quarto fenced divs
_re_dir = re.compile(r"^\s*#\|\s*([\w-]+)\s*:?\s*(.*)$")


def _md_clean(s: str) -> str: return _re_fence.sub("", _re_attr.sub(r"\1", s))


def _page_cells(nb: dict):
    "Prepare a processed notebook for nbconvert: frontmatter out, Quarto directives applied and removed."
    fm, cells = {}, []
    for c in nb["cells"]:
        src = "".join(c.get("source", ""))
        if c["cell_type"] == "raw" and src.lstrip().startswith("---"):
            fm.update(yaml.safe_load(src.strip().strip("-")) or {}); continue
        if c["cell_type"] == "markdown":
            c["source"] = _md_clean(src)
        elif c["cell_type"] == "code":
            lines, dirs = src.splitlines(), {}
            while lines and _re_dir.match(lines[0]):
                k, v = _re_dir.match(lines.pop(0)).groups(); dirs[k] = v.strip().strip('"')
            if dirs.get("include") == "false": continue
            c["source"] = "\n".join(lines)
            c.setdefault("metadata", {}).pop("execution", None)
            tags = set(c["metadata"].get("tags", []))
            if dirs.get("echo") == "false" or not c["source"].strip(): tags.add("remove_input")
            if dirs.get("output") == "false": tags.add("remove_output")
            c["metadata"]["tags"] = sorted(tags)
            for o in c.get("outputs", []):
                md = o.get("data", {}).get("text/markdown")
                if md is not None: o["data"]["text/markdown"] = _md_clean("".join(md) if isinstance(md, list) else md)
            if not c["source"].strip() and not c.get("outputs"): continue
        keep = {"cell_type", "id", "metadata", "source", "attachments"} | ({"outputs", "execution_count"} if c["cell_type"] == "code" else set())
        cells.append({k: v for k, v in c.items() if k in keep})
    nb["cells"] = cells
    nb.get("metadata", {}).pop("widgets", None)
    return fm


def _rewrite_links(page: str) -> str:
    "Links between notebooks point at their pages (named as nbdev names them: `07_rewards.ipynb` -> `rewards.html`)."
    def _sub(m):
        return f'href="{nbpath2html(Path(m.group(1) + ".ipynb")).as_posix()}{m.group(2) or ""}"'
    return re.sub(r'href="(?!https?:|//|#)([^"#]*?)\.ipynb(#[^"]*)?"', _sub, page)


def page_assets(nbs: Path) -> list:
    "The images and other files the notebooks refer to: files git tracks under `nbs` (never what a notebook run wrote, such as runs/)."
    tracked = subprocess.run(["git", "ls-files", "-z", "--", "."], cwd=nbs, capture_output=True, text=True)
    files = [nbs / f for f in tracked.stdout.split("\0") if f] if tracked.returncode == 0 else \
            [f for f in nbs.rglob("*") if "runs" not in f.relative_to(nbs).parts]  # not a git checkout: skip run outputs
    return [f for f in files if f.is_file() and f.suffix not in (".ipynb", ".yml", ".yaml")
            and not any(s.startswith((".", "_")) for s in f.relative_to(nbs).parts)]


def render_with_nbconvert(cfg, nbs: Path):
    import nbformat
    from jinja2 import DictLoader
    from traitlets.config import Config
    from nbconvert import HTMLExporter
    cache = process(nbs)
    pages = sorted(cache.glob("*.ipynb"), key=lambda p: (p.stem != "index", p.stem))
    c = Config()
    c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_input_tags = {"remove_input"}
    c.TagRemovePreprocessor.remove_all_outputs_tags = {"remove_output"}
    exporter = HTMLExporter(config=c, extra_loaders=[DictLoader({"site.html.j2": TEMPLATE})],
                            template_file="site.html.j2", exclude_input_prompt=True, exclude_output_prompt=True,
                            embed_images=True)
    out = Path(cfg.doc_path)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True); tmp.mkdir(parents=True)
    nbs_json = {p: json.loads(p.read_text()) for p in pages}
    fms = {p: _page_cells(nb) for p, nb in nbs_json.items()}
    titles = {p: str(fms[p].get("title") or p.stem) for p in pages}
    files = {p: str(fms[p].get("output-file") or nbpath2html(Path(p.name)).name) for p in pages}
    for p in pages:
        nav = "".join(f'<li class="{"active" if q == p else ""}"><a href="{files[q]}">{html.escape(titles[q])}</a></li>'
                      for q in pages)
        res = {"metadata": {"name": titles[p]}, "site_title": html.escape(cfg.title), "site_nav": nav,
               "site_css": SITE_CSS, "page_title": html.escape(titles[p]),
               "page_description": html.escape(str(fms[p].get("description", "")))}
        body, _ = exporter.from_notebook_node(nbformat.from_dict(nbs_json[p]), resources=res)
        (tmp / files[p]).write_text(_rewrite_links(body))
    for f in page_assets(nbs):
        (tmp / f.relative_to(nbs)).parent.mkdir(parents=True, exist_ok=True); shutil.copy2(f, tmp / f.relative_to(nbs))
    shutil.rmtree(out, ignore_errors=True); tmp.rename(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--renderer", choices=["auto", "quarto", "nbconvert"], default=os.environ.get("PROVE_DOCS_RENDERER", "auto"),
                    help="auto: Quarto when a `quarto` binary is on PATH, else nbconvert (default: $PROVE_DOCS_RENDERER or auto)")
    a = ap.parse_args(argv)
    cfg = get_config()
    renderer = a.renderer
    if renderer == "auto": renderer = "quarto" if shutil.which("quarto") else "nbconvert"
    t0 = time.time()
    if renderer == "quarto": render_with_quarto(cfg, cfg.nbs_path)
    else: render_with_nbconvert(cfg, cfg.nbs_path)
    n = len(list(Path(cfg.doc_path).glob("*.html")))
    print(f"docs: {n} pages in {cfg.doc_path.relative_to(ROOT)}/ rendered by {renderer} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
