"""The filesystem server's read tools: they look at the tree, never change it (registered before the write tools)."""
import difflib, fnmatch, hashlib, re, time
from typing import Annotated, Literal

import regex  # like re, but a search can be given a time limit and releases the GIL

from prove_nb.server import Entity, ToolError
from prove_nb.servers.filesystem.base import (SHELL, NodePath, server, _access, _allow, _dir, _file, _get, _in_range, _info,
                                              _is_admin, _me, _text_of, _usage, _visible)

# ---- read tools -------------------------------------------------------------------------------------------------------

@server.read
def get_working_directory(st):
    """Show the current working directory and the user the shell acts as (relative paths start from it)."""
    sh = st.get("shell", SHELL)
    return {"cwd": sh["cwd"], "user": sh["user"]}

@server.read(produces=("user", "group"))
def get_current_fs_user(st):
    """Show who the shell acts as: username, groups (with descriptions), home directory, quota and bytes used."""
    me = _me(st)
    return {"username": me["username"], "full_name": me["full_name"], "primary_group": me["primary_group"],
            "groups": [dict(st.get("group", g)) for g in me["groups"]], "home": f"/home/{me['username']}", "is_admin": _is_admin(me),
            "quota_bytes": me["quota_bytes"], "used_bytes": _usage(st).get(me["username"], 0)}

@server.read(produces="user")
def list_fs_users(st, group: Annotated[str, Entity("group")] | None = None, name: str = ""):
    """List the users of the file system (optionally the members of one group or those whose name matches).

    Args:
        group: Only members of this group.
        name: Part of the username or full name (case-insensitive).
    """
    if group is not None and st.get("group", group) is None: raise ToolError(f"no group named '{group}'")
    n = name.lower()
    return [{"username": u["username"], "full_name": u["full_name"], "groups": list(u["groups"]), "home": f"/home/{u['username']}"}
            for u in st.rows("user") if (group is None or group in u["groups"])
            and (n in u["username"].lower() or n in u["full_name"].lower())]

@server.read(produces="node")
def list_directory(st, path: NodePath = ".", show_hidden: bool = False, sort_by: Literal["name", "size", "modified"] = "name"):
    """List the entries of a directory (needs read permission on it), with kind, size, owner, mode and your access.

    Args:
        path: The directory to list (default: the working directory).
        show_hidden: Include entries whose name starts with a dot.
        sort_by: Order by name (A-Z), size (largest first) or modified (newest first).
    """
    me = _me(st)
    d = _dir(st, me, path)
    _allow(me, d, "r", "list")
    rows = [r for r in st.find("node", parent=d["path"]) if show_hidden or not r["name"].startswith(".")]
    key = {"name": lambda r: r["name"], "size": lambda r: (-r["size"], r["name"]),
           "modified": lambda r: (r["modified"], r["name"])}[sort_by]
    rows = sorted(rows, key=key, reverse=sort_by == "modified")
    return [_info(r, me) for r in rows]

@server.read(produces="node")
def show_directory_tree(st, path: NodePath = ".", max_depth: int = 2):
    """Show a directory and its descendants as an indented tree, down to a depth.

    Args:
        path: The top directory (default: the working directory).
        max_depth: How many levels below it to show (1 to 10).
    """
    _in_range(max_depth, 1, 10, "max_depth")
    me = _me(st)
    d = _dir(st, me, path)
    _allow(me, d, "rx", "list")
    base = 0 if d["path"] == "/" else d["path"].count("/")
    rows = [r for r in _visible(st, me, d) if r["path"].count("/") - base <= max_depth]
    lines = [d["path"]] + ["  " * (r["path"].count("/") - base) + r["name"] + ("/" if r["kind"] == "dir" else "")
                           + (f" -> {r['target']}" if r["kind"] == "symlink" else "") for r in rows]
    return {"path": d["path"], "tree": "\n".join(lines), "directories": sum(r["kind"] == "dir" for r in rows),
            "files": sum(r["kind"] == "file" for r in rows), "entries": [{"path": r["path"], "kind": r["kind"]} for r in rows]}

@server.read(produces="node")
def get_path_info(st, path: NodePath, follow_symlinks: bool = False):
    """Show the metadata of a file, directory or symbolic link: kind, size, owner, group, mode, times, lock and your access.

    Args:
        path: The path to inspect.
        follow_symlinks: Describe the link's target instead of the link itself.
    """
    me = _me(st)
    node = _get(st, me, path, follow_symlinks)
    out = {**_info(node, me), "created": node["created"], "parent": node["parent"]}
    if node["kind"] == "dir": out["entries"] = len(st.find("node", parent=node["path"]))
    if node["kind"] == "file": out["binary"] = node["binary"]
    if node["entries"]: out["archive_entries"] = len(node["entries"])
    return out

