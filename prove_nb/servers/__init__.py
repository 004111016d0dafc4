"""The 20 stateful domain servers of prove_nb. Each module defines `server = ToolServer(...)`; see `prove_nb.server.load_server`.
`_common` holds what they share: `need` (a row or the error naming it), the clock and the common name lists."""
