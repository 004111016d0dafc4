"""The GPU and multi-GPU paths, checked without a GPU: configs, scripts, shared-server sessions, the vLLM policy's requests,
the launch script's three steps (with stand-ins for nvidia-smi, trl and accelerate), and the GPU check's models."""
import http.server, json, os, py_compile, socket, subprocess, sys, threading
from pathlib import Path

import pytest, yaml
from transformers import AutoTokenizer

from prove_nb.rollout import Limits, gold_policy, rollout_batch
from prove_nb.lm import prepare_tokenizer, smollm2_path
from prove_nb.scale import (CompletionsPolicy, MCPPool, RemoteWorld, check_accelerate_config, chatml_tokenizer, cpu_check_config,
                            free_port, multi_gpu_args, remote_worlds, serve_http)
from prove_nb.server import World, load_server
from prove_nb.task import Task, Turn, save_tasks
from prove_nb.synth.dataset import split_leaks

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

def records(views: dict) -> str: return json.dumps({k: [t.to_dict() for t in v] for k, v in views.items()})

def deposit_task(i, acct, seed=0):
    w = World(["banking"], seed=seed); w.call("deposit", {"account_id": acct, "amount": 10.0 + i})
    return Task(id=f"dep-{i}", servers=["banking"], seed=seed, size="small", system="You are a banking assistant.",
                tools=load_server("banking").schemas(["get_account", "deposit"]),
                turns=[Turn(f"Please deposit {10 + i} dollars into account {acct}.",
                            gold=[[{"name": "deposit", "arguments": {"account_id": acct, "amount": 10.0 + i}}]], answer_facts=[])],
                deps=[], gold_state_hash=w.hash(), depth=1, category="base", split="train")

@pytest.fixture(scope="module")
def pool():
    with serve_http(["banking"]) as urls, MCPPool(urls) as p: yield p

# ----------------------------------------------------------------------------------------------------- configs
@pytest.mark.parametrize("stage", [2, 3])
def test_accelerate_configs(stage):
    path = ROOT / f"scripts/accelerate/zero{stage}.yaml"
    raw = yaml.safe_load(path.read_text())
    cfg = check_accelerate_config(path)
    assert cfg["distributed_type"] == raw["distributed_type"] == "DEEPSPEED" and cfg["deepspeed_config"]["zero_stage"] == stage
    assert cfg["mixed_precision"] == "bf16" and not cfg["use_cpu"]

def test_bad_accelerate_configs_refused(tmp_path):
    base = yaml.safe_load((ROOT / "scripts/accelerate/zero3.yaml").read_text())
    for change, why in [({"distributed_type": "MULTI_GPU"}, "not DEEPSPEED"), ({"deepspeed_config": {**base["deepspeed_config"], "zero_stage": 1}}, "not 2 or 3"),
                        ({"deepspeed_config": {**base["deepspeed_config"], "zero3_save_16bit_model": False}}, "sharded"),
                        ({"deepspeed_config": {**base["deepspeed_config"], "offload_everything": True}}, "unknown deepspeed_config keys")]:
        p = tmp_path / "c.yaml"; p.write_text(yaml.safe_dump({**base, **change}))
        with pytest.raises(ValueError, match=why): check_accelerate_config(p)
    p.write_text(yaml.safe_dump({**base, "zero_stage": 3}))  # a DeepSpeed key at the top level: accelerate itself refuses it
    with pytest.raises(ValueError, match="unknown keys"): check_accelerate_config(p)

def test_multi_gpu_grpo_config():
    cfg = cpu_check_config(multi_gpu_args("runs/x", "http://10.1.2.3:8000", steps=350, group=16, per_device=8, grad_acc=2))
    assert (cfg.use_vllm, cfg.vllm_mode, cfg.vllm_server_base_url) == (True, "server", "http://10.1.2.3:8000")
    assert (cfg.num_generations, cfg.beta, cfg.learning_rate, cfg.max_steps) == (16, 0.01, 1e-6, 350)
    assert cfg.vllm_importance_sampling_correction is False and cfg.generation_batch_size % cfg.num_generations == 0
    assert multi_gpu_args("runs/x")["bf16"] is True
    with pytest.raises(ValueError, match="whole groups"): multi_gpu_args("runs/x", group=16, per_device=4, grad_acc=3)