@server.read
def read_text_file(st, path: NodePath, start_line: int = 1, end_line: int | None = None):
    """Read a text file (needs read permission), whole or a range of lines.

    Args:
        path: The file to read.
        start_line: First line to return (1-based).
        end_line: Last line to return (inclusive); default the end of the file.
    """
    me = _me(st)
    node = _file(st, me, path)
    _allow(me, node, "r", "read")
    lines = _text_of(node).splitlines()
    if start_line < 1: raise ToolError(f"start_line must be at least 1, got {start_line}")
    if lines and start_line > len(lines): raise ToolError(f"start_line {start_line} is past the end of '{node['path']}' ({len(lines)} lines)")
    if end_line is not None and end_line < start_line: raise ToolError(f"end_line {end_line} is before start_line {start_line}")
    part = lines[start_line - 1:end_line]
    return {"path": node["path"], "content": "\n".join(part) + ("\n" if part else ""), "total_lines": len(lines),
            "start_line": start_line, "end_line": start_line + len(part) - 1}

def _edge(st, path, lines, tail):
    _in_range(lines, 1, 1000)
    me = _me(st)
    node = _file(st, me, path)
    _allow(me, node, "r", "read")
    all_ = _text_of(node).splitlines()
    part = all_[-lines:] if tail else all_[:lines]
    return {"path": node["path"], "lines": part, "total_lines": len(all_)}

@server.read
def read_file_head(st, path: NodePath, lines: int = 10):
    """Read the first lines of a text file.

    Args:
        path: The file to read.
        lines: How many lines (1 to 1000).
    """
    return _edge(st, path, lines, False)

@server.read
def read_file_tail(st, path: NodePath, lines: int = 10):
    """Read the last lines of a text file (e.g. the newest entries of a log).

    Args:
        path: The file to read.
        lines: How many lines (1 to 1000).
    """
    return _edge(st, path, lines, True)

MAX_PATTERN, SEARCH_SECONDS = 500, 1.0  # a search's pattern size and matching time (CPU seconds: `regex` counts those) are bounded

def _compile(pattern: str, ignore_case: bool, is_regex: bool):
    try: return regex.compile(pattern if is_regex else regex.escape(pattern), regex.IGNORECASE if ignore_case else 0)
    except (regex.error, OverflowError, RecursionError) as e: raise ToolError(f"invalid regular expression '{pattern}': {e}")

def _search(rx, line: str, deadline: float) -> bool:
    "Whether `rx` matches in `line`; a ToolError once the search's time is spent."
    try: return rx.search(line, timeout=max(deadline - time.monotonic(), 1e-3), concurrent=True) is not None
    except TimeoutError: raise ToolError(f"the regular expression needed more than the {SEARCH_SECONDS:g} s of matching a search may use; simplify it") from None

@server.read(produces="node")
def search_file_contents(st, pattern: str, path: NodePath = ".", ignore_case: bool = False, regex: bool = False,
                         max_results: int = 50):
    """Search the lines of text files for a pattern, in one file or recursively under a directory (like grep -rn).

    Args:
        pattern: The text (or regular expression when regex is true) to look for.
        path: A file or the directory to search under (default: the working directory).
        ignore_case: Match without regard to case.
        regex: Treat pattern as a Python regular expression.
        max_results: Maximum number of matching lines (1 to 500).
    """
    if not pattern: raise ToolError("pattern must not be empty")
    if len(pattern) > MAX_PATTERN: raise ToolError(f"pattern has {len(pattern)} characters; at most {MAX_PATTERN}")
    _in_range(max_results, 1, 500, "max_results")
    rx = _compile(pattern, ignore_case, regex)
    me = _me(st)
    node = _get(st, me, path)
    if node["kind"] == "dir":
        _allow(me, node, "rx", "search")
        files = [r for r in _visible(st, me, node) if r["kind"] == "file"]
    else:
        _allow(me, node, "r", "read")
        _text_of(node)
        files = [node]
    out, deadline = [], time.monotonic() + SEARCH_SECONDS
    for f in files:
        if f["binary"] or not _access(me, f) & 4: continue
        for n, line in enumerate(f["content"].splitlines(), 1):
            if _search(rx, line, deadline): out.append({"path": f["path"], "line_number": n, "line": line})
            if len(out) >= max_results: return out
    return out

@server.read(produces="node")
def find_paths(st, path: NodePath = ".", name: str = "*", kind: Literal["file", "dir", "symlink"] | None = None,
               min_size: int | None = None, max_size: int | None = None, modified_after: str = "",
               owner: Annotated[str, Entity("user")] | None = None, max_results: int = 100):
    """Find files, directories and links under a directory by name pattern, kind, size, age and owner (like find).

    Args:
        path: The directory to search under (default: the working directory).
        name: Shell-style pattern the name must match, e.g. '*.md' or 'report-*'.
        kind: Only this kind of entry.
        min_size: Only files of at least this many bytes.
        max_size: Only files of at most this many bytes.
        modified_after: Only entries modified after this ISO date or time, e.g. 2026-06-01.
        owner: Only entries owned by this user.
        max_results: Maximum number of results (1 to 1000).
    """
    _in_range(max_results, 1, 1000, "max_results")
    if owner is not None and st.get("user", owner) is None: raise ToolError(f"no user named '{owner}'")
    if modified_after and not re.fullmatch(r"\d{4}-\d{2}-\d{2}(T[\d:]+)?", modified_after):
        raise ToolError(f"modified_after must be an ISO date like 2026-06-01, got '{modified_after}'")
    me = _me(st)
    d = _dir(st, me, path)
    _allow(me, d, "rx", "search")
    out = []
    for r in _visible(st, me, d):
        if not fnmatch.fnmatchcase(r["name"], name) or kind not in (None, r["kind"]): continue
        if (min_size is not None or max_size is not None) and r["kind"] != "file": continue
        if min_size is not None and r["size"] < min_size or max_size is not None and r["size"] > max_size: continue
        if modified_after and r["modified"] <= modified_after or owner not in (None, r["owner"]): continue
        out.append(_info(r))
        if len(out) >= max_results: break
    return out

