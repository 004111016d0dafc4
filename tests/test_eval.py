"""The evaluation harness: pass^k against hand-computed values, a report rendered from a tiny run, BFCL multi-turn
through BFCL's own pipeline (gold scores 100%, wrong policies do not), and the OpenAI-compatible policy endpoint."""
import json, sys
from dataclasses import replace

import httpx
import pytest

from prove_nb.core import ToolCall, assistant_msg
from prove_nb.endpoint import serve_policy, tau2_pass_k
from prove_nb.evaluate import evaluate, pass_hat_k, pass_k, policy_from_name, tiny_policy, write_report
from prove_nb.rollout import Limits, ScriptedPolicy, gold_policy, gold_reply, noop_policy
from prove_nb.lm import OpenAIPolicy
from prove_nb.server import load_server, replay_gold
from prove_nb.task import Task, Turn, save_tasks

BANK = load_server("banking").schemas(["find_customers", "list_accounts", "get_account", "deposit", "transfer"])

def call(tool, /, **arguments): return {"name": tool, "arguments": arguments}

def make_task(id, turns, depth, category, deps=()):
    t = Task(id=id, servers=["banking"], seed=0, size="small", tools=BANK, system="You are a banking assistant.",
             turns=[Turn(u, gold=g, answer_facts=f) for u, g, f in turns], deps=[list(d) for d in deps],
             depth=depth, category=category, split="test")
    t.gold_state_hash = replay_gold(t)[0].hash()
    return t

TASKS = [
    make_task("none", [("What's the weather in Paris?", [], [])], 0, "irrelevance"),
    make_task("deposit", [("Deposit 50 into acc_0001; what is the balance now?", [[call("deposit", account_id="acc_0001", amount=50.0)]], ["3712.67"])], 1, "base"),
    make_task("transfer", [("Move 100 USD from Maya Rossi's checking to her credit account.",
                            [[call("find_customers", name="Maya Rossi")], [call("list_accounts", customer_id="cus_0003")],
                             [call("transfer", from_account="acc_0001", to_account="acc_0006", amount=100.0)]], ["3562.67"])], 3, "base", [(0, 1), (1, 2)]),
]

# pass^k

def test_pass_k_hand_values():
    counts = [(3, 3), (2, 3), (0, 3)]  # successes, trials
    assert pass_k(counts, 1) == pytest.approx(5 / 9)   # (1 + 2/3 + 0) / 3
    assert pass_k(counts, 2) == pytest.approx(4 / 9)   # (1 + C(2,2)/C(3,2) + 0) / 3
    assert pass_k(counts, 3) == pytest.approx(1 / 3)   # only the task solved every time
    assert pass_hat_k(5, 4, 2) == pytest.approx(6 / 10)  # C(4,2) / C(5,2)
    assert pass_k([(1, 2), (2, 4)], 2) == pytest.approx((0 + 1 / 6) / 2)  # unequal trial counts per task
    assert pass_hat_k(4, 0, 1) == 0 and pass_hat_k(4, 4, 4) == 1

def test_pass_k_rejects_impossible_counts():
    with pytest.raises(ValueError, match="at least 3 trials"): pass_hat_k(2, 2, 3)
    with pytest.raises(ValueError, match="successes"): pass_hat_k(3, 4, 1)
    with pytest.raises(ValueError): pass_k([], 1)

def test_tau2_results_file(tmp_path):
    sims = [{"task_id": t, "trial": j, "reward_info": {"reward": r}, "termination_reason": "agent_stop"}
            for t, rs in (("a", [1, 1, 1]), ("b", [1.0, 0.0, 0.9999999]), ("c", [0, 0.5, 0])) for j, r in enumerate(rs)]
    sims.append({"task_id": "c", "trial": 3, "reward_info": None, "termination_reason": "infrastructure_error"})
    (tmp_path / "results.json").write_text(json.dumps({"simulations": sims}))
    r = tau2_pass_k(tmp_path)  # a folder holding results.json
    assert r["pass_k"]["1"] == pytest.approx(5 / 9) and r["pass_k"]["2"] == pytest.approx(4 / 9) and r["pass_k"]["3"] == pytest.approx(1 / 3)
    assert (r["tasks"], r["trials"], r["simulations"], r["infrastructure_errors"]) == (3, 3, 9, 1)

# held-out evaluation and its report

