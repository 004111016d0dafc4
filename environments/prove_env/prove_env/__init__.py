from prove_env.taskset import ProveTaskset, load_environment

__all__ = ["ProveTaskset"]
