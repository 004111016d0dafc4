"""Which GRPO batch settings give steps that agree: advantage scaling, tasks per step, full fine-tuning against LoRA.

One pool of live rollouts from an SFT checkpoint (temperature 1, the recipe's tasks and reward) is scored once. Each
group with a spread gives its policy-gradient direction (the grouped step's gradient, advantages = reward minus group
mean). A step on k tasks is the weighted sum of k groups' directions: weight 1 ("none", Dr. GRPO) or 1/std of the
group's rewards ("group", TRL's default); "batch" divides the whole step by one number and points where "none" does.
Two measures, over random disjoint batches:
- agreement: the cosine between the steps of two disjoint batches (how much of a step is shared signal rather than
  which tasks came up);
- alignment: the cosine between a step and the mean direction of every group outside it (the pool's estimate of the
  expected update).
Gradients are compared on a fixed random sample of coordinates (2M of the model's parameters; LoRA: every adapter
weight). This measures the direction of a step, not learning: bench/learn_cpu.py measures learning.

    python bench/grpo_settings.py --model /path/to/sft/checkpoint     # about 15 minutes on 2 cores
"""
import argparse, json, math, os, random, time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]

def group_directions(model, rows: list, coords: dict, autocast) -> list:
    "For each group (a list of `Episode`s with advantage = reward - group mean): its gradient on the sampled coordinates."
    import torch
    from prove_nb.grpo_step import grouped_backward
    out = []
    for eps in rows:
        model.zero_grad(set_to_none=True)
        grouped_backward(model, eps, autocast=autocast)
        out.append(torch.cat([p.grad.flatten()[coords[n]].float() for n, p in model.named_parameters() if n in coords and p.grad is not None]))
    return out

def cos(a, b) -> float:
    import torch
    return float(torch.nn.functional.cosine_similarity(a, b, dim=0))

def measures(dirs: list, stds: list, k: int, scale: str, draws: int, rng) -> dict:
    "Mean agreement and alignment of k-task steps under `scale` over `draws` random partitions."
    w = [1.0 / (s + 1e-4) if scale == "group" else 1.0 for s in stds]
    agree, align = [], []
    idx = list(range(len(dirs)))
    for _ in range(draws):
        rng.shuffle(idx)
        a, b, rest = idx[:k], idx[k:2 * k], idx[2 * k:]
        step = lambda ids: sum(w[i] * dirs[i] for i in ids)
        agree.append(cos(step(a), step(b)))
        align.append(cos(step(a), sum(dirs[i] for i in rest + b)))
    mean = lambda xs: sum(xs) / len(xs)
    se = lambda xs: (sum((x - mean(xs)) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) ** 0.5
    return {"agreement": round(mean(agree), 4), "agreement_se": round(se(agree), 4), "alignment": round(mean(align), 4), "alignment_se": round(se(align), 4)}

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--tasks", type=int, default=32)
    ap.add_argument("--group", type=int, default=4)
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--coords", type=int, default=2_000_000)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "grpo_settings.json"))
    a = ap.parse_args()
    import torch
    from prove_nb.grpo import grpo_dataset, lora_config, make_rollout_func, reward_names
    from prove_nb.recipe import RECIPE_GRPO, recipe_tasks
    from prove_nb.grpo_step import Episode
    from prove_nb.lm import HFPolicy, compute_facts, load_model, native_bfloat16
    t0, load = time.time(), os.getloadavg()[0]
    torch.manual_seed(0); rng = random.Random(0)
    tasks = recipe_tasks(1200, 160, seed=0)["grpo"][100:100 + a.tasks]  # past the throughput bench's tasks
    model, tok = load_model(a.model)
    sampler = HFPolicy(load_model(a.model, dtype="auto")[0].eval(), tok, RECIPE_GRPO.max_new_tokens, temperature=1.0)
    names = reward_names(RECIPE_GRPO.reward)
    fn = make_rollout_func(tasks, tok, RECIPE_GRPO.limits, rewards=names, policy_for=lambda tr: sampler)
    out = fn([r["prompt"] for r in grpo_dataset(tasks) for _ in range(a.group)],
             SimpleNamespace(num_generations=a.group, args=SimpleNamespace(max_completion_length=RECIPE_GRPO.max_completion)))
    t_roll = time.time() - t0
    R = [sum(s[n].total for n in names) for s in out["scores"]]
    rows, stds = [], []
    for g in range(0, len(R), a.group):
        r = R[g:g + a.group]; m = sum(r) / len(r); sd = (sum((x - m) ** 2 for x in r) / (len(r) - 1)) ** 0.5
        if sd < 1e-9: continue
        rows.append([Episode(out["prompt_ids"][i], out["completion_ids"][i], out["env_mask"][i], out["logprobs"][i], R[i] - m) for i in range(g, g + a.group)])
        stds.append(sd)
    autocast = torch.bfloat16 if native_bfloat16() else None
    res = {"command": "python bench/grpo_settings.py " + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(a).items() if k != "out"),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t0)), "cpu": compute_facts()["cpu"], "load_before": load,
           "rollouts": len(R), "groups_with_spread": len(rows), "group_std": {"min": round(min(stds), 4), "median": round(sorted(stds)[len(stds) // 2], 4), "max": round(max(stds), 4)},
           "success_rate": round(sum(s["outcome"].total for s in out["scores"]) / len(R), 3), "calls_per_episode": round(sum(out["n_calls"]) / len(R), 2),
           "seconds": {"rollouts": round(t_roll)}, "arms": {}}
    for arm in ("full", "lora16"):
        m = model
        if arm == "lora16":
            from peft import get_peft_model
            m = get_peft_model(load_model(a.model)[0], lora_config(16))
            for n, p in m.named_parameters():  # a LoRA step's direction after its first update: B away from zero (else A gets no gradient)
                if "lora_B" in n: torch.nn.init.normal_(p, std=1e-3)
            coords = {n: torch.arange(p.numel()) for n, p in m.named_parameters() if p.requires_grad}
        else:
            gen = torch.Generator().manual_seed(0)
            total = sum(p.numel() for p in m.parameters())
            coords = {n: torch.randint(0, p.numel(), (max(1, a.coords * p.numel() // total),), generator=gen) for n, p in m.named_parameters()}
        t = time.time()
        dirs = group_directions(m, rows, coords, autocast)
        res["seconds"][arm] = round(time.time() - t)
        for scale in ("none", "group"):
            for k in (1, 2, 4):
                if 2 * k < len(dirs): res["arms"][f"{arm} {scale} k={k}"] = measures(dirs, stds, k, scale, a.draws, rng)
    Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1))

if __name__ == "__main__": main()