def test_report_from_tiny_run(tmp_path):
    gold = evaluate(TASKS, "gold", k=3, out_dir=tmp_path / "gold")
    noop = evaluate(TASKS, noop_policy(), k=3, out_dir=tmp_path / "noop")
    saved = json.loads((tmp_path / "gold" / "report.json").read_text())
    for key in ("success", "pass_k", "by_depth", "by_server", "by_category", "calls_per_task", "tokens_per_task", "seconds_per_task"):
        assert key in saved
    assert saved["pass_k"] == {"1": 1.0, "2": 1.0, "3": 1.0} and saved["success"] == 1.0 and saved["attempts"] == 9
    assert saved["by_depth"]["3"] == {"tasks": 1, "success": 1.0} and saved["by_depth"]["5"] == {"tasks": 0, "success": None}
    assert saved["by_server"] == {"banking": {"tasks": 3, "success": 1.0}}
    assert saved["calls_per_task"] == pytest.approx((0 + 1 + 3) / 3) and saved["rewards"]["prove"]["components"]["coverage"] == 1.0
    assert noop["pass_k"] == {"1": pytest.approx(1 / 3), "2": pytest.approx(1 / 3), "3": pytest.approx(1 / 3)}  # only the irrelevant request
    assert noop["by_category"]["base"] == {"tasks": 2, "success": 0.0} and noop["calls_per_task"] == 0
    md = (tmp_path / "gold" / "report.md").read_text()
    assert "| pass^3 | 100.0% |" in md and "| 3 | 100.0% (1) |" in md and "![pass^k](pass_k.png)" in md
    assert len((tmp_path / "gold" / "attempts.jsonl").read_text().splitlines()) == 9
    both = write_report({"gold": gold, "noop": noop}, tmp_path / "both").read_text()
    assert "| metric | gold | noop |" in both and "| success | 100.0% | 33.3% |" in both
    for png in ("accuracy_by_depth.png", "pass_k.png", "reward_components.png"):
        assert (tmp_path / "both" / png).read_bytes()[:4] == b"\x89PNG"

def test_pass_k_of_a_flaky_policy_matches_its_counts():
    import random
    rng = random.Random(1)
    flaky = ScriptedPolicy(lambda t, m: gold_reply(t, m) if rng.random() >= 0.4 else assistant_msg("Sorry."), "flaky")
    rep = evaluate(TASKS, flaky, k=3, n=4)
    counts = [(v["successes"], v["trials"]) for v in rep["per_task"].values()]
    assert all(n == 4 for _, n in counts) and rep["trials"] == 4
    assert rep["pass_k"] == {str(k): pytest.approx(pass_k(counts, k)) for k in (1, 2, 3)}
    assert rep["success"] == pytest.approx(rep["pass_k"]["1"]) and rep["pass_k"]["1"] >= rep["pass_k"]["3"]

def test_tasks_from_a_file_and_a_split(tmp_path):
    save_tasks([replace(t, split="test" if t.depth else "train") for t in TASKS], tmp_path / "tasks.jsonl")
    rep = evaluate(tmp_path, "gold", k=1, split="test")  # a folder holding tasks.jsonl
    assert rep["tasks"] == 2 and rep["splits"] == {"test": 2} and rep["pass_k"] == {"1": 1.0}
    with pytest.raises(ValueError, match="no tasks in split 'validation'"): evaluate(tmp_path / "tasks.jsonl", "gold", split="validation")

def test_evaluate_needs_enough_trials():
    with pytest.raises(ValueError, match="n >= k"): evaluate(TASKS, "noop", k=3, n=2)

def test_model_policy_costs_are_counted():
    rep = evaluate(TASKS[:2], tiny_policy(max_new_tokens=8), k=2, limits=Limits(max_steps=1))
    assert rep["tokens_per_task"] > 0 and rep["seconds_per_task"] > 0 and rep["attempts"] == 4

def test_policy_from_name(monkeypatch):
    assert policy_from_name("gold").name == "gold" and policy_from_name("noop").name == "noop"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.0.0.1:9000/v1")
    p = policy_from_name("openai:Qwen/Qwen3-4B", temperature=0.5)
    assert isinstance(p, OpenAIPolicy) and p.url == "http://10.0.0.1:9000/v1/chat/completions" and p.model == "Qwen/Qwen3-4B" and p.temperature == 0.5

# the endpoint for tau2-bench

