"""Per-rollout cost of the framework adapters: TRL environment classes (build, reset, gold calls, reward) in process, and
verifiers' `vf-eval` over prove-env (a fresh MCP tool server per rollout) against gold served by the library.

    .venv/bin/python bench/adapters_bench.py [--rollouts 2] [--skip-verifiers]   # writes bench/results/adapters_bench.json
    .venv/bin/python bench/adapters_bench.py --quick      # 3 tasks, 5 TRL rollouts each, one vf-eval rollout each; printed only

The verifiers part needs `.venv-verifiers` (`make verifiers-env`); without it only the TRL part runs.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from prove_nb.adapters import environment_class, environment_reward, gold_chat_policy, serve_streaming_policy
from prove_nb.core import parse_message
from prove_nb.rollout import gold_policy, rollout
from prove_nb.task import load_tasks
from record import save

TASKS = ROOT / "data" / "sample" / "tasks.jsonl"
VF = ROOT / ".venv-verifiers" / "bin"


def trl_env(tasks, reps: int = 20) -> dict:
    "Milliseconds per rollout for each step TRL takes with an environment: build the class, reset, run the gold calls, score."
    times = {"class": [], "reset": [], "calls": [], "reward": []}
    reward = environment_reward()
    for task in tasks:
        gold = rollout(task, gold_policy()).messages
        prompt = task.prompt
        calls = [c for m in gold if m["role"] == "assistant" for c in parse_message(m).calls]
        for _ in range(reps):
            t0 = time.perf_counter(); env = environment_class(task)()
            t1 = time.perf_counter(); env.reset(task=json.dumps(task.to_dict()))
            t2 = time.perf_counter()
            for c in calls: getattr(env, c.name)(**c.arguments)
            t3 = time.perf_counter(); reward([prompt], [gold[len(prompt):]], environments=[env])
            t4 = time.perf_counter()
            for k, a, b in (("class", t0, t1), ("reset", t1, t2), ("calls", t2, t3), ("reward", t3, t4)): times[k].append((b - a) * 1e3)
    return {k: round(statistics.median(v), 3) for k, v in times.items()} | {"rollouts": len(times["reset"])}


def verifiers_eval(tasks, rollouts: int) -> dict:
    "Wall seconds of one `vf-eval` over every one-turn sample task, `rollouts` each, and the share of rollouts with the library's reward."
    from prove_nb.rewards import get_reward
    direct = {t.id: get_reward("prove")(t, rollout(t, gold_policy()).to_completion()).total for t in tasks}
    with tempfile.TemporaryDirectory() as out, serve_streaming_policy(gold_chat_policy(tasks)) as srv:
        env = {**os.environ, "PATH": f"{VF}:{os.environ['PATH']}", "PROVE_NO_KEY": "EMPTY"}
        t0 = time.perf_counter()
        r = subprocess.run([str(VF / "vf-eval"), "prove-env", "--env.taskset.tasks", str(TASKS), "-n", str(len(tasks)), "-r", str(rollouts),
                            "--client.base-url", srv.url, "--client.api-key-var", "PROVE_NO_KEY", "-m", "prove-policy", "--no-push",
                            "--env.agent.harness.id", "null", "--env.agent.runtime.type", "subprocess", "-o", out],
                           env=env, cwd=out, capture_output=True, text=True, timeout=1200)
        wall = time.perf_counter() - t0
        traces = [tr for f in Path(out).rglob("traces.jsonl") for l in f.read_text().splitlines() for tr in json.loads(l)["traces"]]
    same = [abs(tr["rewards"]["prove"]["score"] - direct[tr["task"]["data"]["id"]]) < 1e-9 for tr in traces]
    return {"rc": r.returncode, "wall_s": round(wall, 1), "rollouts": len(traces), "same_reward": sum(same)}


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="3 tasks, 5 TRL rollouts each, one vf-eval rollout each")
    ap.add_argument("--rollouts", type=int)
    ap.add_argument("--skip-verifiers", action="store_true")
    a = ap.parse_args()
    tasks = [t for t in load_tasks(TASKS) if len(t.turns) == 1][:3 if a.quick else None]
    out = {"load_start": os.getloadavg()[0], "tasks": len(tasks), "trl_env_ms": trl_env(tasks, 5 if a.quick else 20)}
    if not a.skip_verifiers and (VF / "vf-eval").exists(): out["vf_eval"] = verifiers_eval(tasks, a.rollouts or (1 if a.quick else 2))
    out["load_end"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))
    if not a.quick: save("adapters_bench", out)
