"""GPU check: time a GRPO step of LoRA training with Unsloth against plain TRL + PEFT, on random Qwen3-architecture models.

For a lent GPU without network: nothing is downloaded. Each model is built from a transformers `Qwen3Config` with the
sizes of Qwen3-0.6B and Qwen3-4B (151,936-entry vocabulary and tied embeddings included, so the compute is the real
models'), randomly initialised, and saved once to a scratch folder with the tokenizer carried in bench/tokenizer
(SmolLM2's ChatML tokenizer: it only uses ids below 49,152). Each case then trains a LoRA adapter (rank 16 on every
projection) for three GRPO steps on fixed prompts with a cheap reward: 8 completions of 128 new tokens per step
(2 prompts x group 4), no KL term, generation with transformers (`use_vllm=False`) on both sides so the two backends
do the same work. The first step is warm-up; the table reports the mean of the others.

Every (backend, size) case runs in its own process (Unsloth patches transformers and TRL when imported, which must
not leak into the plain case) under what is left of a time budget; a backend that is not installed, runs out of time
or fails gives a row saying so. Prints a markdown table and one JSON line (also written to --out); under 8 minutes
on one H200.

    bash bench/gpu_check.sh                       # the same as: python bench/gpu_check.py --budget 440
    python bench/gpu_check.py --save-tokenizer    # (re)write bench/tokenizer from SmolLM2 (once, on the CPU machine)
    python bench/gpu_check.py --cpu --sizes tiny --backends trl   # the same code path on a CPU with a tiny model (a test)
"""
import argparse, importlib.util, json, os, subprocess, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
TOKENIZER = HERE / "tokenizer"
BACKENDS = ("trl", "unsloth")
QWEN3 = {  # the published Qwen3 configurations (vocabulary and tied embeddings included)
    "0.6b": dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128),
    "4b": dict(hidden_size=2560, intermediate_size=9728, num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8, head_dim=128),
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16),
}
LORA = dict(r=16, lora_alpha=32, target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
STEPS, BATCH, GROUP, NEW_TOKENS = 3, 8, 4, 128
CASE_S = 150  # at most this many seconds for one case, loading included

def qwen3_config(size: str):
    "A Qwen3 config of `size` whose special tokens are the carried tokenizer's."
    from transformers import Qwen3Config
    return Qwen3Config(vocab_size=151936, max_position_embeddings=40960, rope_theta=1_000_000.0, rms_norm_eps=1e-6,
                       tie_word_embeddings=True, bos_token_id=1, eos_token_id=2, pad_token_id=0, **QWEN3[size])

def n_params(size: str) -> int:
    "Parameter count of the model of `size`, built without allocating weights."
    import torch
    from transformers import Qwen3ForCausalLM
    with torch.device("meta"): return sum(p.numel() for p in Qwen3ForCausalLM(qwen3_config(size)).parameters())

def cuda() -> bool:
    import torch
    return torch.cuda.is_available()

def build(size: str, folder: Path) -> float:
    "Save a random model of `size` (bf16 on a GPU, fp32 on a CPU) with the carried tokenizer into `folder`; returns seconds."
    import torch
    from transformers import AutoTokenizer, Qwen3ForCausalLM
    t = time.perf_counter()
    torch.manual_seed(0)
    torch.set_default_dtype(torch.bfloat16 if cuda() else torch.float32)
    with torch.device("cuda" if cuda() else "cpu"): model = Qwen3ForCausalLM(qwen3_config(size))
    torch.set_default_dtype(torch.float32)
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(TOKENIZER).save_pretrained(folder)
    del model
    if cuda(): torch.cuda.empty_cache()
    return time.perf_counter() - t

# ----------------------------------------------------------------------------------------------- one case (child)
def prompts(tok, n: int = 32):
    "A dataset of short fixed prompts (the same for every case)."
    from datasets import Dataset
    asks = ["Deposit 25 dollars into account acc_0004.", "What is the balance of acc_0001?", "Lock card card_0003, it was stolen.",
            "Move 100 EUR from savings to checking.", "Schedule a payment of 40 USD to payee pay_0002 next Monday.",
            "List my last five transactions.", "Open a new savings account in EUR.", "Cancel scheduled payment sp_0007."]
    msgs = [[{"role": "system", "content": "You are a banking assistant."}, {"role": "user", "content": asks[i % len(asks)]}] for i in range(n)]
    return Dataset.from_list([{"prompt": tok.apply_chat_template(m, tokenize=False, add_generation_prompt=True)} for m in msgs])

def distinct_reward(completions, **kw):
    "A cheap reward that varies within a group: the share of distinct words."
    return [len(set(c.split())) / max(1, len(c.split())) for c in completions]

class StepTimer:
    "Wall seconds of each optimizer step."
    def __init__(self): self.times, self.t = [], None
    def __getattr__(self, name):
        if name.startswith("on_"): return lambda *a, **k: None
        raise AttributeError(name)
    def sync(self):
        import torch
        if torch.cuda.is_available(): torch.cuda.synchronize()
    def on_step_begin(self, *a, **k): self.sync(); self.t = time.perf_counter()
    def on_step_end(self, *a, **k): self.sync(); self.times.append(time.perf_counter() - self.t)

def run_case(backend: str, size: str, folder: Path) -> dict:
    "Three GRPO steps with `backend` on the saved model in `folder`; timings and memory."
    t0 = time.perf_counter()
    if backend == "unsloth":
        import unsloth  # noqa: F401  (first, so that it patches transformers and TRL)
        from unsloth import FastLanguageModel
        import torch
        model, tok = FastLanguageModel.from_pretrained(model_name=str(folder), max_seq_length=512, dtype=torch.bfloat16,
                                                       load_in_4bit=False, fast_inference=False)
        model = FastLanguageModel.get_peft_model(model, use_gradient_checkpointing="unsloth", random_state=0, **LORA)
        peft_config = None
    else:
        import torch
        from peft import LoraConfig
        from transformers import AutoModelForCausalLM, AutoTokenizer
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.bfloat16 if cuda() else torch.float32)
        tok = AutoTokenizer.from_pretrained(folder)
        peft_config = LoraConfig(task_type="CAUSAL_LM", **LORA)
    from trl import GRPOConfig, GRPOTrainer
    from prove_nb.sft import ensure_logprob_kernel
    ensure_logprob_kernel()  # TRL's Triton kernel where Triton works, a PyTorch one elsewhere
    load_s = time.perf_counter() - t0
    tok.padding_side = "left"
    args = GRPOConfig(output_dir=tempfile.mkdtemp(), max_steps=STEPS, per_device_train_batch_size=BATCH, num_generations=GROUP,
                      max_completion_length=NEW_TOKENS, learning_rate=1e-5, beta=0.0, bf16=cuda(), use_cpu=not cuda(), logging_steps=1,
                      save_strategy="no", report_to=[], seed=0, use_vllm=False, temperature=1.0, gradient_checkpointing=True)
    timer = StepTimer()
    trainer = GRPOTrainer(model=model, reward_funcs=[distinct_reward], args=args, train_dataset=prompts(tok), processing_class=tok,
                          peft_config=peft_config, callbacks=[timer])
    trainer.train()
    lengths = [r["completions/mean_length"] for r in trainer.state.log_history if "completions/mean_length" in r]
    step_s = sum(timer.times[1:]) / len(timer.times[1:])
    tokens = sum(lengths[1:]) / len(lengths[1:]) * BATCH
    return {"backend": backend, "size": size, "status": "ok", "step_s": round(step_s, 2), "first_step_s": round(timer.times[0], 2),
            "gen_tok_s": round(tokens / step_s, 1), "peak_gb": round(torch.cuda.max_memory_allocated() / 2**30, 1) if cuda() else None,
            "load_s": round(load_s, 1), "trainable": sum(p.numel() for p in model.parameters() if p.requires_grad)}

