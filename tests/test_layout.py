"The package's layout (issue 17): imports flow one way, and no module is too long to read in one sitting."
import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "prove_nb"
MAX_LINES = 625  # "about 600": a module past this does more than one job (the two largest servers sit at 616-617)
GENERATED = {"_modidx.py"}  # nbdev's index of symbols, not code a reader walks

def modules() -> dict:
    "{dotted module name: path} of every module of the package."
    out = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out

def imports(name: str, path: Path, known: dict) -> set:
    "The package modules `name` imports, at module level or inside functions."
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.ImportFrom):
            mod = ".".join(base[:len(base) - n.level + 1] + ([n.module] if n.module else [])) if n.level else n.module or ""
            found |= {mod} | {f"{mod}.{a.name}" for a in n.names}
        elif isinstance(n, ast.Import): found |= {a.name for a in n.names}
    return {m for m in found if m in known and m != name}

def cycles(edges: dict) -> list:
    "Every import cycle found by a depth-first walk, as a list of module names."
    found, state, stack = [], {}, []
    def walk(u):
        state[u] = 1; stack.append(u)
        for v in sorted(edges[u]):
            if state.get(v) == 1: found.append(stack[stack.index(v):] + [v])
            elif not state.get(v): walk(v)
        stack.pop(); state[u] = 2
    for m in sorted(edges):
        if not state.get(m): walk(m)
    return found

def test_cycle_finder_finds_a_cycle():
    test = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(test) == [["a", "b", "c", "a"]] and cycles({"a": {"b"}, "b": set()}) == []

def test_no_import_cycles():
    mods = modules()
    assert len(mods) > 20
    assert cycles({m: imports(m, p, mods) for m, p in mods.items()}) == []

def test_no_module_over_about_600_lines():
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py") if p.name not in GENERATED
            and (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"

def test_no_top_level_servers_package():
    import tomllib
    conf = tomllib.loads((PKG.parent / "pyproject.toml").read_text())
    assert conf["tool"]["setuptools"]["packages"]["find"]["include"] == ["prove_nb*"]

def test_the_version_is_said_once():
    "pyproject reads the version nbdev keeps in the package, so the two cannot disagree."
    import tomllib
    conf = tomllib.loads((PKG.parent / "pyproject.toml").read_text())
    assert "version" not in conf["project"] and "version" in conf["project"]["dynamic"]
    assert conf["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "prove_nb.__version__"}