# ----------------------------------------------------------------------------------------------------- scripts
@pytest.mark.parametrize("script", sorted(str(p.relative_to(ROOT)) for d in ("scripts", "bench") for p in (ROOT / d).glob("*.py")))
def test_python_scripts_compile(script): py_compile.compile(str(ROOT / script), doraise=True)

@pytest.mark.parametrize("script", ["scripts/launch_multi_gpu.sh", "bench/gpu_check.sh"])
def test_shell_scripts_parse(script): subprocess.run(["bash", "-n", str(ROOT / script)], check=True)

def test_train_script_check_mode():
    res = subprocess.run([sys.executable, str(ROOT / "scripts/train_grpo_multi.py"), "--check", "--num-processes", "3", "--group", "8",
                          "--per-device", "4", "--grad-acc", "4", "--vllm-url", "http://gpu0:8000"], capture_output=True, text=True, check=True)
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert (got["vllm_mode"], got["vllm_server_base_url"], got["num_generations"]) == ("server", "http://gpu0:8000", 8)
    assert (got["completions_per_step"], got["prompts_per_step"]) == (48, 6)
    bad = subprocess.run([sys.executable, str(ROOT / "scripts/train_grpo_multi.py"), "--check", "--group", "16", "--per-device", "4", "--grad-acc", "1"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "whole groups" in bad.stderr

# ------------------------------------------------------------------------------------------ shared MCP servers
def test_remote_rollouts_match_in_process(pool):
    tasks = [deposit_task(i, a, seed=s) for i, (a, s) in enumerate([("acc_0001", 0), ("acc_0002", 0), ("acc_0004", 0)])]
    with remote_worlds(pool) as world:
        remote = rollout_batch(tasks, gold_policy(), world=world)
        sids = [w.sid for w in world.opened]
    local = rollout_batch(tasks, gold_policy())
    assert [t.final_hash for t in remote] == [t.final_hash for t in local] == [t.gold_state_hash for t in tasks]
    assert [[(c.name, c.ok, c.content) for c in t.calls] for t in remote] == [[(c.name, c.ok, c.content) for c in t.calls] for t in local]
    assert len(set(sids)) == len(tasks)

def test_remote_world_sessions(pool):
    a, b = RemoteWorld(pool, ["banking"]), RemoteWorld(pool, ["banking"])
    local = World(["banking"])
    assert a.hash() == b.hash() == local.hash()
    assert a.call("deposit", {"account_id": "acc_0001", "amount": 5}).content == local.call("deposit", {"account_id": "acc_0001", "amount": 5}).content
    assert a.hash() == local.hash() != b.hash()
    assert list(a.diff()) == ["banking"] and b.diff() == {}
    assert not a.call("no_such_tool", {}).ok and "no_such_tool" in a.call("no_such_tool", {}).error
    assert not a.call("deposit", {"account_id": "acc_0404", "amount": 5}).ok
    a.close(); b.close()
    with pytest.raises(ValueError, match="medium"): RemoteWorld(pool, ["banking"], size="medium")

# ------------------------------------------------------------------------------------------ vLLM server policy
CALL = '<tool_call>\n{"name": "deposit", "arguments": {"account_id": "acc_0001", "amount": 10.0}}\n</tool_call>'

@pytest.fixture()
def completions_stub():
    "A stand-in `/v1/completions` server: a deposit call first, then a short answer once a tool result is in the prompt."
    seen = []
    class Stub(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append((self.path, body))
            data = json.dumps({"choices": [{"index": i, "text": "Done." if "<tool_response>" in p else CALL} for i, p in reversed(list(enumerate(body["prompt"])))]}).encode()
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(data))); self.end_headers()
            self.wfile.write(data)
        def log_message(self, *a): pass
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_port}", seen
    srv.shutdown()

