"""Table-driven tests for one server: each `Case` calls one tool on a fresh session and checks what it did."""
import importlib.util
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest
from prove_nb.state import integrity_errors

@dataclass
class Case:
    "One call of `tool` on a fresh session (after `setup` calls) that must succeed (`ok`) or fail without a trace."
    tool: str
    args: Any                      # a dict, or a function of the session returning one
    ok: bool = True
    check: Callable | None = None  # check(session, result): asserts, or returns a truthy value, what the docstring promises
    setup: list = field(default_factory=list)  # [(tool, args)] run first; each must succeed
    error: str = ""                # a fragment the error message must contain (failing cases)

def run_case(server, case: Case, seed: int = 0):
    "Run one case; a failing case must leave the state byte-identical and name the problem."
    s = server.session(seed)
    for tool, args in case.setup:
        r = s.call(tool, args(s) if callable(args) else args)
        assert r.ok, f"setup {tool} failed: {r.error}"
    args = case.args(s) if callable(case.args) else case.args
    before = s.hash()
    r = s.call(case.tool, args)
    if case.ok:
        assert r.ok, f"{case.tool}({args}) failed: {r.error}"
        kind = server.tools[case.tool].kind
        if kind == "read": assert s.hash() == before, f"read tool {case.tool} changed state"
        else: assert s.hash() != before, f"write tool {case.tool} changed nothing"
    else:
        assert not r.ok, f"{case.tool}({args}) should fail"
        assert r.error and case.error.lower() in r.error.lower(), f"error {r.error!r} lacks {case.error!r}"
        assert s.hash() == before, f"failed {case.tool} left a partial write"
    if case.check:
        out = case.check(s, r)
        assert out is None or out, f"check of {case.tool} failed: {out!r}"
    return r

def coverage_gaps(server, cases) -> list:
    "Tools without a succeeding case or without a failing case."
    ok = {c.tool for c in cases if c.ok}
    bad = {c.tool for c in cases if not c.ok}
    return [f"{t}: no succeeding case" for t in server.tools if t not in ok] + \
           [f"{t}: no failing case" for t in server.tools if t not in bad]

def fresh_server(name: str):
    "A new copy of server `name` from running its module again: no seed cache or module state shared with `load_server(name)`."
    spec = importlib.util.find_spec(f"prove_nb.servers.{name}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.server

SEEDS = ((0, "small"), (1, "small"), (0, "large"), (3, "large"), (2, "tiny"))

def server_suite(server, cases, n_tools=None, seeds=SEEDS) -> dict:
    "The tests every server file shares, as {name: function} for `globals().update(...)`; `seeds=None` leaves integrity to the file."
    def test_every_tool_has_cases():
        gaps = coverage_gaps(server, cases)
        assert gaps == [], gaps

    @pytest.mark.parametrize("case", cases, ids=lambda c: f"{c.tool}-{'ok' if c.ok else 'fail'}")
    def test_case(case): run_case(server, case)

    def test_tool_count(): assert len(server.tools) == n_tools, sorted(server.tools)

    @pytest.mark.parametrize("seed,size", seeds or ())
    def test_seed_integrity(seed, size):
        errs = integrity_errors(server.seed_state(seed, size))
        assert errs == [], errs[:10]

    def test_seed_is_deterministic():
        "Rebuilding a seed (past the cache, after building another, in a fresh copy of the server) gives the same rows; another seed differs."
        first = server._build_seed(5, "small").to_rows()
        assert server._build_seed(6, "small").to_rows() != first, "seeds 5 and 6 build the same rows"
        assert server._build_seed(5, "small").to_rows() == first, "rebuilding seed 5 gives other rows"
        assert fresh_server(server.name)._build_seed(5, "small").to_rows() == first, "a fresh copy of the server builds seed 5 differently"

    tests = [test_every_tool_has_cases, test_case, test_seed_is_deterministic]
    if n_tools is not None: tests.append(test_tool_count)
    if seeds: tests.append(test_seed_integrity)
    return {f.__name__: f for f in tests}
