"""T-Eval: small files written here in T-Eval's format (its data is not on a registry), read by the loader; the scores
of hand-made replies against hand-computed values; gold at 1 and the do-nothing policy at 0 on every dimension."""
import json

import pytest

from prove_nb import teval as te
from prove_nb.rollout import ScriptedPolicy, noop_policy

SYS = {"role": "system", "content": "You have access to the following API:\n{'name': 'Flights.search', ...}"}
TEMPLATE = {"thought_start": "Thought:", "thought_end": "\n", "action_start": "Action:", "action_end": "\n", "args_start": "Args:", "args_end": "\n"}
PLAN = [{"id": 0, "name": "Airports.find", "args": {"city": "Lima"}}, {"id": 1, "name": "Flights.search", "args": {"origin": "$0.code", "date": "2025-03-01"}},
        {"id": 2, "name": "Hotels.search", "args": {"city": "Lima"}}, {"id": 3, "name": "FinishAction", "args": {}}]
STEP = {"thought": "Search flights from Lima next", "name": "Flights.search", "args": {"origin": "LIM", "date": "2025-03-01"}}

def sample(truth, **extra):
    return {"origin_prompt": [SYS, {"role": "user", "content": "Book me a trip"}, {"role": "function", "content": "{'code': 'LIM'}"}],
            "ground_truth": truth, **extra}

def write(d, suffix="_v2", drop=()):
    "A T-Eval folder: every kind, two samples of some; a file per kind unless dropped."
    files = {
        "instruct": {"a": sample({"action": "Flights.search", "args": {"origin": "LIM", "adults": 2}}, meta_data={"response_format": "json"},
                                 template={"thought": "thought", "action": "name", "args": "args"}),
                     "b": sample({"action": "Hotels.search", "args": {"city": "Lima"}}, meta_data={"response_format": "string"}, template=TEMPLATE)},
        "plan_json": {"a": sample(PLAN, meta={"prompt_type": "json"}), "b": sample(json.dumps(PLAN[1:]), meta={"prompt_type": "json"})},
        "plan_str": {"a": sample(PLAN, meta={"prompt_type": "str", "API_list": ["Airports.find", "Flights.search", "Hotels.search", "FinishAction"]})},
        "reason_str": {"a": sample(STEP, meta_data={"response_format": "str"})},
        "retrieve_str": {"a": sample(STEP, meta_data={"response_format": "str"}), "b": sample({**STEP, "name": "FinishAction"}, meta_data={"response_format": "str"})},
        "understand_str": {"a": sample(STEP, meta_data={"response_format": "str"})},
        "review_str": {"a": sample({"answer": "C"}, meta_data={"response_format": "str"}), "b": sample({"answer": "A"}, meta_data={"response_format": "str"})},
        "reason_retrieve_understand_json": {"a": sample(json.dumps(STEP), meta_data={"response_format": "json"})},
    }
    d.mkdir(parents=True, exist_ok=True)
    for k, v in files.items():
        if k not in drop: (d / f"{k}{suffix}.json").write_text(json.dumps(v))
    return d

@pytest.fixture
def data(tmp_path): return write(tmp_path / "teval")

def one(data, kind, i=0): return te.load_teval(data / f"{kind}_v2.json")[i]

# loading

def test_loader_reads_the_format(data, tmp_path):
    s = one(data, "plan_str")
    assert (s.kind, s.format, s.api_list[0], s.prompt[0]["role"]) == ("plan_str", "str", "Airports.find", "system")
    assert [x.format for x in te.load_teval(data / "instruct_v2.json")] == ["json", "string"]
    raw = json.loads((data / "review_str_v2.json").read_text())
    raw["a"]["origin_prompt"] = json.dumps(raw["a"]["origin_prompt"])  # OpenCompass's variant: the prompt as a JSON string
    (tmp_path / "review_str_v2_zh.json").write_text(json.dumps(raw))
    assert te.load_teval(tmp_path / "review_str_v2_zh.json")[0].prompt[1]["content"] == "Book me a trip"

def test_loader_errors_are_clear(tmp_path):
    (tmp_path / "instruct_v2.json").write_text(json.dumps({"a": {"ground_truth": {}}}))
    with pytest.raises(ValueError, match="sample a has no origin_prompt"): te.load_teval(tmp_path / "instruct_v2.json")
    (tmp_path / "instruct_v2.json").write_text(json.dumps({"a": sample({"action": "x", "args": {}})}))
    with pytest.raises(ValueError, match="instruct sample a has no template"): te.load_teval(tmp_path / "instruct_v2.json")
    (tmp_path / "plan_json_v2.json").write_text("[]")
    with pytest.raises(ValueError, match="JSON object of samples"): te.load_teval(tmp_path / "plan_json_v2.json")
    with pytest.raises(ValueError, match="not a T-Eval file name"): te.teval_kind("results.json")
    with pytest.raises(FileNotFoundError, match="open-compass/T-Eval"): te.run_teval(tmp_path / "none", "gold", tmp_path / "out")

# scoring, by hand

def test_instruct(data):
    js, st = te.load_teval(data / "instruct_v2.json")
    assert te.score_instruct(js, '{"thought": "x", "name": "Flights.search", "args": {"origin": "LIM", "adults": "2"}}') == \
        {"json_format": 1.0, "json_args_em": 2 / 3}  # "2" is not 2: exact values
    assert te.score_instruct(js, '{"name": "Flights.search"}') == {"json_format": 0.0, "json_args_em": 0.0}
    assert te.score_instruct(js, 'Sure: {"thought": "x", "name": "Flights.search", "args": {}}')["json_format"] == 0.0  # prose around: not JSON
    assert te.score_instruct(st, "Thought: hotels\nAction: Hotels.search\nArgs: {'city': 'Lima'}\n") == {"string_format": 1.0, "string_args_em": 1.0}
    assert te.score_instruct(st, "Thought: hotels\nAction: Hotels.search\nArgs: city=Lima\n") == {"string_format": 1.0, "string_args_em": 0.5}

