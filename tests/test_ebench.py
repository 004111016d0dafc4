"E-Bench: every task has an information gap and a tool gap and ends in a state change; state-only grading; Pass^k."
import json

import pytest

from prove_nb.core import ToolCall, assistant_msg, parse_message
from prove_nb.ebench import build_ebench, gaps, guess_reply, run_ebench, state_gap
from prove_nb.rollout import Reply, ScriptedPolicy, gold_reply
from prove_nb.server import World, load_server
from prove_nb.task import Task

@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    d = tmp_path_factory.mktemp("ebench")
    return d, build_ebench(24, seed=1, out_dir=d)

def test_every_task_has_both_gaps_and_a_change(bench):
    d, tasks = bench
    assert len(tasks) == 24 and len({t.id for t in tasks}) == 24
    assert len({t.servers[0] for t in tasks}) == 20
    for t in tasks:
        assert gaps(t) == []
        calls, text = t.gold_call_dicts, " ".join(x.user for x in t.turns)
        assert len(calls) >= 3 and t.hidden and not any(h in text for h in t.hidden)
        assert load_server(t.servers[0]).tools[calls[-1]["name"]].kind == "write"
        w = World.for_task(t)
        seed_hash = w.hash()
        for c in calls: assert w.call(c["name"], c["arguments"]).ok
        assert w.hash() == t.gold_state_hash != seed_hash
    assert json.loads((d / "manifest.json").read_text())["n"] == 24

def test_build_is_reproducible(bench):
    d, _ = bench
    again = build_ebench(24, seed=1)
    assert (d / "tasks.jsonl").read_text() == "".join(json.dumps(t.to_dict(), sort_keys=True) + "\n" for t in again)

def test_gaps_catch_broken_tasks(bench):
    _, tasks = bench
    t = Task.from_dict(json.loads(json.dumps(tasks[0].to_dict())))
    t.turns[0].user += f" (id {t.hidden[-1]})"
    assert any("appears in the user's words" in g for g in gaps(t))
    t = Task.from_dict(json.loads(json.dumps(tasks[0].to_dict())))
    t.turns[0].gold = t.turns[0].gold[-1:]
    assert any("tool gap" in g for g in gaps(t)) and any("before any read returned it" in g for g in gaps(t))
    t = Task.from_dict(json.loads(json.dumps(tasks[0].to_dict())))
    t.gold_state_hash = "0" * 32
    assert gaps(t) == ["the solution does not reach the recorded state"]

def test_gold_passes_and_noop_fails_everything(bench, tmp_path):
    d, tasks = bench
    gold = run_ebench("gold", d / "tasks.jsonl", k=3, out_dir=tmp_path / "gold")
    assert gold["pass_k"] == {"1": 1.0, "2": 1.0, "3": 1.0}
    assert json.loads((tmp_path / "gold" / "report.json").read_text())["pass_k"] == gold["pass_k"]
    noop = run_ebench("noop", d / "tasks.jsonl", k=3, out_dir=tmp_path / "noop")
    assert noop["pass_k"] == {"1": 0.0, "2": 0.0, "3": 0.0}
    trials = [json.loads(l) for l in (tmp_path / "noop" / "trials.jsonl").read_text().splitlines()]
    assert len(trials) == 3 * len(tasks) and not any(r["success"] for r in trials) and all(r["state_gap"] for r in trials)

def test_grading_is_by_state_not_by_path(bench, tmp_path):
    "Extra reads, in any order, do not matter; a wrong value does."
    d, tasks = bench
    def with_extra_read(task, messages):
        msg = gold_reply(task, messages)
        calls, first = parse_message(msg).calls, task.gold_call_dicts[0]
        return assistant_msg("", [ToolCall(first["name"], first["arguments"], "extra")] + calls) if calls else msg
    extra = run_ebench(ScriptedPolicy(with_extra_read, "extra"), d / "tasks.jsonl", k=1)
    assert extra["pass_k"]["1"] == 1.0
    guess = run_ebench(ScriptedPolicy(guess_reply, "guess"), d / "tasks.jsonl", k=1)
    assert guess["pass_k"]["1"] < 0.5

def test_pass_k_of_a_flaky_solver_and_state_gap(bench, tmp_path):
    "A solver right on 2 of 3 trials of every task: Pass^1 = 2/3, Pass^2 = 1/3, Pass^3 = 0."
    d, tasks = bench
    class TwoOfThree:
        name, trials = "two-of-three", {}
        def act(self, convs, tools, tasks):
            out = []
            for m, t in zip(convs, tasks):
                if len(m) <= 2: self.trials[t.id] = self.trials.get(t.id, 0) + 1
                out.append(Reply(gold_reply(t, m) if self.trials[t.id] != 2 else assistant_msg("No.")))
            return out
    rep = run_ebench(TwoOfThree(), d / "tasks.jsonl", k=3)
    assert rep["pass_k"] == {"1": round(2 / 3, 4), "2": round(1 / 3, 4), "3": 0.0}
    t = tasks[0]
    gold = World.for_task(t)
    for c in t.gold_call_dicts: gold.call(c["name"], c["arguments"])
    assert state_gap(t, gold) == {}  # the world a trial played on, read as it is (no replay)
    assert set(state_gap(t, World.for_task(t))) == {t.servers[0]}
