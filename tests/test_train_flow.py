"The README's training flow as a user types it: synthesize with the defaults, then one SFT step and one GRPO step."
import json, os, subprocess, sys

import pytest

ENV = {**os.environ, "TRL_EXPERIMENTAL_SILENCE": "1", "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2")}

def prove(*args, check=True):
    "Run the `prove` command in a fresh process."
    return subprocess.run([sys.executable, "-c", "from prove_nb.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, check=check, env=ENV)

@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("flow") / "data"
    prove("synth", "--n", 200, "--seed", 3, "--out", d)
    return d

@pytest.mark.slow
def test_default_synthesis_trains_sft_then_grpo(data, tmp_path):
    """`prove synth` with its defaults feeds `prove train`: an SFT step with train's defaults (its `--max-length` among them)
    on one conversation, then a GRPO step from it at a small size. Four conversations a step took 8 minutes on an AVX2 CPU."""
    sft = prove("train", "--stage", "sft", "--model", "smollm2-135m", "--data", data, "--out", tmp_path / "sft", "--steps", 1,
                "--batch-size", 1)
    assert (tmp_path / "sft" / "checkpoint" / "model.safetensors").exists(), sft.stdout + sft.stderr
    loss = [h["loss"] for h in json.loads((tmp_path / "sft" / "sft_log.json").read_text()) if "loss" in h]
    assert len(loss) == 1 and loss[0] > 0
    prove("train", "--stage", "grpo", "--model", tmp_path / "sft", "--data", data, "--out", tmp_path / "grpo", "--steps", 1,
          "--group", 2, "--max-turns", 1, "--max-new-tokens", 32)  # with the defaults this one step took 808 s
    rows = [json.loads(l) for l in (tmp_path / "grpo" / "metrics.jsonl").read_text().splitlines() if l.strip()]
    assert any("reward" in r and "prove/coverage" in r for r in rows) and (tmp_path / "grpo" / "checkpoint" / "model.safetensors").exists()

def test_conversations_too_long_are_explained_before_training(data, tmp_path):
    "When no conversation fits, `prove train` says how long they are and which flag to change: no stack trace."
    r = prove("train", "--stage", "sft", "--data", data, "--out", tmp_path / "sft", "--steps", 1, "--max-length", 64, check=False)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert "longer than max_length=64" in r.stderr and "--max-length" in r.stderr and not (tmp_path / "sft" / "checkpoint").exists()

def test_grpo_flags_reach_the_trainer(data, tmp_path, monkeypatch):
    "`prove train --stage grpo` hands its flags to `train_grpo` as `GRPOSettings`: tasks a step, resampling rounds, the share a cut-off episode keeps."
    import prove_nb.grpo as grpo
    from prove_nb.cli import main
    got = {}
    monkeypatch.setattr(grpo, "train_grpo", lambda tasks, out, st: got.update(vars(st), n=len(tasks)) or tmp_path)
    main(["train", "--stage", "grpo", "--data", str(data), "--out", str(tmp_path / "g"), "--unfinished", "0.5", "--resample", "2", "--guide",
          "--group", "4", "--batch-size", "12", "--scale-rewards", "batch"])
    assert (got["unfinished"], got["resample"], got["guide"]) == (0.5, 2, True) and got["n"] > 0
    assert (got["group"], got["tasks_per_step"], got["scale_rewards"]) == (4, 3, "batch")
    main(["train", "--stage", "grpo", "--data", str(data), "--out", str(tmp_path / "g")])
    assert (got["unfinished"], got["guide"]) == (1.0, False)  # by default a cut-off episode is scored as it ran, and no group is guided
