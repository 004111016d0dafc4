"The `prove` command as a new user types it, mistakes included: one line and exit code 2, no work done, nothing overwritten."
import hashlib, json, os, shutil, subprocess, sys
from pathlib import Path

import pytest

import prove_nb.cli as cli
from prove_nb.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample" / "tasks.jsonl"
WORK = {"prove_nb.synth.dataset": ["synthesize", "replay_tasks"], "prove_nb.rewards": ["score_file"], "prove_nb.sft": ["train_sft"],
        "prove_nb.grpo": ["train_grpo"], "prove_nb.evaluate": ["evaluate", "policy_from_name"], "prove_nb.bfcl": ["run_bfcl"],
        "prove_nb.orchestration": ["run_orchestration"], "prove_nb.ebench": ["build_ebench", "run_ebench"], "prove_nb.cli": ["serve"],
        "prove_nb.nestful": ["run_nestful"], "prove_nb.teval": ["run_teval"]}

def prove(capsys, *argv) -> tuple:
    "Run `prove argv` in this process: (exit code, standard error)."
    capsys.readouterr()
    try: code = main([str(a) for a in argv]) or 0
    except SystemExit as e: code = e.code
    return code, capsys.readouterr().err

def snapshot(root: Path) -> dict:
    "Every file under `root` (hidden ones included) with a digest of its bytes."
    return {str(p.relative_to(root)): hashlib.sha1(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}

@pytest.fixture
def work(monkeypatch):
    "Every function that does a subcommand's work, replaced by one that records its call."
    import importlib
    calls = []
    for mod, names in WORK.items():
        for name in names: monkeypatch.setattr(importlib.import_module(mod), name, lambda *a, _n=name, **k: calls.append(_n))
    return calls

@pytest.fixture
def runs(tmp_path):
    "A folder with a dataset, an evaluation report, a finished run, a resumable run and three bad task files."
    (tmp_path / "data").mkdir(); shutil.copy(SAMPLE, tmp_path / "data" / "tasks.jsonl")
    (tmp_path / "eval").mkdir(); (tmp_path / "eval" / "report.json").write_text('{"success": 0.5}')
    (tmp_path / "sft" / "checkpoint").mkdir(parents=True); (tmp_path / "sft" / "checkpoint" / "config.json").write_text("{}")
    (tmp_path / "grpo" / "checkpoint-2").mkdir(parents=True); (tmp_path / "grpo" / "checkpoint-2" / "trainer_state.json").write_text("{}")
    lines = SAMPLE.read_text().splitlines(keepends=True)
    (tmp_path / "bad.jsonl").write_text("".join(lines[:2]) + lines[2][:40] + "\n")
    (tmp_path / "empty.jsonl").write_text("\n")
    (tmp_path / "odd.jsonl").write_text(json.dumps({**json.loads(lines[0]), "servers": ["bankin"]}) + "\n")
    (tmp_path / "completions.jsonl").write_text('{"id": "x", "messages": []}\n')
    return tmp_path

D = "{d}"
MISTAKES = [  # (argv, what the one line must say); D is the folder of `runs`
    (["train", "--stage", "grpo", "--data", "/nonexistent", "--out", f"{D}/g"], "argument --data: No such file or directory: /nonexistent"),
    (["train", "--stage", "sft", "--data", f"{D}/eval", "--out", f"{D}/g"], "argument --data: No such file or directory: {d}/eval/tasks.jsonl"),
    (["score", "--tasks", "/nonexistent.jsonl", "--completions", f"{D}/completions.jsonl"], "argument --tasks: No such file or directory"),
    (["score", "--tasks", f"{D}/data", "--completions", f"{D}/nothing.jsonl"], "argument --completions: no such file: {d}/nothing.jsonl"),
    (["eval", "heldout", "--tasks", f"{D}/bad.jsonl", "--out", f"{D}/e"], "argument --tasks: {d}/bad.jsonl line 3: not JSON: Unterminated string"),
    (["replay", "--tasks", f"{D}/empty.jsonl"], "{d}/empty.jsonl holds no tasks"),
    (["orchestrate", "--tasks", f"{D}/odd.jsonl", "--out", f"{D}/o"], "names an unknown server 'bankin'; known: banking,"),
    (["serve", "nosuchserver"], "argument name: invalid choice: 'nosuchserver'"),
    (["serve", "banking", "--port", "0"], "argument --port: expected a port from 1 to 65535, got '0'"),
    (["serve", "banking", "--call-timeout", "-5"], "argument --call-timeout: expected a number of seconds > 0, got '-5'"),
    (["synth", "--n", "-3", "--out", f"{D}/s"], "argument --n: expected a positive whole number, got '-3'"),
    (["synth", "--n", "0", "--out", f"{D}/s"], "argument --n: expected a positive whole number, got '0'"),
    (["synth", "--servers", "banking,nosuch", "--out", f"{D}/s"], "argument --servers: unknown server 'nosuch'"),
    (["synth", "--depth-min", "4", "--depth-max", "2", "--out", f"{D}/s"], "--depth-min 4 is above --depth-max 2"),
    (["synth", "--depth-max", "9", "--out", f"{D}/s"], "argument --depth-max: expected a depth from 0 to 6, got '9'"),
    (["synth", "--teacher", "http://127.0.0.1:9/v1", "--out", f"{D}/s"], "--teacher needs --teacher-model"),
    (["train", "--stage", "sft", "--steps", "-1", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --steps: expected a positive whole number, got '-1'"),
    (["train", "--stage", "sft", "--lr", "0", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --lr: expected a learning rate above 0 and below 1"),
    (["train", "--stage", "sft", "--max-length", "0", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --max-length: expected a number of tokens"),
    (["train", "--stage", "sft", "--lora-rank", "8", "--data", f"{D}/data", "--out", f"{D}/t"], "--lora-rank is a GRPO flag; expected --stage grpo"),
    (["train", "--stage", "grpo", "--group", "1", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --group: expected a group of at least 2 rollouts"),
    (["train", "--stage", "grpo", "--group", "4", "--batch-size", "6", "--data", f"{D}/data", "--out", f"{D}/t"], "--batch-size 6 is not a multiple of --group 4"),
    (["train", "--stage", "grpo", "--unfinished", "1.5", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --unfinished: expected a number from 0 to 1"),
    (["train", "--stage", "grpo", "--warmup-steps", "-1", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --warmup-steps: expected"),
    (["train", "--stage", "grpo", "--reward", "prove+outcom", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --reward: unknown reward 'outcom'"),
    (["train", "--stage", "grpo", "--resume", "--data", f"{D}/data", "--out", f"{D}/t"], "--resume: {d}/t holds no step checkpoint"),
    (["train", "--stage", "sft", "--recipe", "--data", f"{D}/data", "--out", f"{D}/t"], "--recipe is a GRPO flag; expected --stage grpo"),
    (["train", "--stage", "grpo", "--recipe", "--batch-size", "6", "--data", f"{D}/data", "--out", f"{D}/t"], "--batch-size 6 is not a multiple of --group 4"),
    (["train", "--stage", "grpo", "--recipe=yes", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --recipe: ignored explicit argument 'yes'"),
    (["train", "--stage", "sft", "--model", "smollm2-13m", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --model: no such model folder: smollm2-13m"),
    (["train", "--stage", "sft", "--model", f"{D}/sfft", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --model: no such model folder: {d}/sfft"),
    (["train", "--stage", "sft", "--model", f"{D}/eval", "--data", f"{D}/data", "--out", f"{D}/t"], "argument --model: {d}/eval holds no model"),
    (["eval", "heldout", "--out", f"{D}/e"], "heldout needs --tasks"),
    (["eval", "heldout", "--tasks", f"{D}/data", "--split", "tset", "--out", f"{D}/e"], "--tasks has no tasks in --split 'tset'; its splits: test, train"),
    (["eval", "heldout", "--tasks", f"{D}/data", "--k", "0", "--out", f"{D}/e"], "argument --k: expected a positive whole number, got '0'"),
    (["eval", "nosuch", "--out", f"{D}/e"], "argument suite: invalid choice: 'nosuch'"),
    (["eval", "teval", "--out", f"{D}/e"], "teval needs --data DIR"),
    (["eval", "teval", "--data", f"{D}/missing", "--out", f"{D}/e"], "argument --data: no such folder"),
    (["eval", "bfcl", "--category", "multi_turn_bse", "--out", f"{D}/e"], "argument --category: invalid choice: 'multi_turn_bse'"),
    (["orchestrate", "--tasks", f"{D}/data", "--samples", "0", "--out", f"{D}/o"], "argument --samples: expected a positive whole number"),
    (["ebench", "build", "--n", "-1", "--out", f"{D}/b"], "argument --n: expected a positive whole number, got '-1'"),
    (["ebench", "run", "--out", f"{D}/b"], "run needs --tasks"),
    # existing outputs: refused without --overwrite, whatever the subcommand
    (["synth", "--n", "2", "--out", f"{D}/data"], "--out {d}/data already holds a dataset ({d}/data/tasks.jsonl); pass --overwrite to replace it"),
    (["eval", "heldout", "--tasks", f"{D}/data", "--out", f"{D}/eval"], "--out {d}/eval already holds a report ({d}/eval/report.json)"),
    (["eval", "bfcl", "--out", f"{D}/eval"], "--out {d}/eval already holds a report"),
    (["orchestrate", "--tasks", f"{D}/data", "--out", f"{D}/eval"], "--out {d}/eval already holds a report"),
    (["ebench", "build", "--out", f"{D}/data"], "--out {d}/data already holds a dataset"),
    (["ebench", "run", "--tasks", f"{D}/data", "--out", f"{D}/eval"], "--out {d}/eval already holds a report"),
    (["train", "--stage", "sft", "--data", f"{D}/data", "--out", f"{D}/sft"], "--out {d}/sft already holds a checkpoint ({d}/sft/checkpoint)"),
    (["train", "--stage", "grpo", "--data", f"{D}/data", "--out", f"{D}/grpo"], "--out {d}/grpo already holds a resumable checkpoint ({d}/grpo/checkpoint-2)"),
    (["synth", "--out", f"{D}/bad.jsonl"], "--out {d}/bad.jsonl is a file; expected a folder"),
    ([], "prove: the following arguments are required: cmd"),
]

@pytest.mark.parametrize("argv,says", MISTAKES, ids=[" ".join(a[:2]) + f" #{i}" for i, (a, _) in enumerate(MISTAKES)])
def test_a_mistake_is_one_line_and_exit_code_2_before_any_work(capsys, work, runs, argv, says):
    before = snapshot(runs)
    code, err = prove(capsys, *[a.format(d=runs) for a in argv])
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"prove {argv[0]}: " if argv else "prove: ") and says.format(d=runs) in err, err
    assert work == [] and snapshot(runs) == before  # nothing ran, nothing was written, nothing overwritten

def test_the_console_command_prints_one_line(runs):
    "In a fresh process, as a shell runs it: standard error is the one line, the exit code 2, the dataset untouched."
    before = snapshot(runs)
    r = subprocess.run([sys.executable, "-c", "from prove_nb.cli import main; main()", "synth", "--n", "2", "--out", runs / "data"],
                       capture_output=True, text=True, env={k: v for k, v in os.environ.items() if k != "PROVE_DEBUG"})
    assert (r.returncode, r.stdout) == (2, "") and r.stderr == f"prove synth: --out {runs}/data already holds a dataset " \
           f"({runs}/data/tasks.jsonl); pass --overwrite to replace it, or choose another folder\n"
    assert snapshot(runs) == before

def test_debug_shows_the_traceback(capsys, work, runs, monkeypatch):
    with pytest.raises(cli.UsageError, match="expected a positive whole number"): main(["synth", "--n", "-3", "--out", str(runs / "s"), "--debug"])
    monkeypatch.setenv("PROVE_DEBUG", "1")
    with pytest.raises(cli.UsageError, match="already holds a dataset"): main(["synth", "--out", str(runs / "data")])

def test_internal_errors_keep_their_traceback(capsys, runs, monkeypatch):
    "A bug is not a mistake of the user's: its exception reaches the caller; a ValueError the trainer raises about the flags is one line."
    import prove_nb.sft as sft
    def broken(*a, **k): raise RuntimeError("a bug")
    monkeypatch.setattr(sft, "train_sft", broken)
    with pytest.raises(RuntimeError, match="a bug"): main(["train", "--stage", "sft", "--data", str(runs / "data"), "--out", str(runs / "t")])
    def refuses(*a, **k): raise ValueError("50 of 50 gold conversations are longer than max_length=64 tokens\nraise --max-length")
    monkeypatch.setattr(sft, "train_sft", refuses)
    assert prove(capsys, "train", "--stage", "sft", "--data", runs / "data", "--out", runs / "t") == \
           (2, "prove train: 50 of 50 gold conversations are longer than max_length=64 tokens raise --max-length\n")
    assert sorted(p.name for p in runs.iterdir() if p.name.startswith(".")) == []  # the staged folders are gone

def fake_train(out_of: list, fail: BaseException | None = None):
    "A trainer that writes a checkpoint (and a log) into the folder it is given, then fails with `fail` if given."
    def train(tasks, out, model, **kw):
        out_of.append(Path(out))
        (Path(out) / "checkpoint").mkdir(); (Path(out) / "checkpoint" / "config.json").write_text('{"new": true}')
        (Path(out) / "sft_log.json").write_text("[]")
        if fail: raise fail
        return Path(out) / "checkpoint"
    return train

def test_training_is_staged_and_published_whole(capsys, runs, monkeypatch):
    "A run is trained in a folder beside --out and published when it ends; an interrupted run leaves the old checkpoint whole."
    import prove_nb.sft as sft
    seen, before = [], snapshot(runs)
    monkeypatch.setattr(sft, "train_sft", fake_train(seen, KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt): main(["train", "--stage", "sft", "--data", str(runs / "data"), "--out", str(runs / "sft"), "--overwrite"])
    assert seen[-1].parent == runs and seen[-1].name.startswith(".sft.partial-") and not seen[-1].exists() and snapshot(runs) == before
    monkeypatch.setattr(sft, "train_sft", fake_train(seen))
    main(["train", "--stage", "sft", "--data", str(runs / "data"), "--out", str(runs / "sft"), "--overwrite"])
    assert capsys.readouterr().out == f"checkpoint: {runs / 'sft' / 'checkpoint'}\n"
    assert (runs / "sft" / "checkpoint" / "config.json").read_text() == '{"new": true}'
    assert sorted(os.listdir(runs / "sft")) == ["checkpoint", "sft_log.json"] and not seen[-1].exists()
    main(["train", "--stage", "sft", "--data", str(runs / "data"), "--out", str(runs / "new")])
    assert sorted(os.listdir(runs / "new")) == ["checkpoint", "sft_log.json"]

def test_resumable_runs_train_in_place(capsys, runs, monkeypatch):
    "--resume continues the run in --out itself (its step checkpoints are there); --save-every N trains there too."
    import prove_nb.grpo as grpo
    seen = []
    monkeypatch.setattr(grpo, "train_grpo", fake_train(seen))
    main(["train", "--stage", "grpo", "--resume", "--data", str(runs / "data"), "--out", str(runs / "grpo")])
    assert seen == [runs / "grpo"] and (runs / "grpo" / "checkpoint-2").exists() and (runs / "grpo" / "checkpoint").exists()
    main(["train", "--stage", "grpo", "--save-every", "2", "--overwrite", "--data", str(runs / "data"), "--out", str(runs / "grpo")])
    assert seen[-1] == runs / "grpo" and not (runs / "grpo" / "checkpoint-2").exists()  # --overwrite removed the old run's checkpoints

def test_synth_writes_a_dataset_and_never_replaces_it_unasked(capsys, runs):
    "The real `prove synth` (two tasks): a new folder gets the whole dataset; an existing one is refused, then replaced with --overwrite."
    from prove_nb.task import load_tasks
    main(["synth", "--n", "2", "--servers", "banking", "--out", str(runs / "s")])
    assert sorted(os.listdir(runs / "s")) == ["README.md", "hf", "stats.json", "tasks.jsonl"] and len(load_tasks(runs / "s")) == 2
    before = snapshot(runs)
    assert prove(capsys, "synth", "--n", "3", "--servers", "banking", "--out", runs / "s")[0] == 2 and snapshot(runs) == before
    main(["synth", "--n", "3", "--servers", "banking", "--out", str(runs / "s"), "--overwrite"])
    assert len(load_tasks(runs / "s")) == 3 and not [p for p in runs.iterdir() if p.name.startswith(".")]

def test_eval_writes_its_report_staged(capsys, runs):
    "The real `prove eval heldout` with the gold policy: the report appears whole in --out, and a second run is refused."
    main(["eval", "heldout", "--model", "gold", "--tasks", str(runs / "data"), "--k", "1", "--out", str(runs / "e")])
    rep = json.loads((runs / "e" / "report.json").read_text())
    assert rep["success"] == 1.0 and (runs / "e" / "attempts.jsonl").exists() and not [p for p in runs.iterdir() if p.name.startswith(".")]
    before = snapshot(runs)
    assert prove(capsys, "eval", "heldout", "--model", "gold", "--tasks", runs / "data", "--out", runs / "e")[0] == 2 and snapshot(runs) == before

def test_a_new_eval_suite_is_one_entry(capsys, monkeypatch, tmp_path):
    "`prove eval SUITE` dispatches through `EVAL_SUITES`: a suite added there is a choice of the parser and runs."
    monkeypatch.setitem(cli.EVAL_SUITES, "mine", lambda args: {"suite": args.suite, "out": args.out})
    main(["eval", "mine", "--out", str(tmp_path / "m")])
    assert json.loads(capsys.readouterr().out) == {"suite": "mine", "out": str(tmp_path / "m")}

def trained_with(runs, monkeypatch, stage: str, *flags):
    "What `prove train --stage STAGE FLAGS` hands its trainer (a stand-in that records it: nothing trains)."
    import prove_nb.grpo as grpo, prove_nb.sft as sft
    got = []
    monkeypatch.setattr(grpo, "train_grpo", lambda tasks, out, st: got.append(st) or Path(out))
    monkeypatch.setattr(sft, "train_sft", lambda tasks, out, model, **kw: got.append(kw) or Path(out))
    main(["train", "--stage", stage, "--data", str(runs / "data"), "--out", str(runs / "t"), "--overwrite", *map(str, flags)])
    return got[-1]

def test_train_defaults_without_recipe(capsys, runs, monkeypatch):
    "Without --recipe the settings are the command's own defaults, for SFT and GRPO alike."
    from prove_nb.rollout import Limits
    assert trained_with(runs, monkeypatch, "sft") == {"steps": 20, "lr": 5e-5, "batch_size": 4, "max_length": 4096}
    st = trained_with(runs, monkeypatch, "grpo")
    assert {k: getattr(st, k) for k in ("model", "steps", "reward", "group", "tasks_per_step", "lr", "warmup_steps", "scale_rewards", "limits",
                                        "max_new_tokens", "max_completion", "lora_rank", "resample", "unfinished", "guide", "save_every", "resume")} == \
           {"model": "smollm2-135m", "steps": 20, "reward": "prove", "group": 4, "tasks_per_step": 1, "lr": 1e-6, "warmup_steps": 0,
            "scale_rewards": "none", "limits": Limits(max_steps=4, max_turns=3), "max_new_tokens": 128, "max_completion": 4096,
            "lora_rank": None, "resample": 0, "unfinished": 1.0, "guide": False, "save_every": 0, "resume": False}

def test_train_recipe_starts_from_the_recipes_grpo_settings(capsys, runs, monkeypatch):
    "--recipe: every GRPO setting not given is RECIPE.grpo's; a flag given wins, even one equal to the command's own default."
    from dataclasses import replace
    from prove_nb.recipe import RECIPE
    r = RECIPE.grpo
    assert trained_with(runs, monkeypatch, "grpo", "--recipe") == r
    assert trained_with(runs, monkeypatch, "grpo", "--recipe", "--model", runs / "sft") == replace(r, model=str(runs / "sft" / "checkpoint"))
    got = trained_with(runs, monkeypatch, "grpo", "--recipe", "--steps", 20, "--unfinished", 1, "--lr", 1e-6, "--max-turns", 2, "--max-length", 4096,
                       "--reward", "prove", "--guide", "--lora-rank", 8)
    assert got == replace(r, steps=20, unfinished=1.0, lr=1e-6, reward="prove", max_completion=4096, guide=True, lora_rank=8,
                          limits=replace(r.limits, max_turns=2))  # max_steps and max_result_chars stay the recipe's
    assert trained_with(runs, monkeypatch, "grpo", "--recipe", "--group", 2).tasks_per_step == r.tasks_per_step  # no --batch-size: the recipe's tasks a step
    assert trained_with(runs, monkeypatch, "grpo", "--recipe", "--group", 2, "--batch-size", 6).tasks_per_step == 3
    assert trained_with(runs, monkeypatch, "grpo", "--recipe", "--batch-size", 8).tasks_per_step == 8 // r.group
    assert capsys.readouterr().out.count("checkpoint: ") == 6