# ------------------------------------------------------------------------------------------------ driver (parent)
def row(backend: str, size: str, status: str) -> dict: return {"backend": backend, "size": size, "status": status}

def child(backend: str, size: str, folder: Path, timeout: float) -> dict:
    "Run one case in a fresh process; its result, or a row saying why there is none."
    cmd = [sys.executable, __file__, "--case", f"{backend}:{size}", "--folder", str(folder)]
    try: p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired: return row(backend, size, f"timed out after {timeout:.0f} s")
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("RESULT "): return json.loads(line[7:])
    err = [l for l in (p.stderr or "").splitlines() if l.strip()]
    return row(backend, size, f"failed (exit {p.returncode}): {err[-1][:160] if err else 'no output'}")

def table(rows: list) -> str:
    head = "| model | backend | status | s/step | first step s | gen tok/s | peak GB | load s |\n|---|---|---|---|---|---|---|---|\n"
    return head + "\n".join(f"| Qwen3-{r['size']} (random) | {r['backend']} | {r['status']} | {r.get('step_s', '')} | {r.get('first_step_s', '')} | "
                            f"{r.get('gen_tok_s', '')} | {r.get('peak_gb', '')} | {r.get('load_s', '')} |" for r in rows)

def check(sizes: list, backends: list, budget: float, cpu: bool = False) -> dict:
    "Every case within `budget` seconds (on a CPU only when `cpu`: a check of the code path); the summary record."
    import torch
    t0, rows, gpu = time.monotonic(), [], torch.cuda.get_device_name(0) if cuda() else None
    left = lambda: budget - (time.monotonic() - t0)
    if gpu is None and not cpu: rows = [row(b, s, "no CUDA device") for s in sizes for b in backends]
    with tempfile.TemporaryDirectory() as scratch:
        for s in sizes if gpu or cpu else []:
            if left() < 30:
                rows += [row(b, s, "skipped: time budget") for b in backends]; continue
            folder = Path(scratch) / f"qwen3-{s}"
            try: build_s = build(s, folder)
            except Exception as e:
                rows += [row(b, s, f"building the model failed: {type(e).__name__}: {str(e)[:120]}") for b in backends]; continue
            for b in backends:
                if b == "unsloth" and importlib.util.find_spec("unsloth") is None: rows.append(row(b, s, "unsloth not installed"))
                elif left() < 20: rows.append(row(b, s, "skipped: time budget"))
                else: rows.append({**child(b, s, folder, min(CASE_S, left() - 5)), "build_s": round(build_s, 1)})
    ok = {(r["backend"], r["size"]): r for r in rows if r["status"] == "ok"}
    speedup = {s: round(ok[("trl", s)]["step_s"] / ok[("unsloth", s)]["step_s"], 2) for s in sizes if ("trl", s) in ok and ("unsloth", s) in ok}
    return {"bench": "gpu_check", "gpu": gpu or ("cpu" if cpu else None), "params": {s: n_params(s) for s in sizes}, "steps": STEPS, "batch": BATCH, "group": GROUP,
            "new_tokens": NEW_TOKENS, "rows": rows, "unsloth_speedup": speedup, "seconds": round(time.monotonic() - t0, 1)}

