"""NESTFUL offline: the wheel's data read as samples, NESTFUL's metrics on hand-built cases, gold at the maximum and
the do-nothing policy at the floor through the rollout engine, and wrong policies in between."""
import json

import pytest

from prove_nb import nestful as nf
from prove_nb.core import ToolCall, assistant_msg
from prove_nb.rollout import ScriptedPolicy, gold_policy, gold_reply, noop_policy

KEYS = ("f1_function", "f1_param", "partial_sequence_accuracy", "full_sequence_accuracy", "win_rate")

@pytest.fixture(scope="module")
def executable(): return nf.nestful_samples("executable")

def call(name, label, **arguments): return {"name": name, "arguments": arguments, "label": label}

# the data

def test_the_sets_come_from_the_installed_wheel():
    sizes = {s: len(nf.nestful_files(s)[0]) for s in nf.SPLITS}
    assert sizes == {"executable": 85, "glaive": 169, "sgd": 46}
    with pytest.raises(ValueError, match="unknown NESTFUL set"): nf.nestful_files("test")

def test_samples_show_gold_tools_and_a_seeded_draw(executable):
    samples, apis = executable
    assert all({c["name"] for c in s.calls} <= set(s.tools) for s in samples)
    assert [s.tools for s in nf.nestful_samples("executable", limit=5)[0]] == [s.tools for s in samples[:5]]
    assert all(len(s.tools) == len({c["name"] for c in s.calls}) for s in nf.nestful_samples("sgd", distractors=0, limit=9)[0])
    assert all(c["label"] == f"var{i + 1}" for s in samples for i, c in enumerate(s.calls))

def test_a_reused_label_means_its_latest_call():
    calls, result = nf.positional([call("A", "var1"), call("B", "var2", x="$var1.id$"), call("C", "var2", y="$var2.id$"),
                                   call("D", "var3", z="5 * $var2.v$ + $var1.w$")], {"r": "$var2$"})
    assert [c["arguments"] for c in calls] == [{}, {"x": "$var1.id$"}, {"y": "$var2.id$"}, {"z": "5 * $var3.v$ + $var1.w$"}]
    assert result == {"r": "$var3$"}

def test_references_are_not_price_ranges():
    assert nf.refs({"p": "$100-$200", "q": ["$var_2.a b$"]}) == [("var_2", ".a b")]

def test_tools_have_safe_names_and_json_types():
    _, apis = nf.nestful_samples("sgd", limit=1)
    t = nf.tool_schema(next(a for a in apis.values() if "." in a["name"]))["function"]
    assert "." not in t["name"] and t["parameters"]["type"] == "object"
    assert nf.param_schema({"type": "float", "description": "x", "allowed_values": ["a"], "default_value": "a"}) == \
        {"type": "number", "description": "x", "enum": ["a"], "default": "a"}

# the metrics

def test_macro_f1_by_hand():
    assert nf.macro_f1([{"a", "b"}, {"a", "b"}], [{"a", "b", "c"}, {"a"}]) == pytest.approx((1 + 2 / 3) / 2)
    assert nf.macro_f1([{"a"}, {"b"}], [{"b"}, {"b"}]) == pytest.approx((0 + 2 / 3) / 2)  # a: fn 1; b: tp 1, fp 1

def test_alignment_is_nestful_s():
    assert nf.align(["a(x)", "b()"], ["b()", "a(x)"]) == (["a(x)", "b()"], ["b()", "a(x)"])  # equal lengths: as they are
    assert nf.align(["a()", "b()", "c()"], ["b()", "c()"]) == (["a()", "b()", "c()"], ["", "b()", "c()"])

def test_grounding_hides_labels_and_closes_references():
    g = nf.grounded([call("Find", "var7"), call("Use", "var8", id="$var7.id", n=3)])
    assert g[1]["arguments"] == {"id": "$Find.id$", "n": 3}

def test_partial_accuracy_of_a_short_sequence(executable):
    samples, apis = executable
    s = next(s for s in samples if len(s.calls) == 3)
    r = nf.score_sample(s, s.calls[:2], apis)
    assert (r["partial"], r["full"], r["win"]) == (pytest.approx(2 / 3), False, False)