def test_endpoint_serves_a_policy_over_http():
    def banker(task, messages):
        if any(m["role"] == "tool" for m in messages): return assistant_msg("Deposited 5.")
        return {"role": "assistant", "content": ToolCall("deposit", {"account_id": "acc_0001", "amount": 5}).to_hermes()}
    with serve_policy(ScriptedPolicy(banker), port=0, background=True, model="bank") as srv:
        r = httpx.post(srv.url + "/chat/completions", json={"model": "bank", "messages": [{"role": "user", "content": "Deposit 5."}], "tools": BANK})
        assert r.status_code == 200
        body = r.json()
        choice = body["choices"][0]
        assert body["object"] == "chat.completion" and body["model"] == "bank" and choice["finish_reason"] == "tool_calls"
        tc = choice["message"]["tool_calls"][0]
        assert tc["type"] == "function" and tc["id"] and json.loads(tc["function"]["arguments"]) == {"account_id": "acc_0001", "amount": 5}
        follow = [{"role": "user", "content": "Deposit 5."}, choice["message"], {"role": "tool", "tool_call_id": tc["id"], "content": "{}"}]
        reply = OpenAIPolicy(srv.url, "bank").act([follow], [BANK], [{}])[0]
        assert reply.message["content"] == "Deposited 5." and not reply.message.get("tool_calls")
        assert httpx.post(srv.url + "/chat/completions", content=b"not json").status_code == 400
        assert httpx.post(srv.url + "/chat/completions", json={"messages": [], "stream": True}).status_code == 400
        assert httpx.get(srv.url + "/models").json()["data"][0]["id"] == "bank"
    with pytest.raises(httpx.TransportError): httpx.get(srv.url + "/models", timeout=2)  # stopped

def test_endpoint_serves_a_model():
    with serve_policy(tiny_policy(max_new_tokens=6), port=0, background=True) as srv:
        body = httpx.post(srv.url + "/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]}, timeout=120).json()
    assert body["usage"]["completion_tokens"] > 0 and body["choices"][0]["message"]["role"] == "assistant"

# BFCL multi-turn through BFCL's pipeline

from prove_nb import bfcl

def test_bfcl_gold_scores_100_on_a_sample(tmp_path):
    r = bfcl.run_bfcl(gold_policy(), "multi_turn_base", limit=10, out_dir=tmp_path)
    assert (r["accuracy"], r["correct"], r["total"], r["errors"]) == (1.0, 10, 10, {})
    assert json.loads((tmp_path / "report.json").read_text())["accuracy"] == 1.0
    assert next((tmp_path / "score").rglob("BFCL_v4_multi_turn_base_score.json"))
    again = bfcl.run_bfcl(gold_policy(), "multi_turn_base", limit=10, out_dir=tmp_path)  # fresh environments in one process
    assert again["accuracy"] == 1.0

def test_bfcl_checker_fails_wrong_policies(tmp_path):
    noop = bfcl.run_bfcl(noop_policy(), "multi_turn_base", limit=5, out_dir=tmp_path / "noop")
    assert noop["accuracy"] == 0.0 and noop["errors"] == {"multi_turn:empty_turn_model_response": 5}
    def wrong_value(task, messages):  # gold, with every string argument of the first call of a step altered
        m = gold_reply(task, messages)
        if not m.get("tool_calls"): return m
        tc = json.loads(json.dumps(m["tool_calls"]))
        args = json.loads(tc[0]["function"]["arguments"])
        tc[0]["function"]["arguments"] = json.dumps({k: v + "_x" if isinstance(v, str) else v for k, v in args.items()})
        return {**m, "tool_calls": tc}
    assert bfcl.run_bfcl(ScriptedPolicy(wrong_value, "wrong"), "multi_turn_base", limit=5, out_dir=tmp_path / "w")["accuracy"] < 0.5

def test_bfcl_gold_on_the_other_categories(tmp_path):
    for c in bfcl.CATEGORIES[1:]:
        assert bfcl.run_bfcl(gold_policy(), c, limit=3, out_dir=tmp_path / c)["accuracy"] == 1.0

def test_bfcl_positional_ground_truth_becomes_keywords():
    params = bfcl.method_params(["GorillaFileSystem"])
    assert bfcl.gold_call("sort('final_report.pdf')", params) == {"name": "sort", "arguments": {"file_name": "final_report.pdf"}}
    assert bfcl.gold_call("tail(file_name='log.txt',lines=20)", params) == {"name": "tail", "arguments": {"file_name": "log.txt", "lines": 20}}

def test_bfcl_leaves_no_placeholder_modules():
    bfcl.bfcl()
    assert not any(isinstance(m, bfcl._Placeholder) for m in sys.modules.values())
    for sdk in ("anthropic", "cohere"):
        if bfcl._missing(sdk):
            with pytest.raises(ModuleNotFoundError): __import__(sdk)

def test_bfcl_model_policy_runs_through_the_pipeline(tmp_path):
    r = bfcl.run_bfcl(tiny_policy(max_new_tokens=8), "multi_turn_base", limit=1, out_dir=tmp_path)
    assert r["total"] == 1 and r["output_tokens_per_entry"] > 0 and r["policy"] == "tiny-random"

@pytest.mark.slow
def test_bfcl_gold_scores_100_on_every_entry(tmp_path):
    for c in bfcl.CATEGORIES:
        r = bfcl.run_bfcl(gold_policy(), c, out_dir=tmp_path / c)
        assert (r["accuracy"], r["total"]) == (1.0, 200), (c, r["errors"])