def test_plan_f1_by_hand():
    gold = te.plan_actions(PLAN)
    act = lambda i: dict(gold[i])
    other = {"name": "Cars.rent", "args": "{'city': 'Lima'}"}
    assert te.plan_f1([act(0), act(1), act(2)], gold, te.token_cosine)["f1_score"] == 1.0  # FinishAction dropped from gold
    assert te.plan_f1([act(0), other, act(2)], gold, te.token_cosine) == pytest.approx({"precision": 2 / 3, "recall": 2 / 3, "f1_score": 2 / 3})
    assert te.plan_f1([act(2), act(0), act(1)], gold, te.token_cosine)["f1_score"] == pytest.approx(2 / 3)  # 0, 1 in order; 2 is not
    assert te.plan_f1([other], gold, te.token_cosine)["f1_score"] == 0.0
    assert te.plan_f1([], gold, te.token_cosine)["f1_score"] == 0.0

def test_plan_from_prose(data):
    s = one(data, "plan_str")
    text = "First Airports.find for Lima. Then Flights.search from it (not Hotels.search yet)\nHotels.search in Lima"
    assert [a["name"] for a in te.prose_actions(text, s.api_list)] == ["Airports.find", "Flights.search", "Hotels.search"]

def test_reason_retrieve_understand(data):
    assert te.score_step(one(data, "reason_str"), "Search flights from Lima next", te.token_cosine)["thought"] == pytest.approx(1.0)
    assert 0 < te.score_step(one(data, "reason_str"), "Look for flights", te.token_cosine)["thought"] < 1
    rt = one(data, "retrieve_str")
    assert te.score_step(rt, "Flights.search", te.token_cosine)["name"] == 1.0
    assert te.score_step(rt, "Flights.search, then Hotels.search", te.token_cosine)["name"] == 0.0
    assert te.score_step(one(data, "retrieve_str", 1), "FinishAction", te.token_cosine)["name"] == 1.0
    assert te.score_step(one(data, "understand_str"), "'{'origin': 'LIM', 'date': '2025-03-01'}'", te.token_cosine)["args"] == 1.0
    rj = one(data, "reason_retrieve_understand_json")
    got = te.score_step(rj, '```json\n{"thought": "Search flights", "name": "Hotels.search", "args": {"origin": "LIM"}}\n```', te.token_cosine)
    assert (got["parse_rate"], got["name"], got["args"]) == (1.0, 0.0, 0.5) and 0 < got["thought"] < 1
    assert te.score_step(rj, "{}", te.token_cosine) == {"parse_rate": 1.0, "thought": 0.0, "name": 0.0, "args": 0.0}

def test_review(data):
    s = one(data, "review_str")
    assert te.score_review(s, "Answer: C, the tool failed") == {"parse_rate": 1.0, "review_quality": 1.0}
    assert te.score_review(s, "Answer: A") == {"parse_rate": 1.0, "review_quality": 0.0}
    assert te.score_review(s, "The tool failed.") == {"parse_rate": 0.0, "review_quality": 0.0}

def test_dimensions_combine_files_as_t_eval_does():
    files = {"instruct": {"json_format": 1.0, "json_args_em": 0.5, "string_format": 0.0, "string_args_em": 0.0},
             "plan_str": {"f1_score": 0.2}, "plan_json": {"f1_score": 0.6}, "reason_str": {"thought": 0.4},
             "reason_retrieve_understand_json": {"thought": 0.8, "name": 1.0, "args": 0.5}, "review_str": {"review_quality": 0.9}}
    assert te.teval_dimensions(files) == pytest.approx({"instruct": 0.375, "plan": 0.4, "reason": 0.6, "retrieve": 1.0, "understand": 0.5, "review": 0.9})

# runs

def test_gold_scores_1_and_noop_0_on_every_dimension(data, tmp_path):
    g = te.run_teval(data, "gold", tmp_path / "gold")
    assert g["accuracy"] == 1.0 and g["dimensions"] == dict.fromkeys(("instruct", "plan", "reason", "retrieve", "understand", "review"), 1.0)
    assert all(v == 1.0 for f in g["files"].values() for k, v in f.items() if k != "samples") and g["samples"] == 12
    assert json.loads((tmp_path / "gold" / "report.json").read_text())["accuracy"] == 1.0
    out = json.loads((tmp_path / "gold" / "review_str_v2.json").read_text())
    assert out["a"]["prediction"] == "Answer: C" and out["a"]["ground_truth"] == {"answer": "C"}  # T-Eval's format, with predictions
    n = te.run_teval(data, noop_policy(), tmp_path / "noop")
    assert n["accuracy"] == 0.0 and set(n["dimensions"].values()) == {0.0}

def test_a_partial_folder_and_a_custom_similarity(tmp_path):
    d = write(tmp_path / "t", suffix="_v2_subset", drop=("reason_str", "plan_str", "plan_json", "instruct"))
    r = te.run_teval(d, ScriptedPolicy(lambda s, m: {"role": "assistant", "content": "no idea"}, "vague"), tmp_path / "o",
                     suffix="_v2_subset", similarity=lambda a, b: 1.0, limit=1)
    assert set(r["dimensions"]) == {"reason", "retrieve", "understand", "review"} and r["dimensions"]["reason"] == 0.0  # the JSON reply did not parse
    assert r["files"]["retrieve_str"]["samples"] == 1 and r["similarity"] == "<lambda>"
