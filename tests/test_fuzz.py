"""Every one of the 343 tools, called with schema-invalid and semantically invalid arguments: no crash, no partial write."""
import random
import pytest
from prove_nb.server import example_arguments, load_server, server_names

CRASH = " failed: "  # Session.call reports an exception that escaped a tool's own checks as "<tool> failed: <Type>: ..."

def bad_values(spec):
    "Schema-invalid argument sets: missing required, wrong types, NaN and infinities, unknown parameter, out-of-enum values."
    req = spec.schema["function"]["parameters"]["required"]
    good = {p: "x" for p in req}
    out = ([{}] if req else []) + [{"no_such_param": 1}]
    for p, s in spec.params.items():
        wrong = {"string": 3, "integer": "three", "number": "3.5", "boolean": "yes", "array": "a,b", "object": [1]}.get(s.get("type"), object())
        out.append({**good, p: wrong})
        if s.get("type") in ("number", "integer"): out += [{**good, p: v} for v in (float("nan"), float("inf"), float("-inf"))]
        if "enum" in s: out.append({**good, p: "__not_in_enum__"})
    return out

def semantic_values(server, spec, rng):
    "Schema-valid but semantically wrong argument sets: unknown ids, extreme numbers, empty strings."
    base = example_arguments(server, spec.name)
    out = []
    for p, s in spec.params.items():
        t = s.get("type")
        if "enum" in s: vals = [rng.choice(s["enum"])]
        elif t == "string": vals = ["zz_9999", "", "../../etc/passwd", "x" * 300]
        elif t == "integer": vals = [-1, 0, 10**9]
        elif t == "number": vals = [-1.0, 0.0, 1e12]
        elif t == "boolean": vals = [True, False]
        elif t == "array": vals = [[], ["zz_9999"] * 3]
        else: vals = [{}]
        out += [{**base, p: v} for v in vals]
    return out + [base]

@pytest.mark.parametrize("name", server_names())
def test_fuzz_every_tool(name):
    server, rng = load_server(name), random.Random(0)
    for tool, spec in server.tools.items():
        s = server.session()
        for args in bad_values(spec):
            before = s.hash()
            r = s.call(tool, args)
            assert not r.ok and r.error and CRASH not in r.error, (tool, args, r.error)
            assert s.hash() == before, (tool, args)
        for args in semantic_values(server, spec, rng):
            before, seq = s.hash(), dict(s.state.meta["seq"])
            r = s.call(tool, args)
            assert CRASH not in r.error, (tool, args, r.error)
            if not r.ok: assert s.hash() == before and s.state.meta["seq"] == seq, (tool, args)
        assert s.call(tool, example_arguments(server, tool)) is not None  # still serving
