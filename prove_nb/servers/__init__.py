"""The 20 stateful domain servers of prove_nb. Each module defines `server = ToolServer(...)`; see `prove_nb.server.load_server`."""
