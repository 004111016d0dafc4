"The GRPO engine: it trains exactly the ids the model sampled, never a cut decision, and its grouped step computes the plain loss."
import math, random
import pytest
import torch

from prove_nb.grpo import episode_tokens, make_rollout_func, grpo_dataset
from prove_nb.recipe import RECIPE_BUDGET, RECIPE_LIMITS, recipe_tasks
from prove_nb.grpo_step import Episode, grouped_backward, plain_loss
from prove_nb.rollout import SAMPLED, Reply, gold_policy, gold_reply, rollout_batch
from prove_nb.lm import HFPolicy, _own_text, episode_token_record, load_model

@pytest.fixture(scope="module")
def smol(): return load_model("smollm2-135m")

@pytest.fixture(scope="module")
def tasks(): return recipe_tasks(300, 20, seed=0)["grpo"]

def mask_runs(ep) -> list:
    "The maximal runs of ids under mask 1."
    runs, cur = [], []
    for i, k in zip(ep.ids + [None], ep.mask + [0]):
        if k: cur.append(i)
        elif cur: runs.append(cur); cur = []
    return runs

class GoldThenModel:
    "The gold first step written one character per token (ids no tokenizer would produce), then SmolLM2 sampling at temperature 1."
    def __init__(self, model, tok):
        self.tok, self.model = tok, HFPolicy(model, tok, max_new_tokens=24, temperature=1.0)
        self.read = []  # (the conversation, the prompt ids) of every sampled step
    def act(self, convs, tools, tasks):
        out = []
        for m, tl, t in zip(convs, tools, tasks):
            if any(x["role"] == "assistant" for x in m):
                self.read.append((m, self.model.prompt_ids(m, tl)))
                out += self.model.act([m], [tl], [t])
            else:
                text = _own_text(self.tok, m + [gold_reply(t, m)], tl, len(m))
                ids = [i for ch in text.removesuffix(self.tok.eos_token) for i in self.tok(ch, add_special_tokens=False)["input_ids"]] + [self.tok.eos_token_id]
                out.append(Reply({"role": "assistant", "content": self.tok.decode(ids, skip_special_tokens=True)}, len(ids), ids, [-0.5] * len(ids)))
        return out

def test_sampled_episodes_train_exactly_the_sampled_ids(smol, tasks):
    "Episodes with a tool call, its result and a sampled reply: the trained ids are the sampled ids, the mask is 1 on them alone, the model read them back."
    torch.manual_seed(0)
    model, tok = smol
    pol = GoldThenModel(model, tok)
    batch = tasks[:4]
    trajs = rollout_batch(batch, pol, RECIPE_LIMITS)
    assert sum(tr.n_calls for tr in trajs) >= 4 and pol.read  # every episode made its gold call; the model then sampled
    for tr, t in zip(trajs, batch):
        ep = episode_token_record(tok, tr.messages, t.tools, len(t.prompt))
        sampled = [m[SAMPLED]["ids"] for m in tr.messages if SAMPLED in m]
        assert mask_runs(ep) == sampled  # reply by reply, and nothing else under the mask
        row = episode_tokens(tok, tr.messages, len(t.prompt), t.tools)
        assert row["mismatched"] == 0 and [i for i, k in zip(row["completion_ids"], row["env_mask"]) if k] == sum(sampled, [])
        assert all(not math.isnan(lp) for lp, k in zip(row["logprobs"], row["env_mask"]) if k)
        assert "<tool_response>" in tok.decode([i for i, k in zip(ep.ids, ep.mask) if not k])  # the gold call's result is read, masked
    for conv, ids in pol.read:  # what the model read at each sampled step is a prefix of the record it is trained on
        i = next(i for i, tr in enumerate(trajs) if tr.messages is conv)
        ep = episode_token_record(tok, trajs[i].messages, batch[i].tools, len(batch[i].prompt))
        assert (ep.prompt + ep.ids)[:len(ids)] == ids

