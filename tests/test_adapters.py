"""The TRL and verifiers adapters, run through the frameworks' own entry points on real servers and SmolLM2 (CPU)."""
import inspect, json, os, subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from prove_nb.adapters import (environment_class, environment_dataset, environment_factory, environment_reward, gold_chat_policy,
                               gold_completion_ids, serve_streaming_policy, score_messages, task_of_messages)
from prove_nb.core import parse_message
from prove_nb.rewards import get_reward
from prove_nb.rollout import gold_policy, rollout
from prove_nb.server import World, load_server
from prove_nb.task import load_tasks

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "data" / "sample" / "tasks.jsonl"
VF = ROOT / ".venv-verifiers" / "bin"


def sample(one_turn=True):
    return [t for t in load_tasks(TASKS) if len(t.turns) == 1 or not one_turn]

def gold_steps(task) -> list: return task.turns[0].gold or []

def is_write(task, name) -> bool: return load_server(World.for_task(task).route[name]).tools[name].kind == "write"

def dependent_task():
    "A one-turn sample task of at most three gold calls over two or more steps, a later one depending on an earlier one."
    return next(t for t in sample() if len(gold_steps(t)) >= 2 and t.deps and sum(map(len, gold_steps(t))) <= 3)

def one_write_task():
    "A one-turn sample task whose gold is a single state-changing call."
    return next(t for t in sample() if [len(s) for s in gold_steps(t)] == [1] and is_write(t, gold_steps(t)[0][0]["name"]))

def direct(task) -> float:
    "The library's reward of the gold completion, scored directly."
    return get_reward("prove")(task, rollout(task, gold_policy()).to_completion()).total

def play_like_trl(task, messages):
    "A fresh environment after every tool call of `messages` ran as a method call, as TRL's tool loop runs them."
    env = environment_class(task)()
    env.reset(task=json.dumps(task.to_dict()), prompt=task.prompt)
    for m in messages:
        if m["role"] == "assistant":
            for c in parse_message(m).calls: getattr(env, c.name)(**c.arguments)
    return env


def test_environment_methods_are_the_task_tools():
    from transformers.utils import get_json_schema
    for task in sample(one_turn=False):
        env = environment_class(task)()
        tools = {n for n, _ in inspect.getmembers(type(env), inspect.isfunction) if n not in ("reset", "get_reward") and not n.startswith("_")}
        assert tools == {t["function"]["name"] for t in task.tools}, task.id
        for t in task.tools:
            shown = get_json_schema(getattr(env, t["function"]["name"]))["function"]
            want = t["function"]["parameters"]
            assert list(shown["parameters"]["properties"]) == list(want["properties"]) and shown["parameters"].get("required", []) == want["required"]

def test_reset_gives_each_rollout_a_fresh_isolated_world():
    task = one_write_task()
    a, b = environment_class(task)(), environment_class(task)()
    for e in (a, b): e.reset(task=json.dumps(task.to_dict()))
    seed = a.state_hash
    call = task.turns[0].gold[0][0]
    first = getattr(a, call["name"])(**call["arguments"])
    assert a.state_hash != seed and b.state_hash == seed
    assert getattr(b, call["name"])(**call["arguments"]) == first  # same seed, same ids: b never saw a's write
    a.reset(task=json.dumps(task.to_dict()))
    assert a.state_hash == seed

def test_bad_arguments_reach_the_world_validator_like_rollout():
    task = dependent_task()
    call = gold_steps(task)[-1][0]
    p = next(iter(call["arguments"]))
    args = {**call["arguments"], p: 12345 if isinstance(call["arguments"][p], str) else "x", "no_such_parameter": 1}
    env = environment_class(task)(); env.reset(task=json.dumps(task.to_dict()))
    got = getattr(env, call["name"])(**args)
    assert got.startswith("Error:") and got == World.for_task(task).call(call["name"], args).text

