"""The 20 stateful domain servers of prove_nb, one folder each: its `__init__` defines `server = ToolServer(...)` (seed
data and tools) and its `phrasing.py` how a user asks for each tool (`server.phrases`); see `prove_nb.server.load_server`.
`_common` holds what they share: `need` (a row or the error naming it), the clock and the common name lists."""