@server.read
def count_file_words(st, path: NodePath):
    """Count the lines, words, characters and bytes of a text file (like wc).

    Args:
        path: The file to count.
    """
    me = _me(st)
    node = _file(st, me, path)
    _allow(me, node, "r", "read")
    text = _text_of(node)
    return {"path": node["path"], "lines": text.count("\n"), "words": len(text.split()), "characters": len(text), "bytes": node["size"]}

@server.read
def compare_files(st, path_a: NodePath, path_b: NodePath, context_lines: int = 3):
    """Compare two files line by line and show a unified diff (binary files are only reported same or different).

    Args:
        path_a: The original file.
        path_b: The changed file.
        context_lines: Unchanged lines shown around each change (0 to 10).
    """
    _in_range(context_lines, 0, 10, "context_lines")
    me = _me(st)
    a, b = _file(st, me, path_a), _file(st, me, path_b)
    for n in (a, b): _allow(me, n, "r", "read")
    same = a["content"] == b["content"]
    if a["binary"] or b["binary"]:
        return {"path_a": a["path"], "path_b": b["path"], "identical": same, "diff": [] if same else ["Binary files differ"]}
    diff = list(difflib.unified_diff(a["content"].splitlines(), b["content"].splitlines(), a["path"], b["path"],
                                     n=context_lines, lineterm=""))
    return {"path_a": a["path"], "path_b": b["path"], "identical": same, "diff": diff,
            "added": sum(1 for x in diff[2:] if x.startswith("+")), "removed": sum(1 for x in diff[2:] if x.startswith("-"))}

@server.read(produces="node")
def get_disk_usage(st, path: NodePath = ".", top: int = 5):
    """Total the bytes of the files under a directory (like du) and name the largest ones.

    Args:
        path: The directory to measure (default: the working directory).
        top: How many of the largest files to list (0 to 50).
    """
    _in_range(top, 0, 50, "top")
    me = _me(st)
    d = _dir(st, me, path)
    _allow(me, d, "rx", "measure")
    rows = _visible(st, me, d)
    files = [r for r in rows if r["kind"] == "file"]
    largest = sorted(files, key=lambda r: (-r["size"], r["path"]))[:top]
    return {"path": d["path"], "bytes": sum(r["size"] for r in files), "files": len(files),
            "directories": sum(r["kind"] == "dir" for r in rows), "largest": [{"path": r["path"], "size": r["size"]} for r in largest]}

@server.read
def get_file_checksum(st, path: NodePath, algorithm: Literal["sha256", "sha1", "md5"] = "sha256"):
    """Compute a checksum of a file's contents (equal contents give equal checksums).

    Args:
        path: The file to hash.
        algorithm: The hash function.
    """
    me = _me(st)
    node = _file(st, me, path)
    _allow(me, node, "r", "read")
    return {"path": node["path"], "algorithm": algorithm, "checksum": hashlib.new(algorithm, node["content"].encode()).hexdigest()}

@server.read(produces="trash_item")
def list_file_trash(st, name: str = ""):
    """List the items in your trash (newest first), with their original paths.

    Args:
        name: Only items whose original path contains this text.
    """
    me = _me(st)
    rows = [r for r in st.find("trash_item", deleted_by=me["username"]) if name in r["original_path"]]
    return [{"trash_id": r["trash_id"], "original_path": r["original_path"], "kind": r["kind"], "deleted_at": r["deleted_at"],
             "bytes": r["bytes"], "items": len(r["nodes"])} for r in sorted(rows, key=lambda r: (r["deleted_at"], r["trash_id"]), reverse=True)]

@server.read
def get_disk_quota(st, username: Annotated[str, Entity("user")] | None = None):
    """Show a user's disk quota, bytes used by the files they own and bytes free (others' quotas need the admin group).

    Args:
        username: The user (default: yourself).
    """
    me = _me(st)
    u = me if username is None else st.get("user", username)
    if u is None: raise ToolError(f"no user named '{username}'")
    if u["username"] != me["username"] and not _is_admin(me): raise ToolError(f"permission denied: only admins can see the quota of {username}")
    used = _usage(st).get(u["username"], 0)
    return {"username": u["username"], "quota_bytes": u["quota_bytes"], "used_bytes": used, "free_bytes": max(0, u["quota_bytes"] - used)}
