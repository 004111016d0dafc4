"Simulated environments: task writer, user and tool simulators, judge, simulated play, curriculum (fast, CPU, no model)."
import json, random, threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from prove_nb.core import ToolCall, assistant_msg, user_msg
from prove_nb.rollout import Limits, ScriptedPolicy, gold_policy, noop_policy, rollout_batch
from prove_nb.server import World, load_server, replay_gold
from prove_nb.simulation import (Curriculum, Goal, Judge, OpenAIBackend, RuleBackend, SimRequest, SyntheticLearner, ToolSimulator,
                                 UserSimulator, asking_policy, build_pool, curriculum_reward, fidelity, judge_agreement,
                                 parse_result, play, result_match, run_curriculum)
from prove_nb.taskwriter import label, say, write_task
from prove_nb.server import ToolResult

SERVERS = ["banking", "calendar", "iot_devices", "video_meeting", "filesystem"]

@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("depth,info", [(1, "ids"), (2, "ids"), (3, "names"), (3, "missing")])
def test_write_task_is_live_and_gapped(server, depth, info):
    t = write_task(server, depth, info, distractors=2, rng=random.Random(7), tid="t")
    assert t is not None, (server, depth, info)
    w, results = replay_gold(t)
    assert all(r.ok for r in results) and len(results) == depth == t.depth
    assert w.hash() == t.gold_state_hash != World.for_task(t).hash()
    text = " ".join(x.user for x in t.turns)
    assert not any(h in text for h in t.hidden)
    assert len(t.tools) == len(load_server(server).tools) + 2
    assert bool(t.hidden) == (depth > 1)  # with ids, the top row is given and the rows below it are discovered
    if t.hidden: assert t.hidden[-1] in json.dumps(t.turns[-1].gold[-1])
    if info == "missing":
        assert len(t.turns) == 2 and t.category == "clarification"
        held = t.turns[1].user
        assert held.split(" is ", 1)[1].rstrip(".") not in t.turns[0].user

def test_write_task_is_deterministic():
    a = write_task("banking", 3, "names", 3, rng=random.Random(5), tid="x")
    b = write_task("banking", 3, "names", 3, rng=random.Random(5), tid="x")
    assert json.dumps(a.to_dict(), sort_keys=True) == json.dumps(b.to_dict(), sort_keys=True)
    with pytest.raises(ValueError): write_task("banking", 3, "vague")

def test_label_is_unique_and_never_an_id():
    rows = [{"id": "a_1", "name": "Ada", "kind": "x"}, {"id": "a_2", "name": "Ada", "kind": "y"}]
    assert label(rows[0], "id", rows) == ("kind", "x")
    assert label({"id": "a_1", "ref": "b_0001"}, "id", [{"id": "a_1", "ref": "b_0001"}]) is None

def test_user_reveals_only_when_asked():
    g = Goal("deposit 120 into savings", "I want to deposit into my savings.", {"amount": 120.0})
    u = UserSimulator(g, RuleBackend())
    assert u.start() == g.opening and "120" not in u.start()
    assert u.reply([user_msg(g.opening), assistant_msg("Is this your first visit?")]) == "Sorry, I have no other details."
    assert u.revealed == []
    assert u.reply([user_msg(g.opening), assistant_msg("What amount should I deposit?")]) == f"The amount is {say(120.0)}."
    assert u.revealed == ["amount"]
    assert u.reply([assistant_msg("Done, the money is in.")]) is None
    req = u.request([user_msg(g.opening), assistant_msg("What amount?")])
    assert [m["role"] for m in req.messages] == ["system", "assistant", "user"] and "120" in req.messages[0]["content"]