def test_rollout_function_masks_episodes_over_the_budget(smol, tasks):
    "An episode longer than the completion budget is masked whole and counted; within the recipe's budget no gold episode is."
    _, tok = smol
    from types import SimpleNamespace
    prompts = [r["prompt"] for r in grpo_dataset(tasks[:3]) for _ in range(2)]
    for budget, clipped in ((RECIPE_BUDGET, 0), (64, 6)):
        trainer = SimpleNamespace(num_generations=2, args=SimpleNamespace(max_completion_length=budget))
        out = make_rollout_func(tasks[:3], tok, RECIPE_LIMITS, rewards=("prove",), policy_for=lambda tr: gold_policy())(prompts, trainer)
        assert out["group_stats"][0]["clipped"] == clipped and out["group_stats"][0]["mismatched_ids"] == 0
        assert all(len(c) <= budget for c in out["completion_ids"])
        assert all(sum(m) == 0 for m in out["env_mask"]) == (clipped == 6)

def tiny_llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    return LlamaForCausalLM(LlamaConfig(vocab_size=97, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                                        num_key_value_heads=2, max_position_embeddings=512))

def batch_of(rng, groups=((30, (0.5, -1.2, 0.7)), (17, (1.0, -1.0, 0.0)))):
    "Episodes in groups sharing a prompt, with masked stretches and sampling log-probs that differ from the model's."
    out = []
    for plen, advs in groups:
        prompt = [rng.randrange(97) for _ in range(plen)]
        for a in advs:
            ids = [rng.randrange(97) for _ in range(rng.randint(5, 20))]
            mask = [int(rng.random() < 0.6) for _ in ids[:-1]] + [1]
            out.append(Episode(prompt, ids, mask, [rng.uniform(-4, -0.1) if k else float("nan") for k in mask], a))
    return out

def grads_after(model, fn) -> tuple:
    model.zero_grad(); loss = fn()
    return loss, {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}

def test_grouped_step_equals_plain_computation_with_lora():
    "Through PEFT LoRA adapters, the grouped step's loss and adapter gradients equal the plain padded computation's (float32, 1e-5)."
    from peft import get_peft_model
    from prove_nb.grpo import lora_config
    model = get_peft_model(tiny_llama(), lora_config(4))
    for n, p in model.named_parameters():  # LoRA B starts at zero: give it values so that A's gradient is not zero
        if "lora_B" in n: torch.nn.init.normal_(p, std=0.05)
    eps = batch_of(random.Random(1))
    N = float(sum(sum(e.mask) for e in eps))
    ref, g_ref = grads_after(model, lambda: (lambda l: (l.backward(), l.item())[1])(plain_loss(model, eps, N)))
    loss, g = grads_after(model, lambda: grouped_backward(model, eps)[0])
    assert set(g) == set(g_ref) and all("lora" in n for n in g)
    assert abs(loss - ref) <= 1e-5 * abs(ref)
    assert max(((g[n] - g_ref[n]).abs().max() / g_ref[n].abs().max()).item() for n in g) < 1e-5

def test_grouped_step_reads_fewer_positions_and_skips_zero_advantage():
    "The step reads each prompt once and stops at each episode's last trained token; zero-advantage episodes are not read."
    eps = batch_of(random.Random(2))
    loss, st = grouped_backward(tiny_llama(), eps)
    assert st["step/episodes_skipped"] == 1 and st["step/positions_read"] < st["step/positions_plain"] / 2

def test_bfloat16_autocast_step_is_close_to_float32():
    "Under bfloat16 autocast the step's loss stays within bfloat16's rounding of the float32 loss."
    eps = batch_of(random.Random(3))
    model = tiny_llama()
    l32, _ = grouped_backward(model, eps)
    l16, _ = grouped_backward(model, eps, autocast=torch.bfloat16)
    assert abs(l16 - l32) <= 0.05 * abs(l32)
