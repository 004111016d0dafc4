"""GRPO on several GPUs: the program each `accelerate launch` rank runs.

Generation happens on a `trl vllm-serve` server (its own GPU; the trainer pushes fresh weights to it before every
rollout batch), the rollouts on shared MCP servers over streamable HTTP (one fresh session per rollout), the update
under DeepSpeed ZeRO-2/3. scripts/launch_multi_gpu.sh starts the servers and then this script; by hand:

    CUDA_VISIBLE_DEVICES=1,2,3 accelerate launch --config_file scripts/accelerate/zero3.yaml --num_processes 3 \\
        scripts/train_grpo_multi.py --model Qwen/Qwen3-4B --data DIR --out runs/multi \\
        --vllm-url http://127.0.0.1:8000 --mcp runs/multi/mcp.json

--data: a folder holding tasks.jsonl (from `prove synth`) or the file itself; its train split is used.
--mcp: {server name: url} as a JSON file or string (launch_multi_gpu.sh writes OUT/mcp.json).
--check: build and validate the training configuration on a machine without a GPU, print it as JSON, and stop.
"""
import argparse, json, os, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--model", default="Qwen/Qwen3-4B", help="model name or path (the same as given to trl vllm-serve)")
    ap.add_argument("--data", help="folder with tasks.jsonl, or the file")
    ap.add_argument("--out", default="runs/multi")
    ap.add_argument("--vllm-url", default="http://127.0.0.1:8000")
    ap.add_argument("--mcp", help="{server: url} JSON file or string")
    ap.add_argument("--size", default="small", help="world size the MCP servers were started with")
    ap.add_argument("--reward", default="prove")
    ap.add_argument("--steps", type=int, default=350)
    ap.add_argument("--group", type=int, default=16)
    ap.add_argument("--per-device", type=int, default=8)
    ap.add_argument("--grad-acc", type=int, default=2)
    ap.add_argument("--lr", type=float, default=1e-6)
    ap.add_argument("--beta", type=float, default=0.01)
    ap.add_argument("--loss-type", default="dapo")
    ap.add_argument("--max-completion", type=int, default=4096, help="episode tokens after the prompt")
    ap.add_argument("--max-new-tokens", type=int, default=512, help="tokens per assistant message")
    ap.add_argument("--max-steps", type=int, default=6, help="assistant messages per user turn")
    ap.add_argument("--max-turns", type=int, default=5, help="user turns per rollout")
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--lora-rank", type=int, default=0, help="0: full fine-tuning; otherwise LoRA of this rank")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--check", action="store_true", help="validate the configuration without a GPU and stop")
    ap.add_argument("--num-processes", type=int, default=int(os.environ.get("WORLD_SIZE", "1")), help="training ranks (set by accelerate)")
    return ap.parse_args(argv)

def main(argv=None):
    a = parse_args(argv)
    from prove_nb.scale import multi_gpu_args
    args = multi_gpu_args(a.out, a.vllm_url, a.steps, a.group, a.per_device, a.grad_acc, a.lr, a.beta, a.loss_type, a.max_completion,
                          a.temperature, seed=a.seed)
    if a.check:
        from prove_nb.scale import cpu_check_config
        cfg = cpu_check_config(args)
        per_step = a.num_processes * a.per_device * a.grad_acc
        keys = ("use_vllm", "vllm_mode", "vllm_server_base_url", "vllm_importance_sampling_correction", "num_generations", "beta",
                "loss_type", "learning_rate", "max_steps", "max_completion_length", "per_device_train_batch_size", "gradient_accumulation_steps")
        return print(json.dumps({**{k: getattr(cfg, k) for k in keys}, "bf16": args["bf16"], "num_processes": a.num_processes,
                                 "completions_per_step": per_step, "prompts_per_step": per_step // a.group}))
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer
    from prove_nb.cli import train_tasks
    from prove_nb.grpo import JsonlLogger, episode_reward, grpo_dataset, lora_config, plot_metrics
    from prove_nb.rollout import Limits
    from prove_nb.scale import CompletionsPolicy, MCPPool, chatml_tokenizer, policy_rollout_func
    config = GRPOConfig(**args)  # before the model, so that ZeRO-3 can shard it while loading
    main_rank = int(os.environ.get("RANK", "0")) == 0
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    tasks = train_tasks(a.data)
    mcp = json.loads(Path(a.mcp).read_text() if Path(a.mcp).is_file() else a.mcp)
    tok = chatml_tokenizer(AutoTokenizer.from_pretrained(a.model))
    model = AutoModelForCausalLM.from_pretrained(a.model, dtype=torch.bfloat16)
    peft_config = lora_config(a.lora_rank) if a.lora_rank else None
    with MCPPool(mcp, size=a.size) as pool:
        policy = CompletionsPolicy(a.vllm_url, a.model, tok, a.max_new_tokens, a.temperature)
        limits = Limits(max_steps=a.max_steps, max_turns=a.max_turns, max_tokens=a.max_completion)
        trainer = GRPOTrainer(model=model, reward_funcs=[episode_reward(a.reward)], args=config, train_dataset=grpo_dataset(tasks),
                              processing_class=tok, peft_config=peft_config,
                              rollout_func=policy_rollout_func(tasks, tok, lambda trainer: policy, limits, pool, rewards=(a.reward,)),
                              callbacks=[JsonlLogger(out / "metrics.jsonl")] if main_rank else [])
        trainer.train(resume_from_checkpoint=a.resume or None)
    trainer.save_model(str(out / "checkpoint"))  # every rank: ZeRO-3 gathers the shards
    if main_rank:
        tok.save_pretrained(str(out / "checkpoint"))
        plot_metrics(out / "metrics.jsonl", out / "rewards.png", f"{a.reward}/")

if __name__ == "__main__":
    main()
