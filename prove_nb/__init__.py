"""Notebook-first RL of LLMs for multi-step tool use against live, stateful MCP tool servers (PROVE, TIER, TRUSTEE, E-Bench)."""

__version__ = "0.1.0"