def test_completions_policy_rollout(completions_stub, pool):
    url, seen = completions_stub
    tok = prepare_tokenizer(AutoTokenizer.from_pretrained(ROOT / "bench/tokenizer"))
    policy = CompletionsPolicy(url, "Qwen/Qwen3-4B", tok, max_new_tokens=32, temperature=0.7)
    tasks = [deposit_task(0, "acc_0001"), deposit_task(1, "acc_0002")]
    with remote_worlds(pool) as world:
        trajs = rollout_batch(tasks, policy, Limits(max_steps=2, max_turns=1), world=world)
    path, body = seen[0]
    assert path == "/v1/completions" and len(body["prompt"]) == 2 and all(p.endswith("<|im_start|>assistant\n") for p in body["prompt"])
    assert (body["model"], body["max_tokens"], body["temperature"], body["stop"]) == ("Qwen/Qwen3-4B", 32, 0.7, ["<|im_end|>"])
    assert trajs[0].final_hash == tasks[0].gold_state_hash and trajs[1].final_hash != tasks[1].gold_state_hash
    assert trajs[0].messages[2]["content"] == CALL and trajs[0].gen_tokens > 0 and trajs[0].stop == "answered"

def test_chatml_tokenizer_is_prefix_preserving():
    from trl.chat_template_utils import is_chat_template_prefix_preserving, qwen3_chat_template
    tok = AutoTokenizer.from_pretrained(ROOT / "bench/tokenizer")
    tok.chat_template = qwen3_chat_template
    assert not is_chat_template_prefix_preserving(tok)
    tok = chatml_tokenizer(tok)
    assert is_chat_template_prefix_preserving(tok) and tok.eos_token == "<|im_end|>" and tok.padding_side == "left"

# ------------------------------------------------------------------------------------------------ launch script
SHIMS = {
    "nvidia-smi": "#!/bin/sh\nfor i in 0 1 2; do echo \"GPU $i: stand-in\"; done\n",
    # trl vllm-serve --model M --port P ...: answer /health on P
    "trl": f"""#!{sys.executable}
import http.server, json, os, sys
a = sys.argv; port = int(a[a.index("--port") + 1])
open(os.environ["SHIM_LOG"] + ".trl", "w").write(json.dumps({{"argv": a[1:], "gpus": os.environ.get("CUDA_VISIBLE_DEVICES")}}))
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self): self.send_response(200); self.end_headers()
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
""",
    # accelerate launch ...: record the command and whether every MCP server in the map answers right now
    "accelerate": f"""#!{sys.executable}
import json, os, socket, sys
from urllib.parse import urlparse
a = sys.argv; mcp = json.load(open(a[a.index("--mcp") + 1]))
up = {{}}
for name, url in mcp.items():
    u = urlparse(url)
    try: socket.create_connection((u.hostname, u.port), 2).close(); up[name] = True
    except OSError: up[name] = False
open(os.environ["SHIM_LOG"], "w").write(json.dumps({{"argv": a[1:], "gpus": os.environ.get("CUDA_VISIBLE_DEVICES"), "mcp": mcp, "up": up}}))
""",
}

def free_ports(n: int) -> int:
    "The first of `n` consecutive free ports."
    for _ in range(50):
        first = free_port()
        try:
            for s in [socket.create_server(("127.0.0.1", first + i)) for i in range(n)]: s.close()
            return first
        except OSError: continue
    raise RuntimeError("no consecutive free ports")

