"""Filesystem: a virtual file tree held in state, with users, groups, permissions, quotas, links, trash and archives (40 tools).

The tree never touches the host. Every path is normalized ('.', '..', repeated slashes; relative paths start at the
working directory) and cannot climb above '/'. A node's key is its absolute path and `parent` names its directory, so
moving a directory re-keys its whole subtree. Rules: a node needs an existing parent directory; the acting user (the
shell's user) needs x on every directory above a path, r to read or list, w on a directory to add or remove entries,
w on a file to change it; only a file's owner may chmod it; chown and quotas need the admin group; a file locked by one
user refuses changes by the others; the files a user owns may not exceed the user's quota; non-empty directories are
removed only recursively; neither the working directory nor anything above it can be removed.

One server in three modules, each importing only the ones before it: `base` (the `server` object, seed data, the path,
user and permission helpers) -> `read` (read tools) -> `write` (write tools). Importing them in that order registers the
tools in their original order, read tools first."""
from prove_nb.servers.filesystem import base, read, write  # in this order: the order the tools register in
from prove_nb.servers.filesystem.base import server, _usage
