"""The task's tools as a per-rollout MCP server: every rollout's server holds its own world, forked from the task's seed."""
import json

import verifiers.v1 as vf

from prove_nb.adapters import world_tools
from prove_nb.task import Task


class ProveToolset(vf.Toolset[vf.ToolsetConfig]):
    TOOL_PREFIX = None  # the tools keep the names the task shows

    async def setup_task(self, task) -> None:
        self.task = Task.from_dict(json.loads(task.task))
        self.functions = world_tools(self.task)

    def register(self, mcp) -> None:
        for fn, t in zip(self.functions, self.task.tools):
            mcp.add_tool(fn, name=fn.__name__, description=t["function"].get("description"), structured_output=False)


if __name__ == "__main__":
    ProveToolset.run()
