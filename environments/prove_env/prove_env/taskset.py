"""PROVE's tasks as a verifiers taskset: the first user turn of each task, its tools on a per-rollout MCP server, PROVE's reward."""
import json

import verifiers.v1 as vf

from prove_env.toolset import ProveToolset
from prove_nb.adapters import score_messages
from prove_nb.task import Task, load_tasks


class ProveData(vf.TaskData):
    task: str
    """The task record as JSON (servers, seed, tools, turns, gold)."""


class ProveTaskConfig(vf.TaskConfig):
    tools: vf.ToolsetConfig = vf.ToolsetConfig()
    reward: str = "prove"
    """The prove_nb reward that grades a rollout (prove, graduated, tier, toolrl, recall, outcome)."""


class ProveTask(vf.Task[ProveData, vf.State, ProveTaskConfig]):
    """One task: its rollout's calls run on its own world; scored from the transcript by the library's reward."""

    @classmethod
    def toolsets(cls, config: ProveTaskConfig) -> list[vf.Toolset]:
        return [ProveToolset(config.tools)]

    def result(self, trace: vf.Trace):
        from verifiers.v1.dialects.chat import message_to_wire
        return score_messages(Task.from_dict(json.loads(self.data.task)), [message_to_wire(m) for m in trace.messages], self.config.reward)

    @vf.reward(weight=1.0)
    async def prove(self, trace: vf.Trace) -> float:
        return self.result(trace).total

    @vf.metric
    async def components(self, trace: vf.Trace) -> dict[str, float]:
        return self.result(trace).components


class ProveConfig(vf.TasksetConfig):
    tasks: str = "data/sample/tasks.jsonl"
    """A prove_nb task file or dataset folder."""
    single_turn: bool = True
    """Keep only one-turn tasks (the chat harness plays a single user turn)."""
    task: ProveTaskConfig = ProveTaskConfig()


class ProveTaskset(vf.Taskset[ProveTask, ProveConfig]):
    def load(self) -> list[ProveTask]:
        tasks = [t for t in load_tasks(self.config.tasks) if len(t.turns) == 1 or not self.config.single_turn]
        return [ProveTask(ProveData(id=t.id, prompt=[m for m in t.prompt if m["role"] == "user"],
                                    system_prompt=t.system, task=json.dumps(t.to_dict())), self.config.task) for t in tasks]


def load_environment(**config) -> vf.Env:
    "The verifiers `Env` of this taskset, configured like `vf-eval prove-env --env.taskset.*` (e.g. tasks=..., single_turn=...)."
    return vf.load_environment(vf.resolve_env_config({"taskset": {"id": "prove-env", **config}}))
