"""Table-driven tests for one server: each `Case` calls one tool on a fresh session and checks what it did."""
from dataclasses import dataclass, field
from typing import Any, Callable

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
