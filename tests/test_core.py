"""The parser never raises and recovers what it can; the validator names every problem."""
import json, string
from hypothesis import given, settings, strategies as st
from prove_nb.core import ToolCall, Validator, parse_message, parse_tool_calls, validate_call

TAGS = ["<tool_call>", "</tool_call>", "{", "}", '"name"', '"arguments"', ":", ",", "[", "]", '"', "\\", "null", "\n", "```json"]
junk = st.lists(st.one_of(st.sampled_from(TAGS), st.text(string.printable, max_size=8)), max_size=40).map("".join)

@settings(max_examples=10_000, deadline=None, database=None)
@given(junk)
def test_parser_survives_garbage(text):
    r = parse_tool_calls(text)
    assert all(isinstance(c, ToolCall) and isinstance(c.arguments, dict) for c in r.calls)
    assert all(isinstance(e, str) and e for e in r.errors)

json_vals = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                         lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3), max_leaves=8)

@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(st.tuples(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), st.dictionaries(st.text(max_size=6), json_vals, max_size=4)), max_size=4),
       st.integers(0, 60))
def test_roundtrip_and_truncation(calls, cut):
    text = "thinking...\n" + "\n".join(ToolCall(n, a).to_hermes() for n, a in calls)
    r = parse_tool_calls(text)
    assert [(c.name, c.arguments) for c in r.calls] == calls and r.ok
    t = parse_tool_calls(text[: max(0, len(text) - cut)])  # truncated output: fewer calls, never an exception
    assert len(t.calls) <= len(calls)

def test_openai_form_and_garbage_messages():
    m = {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}]}
    assert parse_message(m).calls == [ToolCall("f", {"x": 1}, "1")]
    for bad in [None, 3, [], {"tool_calls": "x"}, {"tool_calls": [None]}, {"content": ["a"]}]:
        assert isinstance(parse_message(bad).errors, list)

SCHEMA = {"type": "function", "function": {"name": "book", "parameters": {"type": "object", "properties": {
    "n": {"type": "integer", "minimum": 1, "maximum": 9}, "cls": {"type": "string", "enum": ["eco", "biz"]},
    "tags": {"type": "array", "items": {"type": "string"}}, "note": {"type": "string"}}, "required": ["n", "cls"], "additionalProperties": False}}}

def test_validator_messages():
    v = Validator(SCHEMA)
    assert v.errors({"n": 2, "cls": "eco"}) == []
    errs = v.errors({"n": 0, "cls": "first", "tags": ["a", 3], "nte": "x"})
    assert "parameter 'n' must be >= 1, got 0" in errs
    assert any("must be one of ['eco', 'biz']" in e for e in errs)
    assert any("tags[1]" in e for e in errs)
    assert "unexpected parameter 'nte' for 'book' (did you mean 'note'?)" in errs
    assert v.errors({"cls": "eco", "n": True}) == ["parameter 'n' must be integer, got boolean true"]
    assert v.errors({"n": 1}) == ["missing required parameter 'cls' for 'book'"]
    assert validate_call(ToolCall("bok", {}), [SCHEMA]) == ["unknown tool 'bok' (did you mean 'book'?)"]
