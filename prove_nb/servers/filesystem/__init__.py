"The filesystem server, now a package: its module moves to `base` unchanged (issue 17; the next commit splits it)."
from prove_nb.servers.filesystem.base import server, _usage
