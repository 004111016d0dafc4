"""The reward library: ranges, maxima for gold, garbage without exceptions, the formulas, alignment rules, TRL and file scoring."""
import json, math
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from prove_nb.core import ToolCall, assistant_msg, user_msg
from prove_nb.policies import POLICIES, conversation, policy_messages
from prove_nb.rewards import (REWARDS, Prove, align_completion, get_reward, gold_world, same_state, score_all,
                              score_file, summarize_scores, trl_reward)
from prove_nb.server import load_server, replay_gold
from prove_nb.task import Task, Turn, save_tasks

BANKING = load_server("banking").schemas()
WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False}}}

def call(tool, /, **arguments): return {"name": tool, "arguments": arguments}

def make_task(id, turns, deps=(), tools=None):
    "A banking task record (seed 0) with its gold final state hash replayed."
    t = Task(id=id, servers=["banking"], seed=0, size="small", tools=tools or BANKING + [WEATHER],
             system="You are a banking assistant.", deps=[list(d) for d in deps], category="base", split="train",
             turns=[Turn(u, gold=g, answer_facts=f) for u, g, f in turns])
    t.gold_state_hash = replay_gold(t)[0].hash()
    return t

TASKS = {
    "chain": make_task("chain", [("Move 100 USD from Maya Rossi's checking account to her credit account.",
                                  [[call("find_customers", name="Maya Rossi")], [call("list_accounts", customer_id="cus_0003")],
                                   [call("transfer", from_account="acc_0001", to_account="acc_0006", amount=100.0)]], ["3562.67"])],
                       deps=[(0, 1), (1, 2)]),
    "two_turns": make_task("two_turns", [("What is the balance of account acc_0011?", [[call("get_account", account_id="acc_0011")]], ["3001.62"]),
                                         ("Deposit 50 into it.", [[call("deposit", account_id="acc_0011", amount=50.0)]], ["3051.62"])]),
    "follow_up": make_task("follow_up", [("Move 100 USD from Maya Rossi's checking account to her credit account.",
                                          [[call("find_customers", name="Maya Rossi")], [call("list_accounts", customer_id="cus_0003")],
                                           [call("transfer", from_account="acc_0001", to_account="acc_0006", amount=100.0)]], []),
                                         ("What is left on that checking account?", [[call("get_account", account_id="acc_0001")]], ["3562.67"])],
                           deps=[(0, 1), (1, 2), (2, 3)]),
    "recovery": make_task("recovery", [("Withdraw 10000 from account acc_0011.",
                                        [[{**call("withdraw", account_id="acc_0011", amount=10000.0), "expect_error": True}]], []),
                                       ("Then withdraw 100.", [[call("withdraw", account_id="acc_0011", amount=100.0)]], ["2901.62"])]),
    "irrelevant": make_task("irrelevant", [("What's the weather like on Mars?", [], [])]),
    "parallel": make_task("parallel", [("I lost my wallet: lock every card on account acc_0012.",
                                        [[call("list_cards", account_id="acc_0012")],
                                         [call("lock_card", card_id="card_0004", reason="lost"), call("lock_card", card_id="card_0005", reason="lost")]], [])],
                          deps=[(0, 1), (0, 2)]),
    "clarify": make_task("clarify", [("Pay my Fit Gym payee 30 dollars.", [], []),
                                     ("From savings account acc_0011. I'm Liam Berg.",
                                      [[call("find_customers", name="Liam Berg")], [call("list_payees", customer_id="cus_0004")],
                                       [call("pay_payee", account_id="acc_0011", payee_id="pay_0005", amount=30.0)]], ["2971.62"])],
                         deps=[(0, 1), (1, 2)]),
}

def gold(task): return policy_messages(task, "gold")

def best(name, task):
    "The most a completion can earn on `task` under reward `name` (abstention tasks pay 1)."
    has_gold = any(t.gold for t in task.turns)
    return REWARDS[name].range[1] if has_gold or name in ("tier", "outcome", "toolrl") else 1.0