def test_win_is_order_and_label_free_but_not_flow_free(executable):
    samples, apis = executable
    s = samples[0]  # two airport searches, a flight search on them, a location search, a hotel search on it
    order = [3, 4, 0, 1, 2]
    new = {s.calls[i]["label"]: f"var{k + 1}" for k, i in enumerate(order)}
    moved = [{**s.calls[i], "label": new[s.calls[i]["label"]],
              "arguments": nf.sub_refs(s.calls[i]["arguments"], lambda l, p: f"${new[l]}{p}$")} for i in order]
    assert nf.wins(moved, s, apis) and nf.wins(s.calls + [call("NewsAPISearchByKeyWord", "var6", query="x")], s, apis)
    swap = {"$var1.skyId$": "$var2.skyId$", "$var2.skyId$": "$var1.skyId$"}
    swapped = [{**c, "arguments": {k: swap.get(v, v) for k, v in c["arguments"].items()}} for c in s.calls]
    assert not nf.wins(swapped, s, apis)
    assert nf.score_sample(s, swapped, apis)["full"]  # grounding cannot tell the two airports apart; the win rate can
    defaulted = [{**c, "arguments": {**c["arguments"], "cabinClass": "economy"}} if c["name"] == "SkyScrapperFlightSearch" else c for c in s.calls]
    assert nf.wins(defaulted, s, apis)  # a parameter given its default value is the same call
    assert not nf.wins([{**c, "label": None} if i == 0 else c for i, c in enumerate(s.calls)], s, apis)  # a refused call
    assert not nf.wins(s.calls[2:], s, apis)  # references to results that do not exist

def test_every_gold_sequence_runs_and_wins():
    for sp in nf.SPLITS:
        samples, apis = nf.nestful_samples(sp)
        assert all(nf.wins(s.calls, s, apis) for s in samples), sp

# runs through the rollout engine

def test_gold_scores_the_maximum_and_noop_the_floor(tmp_path):
    g = nf.run_nestful(gold_policy(), "executable", out_dir=tmp_path / "gold")
    assert {k: g[k] for k in KEYS} == dict.fromkeys(KEYS, 1.0) and g["accuracy"] == 1.0 and g["samples"] == 85
    assert json.loads((tmp_path / "gold" / "report.json").read_text())["win_rate"] == 1.0
    assert len((tmp_path / "gold" / "samples.jsonl").read_text().splitlines()) == 85
    for sp in ("glaive", "sgd"):
        r = nf.run_nestful("gold", sp, limit=40, out_dir=tmp_path / sp)
        assert {k: r[k] for k in KEYS} == {**dict.fromkeys(KEYS, 1.0), "win_rate": None}
    n = nf.run_nestful(noop_policy(), "executable", out_dir=tmp_path / "noop")
    assert {k: n[k] for k in KEYS} == dict.fromkeys(KEYS, 0.0) and n["calls_per_sample"] == 0

def test_wrong_policies_score_in_between(tmp_path):
    def all_at_once(task, messages):  # the paper's setting: the whole sequence in one message
        if messages[-1]["role"] == "tool": return assistant_msg("Done.")
        return assistant_msg("", [ToolCall(c["name"], c["arguments"], f"c{i}") for i, st in enumerate(task.turns[0].gold) for c in st])
    r = nf.run_nestful(ScriptedPolicy(all_at_once, "once"), limit=12, out_dir=tmp_path / "once")
    assert {k: r[k] for k in KEYS} == dict.fromkeys(KEYS, 1.0)
    def first_only(task, messages):
        return gold_reply(task, messages) if messages[-1]["role"] == "user" else assistant_msg("Done.")
    r = nf.run_nestful(ScriptedPolicy(first_only, "first"), limit=12, out_dir=tmp_path / "first")
    assert 0 < r["f1_function"] < 1 and 0 < r["partial_sequence_accuracy"] < 1 and r["win_rate"] == r["full_sequence_accuracy"] == 0
    def unknown_tool(task, messages):  # gold's calls under a name the sample does not show: refused, nothing runs
        m = gold_reply(task, messages)
        for tc in m.get("tool_calls", []): tc["function"]["name"] += "_v2"
        return m
    r = nf.run_nestful(ScriptedPolicy(unknown_tool, "unknown"), limit=5, out_dir=tmp_path / "unknown")
    assert r["win_rate"] == r["f1_function"] == 0 and r["calls_per_sample"] > 0

def test_readme_command_runs(tmp_path):
    "The README's `prove eval nestful --model gold --out DIR`, at a small size: one line of JSON with gold's full marks, and a report."
    import json, subprocess, sys
    r = subprocess.run([sys.executable, "-c", "from prove_nb.cli import main; main()", "eval", "nestful", "--model", "gold", "--limit", "3",
                        "--out", str(tmp_path / "nestful")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout.strip().splitlines()[-1])["accuracy"] == 1.0 and (tmp_path / "nestful" / "report.json").exists()