def test_environment_reward_equals_the_library_on_every_gold_episode():
    for task in sample():
        gold = rollout(task, gold_policy()).messages
        prompt = task.prompt
        logged = {}
        got = environment_reward()([prompt], [gold[len(prompt):]], environments=[play_like_trl(task, gold)], log_metric=logged.__setitem__)
        assert got == [pytest.approx(direct(task))], task.id
        assert logged["prove/state_agrees"] == 1.0

def test_a_wrong_episode_scores_below_gold_through_the_environment():
    task = dependent_task()
    prompt = task.prompt
    wrong = [{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": c} for c in gold_steps(task)[0]]},
             {"role": "assistant", "content": "Done."}]  # stops after the first step
    got = environment_reward()([prompt], [wrong], environments=[play_like_trl(task, wrong)])
    assert got[0] == pytest.approx(score_messages(task, prompt + wrong, context=len(prompt)).total) and got[0] < direct(task)


def trim(task):
    "The task showing only the tools its gold uses: the same task, a far shorter prompt for a CPU training step."
    used = {c["name"] for turn in task.turns for step in turn.gold or [] for c in step}
    return replace(task, tools=[t for t in task.tools if t["function"]["name"] in used])

def test_grpo_step_environment_factory_matches_rollout_func(tmp_path):
    """One GRPOTrainer step through environment_factory and one through rollout_func, both fed the scripted gold.
    The rewards do not depend on the weights, so the model is `tiny_policy`'s one random layer with SmolLM2's tokenizer and
    chat template: SmolLM2's own 30 layers made this test 1,213 s of a 2,104 s suite on an AVX2 CPU."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer
    from prove_nb.evaluate import tiny_policy
    from prove_nb.grpo import episode_reward, grpo_dataset, make_rollout_func
    from prove_nb.sft import ensure_logprob_kernel
    ensure_logprob_kernel()
    tasks = [trim(dependent_task()), trim(one_write_task())]
    tiny = tiny_policy()
    model, tok = tiny.model, tiny.tok
    seen = {}
    def recorded(fn, path):
        def f(prompts, completions, **kw):
            out = fn(prompts, completions, **kw)
            for p, r in zip(prompts, out): seen.setdefault(path, {}).setdefault(task_of_messages(tasks, p).id, []).append(r)
            return out
        f.__name__ = fn.__name__
        return f
    class GoldGRPO(GRPOTrainer):
        def _generate_single_turn(self, prompt_ids, *args, **kw): return gold_completion_ids(tok, tasks, prompt_ids), None
    cfg = lambda d: GRPOConfig(output_dir=str(tmp_path / d), max_steps=1, per_device_train_batch_size=4, num_generations=2,
                               max_completion_length=640, logging_steps=1, report_to=[], use_cpu=True, save_strategy="no", beta=0.0)
    env_run = GoldGRPO(model=model, reward_funcs=[recorded(environment_reward(), "env")], args=cfg("env"), processing_class=tok,
                       train_dataset=environment_dataset(tasks), environment_factory=environment_factory(tasks))
    env_run.train()
    roll_run = GRPOTrainer(model=model, reward_funcs=[recorded(episode_reward(), "rollout")], args=cfg("rollout"), processing_class=tok,
                           train_dataset=grpo_dataset(tasks), rollout_func=make_rollout_func(tasks, tok, policy_for=lambda tr: gold_policy()))
    roll_run.train()
    want = {t.id: [pytest.approx(direct(t))] * 2 for t in tasks}
    assert seen["env"] == want and seen["rollout"] == want
    logs = env_run.state.log_history[0]
    assert logs["prove/state_agrees"] == 1.0 and logs["tools/call_frequency"] == sum(len(c) for t in tasks for c in gold_steps(t)) / 2 and logs["tools/failure_frequency"] == 0.0


def vf_eval(out, url, *args):
    "verifiers' own CLI on prove-env, the sample tasks and the endpoint at `url`: its chat harness, as a local subprocess."
    env = {**os.environ, "PATH": f"{VF}:{os.environ['PATH']}", "PROVE_NO_KEY": "EMPTY"}
    return subprocess.run([str(VF / "vf-eval"), "prove-env", "--env.taskset.tasks", str(TASKS), *args, "--client.base-url", url,
                           "--client.api-key-var", "PROVE_NO_KEY", "-m", "prove-policy", "--no-push", "--env.agent.harness.id", "null",
                           "--env.agent.runtime.type", "subprocess", "-o", str(out)], env=env, cwd=out, capture_output=True, text=True, timeout=600)

@pytest.mark.skipif(not (VF / "vf-eval").exists(), reason="verifiers lives in its own environment (it pins mcp==2.0.0): run `make verifiers-env` first")
def test_load_environment_in_the_verifiers_environment_with_its_own_mcp():
    code = ("import importlib.metadata as m, prove_env; env = prove_env.load_environment(tasks=%r); "
            "print(type(env).__name__, len(env.taskset.load()), m.version('mcp'))" % str(TASKS))
    out = subprocess.run([str(VF / "python"), "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["SingleAgentEnv", str(len(sample())), "2.0.0"], out.stderr[-2000:]

def read_traces(out) -> list:
    return [tr for f in out.rglob("traces.jsonl") for l in f.read_text().splitlines() for tr in json.loads(l)["traces"]]

@pytest.mark.skipif(not (VF / "vf-eval").exists(), reason="verifiers lives in its own environment (it pins mcp==2.0.0): run `make verifiers-env` first")
def test_vf_eval_runs_prove_env_against_the_library_policy_server(tmp_path):
    "verifiers' own CLI evaluates three tasks, two rollouts each, against gold served by the library: same rewards, isolated worlds."
    tasks = sample()
    with serve_streaming_policy(gold_chat_policy(tasks)) as srv:
        r = vf_eval(tmp_path, srv.url, "-n", "3", "-r", "2")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    traces = read_traces(tmp_path)
    assert len(traces) == 6 and all(tr["ok"] and not tr["errors"] for tr in traces)
    ts = {t.id: t for t in tasks}
    for tr in traces:
        task = ts[tr["task"]["data"]["id"]]
        gold = rollout(task, gold_policy())
        assert tr["rewards"]["prove"]["score"] == pytest.approx(direct(task))
        assert tr["metrics"] == pytest.approx(get_reward("prove")(task, gold.to_completion()).components)
        assert tr["rewards"]["prove"]["score"] == pytest.approx(score_messages(task, [n["message"] for n in tr["nodes"]]).total)
        tool_texts = [n["message"]["content"] for n in tr["nodes"] if (n.get("message") or {}).get("role") == "tool"]
        assert tool_texts == [m["content"] for m in gold.messages if m["role"] == "tool"]  # each rollout on a world fresh from the seed


@pytest.mark.skipif(not (VF / "vf-eval").exists(), reason="verifiers lives in its own environment (it pins mcp==2.0.0): run `make verifiers-env` first")
def test_vf_eval_scores_smollm2_like_the_library(tmp_path):
    "SmolLM2 served by the library, evaluated by verifiers' CLI: every rollout's reward is the library's score of its transcript."
    from prove_nb.lm import HFPolicy, load_model
    tasks = sample()
    with serve_streaming_policy(HFPolicy(*load_model(), max_new_tokens=48)) as srv:
        r = vf_eval(tmp_path, srv.url, "-n", "2", "--env.agent.max-turns", "3")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    traces = read_traces(tmp_path)
    assert len(traces) == 2 and all(tr["ok"] and not tr["errors"] for tr in traces)
    ts = {t.id: t for t in tasks}
    for tr in traces:
        msgs = [n["message"] for n in tr["nodes"]]
        assert any(m["role"] == "assistant" for m in msgs)
        assert tr["rewards"]["prove"]["score"] == pytest.approx(score_messages(ts[tr["task"]["data"]["id"]], msgs).total)
