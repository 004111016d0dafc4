"""Rollout engine before and after, side by side: GRPO-shaped rollouts and GRPO steps at the same sizes.

Arms (each in its own process, so that peak memory is its own):
  generate_fp32  the engine before: `model.generate` on the re-rendered conversation at every assistant step, on the
                 float32 training weights (every step re-reads the whole prompt; a group re-reads it once per member)
  cached_fp32    `CachedLM` on the float32 weights: each row keeps its key/value cache, a group's prompt is read once
  cached_bf16_copying  `CachedLM` on a bfloat16 copy as it was before the cache kept room for the reply: transformers'
                 `DynamicCache` copies every layer's whole cache at each decoded token, and SDPA's CPU kernel attends the
                 one new query (`prove_nb.rollout.reserve` and `use_decode_attention` switched off in this arm's process)
  cached_bf16    `CachedLM` on a bfloat16 copy of the weights: what `train_grpo` does where bfloat16 is native (`fast_dtype()`)
  cached_fp32_copy  `CachedLM` on a float32 copy of the weights: what `train_grpo` does where it is not (an AVX2 CPU)
Each arm plays the same tasks (TASKS tasks x GROUP samples, temperature 1, the recipe's limits) and then runs
GRPO_STEPS GRPO steps from the same checkpoint with the same seed. Reported per arm: rollout seconds, generated
tokens per second, prompt tokens read, GRPO seconds per step, policy tokens per second of a step, peak RSS.

    python bench/rollout_bench.py --model runs/learn_cpu-quick/sft/checkpoint
    python bench/rollout_bench.py --arms cached_bf16_copying cached_bf16   # two arms; ratios against the first named
"""
import argparse, json, os, resource, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

ARMS = ("generate_fp32", "cached_fp32", "cached_bf16_copying", "cached_bf16", "cached_fp32_copy")

def generate_policy(model, tok, max_new_tokens, temperature):
    "The engine before `CachedLM`: `model.generate` on the whole re-rendered conversation at every step."
    import torch
    from prove_nb.rollout import HFPolicy, Reply, render_prompt
    class GeneratePolicy(HFPolicy):
        def act(self, convs, tools, tasks):
            enc = self.tok([render_prompt(self.tok, m, t) for m, t in zip(convs, tools)], return_tensors="pt", padding=True, add_special_tokens=False)
            kw = dict(do_sample=self.temperature > 0, max_new_tokens=self.max_new_tokens, pad_token_id=self.tok.pad_token_id, eos_token_id=self.tok.eos_token_id)
            if self.temperature > 0: kw["temperature"] = self.temperature
            with torch.no_grad(): out = self.model.generate(**enc, **kw)
            rows = [[i for i in row.tolist() if i != self.tok.pad_token_id] for row in out[:, enc["input_ids"].shape[1]:]]
            self.read = getattr(self, "read", 0) + int(enc["attention_mask"].sum())  # every call reads every prompt whole
            return [Reply(self.reply(ids), len(ids)) for ids in rows]
    return GeneratePolicy(model, tok, max_new_tokens, temperature)

def arm_policy(arm, model, tok, max_new_tokens, temperature):
    import copy, torch
    from prove_nb.rollout import HFPolicy
    if arm == "generate_fp32": return generate_policy(model, tok, max_new_tokens, temperature)
    if arm.startswith("cached_bf16"): model = copy.deepcopy(model).to(torch.bfloat16)
    if arm == "cached_fp32_copy": model = copy.deepcopy(model)  # in GRPO, eval() on the trainer's own model would log its metrics as eval_*
    return HFPolicy(model.eval(), tok, max_new_tokens, temperature)

