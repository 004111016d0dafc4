"""Synthesis of grounded multi-turn tool-call conversations, one module per step, each importing only the steps before it:
`config` (knobs, state machine) -> `plan` -> `realize` (words) -> `ground` -> `dialogue` -> `dataset` (`synthesize`, `load_tasks`)."""