def test_tool_simulator_validates_like_the_server_and_remembers():
    bank, real = load_server("banking"), World(["banking"])
    sim = ToolSimulator(bank.schemas(), RuleBackend())
    for name, args in [("deposit", {"amount": 5.0}), ("deposit", {"account_id": "acc_0001", "amount": "five"}), ("nope", {})]:
        p, r = sim.predict(name, args), real.call(name, args)
        assert not p.ok and not r.ok
        if name != "nope": assert p.error == r.error
    assert sim.predict("get_account", {"account_id": "acc_0001"}).error == real.call("get_account", {"account_id": "acc_9999"}).error.replace("acc_9999", "acc_0001")
    sim.observe("get_account", {"account_id": "acc_0001"}, real.call("get_account", {"account_id": "acc_0001"}))
    assert result_match(sim.predict("get_account", {"account_id": "acc_0001"}), real.call("get_account", {"account_id": "acc_0001"})) == ("exact", 1.0)
    assert sim.call("lock_card", {"card_id": "card_0001"}).ok is False  # never seen: refused
    assert len(sim.history) == 2

def test_parse_result_and_match():
    assert parse_result('here: [1, 2] trailing').content == [1, 2]
    assert parse_result('{"error": "no"}').error == "no"
    assert parse_result("no json").content == "no json"
    assert result_match(ToolResult(True, {"a": 1, "b": 2}), ToolResult(True, {"a": 1, "b": 3}))[0] == "partial"
    assert result_match(ToolResult(True, {"a": 9}), ToolResult(True, {"a": 1, "b": 3}))[0] == "wrong"
    assert result_match(ToolResult(False, error="x"), ToolResult(False, error="y")) == ("partial", 0.5)
    assert result_match(ToolResult(True, []), ToolResult(False, error="y")) == ("wrong", 0.0)

def test_fidelity_rows_cover_every_call():
    tasks = [write_task(s, 3, "names", rng=random.Random(1), tid=s) for s in ["banking", "trading"]]
    rows = fidelity(tasks, RuleBackend())
    assert len(rows) == sum(t.depth + 1 for t in tasks)
    assert {r["verdict"] for r in rows} <= {"exact", "partial", "wrong"}
    assert all(r["verdict"] == "exact" for r in rows if r["kind"] == "bad id" and r["server"] == "banking")

def test_judge_agrees_with_state_on_rules():
    tasks = [write_task(s, 3, "names", rng=random.Random(2), tid=s) for s in SERVERS[:3]]
    j = Judge(RuleBackend())
    gold, noop = rollout_batch(tasks, gold_policy()), rollout_batch(tasks, noop_policy())
    assert all(j(t, tr.messages).success for t, tr in zip(tasks, gold))
    assert not any(j(t, tr.messages).success for t, tr in zip(tasks, noop))
    assert judge_agreement(tasks, j)["all"] == 1.0

def test_play_with_simulated_user_real_and_simulated_tools():
    t = write_task("banking", 3, "missing", rng=random.Random(4), tid="p")
    g = Goal.of(t)
    assert g.facts and not any(say(v) in g.opening for v in g.facts.values())
    tr = play(t, asking_policy(), UserSimulator(g, RuleBackend()), world=World.for_task(t))
    assert tr.final_hash == t.gold_state_hash and tr.stop == "done"
    sim = play(t, asking_policy(), UserSimulator(g, RuleBackend()), tools=ToolSimulator(t.tools, RuleBackend(), t.scenario))
    assert sim.final_hash == "" and all(c.ok for c in sim.calls) and Judge(RuleBackend())(t, sim.messages).success
    silent = play(t, ScriptedPolicy(lambda task, m: assistant_msg("Bye."), "bye"), UserSimulator(g, RuleBackend()), world=World.for_task(t))
    assert silent.stop == "done" and silent.final_hash != t.gold_state_hash

@pytest.fixture(scope="module")
def pool():
    return build_pool(["banking", "calendar"], per_level=2)