# --- gold earns the maximum, in every message format -------------------------------------------------------------

@pytest.mark.parametrize("tid", list(TASKS))
def test_gold_earns_every_maximum(tid):
    task = TASKS[tid]
    for name, res in score_all(task, gold(task)).items():
        assert res.total == pytest.approx(best(name, task)), (name, res)

def test_gold_as_hermes_text_and_object_arguments_scores_the_same():
    task = TASKS["chain"]
    hermes = [m if m["role"] != "assistant" or not m.get("tool_calls") else
              {"role": "assistant", "content": "\n".join(ToolCall(c["function"]["name"], json.loads(c["function"]["arguments"])).to_hermes() for c in m["tool_calls"])}
              for m in gold(task)]
    objects = [m if not m.get("tool_calls") else {**m, "tool_calls": [{"function": {"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}} for c in m["tool_calls"]]}
               for m in gold(task)]
    no_tool_msgs = [m for m in gold(task) if m["role"] != "tool"]
    for comp in (hermes, objects, no_tool_msgs, {"id": "chain", "messages": hermes}):
        assert {k: r.total for k, r in score_all(task, comp).items()} == {k: r.total for k, r in score_all(task, gold(task)).items()}

# --- garbage scores the floor with a reason and never raises ------------------------------------------------------

GARBAGE = {"empty list": [], "none": None, "number": 3.5, "dict without messages": {"id": "x"},
           "truncated call": [user_msg("x"), {"role": "assistant", "content": '<tool_call>{"name": "transfer", "argum'}],
           "invalid arguments": [user_msg("x"), {"role": "assistant", "tool_calls": [{"function": {"name": "deposit", "arguments": "{amount: }"}}]}],
           "non-object message": [user_msg("x"), ["assistant", "hi"]],
           "arguments not an object": [user_msg("x"), {"role": "assistant", "tool_calls": [{"function": {"name": "deposit", "arguments": [1, 2]}}]}],
           "tool_calls not a list": [user_msg("x"), {"role": "assistant", "tool_calls": "deposit"}]}

@pytest.mark.parametrize("label", list(GARBAGE))
def test_garbage_scores_the_floor_with_a_reason(label):
    task = TASKS["chain"]
    for name, res in score_all(task, GARBAGE[label]).items():
        assert res.total == REWARDS[name].floor, (name, res)
        assert res.reasons and not any(r.startswith("could not score") for r in res.reasons), (name, res)

def test_unknown_tool_is_invalid_and_not_executed():
    task = TASKS["chain"]
    comp = [user_msg("x"), assistant_msg("", [ToolCall("teleport", {"to": "mars"})]), assistant_msg("Done.")]
    res = score_all(task, comp)
    assert res["prove"].components["validity"] == 0 and res["prove"].components["name"] == 0
    assert res["tier"].components["name"] == 0.75 and res["tier"].components["exec"] == 0

def test_hidden_and_distractor_tools_do_not_execute():
    task = replace(TASKS["chain"], tools=[t for t in BANKING if t["function"]["name"] != "transfer"] + [WEATHER])
    comp = [user_msg("x"), assistant_msg("", [ToolCall("transfer", {"from_account": "acc_0001", "to_account": "acc_0006", "amount": 100.0})]),
            assistant_msg("", [ToolCall("get_weather", {"city": "Paris"})])]
    tr = align_completion(task, comp, replay=True)
    assert [r.ok for r in tr.results] == [False, False]
    assert tr.executed[0].hash() == replay_gold(task, -1)[0].hash()  # the hidden transfer did not run
    v = Prove().validity(tr, [])
    assert v == pytest.approx((0 + 2 / 3) / 2)  # hidden: nothing valid; distractor: named and typed, not executable

def test_a_refused_gold_call_counts_as_executed_only_when_it_was_refused():
    task = TASKS["recovery"]
    tr = align_completion(task, gold(task), replay=True)
    assert [r.ok for r in tr.results] == [False, True] and [tr.ran(i) for i in range(2)] == [True, True]
    other = [user_msg("a"), calls_msg(("withdraw", {"account_id": "acc_0011", "amount": 20000.0}))]  # refused, but not the gold's call
    assert not align_completion(task, other, replay=True).ran(0)

def test_a_stale_task_is_refused_not_misjudged():
    stale = replace(TASKS["chain"], id="stale", gold_state_hash="0" * 32)
    for name in ("tier", "outcome"):
        r = REWARDS[name](stale, gold(TASKS["chain"]))
        assert r.total == 0 and "gold_state_hash" in r.reasons[-1]

def test_broken_task_scores_the_floor():
    for name, res in score_all(Task("broken", ["banking"], turns="nonsense"), gold(TASKS["chain"])).items():
        assert res.total == REWARDS[name].floor and res.reasons[0].startswith("could not score")

# --- the PROVE formulas ----------------------------------------------------------------------------------------

def calls_msg(*calls): return assistant_msg("", [ToolCall(n, a) for n, a in calls])

def test_efficiency_budget_is_adaptive():
    task = TASKS["chain"]  # n_gt = 3: B = 3 + ceil(1.5) = 5
    g = gold(task)
    extra = [calls_msg(("get_account", {"account_id": "acc_0001"})) for _ in range(5)]
    comp = g[:-1] + extra + g[-1:]  # 8 calls
    assert Prove().budget(3) == 5
    assert Prove()(task, comp).components["efficiency"] == pytest.approx(-0.5 * 3 / 5)
    assert Prove(beta=0)(task, comp).components["efficiency"] == pytest.approx(-0.5 * 5 / 3)
    assert Prove(alpha=1.0)(task, comp).components["efficiency"] == pytest.approx(-3 / 5)
    assert Prove()(task, g[:-1] + extra[:2] + g[-1:]).components["efficiency"] == 0  # within budget

def test_weights_switch_components_off_and_rescale():
    task, g = TASKS["chain"], gold(TASKS["chain"])
    r = Prove(weights={"efficiency": 0, "name": 0})(task, g)
    assert set(r.components) == {"validity", "coverage", "arg"} and r.total == pytest.approx(1.1)
    assert Prove(weights={"efficiency": 0}).range == (0.0, 1.3)
    with pytest.raises(ValueError): Prove(weights={"bogus": 1})
    assert Prove(execute=False)(task, g).components["validity"] == 1.0
    assert get_reward("prove", beta=0).beta == 0 and get_reward("prove") is REWARDS["prove"]

def test_coverage_respects_dependency_order():
    task = TASKS["chain"]
    turn = [s for s in policy_messages(task, "wrong_order") if s["role"] == "assistant" and s.get("tool_calls")]
    assert [m["tool_calls"][0]["function"]["name"] for m in turn] == ["transfer", "list_accounts", "find_customers"]
    r = Prove()(task, policy_messages(task, "wrong_order"))
    assert r.components["coverage"] == pytest.approx(1 / 3)  # only the dependency-free first call counts
    assert REWARDS["recall"](task, policy_messages(task, "wrong_order")).total == 1.0

def test_parallel_calls_cannot_feed_each_other():
    task = TASKS["parallel"]
    together = [user_msg("x"), calls_msg(("list_cards", {"account_id": "acc_0012"}), ("lock_card", {"card_id": "card_0004", "reason": "lost"}),
                                         ("lock_card", {"card_id": "card_0005", "reason": "lost"})), assistant_msg("Done.")]
    assert Prove()(task, together).components["coverage"] == pytest.approx(1 / 3)
    assert Prove()(task, gold(task)).components["coverage"] == 1.0

def test_abstention_rule():
    task = TASKS["irrelevant"]
    quiet = [user_msg("x"), assistant_msg("I can't help with the weather.")]
    busy = [user_msg("x"), calls_msg(("find_customers", {"name": "Mars"})), assistant_msg("No idea.")]
    for name in ("prove", "graduated", "recall"):
        assert (REWARDS[name](task, quiet).total, REWARDS[name](task, busy).total) == (1.0, 0.0), name
    assert REWARDS["toolrl"](task, quiet).total == 4.0 and REWARDS["toolrl"](task, busy).total == -2.0
    assert REWARDS["tier"](task, busy).components["answer"] == 0

def test_arg_share_over_aligned_pairs():
    task = TASKS["two_turns"]
    comp = [user_msg("a"), calls_msg(("get_account", {"account_id": "acc_0011"})), assistant_msg("3001.62"),
            user_msg("b"), calls_msg(("deposit", {"account_id": "acc_0011", "amount": 60})), assistant_msg("3061.62")]
    r = Prove()(task, comp)
    assert r.components["arg"] == pytest.approx(2 / 3) and r.components["coverage"] == 1.0
    assert REWARDS["outcome"](task, comp).total == 0

# --- multi-turn alignment --------------------------------------------------------------------------------------

def test_calls_match_only_within_their_turn():
    task = TASKS["two_turns"]
    early = [user_msg("a"), calls_msg(("get_account", {"account_id": "acc_0011"}), ("deposit", {"account_id": "acc_0011", "amount": 50.0})),
             assistant_msg("3051.62"), user_msg("b"), assistant_msg("Done: 3051.62")]
    r = Prove()(task, early)
    assert r.components["coverage"] == 0.5 and REWARDS["outcome"](task, early).components["state"] == 1.0

def test_missing_turns_cost_offline_but_not_in_trl():
    task = TASKS["two_turns"]
    first_turn = gold(task)[:4]
    assert REWARDS["recall"](task, first_turn).total == 0.5
    assert REWARDS["recall"](task, align_completion(task, first_turn, whole=False, replay=True)).total == 1.0
    assert REWARDS["outcome"](task, align_completion(task, first_turn, whole=False, replay=True)).total == 1.0

def test_context_turns_execute_but_are_not_scored():
    task = TASKS["two_turns"]
    g = gold(task)
    second = g.index(next(m for m in g if m["role"] == "user" and m["content"].startswith("Deposit")))
    tr = align_completion(task, g, context=second + 1, replay=True)
    assert (tr.first, [m.call.name for m in tr.calls]) == (1, ["deposit"])
    assert {k: r.total for k, r in score_all(task, tr).items()} == {k: best(k, task) for k in REWARDS}
    # without the context's get_account the same answer still reaches the gold state: the deposit is what counts
    assert REWARDS["outcome"](task, align_completion(task, [user_msg("a"), user_msg("b")] + g[second + 1:], context=2, replay=True)).total == 1.0

# --- TRL ---------------------------------------------------------------------------------------------------------

def trl_form(msgs):
    "Assistant and tool messages as TRL's tool loop produces them (parsed arguments as objects)."
    out = []
    for m in msgs:
        if m["role"] == "assistant" and m.get("tool_calls"):
            out.append({"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
                "name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}} for c in m["tool_calls"]]})
        elif m["role"] in ("assistant", "tool"): out.append(m)
    return out

@pytest.mark.parametrize("name", list(REWARDS))
def test_trl_reward_function_scores_and_logs_every_component(name):
    task = TASKS["chain"]
    prompt = task.prompt
    metrics, extra = {}, {}
    fn = trl_reward(name)
    kw = dict(completion_ids=[[1], [2]], trainer_state=None, log_metric=lambda k, v: metrics.setdefault(k, v),
              log_extra=lambda k, v: extra.setdefault(k, v))
    out = fn(prompts=[prompt, prompt], completions=[trl_form(gold(task)[1:]), [{"role": "assistant", "content": "no"}]],
             task=[json.dumps(task.to_dict()), task], **kw)
    assert out[0] == pytest.approx(best(name, task)) and out[1] < out[0]
    expected = set(REWARDS[name](task, gold(task)).components) | set(REWARDS[name](task, [user_msg("x"), assistant_msg("no")]).components)
    assert {k.split("/")[1] for k in metrics} == expected and len(extra[f"{name}/reasons"]) == 2
    # the same rows with the task record spread over columns, as a datasets row would carry them
    cols = {k: [json.dumps(task.to_dict()[k]) if k in ("turns", "tools") else getattr(task, k)] * 2 for k in ("id", "servers", "seed", "tools", "turns", "deps", "gold_state_hash")}
    assert trl_reward(name)(prompts=[prompt, prompt], completions=[trl_form(gold(task)[1:]), [{"role": "assistant", "content": "no"}]], **cols) == out

def test_trl_text_completions():
    task = TASKS["two_turns"]
    text = ToolCall("get_account", {"account_id": "acc_0011"}).to_hermes()
    out = trl_reward("recall")(prompts=["What is the balance of account acc_0011?"], completions=[text], task=[task])
    assert out == [1.0]
    with pytest.raises(KeyError): trl_reward("recall")(prompts=["x"], completions=["y"])

# --- offline files -----------------------------------------------------------------------------------------------

def test_score_file_keeps_going_past_bad_rows(tmp_path):
    save_tasks(list(TASKS.values()), tmp_path / "t.jsonl")
    rows = [{"id": "chain", "messages": gold(TASKS["chain"])}, "not json", {"id": "nope", "messages": []}, {"id": "chain"},
            {"id": "parallel", "messages": policy_messages(TASKS["parallel"], "spray")}, {"id": "chain", "messages": [7]}]
    (tmp_path / "c.jsonl").write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n\n")
    out = list(score_file(tmp_path / "t.jsonl", tmp_path / "c.jsonl", "prove"))
    assert [("error" in r) for r in out] == [False, True, True, True, False, False]
    assert out[0]["reward"] == pytest.approx(1.3) and out[5]["reward"] == 0 and out[5]["reasons"]
    assert set(out[0]) == {"id", "reward", "components", "reasons"}
    s = summarize_scores(out)
    assert (s["n"], s["scored"], s["errors"]) == (6, 3, 3) and set(s["components"]) == {"validity", "coverage", "efficiency", "name", "arg"}
    assert list(score_file(tmp_path / "t.jsonl", tmp_path / "c.jsonl", "tier", weights={"answer": 0}))[0]["reward"] == pytest.approx(0.5)

# --- the scripted policies -----------------------------------------------------------------------------------------

def test_policies_behave_as_named():
    task = TASKS["chain"]
    runs = {p: policy_messages(task, p) for p in POLICIES}
    res = {p: score_all(task, m) for p, m in runs.items() if m is not None}
    assert res["spray"]["recall"].total == 1.0 and res["spray"]["outcome"].total == 1.0
    assert res["spray"]["prove"].total < res["gold"]["prove"].total
    assert res["repeat"]["prove"].components["efficiency"] < 0 and res["repeat"]["outcome"].total == 0  # the transfer ran twice
    assert res["abstain"]["prove"].total == 0 and res["abstain"]["tier"].total == pytest.approx(0.1)
    assert runs["alternative"] is None and policy_messages(TASKS["two_turns"], "alternative") is None  # none exists
    alt = policy_messages(TASKS["follow_up"], "alternative")  # turn 2 reads the balance with list_accounts(cus_0003)
    assert [c["function"]["name"] for m in alt if m.get("tool_calls") for c in m["tool_calls"]][-1] == "list_accounts"
    r = score_all(TASKS["follow_up"], alt)
    assert r["outcome"].total == 1 and r["tier"].total == 1 and r["recall"].total < 1 and r["prove"].total < 1.3

def test_conversation_replays_live():
    task = TASKS["parallel"]
    msgs = conversation(task, POLICIES["gold"](task))
    tools = [m for m in msgs if m["role"] == "tool"]
    assert len(tools) == 3 and all(not t["content"].startswith("Error") for t in tools)

# --- properties over random completions ----------------------------------------------------------------------------

NAMES = [t["function"]["name"] for t in BANKING] + ["get_weather", "teleport", ""]
json_values = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=12)
                           | st.sampled_from(["acc_0001", "acc_0006", "cus_0003", "card_0004", "pay_0005", "Maya Rossi"]),
                           lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3), max_leaves=6)
args = st.dictionaries(st.sampled_from(["account_id", "from_account", "to_account", "amount", "customer_id", "name", "card_id", "x"]), json_values, max_size=4)
tool_call = st.builds(lambda n, a: ToolCall(n, a), st.sampled_from(NAMES), args)

def as_message(kind, calls, text):
    if kind == "openai": return {"role": "assistant", "content": text, "tool_calls": [c.to_openai() for c in calls]}
    if kind == "hermes": return {"role": "assistant", "content": text + "".join(c.to_hermes() for c in calls)}
    if kind == "truncated": return {"role": "assistant", "content": "".join(c.to_hermes() for c in calls)[:-7]}
    return {"role": kind, "content": text}

message = st.builds(as_message, st.sampled_from(["openai", "hermes", "truncated", "user", "tool", "system"]),
                    st.lists(tool_call, max_size=3), st.text(max_size=20)) | st.sampled_from([None, 3, "x", [], {"role": 5}])
completion = st.lists(message, max_size=8)

PROPS = dict(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

@settings(**PROPS)
@given(st.sampled_from(list(TASKS)), completion)
def test_every_reward_stays_in_its_range(tid, comp):
    task = TASKS[tid]
    for name, res in score_all(task, comp).items():
        lo, hi = REWARDS[name].range
        assert lo <= res.total <= hi + 1e-9 and math.isfinite(res.total), (name, res)
        assert not any(r.startswith("could not score") for r in res.reasons), (name, res)
        for k, v in res.components.items():
            bounds = (-3, 3) if k == "correct" else (-math.inf, 0) if k == "efficiency" else (0, 1)
            assert bounds[0] <= v <= bounds[1] + 1e-9, (name, k, v)

@settings(**PROPS)
@given(st.sampled_from(["chain", "two_turns", "parallel", "clarify"]), st.lists(tool_call, min_size=1, max_size=6))
def test_extra_calls_never_help_prove_and_never_hurt_recall(tid, extra):
    task = TASKS[tid]
    g = gold(task)
    noisy = g[:-1] + [assistant_msg("", extra)] + g[-1:]  # extra calls in the last turn, before its reply
    assert REWARDS["recall"](task, noisy).total == 1.0
    assert REWARDS["prove"](task, noisy).total <= REWARDS["prove"](task, g).total + 1e-9

@settings(**PROPS)
@given(st.sampled_from(list(TASKS)), completion)
def test_scoring_is_deterministic_and_pure(tid, comp):
    task = TASKS[tid]
    before = json.dumps(task.to_dict(), sort_keys=True)
    a = {k: (r.total, r.components) for k, r in score_all(task, comp).items()}
    assert a == {k: (r.total, r.components) for k, r in score_all(task, comp).items()}
    assert json.dumps(task.to_dict(), sort_keys=True) == before

@settings(**PROPS)
@given(st.sampled_from(list(TASKS)), st.sampled_from(list(POLICIES)), st.lists(st.booleans(), min_size=20, max_size=20))
def test_same_state_agrees_with_the_hash(tid, policy, keep):
    task = TASKS[tid]
    msgs = policy_messages(task, policy) or gold(task)
    tr = align_completion(task, [m for m, k in zip(msgs, keep + [True] * len(msgs)) if k or m["role"] != "assistant"], replay=True)
    assert same_state(tr.world, gold_world(task)) == (tr.world.hash() == task.gold_state_hash)