def save_tokenizer():
    "Write SmolLM2's prepared ChatML tokenizer to bench/tokenizer, with tokenizer.json stored compactly."
    from transformers import AutoTokenizer
    from prove_nb.rollout import prepare_tokenizer, smollm2_path
    prepare_tokenizer(AutoTokenizer.from_pretrained(smollm2_path())).save_pretrained(TOKENIZER)
    f = TOKENIZER / "tokenizer.json"
    f.write_text(json.dumps(json.loads(f.read_text()), ensure_ascii=False, separators=(",", ":")))
    print(sorted(p.name for p in TOKENIZER.iterdir()), sum(p.stat().st_size for p in TOKENIZER.iterdir()), "bytes")

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="0.6b,4b")
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--budget", type=float, default=440, help="seconds for all cases together")
    ap.add_argument("--out", help="also write the JSON record to this file")
    ap.add_argument("--cpu", action="store_true", help="run on the CPU when there is no GPU (use --sizes tiny)")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    ap.add_argument("--save-tokenizer", action="store_true")
    a = ap.parse_args(argv)
    if a.save_tokenizer: return save_tokenizer()
    if a.case:
        backend, size = a.case.split(":")
        return print("RESULT " + json.dumps(run_case(backend, size, Path(a.folder))), flush=True)
    res = check(a.sizes.split(","), a.backends.split(","), a.budget, a.cpu)
    print(table(res["rows"]))
    print(json.dumps(res))
    if a.out: Path(a.out).write_text(json.dumps(res) + "\n")

if __name__ == "__main__":
    main()