def test_launch_script_three_steps(tmp_path):
    bin_ = tmp_path / "bin"; bin_.mkdir()
    for name, text in SHIMS.items():
        (bin_ / name).write_text(text); (bin_ / name).chmod(0o755)
    data = tmp_path / "data"; data.mkdir()
    save_tasks([Task(id=f"t{i}", servers=s) for i, s in enumerate([["banking"], ["payments", "banking"]])], data / "tasks.jsonl")
    vllm_port, mcp_port = free_port(), free_ports(2)
    env = {**os.environ, "PATH": f"{bin_}:{Path(sys.executable).parent}:{os.environ['PATH']}", "SHIM_LOG": str(tmp_path / "log"), "PYTHON": sys.executable}
    out = tmp_path / "run"
    res = subprocess.run(["bash", str(ROOT / "scripts/launch_multi_gpu.sh"), "--data", str(data), "--out", str(out), "--zero", "2",
                          "--vllm-port", str(vllm_port), "--mcp-port", str(mcp_port), "--", "--steps", "3"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    trl_ = json.loads((tmp_path / "log.trl").read_text())
    assert trl_["gpus"] == "0" and trl_["argv"][:3] == ["vllm-serve", "--model", "Qwen/Qwen3-4B"]
    acc = json.loads((tmp_path / "log").read_text())
    assert acc["gpus"] == "1,2" and acc["up"] == {"banking": True, "payments": True}
    argv = acc["argv"]
    assert argv[:5] == ["launch", "--config_file", "scripts/accelerate/zero2.yaml", "--num_processes", "2"]
    assert argv[5] == "scripts/train_grpo_multi.py" and argv[-2:] == ["--steps", "3"]
    assert argv[argv.index("--vllm-url") + 1] == f"http://127.0.0.1:{vllm_port}" and argv[argv.index("--mcp") + 1] == str(out / "mcp.json")
    assert acc["mcp"] == {"banking": f"http://127.0.0.1:{mcp_port}/mcp", "payments": f"http://127.0.0.1:{mcp_port + 1}/mcp"}
    for port in (vllm_port, mcp_port, mcp_port + 1):  # every server stopped with the run
        with pytest.raises(OSError): socket.create_connection(("127.0.0.1", port), 0.5).close()

# ---------------------------------------------------------------------------------------------------- GPU check
def test_gpu_check_models_and_tokenizer():
    import gpu_check
    assert 0.55e9 < gpu_check.n_params("0.6b") < 0.65e9 and 3.9e9 < gpu_check.n_params("4b") < 4.1e9
    tok = AutoTokenizer.from_pretrained(gpu_check.TOKENIZER)
    assert len(tok) <= gpu_check.qwen3_config("0.6b").vocab_size and tok.eos_token == "<|im_end|>" and "tool_call" in tok.chat_template
    assert sum(p.stat().st_size for p in gpu_check.TOKENIZER.iterdir()) < 2_000_000

def test_gpu_check_without_gpu_reports_rows():
    import torch
    if torch.cuda.is_available(): pytest.skip("a GPU is present: bench/gpu_check.sh runs the real check")
    res = subprocess.run([sys.executable, str(ROOT / "bench/gpu_check.py"), "--sizes", "0.6b"], capture_output=True, text=True, check=True)
    rec = json.loads(res.stdout.strip().splitlines()[-1])
    assert [(r["backend"], r["status"]) for r in rec["rows"]] == [("trl", "no CUDA device"), ("unsloth", "no CUDA device")]
    assert "| Qwen3-0.6b (random) | trl | no CUDA device |" in res.stdout

def test_gpu_check_code_path_on_cpu(tmp_path):
    "The GPU check's plain TRL + PEFT case, end to end on a CPU with a tiny random Qwen3 (the same code the GPU runs)."
    out = tmp_path / "gpu_check.json"
    subprocess.run([sys.executable, str(ROOT / "bench/gpu_check.py"), "--cpu", "--sizes", "tiny", "--backends", "trl", "--budget", "280",
                    "--out", str(out)], capture_output=True, text=True, check=True, env={**os.environ, "TRL_EXPERIMENTAL_SILENCE": "1"})
    (r,) = json.loads(out.read_text())["rows"]
    assert r["status"] == "ok" and r["step_s"] > 0 and r["gen_tok_s"] > 0 and 0 < r["trainable"] < 100_000, r

# ----------------------------------------------------------------------------------------------- CPU benchmark
def test_learn_cpu_views_hold_out_states_and_combinations():
    "The recipe's views: deterministic; seen combinations on unseen world seeds; unseen combinations never trained on; gold replays."
    from prove_nb.recipe import HELD_SEEDS, RECIPE_LIMITS, TRAIN_SEEDS, recipe_tasks, world_index
    views = recipe_tasks(300, 20, seed=3)
    assert records(views) == records(recipe_tasks(300, 20, seed=3)) and len(views["sft"]) == 20
    trained = {t.tool_combination for t in views["sft"] + views["grpo"]}
    assert all(world_index(t) in TRAIN_SEEDS for t in views["sft"] + views["grpo"]) and all(world_index(t) in HELD_SEEDS for t in views["seen_combinations"])
    assert {t.tool_combination for t in views["seen_combinations"]} <= trained and not trained & {t.tool_combination for t in views["unseen_combinations"]}
    held = views["seen_combinations"][:10] + views["unseen_combinations"][:10]
    trajs = rollout_batch(held, gold_policy(), RECIPE_LIMITS)  # gold completes every held-out task within the recipe's limits
    assert all(tr.final_hash == t.gold_state_hash for tr, t in zip(trajs, held))

def test_learn_cpu_stages_are_recorded_and_resumed(tmp_path):
    "A recorded stage is read back under --resume and run again without it."
    import learn_cpu
    runs = []
    run = lambda: runs.append(1) or {"model": "m", "success": 0.5}
    first = learn_cpu.stage(tmp_path, "eval_m", run, resume=True)
    assert learn_cpu.stage(tmp_path, "eval_m", run, resume=True) == first and runs == [1] and first["stage_s"] >= 0
    learn_cpu.stage(tmp_path, "eval_m", run, resume=False)
    assert runs == [1, 1] and (tmp_path / "stage_eval_m.json").exists()

def test_learn_cpu_paired_interval():
    "Paired per-task records give the mean difference and a bootstrap interval that covers it."
    import learn_cpu
    a = {f"t{i}": {"success": i % 2} for i in range(40)}
    b = {f"t{i}": {"success": 1} for i in range(40)}
    g = learn_cpu.paired(a, b, "success")
    assert g["gain"] == 0.5 and g["better"] == 20 and g["worse"] == 0 and 0.3 < g["ci95"][0] < 0.5 < g["ci95"][1] <= 0.7

def test_learn_cpu_publishes_another_checkpoints_controls_beside_the_record(tmp_path):
    "A run on another SFT checkpoint writes learn_cpu_<fp>.json; its RFT joins the committed record marked with that checkpoint, the rest untouched."
    import learn_cpu
    gain = lambda g: {"seen_gain": g, "ci95": [g - 0.05, g + 0.05]}
    record = lambda fp, controls, success: {"sft": {"fingerprint": fp}, "controls": controls, "pending": ["rft seen_combinations", "rft sampled"],
                                            "seen_combinations": {"sft": {"success": success}}, "seeds": [1]}
    main = record("aaa", {"more_sft": gain(0.2), "shuffled": []}, 0.1)
    (tmp_path / "learn_cpu.json").write_text(json.dumps(main))
    side = record("bbb", {"rft": gain(0.03), "more_sft": gain(0.5), "shuffled": []}, 0.12)
    written, rows = learn_cpu.publish(side, [("rft", 0.03, gain(0.03)["ci95"])], tmp_path)
    assert json.loads((tmp_path / "learn_cpu_bbb.json").read_text()) == side and json.loads((tmp_path / "learn_cpu.json").read_text()) == written
    assert written["controls"]["rft"] == gain(0.03) | {"sft": "bbb", "sft_seen_success": 0.12, "record": "learn_cpu_bbb.json"}
    assert written["controls"]["more_sft"] == gain(0.2) and written["pending"] == ["rft sampled"] and written["seeds"] == [1]
    assert rows == [("rft (its own SFT, bbb)", 0.03, gain(0.03)["ci95"])]
    same = record("aaa", {"rft": gain(0.04), "shuffled": []}, 0.1)
    assert learn_cpu.publish(same, [], tmp_path)[0] == same and json.loads((tmp_path / "learn_cpu.json").read_text()) == same

def test_learn_cpu_runs_reads_every_evaluated_run():
    "bench/learn_cpu_runs.py: one row per result file with a paired seen view, in run order; the paired standard error from won/lost counts."
    import learn_cpu_runs as lr
    assert lr.paired_se({"n": 4, "gain": 0.5, "better": 2, "worse": 0}) == pytest.approx(((2 / 4 - 0.25) / 4) ** 0.5)
    rows = lr.runs()
    assert [r["number"] for r in rows][:4] == ["6", "7", "8", "8 (seed 1)"] and [r["run"] for r in rows if r["met"]] == ["2026-12-03_kl-beta-0.04"]
    s = lr.summary(rows)
    assert s["runs"] == len(rows) and s["positive"] + s["negative"] <= len(rows) and s["target_met"] == sum(r["met"] for r in rows)
    assert lr.table(rows).count("\n") == len(rows) + 1

def test_unfinished_episodes_keep_a_share_of_the_trained_rewards():
    "With unfinished=k, an episode cut off at the step limit before replying keeps k of its trained rewards only; finished ones keep theirs."
    from types import SimpleNamespace
    from prove_nb.grpo import grpo_dataset, make_rollout_func
    tasks = [deposit_task(0, "ACC-1001"), deposit_task(1, "ACC-1002")]
    tok = prepare_tokenizer(AutoTokenizer.from_pretrained(smollm2_path()))
    trainer = SimpleNamespace(num_generations=2, args=SimpleNamespace(max_completion_length=1024))
    prompts = [r["prompt"] for r in grpo_dataset(tasks) for _ in range(2)]
    play = lambda limits, keep: make_rollout_func(tasks, tok, limits, rewards=("prove",), monitor=("recall",), unfinished=keep,
                                                  policy_for=lambda tr: gold_policy())(prompts, trainer)["scores"]
    whole = play(Limits(max_steps=1, max_turns=1), 1.0)  # gold calls at its first step and is cut off before its reply: scored as it ran
    cut = play(Limits(max_steps=1, max_turns=1), 0.0)
    half = play(Limits(max_steps=1, max_turns=1), 0.5)
    assert all(w["prove"].total > 0 and c["prove"].total == 0 and h["prove"].total == w["prove"].total / 2 for w, c, h in zip(whole, cut, half))
    assert all(c["prove"].components["coverage"] == 1 and c["recall"].total == 1 for c in cut)  # components and monitored rewards untouched
    assert all("stopped at the step limit before replying: keeps 0 of its reward" in c["prove"].reasons for c in cut)
    assert all(s["prove"].total > 0 for s in play(Limits(max_steps=2, max_turns=1), 0.0))  # gold replies at step 2: finished, not cut

def test_learn_cpu_counts_solved_tasks_by_kind():
    "solved_by_kind: per kind of task, how many a view holds and how many each model solved."
    import learn_cpu
    from prove_nb.recipe import recipe_tasks, task_kind
    seen = recipe_tasks(300, 20, seed=3)["seen_combinations"][:8]
    per = {"sft": {t.id: {"success": 1} for t in seen}, "sft+grpo": {t.id: {"success": int(i == 0)} for i, t in enumerate(seen)}}
    got = learn_cpu.solved_by_kind(per, seen)
    assert sum(k["n"] for k in got.values()) == sum(k["sft"] for k in got.values()) == 8 and sum(k["sft+grpo"] for k in got.values()) == 1
    assert got[task_kind(seen[0])]["sft+grpo"] == 1 and set(got) == {task_kind(t) for t in seen}

def test_learn_cpu_results_pair_seeds_and_controls_on_one_checkpoint(tmp_path, monkeypatch):
    "results(): the mean over GRPO seeds per task against SFT, each seed and control paired, records of another SFT checkpoint left out, pending arms named."
    import learn_cpu
    from types import SimpleNamespace
    ids = [f"t{i}" for i in range(20)]
    views = {"seen_combinations": [SimpleNamespace(id=i, gold_call_dicts=[{}], turns=[]) for i in ids]}
    rec = lambda wins, calls=1.0: {i: {"success": float(j < wins), "state": 1.0, "prove": 0.5, "calls": calls, "tokens": 1, "stop": "answered", "write": False}
                                   for j, i in enumerate(ids)}
    arms = {"sft": (rec(4), None), "grpo_seed0": (rec(8), "fp"), "grpo_seed1": (rec(6), "fp"), "shuffled_seed0": (rec(5), "fp"), "rft": (rec(10), "other"),
            "prove_seed0": (rec(3), "fp"), "prove_seed1": (rec(5), "fp")}
    for a, (per, fp) in arms.items():
        (tmp_path / f"stage_{a}.json").write_text(json.dumps({"checkpoint": "ck", **({"sft": fp} if fp else {}), "stage_s": 1.0}))
        (tmp_path / f"eval_{a}_seen_combinations.json").write_text(json.dumps(per))
        (tmp_path / f"stage_eval_{a}_seen_combinations.json").write_text(json.dumps(learn_cpu.view_metrics(per) | {"eval_s": 1, "gen_tok_s": 1}))
    monkeypatch.setattr(learn_cpu, "solved_by_kind", lambda per, tasks: {})  # the stand-in tasks have no worlds
    res = learn_cpu.results(tmp_path, {}, views, {"checkpoint": "ck", "fingerprint": "fp", "stage_s": 1.0}, {}, {})
    seen = res["seen_combinations"]
    assert seen["paired"]["success"]["gain"] == 0.15 and seen["seeds_in_mean"] == ["grpo_seed0", "grpo_seed1"]  # (0.4 + 0.3) / 2 - 0.2
    assert [(s["seed"], s["seen_gain"]) for s in res["seeds"]] == [(0, 0.2), (1, 0.1)]
    assert res["controls"]["shuffled"] == [{"seed": 0, "seen_gain": 0.05, "seen_ci95": seen["shuffled_seed0"]["paired"]["success"]["ci95"]}]
    assert "rft" not in res["controls"] and "rft" not in res["arms"]  # trained from another SFT checkpoint: not paired
    assert "grpo_seed2 seen_combinations" in res["pending"] and "grpo_seed0 seen_combinations" not in res["pending"] and res["target_met"] is False
    assert res["controls"]["grpo_over_shuffled"]["seen_gain"] == 0.1 and seen["over_shuffled"]["shuffled_in_mean"] == ["shuffled_seed0"]  # 0.35 - 0.25
    assert [(s["seed"], s["seen_gain"]) for s in res["controls"]["prove_outcome"]] == [(0, -0.05), (1, 0.05)]  # the reward comparison, paired alike
    assert res["controls"]["prove_outcome_mean"]["seen_gain"] == 0.0 and seen["prove_mean"]["seeds_in_mean"] == ["prove_seed0", "prove_seed1"]
    assert [r[0] for r in learn_cpu.forest_rows(res)] == ["GRPO, mean of seeds", "PROVE + outcome, mean of seeds", "grpo_seed0", "grpo_seed1",
                                                          "prove_seed0", "prove_seed1", "shuffled_seed0"]
    assert learn_cpu.table(res).count("| seen_combinations |") == 7

def test_learn_cpu_refuses_unknown_arms_and_views():
    import learn_cpu
    for argv, what in ((["--arms", "grpo"], "--arms: unknown arm 'grpo'"), (["--views", "seen"], "--views: unknown view 'seen'")):
        with pytest.raises(SystemExit, match=what): learn_cpu.main(["--quick", *argv])

def test_learn_cpu_records_bundle_round_trips(tmp_path):
    "keep_records bundles a run's stage and evaluation records and curves into one file; seed_records unpacks it without overwriting."
    import learn_cpu
    run, again = tmp_path / "run", tmp_path / "again"
    (run / "grpo_seed0").mkdir(parents=True); again.mkdir()
    (run / "stage_sft.json").write_text(json.dumps({"checkpoint": "ck", "fingerprint": "fp"}))
    (run / "eval_sft_seen_combinations.json").write_text(json.dumps({"t1": {"success": 1.0}}))
    (run / "results.json").write_text("{}")
    (run / "grpo_seed0" / "metrics.jsonl").write_text(json.dumps({"step": 1, "reward": 0.5}) + "\n")
    learn_cpu.keep_records(run, tmp_path / "2026-12-06_x.json")
    (again / "stage_sft.json").write_text(json.dumps({"checkpoint": "mine"}))
    learn_cpu.seed_records(again, tmp_path / "2026-12-06_x.json")
    assert json.loads((again / "stage_sft.json").read_text()) == {"checkpoint": "mine"} and not (again / "results.json").exists()
    assert json.loads((again / "eval_sft_seen_combinations.json").read_text()) == {"t1": {"success": 1.0}}
    assert (again / "grpo_seed0" / "metrics.jsonl").read_text() == (run / "grpo_seed0" / "metrics.jsonl").read_text()