def run_arm(arm: str, model_path: str, n_tasks: int, group: int, grpo_steps: int, seed: int) -> dict:
    import torch
    from prove_nb.grpo import RECIPE_LIMITS, recipe_tasks, train_grpo
    from prove_nb import rollout
    from prove_nb.rollout import load_model, rollout_batch
    if arm == "cached_bf16_copying": rollout.reserve, rollout.use_decode_attention = (lambda cache, extra: cache), (lambda model: model)
    tasks = recipe_tasks(300, 0, seed)["grpo"][:n_tasks]
    model, tok = load_model(model_path)
    policy = arm_policy(arm, model, tok, 64, 1.0)
    torch.manual_seed(seed)
    t0 = time.perf_counter()
    trajs = rollout_batch([t for t in tasks for _ in range(group)], policy, RECIPE_LIMITS)
    roll_s = time.perf_counter() - t0
    gen = sum(tr.gen_tokens for tr in trajs)
    read = policy.read if hasattr(policy, "read") else policy.lm.read
    res = {"arm": arm, "rollouts": len(trajs), "rollout_s": round(roll_s, 1), "gen_tokens": gen, "gen_tok_s": round(gen / roll_s, 1),
           "prompt_tokens_read": read, "calls": sum(tr.n_calls for tr in trajs)}
    if grpo_steps:
        out = Path(tempfile.mkdtemp())
        policy_for = (lambda trainer: arm_policy(arm, trainer.accelerator.unwrap_model(trainer.model), tok, 64, 1.0))
        train_grpo(tasks, str(out), model_path, steps=grpo_steps, reward="prove+outcome", group=group, batch_size=group, lr=2e-5, beta=0.0,
                   limits=RECIPE_LIMITS, max_new_tokens=64, max_completion=512, seed=seed, policy_for=policy_for)
        rows = [r for l in (out / "metrics.jsonl").read_text().splitlines() if "step_time" in (r := json.loads(l))]
        step_s = sum(r["step_time"] for r in rows) / len(rows)
        tokens = sum(r["completions/mean_length"] for r in rows) / len(rows) * group
        res |= {"grpo_step_s": round(step_s, 1), "grpo_policy_tok_s": round(tokens / step_s, 1)}
    res["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return res

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m", help="checkpoint to play and train (an SFT checkpoint calls tools)")
    ap.add_argument("--tasks", type=int, default=2)
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--grpo-steps", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--arm", choices=ARMS, help="run one arm in this process and print its JSON (used by the driver)")
    ap.add_argument("--arms", nargs="+", choices=ARMS, default=list(ARMS), help="the arms to compare, the first is the baseline")
    a = ap.parse_args(argv)
    if a.arm:
        print(json.dumps(run_arm(a.arm, a.model, a.tasks, a.group, a.grpo_steps, a.seed))); return
    rows = []
    for arm in a.arms:
        r = subprocess.run([sys.executable, __file__, "--arm", arm, "--model", a.model, "--tasks", str(a.tasks), "--group", str(a.group),
                            "--grpo-steps", str(a.grpo_steps), "--seed", str(a.seed)], capture_output=True, text=True)
        if r.returncode: raise SystemExit(f"{arm} failed:\n{r.stderr[-3000:]}")
        rows.append(json.loads(r.stdout.strip().splitlines()[-1])); print(json.dumps(rows[-1]), flush=True)
    keys = [k for k in rows[0] if k != "arm"]
    print("\n| arm | " + " | ".join(keys) + " |\n|---|" + "---|" * len(keys))
    for r in rows: print(f"| {r['arm']} | " + " | ".join(str(r.get(k, "")) for k in keys) + " |")
    base = rows[0]
    for r in rows[1:]:
        print(f"{r['arm']} vs {base['arm']}: rollouts {base['rollout_s'] / r['rollout_s']:.2f}x faster"
              + (f", GRPO step {base['grpo_step_s'] / r['grpo_step_s']:.2f}x faster" if "grpo_step_s" in r else "")
              + f", prompt tokens read {r['prompt_tokens_read'] / base['prompt_tokens_read']:.2f}x, peak RSS {r['peak_rss_mb'] / base['peak_rss_mb']:.2f}x")

if __name__ == "__main__":
    main()