def test_curriculum_moves_up_down_and_ignores_stale(pool):
    assert all(len(levels) >= 4 for levels in pool.values())
    ids = [t.id for levels in pool.values() for ts in levels for t in ts]
    assert len(ids) == len(set(ids))
    cur = Curriculum(pool, window=3, up=0.66, down=0.34)
    easy, next_ = pool["banking"][0][0], pool["banking"][1][0]
    for _ in range(3): cur.update(easy, True)
    assert cur.level["banking"] == 1
    cur.update(easy, False)  # from a level it has left
    assert len(cur.recent["banking"]) == 0
    for _ in range(3): cur.update(next_, False)
    assert cur.level["banking"] == 0
    assert all(cur.where[t.id][0] in pool for t in cur.sample(20))

def test_curriculum_run_raises_levels_with_a_learner(pool):
    cur, learner = Curriculum(pool, window=4, seed=1), SyntheticLearner(seed=1)
    hist = run_curriculum(cur, learner, steps=25, batch=6)
    assert len(hist) == 25 * len(pool) and max(cur.level.values()) >= 2 and learner.skill > 1
    stuck = Curriculum(pool, up=2.0, down=-1.0, start=99, seed=1)
    hard = SyntheticLearner(seed=1)
    run_curriculum(stuck, hard, steps=10, batch=6)
    assert hard.skill == 0.0

def test_curriculum_as_grpo_data_source(pool):
    from prove_nb.simulation import curriculum_dataset
    cur = Curriculum(pool, window=2)
    it = iter(curriculum_dataset(cur))
    row = next(it)
    assert json.loads(row["task"])["turns"][0]["user"] == row["prompt"][-1]["content"]
    assert row["prompt"][0]["task_id"] == json.loads(row["task"])["id"]  # what make_rollout_func finds the task by
    fn = curriculum_reward(cur, lambda prompts, completions, task=None, **kw: [1.0] * len(task), threshold=0.5)
    task = pool["banking"][0][0]
    fn([row["prompt"]] * 2, ["a", "b"], task=[json.dumps(task.to_dict())] * 2)
    assert cur.level["banking"] == 1 and cur.step == 1
    assert json.loads(next(it)["task"])["id"] in cur.where

def test_curriculum_rows_feed_the_rollout_function(pool):
    "Curriculum rows go through make_rollout_func as GRPO hands them over: each finds its task, is played live and scored."
    from types import SimpleNamespace
    from transformers import AutoTokenizer
    from prove_nb.grpo import make_rollout_func
    from prove_nb.rollout import gold_policy
    from prove_nb.lm import prepare_tokenizer, smollm2_path
    from prove_nb.simulation import curriculum_dataset
    cur = Curriculum(pool, window=2)
    rows = [r for r, _ in zip(iter(curriculum_dataset(cur)), range(2)) for _ in range(2)]  # two tasks, groups of two
    tok = prepare_tokenizer(AutoTokenizer.from_pretrained(smollm2_path()))
    fn = make_rollout_func(cur.tasks(), tok, Limits(max_steps=4, max_turns=1), policy_for=lambda tr: gold_policy())
    out = fn([r["prompt"] for r in rows], SimpleNamespace(num_generations=2, args=SimpleNamespace(max_completion_length=1024)))
    by_id = {t.id: t for t in cur.tasks()}
    played = [by_id[json.loads(r["task"])["id"]] for r in rows]
    assert out["n_calls"] == [sum(map(len, t.turns[0].gold or [])) for t in played] and len(out["completion_ids"]) == 4
    assert all(s["prove"].total > 0 for s in out["scores"])

def test_openai_backend_talks_to_an_endpoint():
    seen = {}
    class H(BaseHTTPRequestHandler):
        def do_POST(self):
            seen["body"] = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            out = json.dumps({"choices": [{"message": {"role": "assistant", "content": " YES it worked "}}]}).encode()
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(out)))
            self.end_headers(); self.wfile.write(out)
        def log_message(self, *a): pass
    srv = HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        be = OpenAIBackend(f"http://127.0.0.1:{srv.server_port}/v1", "m")
        assert be(SimRequest("judge", [{"role": "user", "content": "ok?"}], {})) == "YES it worked"
        assert seen["body"]["model"] == "m" and seen["body"]["messages"][0]["content"] == "ok?"
    finally: srv.shutdown()
