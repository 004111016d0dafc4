"Decisions of the utility controller on constructed histories, and the orchestration report."
import json

import pytest

from prove_nb.core import ToolCall, assistant_msg, tool_msg, user_msg
from prove_nb.controller import ACTIONS, Utility, Weights, observe, progress
from prove_nb.orchestration import Oracle, Noise, handmade_tasks, run_orchestration
from prove_nb.rollout import Reply
from prove_nb.server import World, load_server
from prove_nb.task import Task

TOOLS = load_server("banking").schemas(["get_account", "list_transactions", "deposit", "withdraw", "list_cards", "lock_card"])
TERMS = {"gain", "cost", "uncertainty", "redundancy", "utility"}


def converse(user: str, calls: list) -> list:
    "A conversation whose calls ran live on a fresh banking world (call ids h0, h1, ...)."
    w, msgs = World(["banking"]), [{"role": "system", "content": "You are a banking assistant."}, user_msg(user)]
    for i, c in enumerate(calls):
        c = ToolCall(c.name, c.arguments, f"h{i}")
        msgs += [assistant_msg("", [c]), tool_msg(c, w.run(c).text)]
    return msgs


class Fixed:
    "A policy that returns the given replies in turn."
    def __init__(self, replies): self.replies, self.i = replies, 0

    def act(self, convs, tools, tasks):
        out = [self.replies[(self.i + j) % len(self.replies)] for j in range(len(convs))]
        self.i += len(convs)
        return out


def decide(messages, replies, chosen=None, weights=None):
    "The utility controller's logged decision for one conversation, sampling `replies`."
    ctl = Utility(Fixed(replies), weights, samples=len(replies))
    ctl.episode(messages, Task("t", [])).chosen.update(chosen or {})
    ctl.act([messages], [TOOLS], [Task("t", [])])
    return ctl.log[-1]


def call_reply(name, args): return Reply(assistant_msg("", [ToolCall(name, args)]), 12)


def test_repeated_call_is_penalized():
    looked = converse("Lock card card_0007 of acc_0004.", [ToolCall("get_account", {"account_id": "acc_0004"})])
    d = decide(looked, [call_reply("get_account", {"account_id": "acc_0004"}), call_reply("list_cards", {"account_id": "acc_0004"})])
    terms = {c["summary"].split("(")[0]: c for c in d.candidates}
    assert terms["get_account"]["redundancy"] == 1.0 and terms["list_cards"]["redundancy"] == 0.0
    assert terms["get_account"]["utility"] < terms["list_cards"]["utility"]
    assert (d.action, d.summary.split("(")[0]) == ("retrieve", "list_cards")
    alone = decide(looked, [call_reply("get_account", {"account_id": "acc_0004"})])
    assert alone.action == "stop"  # the only proposal repeats a call: not worth making


def test_uncertain_write_is_verified_before_answering():
    dep = converse("Deposit 50 into account acc_0004.", [ToolCall("deposit", {"account_id": "acc_0004", "amount": 50})])
    answer = Reply(assistant_msg("Done: the balance is now 4634.17."), 9)
    uncertain = decide(dep, [answer], {"h0": 0.9})
    assert uncertain.action == "verify"
    assert uncertain.summary.startswith("list_transactions") and "acc_0004" in uncertain.summary
    assert decide(dep, [answer], {"h0": 0.0}).action == "respond"


def test_stop_when_goal_state_reached():
    goal = converse("Lock card card_0007.", [ToolCall("lock_card", {"card_id": "card_0007"}), ToolCall("list_cards", {"account_id": "acc_0004"})])
    assert progress(observe(goal, TOOLS)).value == 1.0
    assert decide(goal, [call_reply("list_transactions", {"account_id": "acc_0004"})]).action == "stop"
    assert decide(goal, [call_reply("list_cards", {"account_id": "acc_0004"})]).action == "stop"
    half = converse("Lock card card_0007.", [ToolCall("list_cards", {"account_id": "acc_0004"})])
    assert decide(half, [call_reply("lock_card", {"card_id": "card_0007"})]).action == "tool_call"


def test_every_decision_is_logged_with_its_terms():
    dep = converse("Deposit 50 into account acc_0004.", [ToolCall("deposit", {"account_id": "acc_0004", "amount": 50})])
    d = decide(dep, [Reply(assistant_msg("Done."), 2)], {"h0": 0.5})
    assert d.action in ACTIONS and TERMS <= set(d.terms)
    assert all(TERMS <= set(c) for c in d.candidates)
    assert {c["action"] for c in d.candidates} == {"respond", "verify", "stop"}


def test_weights_change_the_decision():
    dep = converse("Deposit 50 into account acc_0004.", [ToolCall("deposit", {"account_id": "acc_0004", "amount": 50})])
    answer = Reply(assistant_msg("Done."), 2)
    assert decide(dep, [answer], {"h0": 0.9}).action == "verify"
    assert decide(dep, [answer], {"h0": 0.9}, Weights(l2=0.0)).action == "respond"  # uncertainty ignored


@pytest.fixture(scope="module")
def tasks(): return handmade_tasks(7)


def test_report(tasks, tmp_path):
    rep = run_orchestration("utility", "oracle", tasks, tmp_path)
    saved = json.loads((tmp_path / "report.json").read_text())
    assert {"success", "calls_per_task", "tokens_per_task", "seconds_per_task", "decisions"} <= set(saved)
    assert set(saved["decisions"]) == set(ACTIONS) and rep["success"] == 1.0
    log = [json.loads(line) for line in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    assert len(log) == sum(saved["decisions"].values()) and all(TERMS <= set(x["terms"]) for x in log)


def test_controller_beats_react_on_repeating_oracle(tasks):
    noisy = lambda: Oracle(Noise(repeat=0.4))
    react = run_orchestration("react", noisy(), tasks * 2)
    util = run_orchestration("utility", noisy(), tasks * 2, samples=3)
    assert util["repeated_calls_per_task"] < react["repeated_calls_per_task"]


def test_unknown_policy(tasks):
    with pytest.raises(ValueError): run_orchestration("nope", "oracle", tasks)


def test_utility_loses_nothing_to_the_oracle_on_synthesized_wording():
    "Under the noise-free oracle the controller finishes every synthesized task, as ReAct does: their requests, in the user's own words, name no tool (45 of 60 when progress read only the words)."
    from prove_nb.synth.dataset import synthesize
    from prove_nb.orchestration import run_orchestration
    syn = synthesize(60, seed=11, progress=False)
    assert run_orchestration("react", "oracle", syn)["success"] == 1.0
    assert run_orchestration("utility", "oracle", syn)["success"] == 1.0
