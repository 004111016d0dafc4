"""The filesystem server's write tools: they change the tree, the shell, the trash, quotas and locks (registered after the read
tools)."""
import re
from typing import Annotated

from prove_nb.server import Entity, ToolError
from prove_nb.state import thaw
from prove_nb.servers.filesystem.base import (SHELL, GroupName, NodePath, NodePaths, TrashId, Username, server, _allow,
                                              _archive_fields, _charge, _dir, _file, _get, _info, _is_admin, _join, _me,
                                              _new_slot, _norm, _put_file, _removable, _resolve, _row, _split, _subtree,
                                              _text_of, _touch_dir, _traverse, _under, _unlocked, _usage)

# ---- write tools ------------------------------------------------------------------------------------------------------

@server.write
def change_working_directory(st, path: NodePath):
    """Change the shell's working directory (needs execute permission on it).

    Args:
        path: The directory to move to; '..' goes up one level.
    """
    me = _me(st)
    d = _dir(st, me, path)
    _allow(me, d, "x", "enter")
    st.update("shell", SHELL, cwd=d["path"])
    return {"cwd": d["path"]}

@server.write(produces="node")
def make_directory(st, path: str, parents: bool = False, mode: str = "755"):
    """Create a directory; with parents, also create missing directories above it (like mkdir -p).

    Args:
        path: The directory to create.
        parents: Create missing parent directories too, and accept an existing directory.
        mode: Permissions as three octal digits, e.g. '755' or '700'.
    """
    _mode(mode)
    me, now = _me(st), st.meta["now"]
    p = _resolve(st, path, False)
    todo = []
    q = p
    while parents and q != "/" and st.get("node", q) is None:
        todo.append(q)
        q = _split(q)[0]
    if parents:
        top = st.get("node", q)
        if top["kind"] != "dir": raise ToolError(f"'{q}' exists and is not a directory")
        if not todo: return {"path": p, "created": []}
        _new_slot(st, me, todo[-1])
    else:
        _new_slot(st, me, p)
        todo = [p]
    for d in reversed(todo):
        st.insert("node", _row(d, "dir", me["username"], me["primary_group"], mode, now, now))
    _touch_dir(st, _split(todo[-1])[0])
    return {"path": p, "created": list(reversed(todo))}

def _mode(mode: str):
    if not re.fullmatch(r"[0-7]{3}", mode): raise ToolError(f"mode must be three octal digits like '644', got '{mode}'")

@server.write(produces="node")
def write_text_file(st, path: str, content: str, overwrite: bool = False):
    """Create a text file, or replace an existing file's contents when overwrite is true (needs write permission).

    Args:
        path: The file to write; its directory must exist.
        content: The full text of the file.
        overwrite: Replace the file if it already exists.
    """
    me = _me(st)
    p = _resolve(st, path)
    node = st.get("node", p)
    if node is None: p = _new_slot(st, me, p)
    else:
        if node["kind"] != "file": raise ToolError(f"'{p}' is a {node['kind']}, not a file")
        if not overwrite: raise ToolError(f"'{p}' already exists; pass overwrite=true to replace it")
        _traverse(st, me, p)
        _allow(me, node, "w", "write")
        _unlocked(me, [node])
    row = _put_file(st, me, p, content, node)
    return {**_info(row), "created": node is None}

@server.write(after=("write_text_file",))
def append_to_file(st, path: NodePath, content: str):
    """Append text to the end of an existing text file, starting on a new line.

    Args:
        path: The file to extend.
        content: The text to add.
    """
    if not content: raise ToolError("content must not be empty")
    me = _me(st)
    node = _file(st, me, path)
    _allow(me, node, "w", "write")
    _unlocked(me, [node])
    old = _text_of(node)
    row = _put_file(st, me, node["path"], old + ("\n" if old and not old.endswith("\n") else "") + content, node)
    return {"path": row["path"], "size": row["size"], "bytes_added": row["size"] - node["size"]}

@server.write(produces="node")
def touch_path(st, path: str):
    """Create an empty file, or mark an existing file or directory as modified now.

    Args:
        path: The file to create or touch.
    """
    me = _me(st)
    p = _resolve(st, path)
    node = st.get("node", p)
    if node is None:
        row = _put_file(st, me, _new_slot(st, me, p), "")
        return {**_info(row), "created": True}
    _traverse(st, me, p)
    if node["owner"] != me["username"]: _allow(me, node, "w", "touch")
    return {**_info(st.update("node", p, modified=st.meta["now"])), "created": False}

@server.write(after=("read_text_file",))
def replace_text_in_file(st, path: NodePath, old_text: str, new_text: str, count: int = 0):
    """Replace occurrences of a piece of text in a text file.

    Args:
        path: The file to edit.
        old_text: The exact text to find.
        new_text: The text to put in its place.
        count: Replace at most this many occurrences, from the start (0 = all).
    """
    if not old_text: raise ToolError("old_text must not be empty")
    if count < 0: raise ToolError(f"count must be 0 or more, got {count}")
    me = _me(st)
    node = _file(st, me, path)
    _allow(me, node, "w", "write")
    _unlocked(me, [node])
    text = _text_of(node)
    found = text.count(old_text)
    if not found: raise ToolError(f"'{old_text[:40]}' does not occur in '{node['path']}'")
    _put_file(st, me, node["path"], text.replace(old_text, new_text, count or -1), node)
    return {"path": node["path"], "replacements": min(found, count) if count else found}

def _destination(st, me, src, destination: str) -> str:
    "Where `src` lands for mv/cp: inside `destination` when it is a directory, else at `destination`."
    p = _resolve(st, destination)
    d = st.get("node", p)
    if d is not None and d["kind"] == "dir": p = _join(p, src["name"])
    if p == src["path"]: raise ToolError(f"source and destination are the same path '{p}'")
    if _under(p, src["path"]): raise ToolError(f"cannot put '{src['path']}' inside itself ('{p}')")
    return p

def _make_room(st, me, src, p, overwrite):
    "Make `p` free for `src`: its directory must be writable; an existing file there is replaced only with overwrite."
    old = st.get("node", p)
    if old is None:
        _new_slot(st, me, p)
        return
    _allow(me, st.get("node", _split(p)[0]), "wx", "create entries in")
    if not overwrite: raise ToolError(f"'{p}' already exists; pass overwrite=true to replace it")
    if old["kind"] == "dir" or src["kind"] == "dir": raise ToolError(f"cannot replace '{p}' with '{src['path']}': directories are never overwritten")
    _allow(me, old, "w", "overwrite")
    _unlocked(me, [old])
    st.delete("node", p)

@server.write(produces="node")
def copy_path(st, source: NodePath, destination: str, recursive: bool = False, overwrite: bool = False):
    """Copy a file, link or (with recursive) a whole directory; copies belong to you. Copying into a directory keeps the name.

    Args:
        source: What to copy.
        destination: The new path, or an existing directory to copy into.
        recursive: Required to copy a directory and everything in it.
        overwrite: Replace an existing file at the destination.
    """
    me, now = _me(st), st.meta["now"]
    src = _get(st, me, source, follow=False)
    if src["kind"] == "dir" and not recursive: raise ToolError(f"'{src['path']}' is a directory; pass recursive=true to copy it")
    rows = _subtree(st, src["path"]) if src["kind"] == "dir" else [src]
    for r in rows:
        if r["kind"] != "symlink": _allow(me, r, "rx" if r["kind"] == "dir" else "r", "read")
    p = _destination(st, me, src, destination)
    _make_room(st, me, src, p, overwrite)
    _charge(st, {me["username"]: sum(r["size"] for r in rows if r["kind"] == "file")})
    for r in rows:
        q = p + r["path"][len(src["path"]):]
        parent, name = _split(q)
        st.insert("node", {**r, "path": q, "parent": parent, "name": name, "owner": me["username"], "group": me["primary_group"],
                           "created": now, "modified": now, "locked_by": None})
    _touch_dir(st, _split(p)[0])
    return {"source": src["path"], "destination": p, "copied": len(rows)}

def _relocate(st, me, src, p):
    "Move `src` (and its subtree) to the free path `p`, keeping the shell's working directory inside it."
    rows = _subtree(st, src["path"]) if src["kind"] == "dir" else [src]
    _unlocked(me, rows)
    for r in rows: st.delete("node", r["path"])
    for r in rows:
        q = p + r["path"][len(src["path"]):]
        parent, name = _split(q)
        st.insert("node", {**r, "path": q, "parent": parent, "name": name})
    cwd = st.get("shell", SHELL)["cwd"]
    if _under(cwd, src["path"]): st.update("shell", SHELL, cwd=p + cwd[len(src["path"]):])
    _touch_dir(st, src["parent"])
    _touch_dir(st, _split(p)[0])
    return len(rows)

@server.write(produces="node")
def move_path(st, source: NodePath, destination: str, overwrite: bool = False):
    """Move a file, link or directory (with everything in it) to a new path or into an existing directory (like mv).

    Args:
        source: What to move.
        destination: The new path, or an existing directory to move into.
        overwrite: Replace an existing file at the destination.
    """
    me = _me(st)
    src = _get(st, me, source, follow=False)
    if src["path"] == "/": raise ToolError("the root directory cannot be moved")
    _allow(me, st.get("node", src["parent"]), "wx", "remove entries from")
    p = _destination(st, me, src, destination)
    _make_room(st, me, src, p, overwrite)
    n = _relocate(st, me, src, p)
    return {"source": src["path"], "destination": p, "moved": n}

@server.write(produces="node")
def rename_path(st, path: NodePath, new_name: str):
    """Rename a file, link or directory within its directory.

    Args:
        path: What to rename.
        new_name: The new name (no slashes).
    """
    if "/" in new_name or new_name in ("", ".", ".."): raise ToolError(f"'{new_name}' is not a valid file name")
    me = _me(st)
    src = _get(st, me, path, follow=False)
    if src["path"] == "/": raise ToolError("the root directory cannot be renamed")
    if new_name == src["name"]: raise ToolError(f"'{src['path']}' is already named {new_name}")
    p = _new_slot(st, me, _join(src["parent"], new_name))
    _relocate(st, me, src, p)
    return {"old_path": src["path"], "path": p}

@server.write
def remove_file(st, path: NodePath):
    """Delete a file or symbolic link permanently (a link is removed, not its target). Use trash_path to keep a copy.

    Args:
        path: The file or link to delete.
    """
    me = _me(st)
    node = _get(st, me, path, follow=False)
    if node["kind"] == "dir": raise ToolError(f"'{node['path']}' is a directory; use remove_directory")
    _removable(st, me, node)
    st.delete("node", node["path"])
    _touch_dir(st, node["parent"])
    return {"removed": node["path"], "bytes_freed": node["size"] if node["kind"] == "file" else 0}

@server.write
def remove_directory(st, path: NodePath, recursive: bool = False):
    """Delete a directory permanently; a non-empty one only with recursive (everything inside is deleted too).

    Args:
        path: The directory to delete.
        recursive: Also delete everything inside it.
    """
    me = _me(st)
    node = _get(st, me, path, follow=False)
    if node["kind"] != "dir": raise ToolError(f"'{node['path']}' is not a directory; use remove_file")
    rows = _removable(st, me, node)
    if len(rows) > 1 and not recursive:
        raise ToolError(f"directory '{node['path']}' is not empty ({len(rows) - 1} entries); pass recursive=true")
    for r in reversed(rows): st.delete("node", r["path"])
    _touch_dir(st, node["parent"])
    return {"removed": node["path"], "entries_removed": len(rows), "bytes_freed": sum(r["size"] for r in rows if r["kind"] == "file")}

@server.write(produces="trash_item")
def trash_path(st, path: NodePath):
    """Move a file, link or directory (with its contents) to your trash, from where it can be restored.

    Args:
        path: What to throw away.
    """
    me = _me(st)
    node = _get(st, me, path, follow=False)
    rows = _removable(st, me, node)
    for r in reversed(rows): st.delete("node", r["path"])
    _touch_dir(st, node["parent"])
    item = st.insert("trash_item", {"original_path": node["path"], "kind": node["kind"], "deleted_by": me["username"],
                                     "deleted_at": st.meta["now"], "bytes": sum(r["size"] for r in rows if r["kind"] == "file"),
                                     "nodes": [dict(r) for r in rows]})
    return {"trash_id": item["trash_id"], "original_path": node["path"], "items": len(rows)}

@server.write(produces="node", after=("trash_path",))
def restore_from_file_trash(st, trash_id: TrashId, destination: str | None = None):
    """Put an item from your trash back at its original path, or at a new path.

    Args:
        trash_id: The trash item to restore.
        destination: A new full path for it (default: where it was).
    """
    me = _me(st)
    item = st.get("trash_item", trash_id)
    if item is None: raise ToolError(f"no trash item with id '{trash_id}'")
    if item["deleted_by"] != me["username"]: raise ToolError(f"trash item {trash_id} is in {item['deleted_by']}'s trash, not yours")
    p = _new_slot(st, me, destination or item["original_path"])
    old = item["original_path"]
    deltas = {}
    for r in item["nodes"]:
        if r["kind"] == "file": deltas[r["owner"]] = deltas.get(r["owner"], 0) + r["size"]
    _charge(st, deltas)
    for r in item["nodes"]:
        q = p + r["path"][len(old):]
        parent, name = _split(q)
        st.insert("node", {**r, "path": q, "parent": parent, "name": name})
    st.delete("trash_item", trash_id)
    _touch_dir(st, _split(p)[0])
    return {"trash_id": trash_id, "path": p, "restored": len(item["nodes"])}

@server.write(after=("trash_path",))
def empty_file_trash(st, trash_id: Annotated[str, Entity("trash_item")] | None = None):
    """Permanently delete one item from your trash, or everything in it.

    Args:
        trash_id: The one item to delete (default: all of your trash).
    """
    me = _me(st)
    if trash_id is None:
        items = st.find("trash_item", deleted_by=me["username"])
        if not items: raise ToolError("your trash is already empty")
    else:
        item = st.get("trash_item", trash_id)
        if item is None: raise ToolError(f"no trash item with id '{trash_id}'")
        if item["deleted_by"] != me["username"]: raise ToolError(f"trash item {trash_id} is in {item['deleted_by']}'s trash, not yours")
        items = [item]
    for it in items: st.delete("trash_item", it["trash_id"])
    return {"deleted": sorted(it["trash_id"] for it in items), "bytes_freed": sum(it["bytes"] for it in items)}

@server.write(produces="node")
def create_symlink(st, target: NodePath, link_path: str):
    """Create a symbolic link (a shortcut) at link_path pointing to an existing file or directory.

    Args:
        target: The existing file or directory the link points to (relative paths start at the working directory).
        link_path: Where to create the link.
    """
    me = _me(st)
    tgt = _norm(st, target)
    if st.get("node", _resolve(st, tgt)) is None: raise ToolError(f"link target '{tgt}' does not exist")
    p = _new_slot(st, me, link_path)
    now = st.meta["now"]
    row = st.insert("node", _row(p, "symlink", me["username"], me["primary_group"], "777", now, now, target=tgt, size=len(tgt)))
    _touch_dir(st, row["parent"])
    return _info(row)

@server.write
def change_permissions(st, path: NodePath, mode: str, recursive: bool = False):
    """Set the permission bits of a file or directory you own (like chmod), e.g. '640' = owner rw, group r, others none.

    Args:
        path: The file or directory.
        mode: Three octal digits for owner, group and others (4 read + 2 write + 1 execute).
        recursive: Also apply to everything inside a directory (all of it must be yours).
    """
    _mode(mode)
    me = _me(st)
    node = _get(st, me, path)
    rows = [r for r in _subtree(st, node["path"]) if r["kind"] != "symlink"] if recursive and node["kind"] == "dir" else [node]
    for r in rows:
        if r["owner"] != me["username"]: raise ToolError(f"permission denied: only the owner {r['owner']} can change the mode of '{r['path']}'")
    changed = [r["path"] for r in rows if r["mode"] != mode]
    for p in changed: st.update("node", p, mode=mode)
    return {"path": node["path"], "mode": mode, "changed": len(changed)}

@server.write
def change_owner(st, path: NodePath, new_owner: Username, recursive: bool = False):
    """Give a file or directory to another user (admin group only); the new owner's quota must have room.

    Args:
        path: The file or directory.
        new_owner: The user who will own it.
        recursive: Also give away everything inside a directory.
    """
    me = _me(st)
    if not _is_admin(me): raise ToolError(f"permission denied: {me['username']} is not in the admin group")
    if st.get("user", new_owner) is None: raise ToolError(f"no user named '{new_owner}'")
    node = _get(st, me, path)
    rows = _subtree(st, node["path"]) if recursive and node["kind"] == "dir" else [node]
    rows = [r for r in rows if r["owner"] != new_owner]
    _charge(st, {new_owner: sum(r["size"] for r in rows if r["kind"] == "file")})
    for r in rows: st.update("node", r["path"], owner=new_owner)
    return {"path": node["path"], "owner": new_owner, "changed": len(rows)}

@server.write
def change_group(st, path: NodePath, group: GroupName, recursive: bool = False):
    """Set the group of a file or directory you own to a group you belong to (admins: any node, any group).

    Args:
        path: The file or directory.
        group: The group that gets the group permissions.
        recursive: Also apply to everything inside a directory.
    """
    me = _me(st)
    if st.get("group", group) is None: raise ToolError(f"no group named '{group}'")
    node = _get(st, me, path)
    rows = _subtree(st, node["path"]) if recursive and node["kind"] == "dir" else [node]
    if not _is_admin(me):
        if group not in me["groups"]: raise ToolError(f"permission denied: {me['username']} is not a member of group {group}")
        for r in rows:
            if r["owner"] != me["username"]: raise ToolError(f"permission denied: '{r['path']}' belongs to {r['owner']}")
    rows = [r for r in rows if r["group"] != group]
    for r in rows: st.update("node", r["path"], group=group)
    return {"path": node["path"], "group": group, "changed": len(rows)}

@server.write
def set_disk_quota(st, username: Username, quota_bytes: int):
    """Set a user's disk quota (admin group only); it cannot go below what the user already uses.

    Args:
        username: The user.
        quota_bytes: The new limit in bytes (1,000 to 1,000,000,000,000).
    """
    me = _me(st)
    if not _is_admin(me): raise ToolError(f"permission denied: {me['username']} is not in the admin group")
    u = st.get("user", username)
    if u is None: raise ToolError(f"no user named '{username}'")
    if not 1000 <= quota_bytes <= 10**12: raise ToolError(f"quota_bytes must be between 1000 and 10^12, got {quota_bytes}")
    used = _usage(st).get(username, 0)
    if quota_bytes < used: raise ToolError(f"{username} already uses {used} bytes, more than {quota_bytes}")
    st.update("user", username, quota_bytes=quota_bytes)
    return {"username": username, "quota_bytes": quota_bytes, "used_bytes": used}

ARCHIVE_EXTS = (".tar.gz", ".zip", ".tar")

@server.write(produces="node")
def create_file_archive(st, paths: NodePaths, archive_path: str):
    """Pack files and directories into a new archive file (.zip, .tar or .tar.gz); the originals stay in place.

    Args:
        paths: The files and directories to pack (their names become the top level of the archive).
        archive_path: The archive to create; its name must end in .zip, .tar or .tar.gz.
    """
    if not paths: raise ToolError("paths must name at least one file or directory")
    ext = next((e for e in ARCHIVE_EXTS if archive_path.endswith(e)), None)
    if ext is None: raise ToolError(f"archive name '{archive_path}' must end in .zip, .tar or .tar.gz")
    me, now = _me(st), st.meta["now"]
    entries, tops = [], set()
    for path in paths:
        src = _get(st, me, path, follow=False)
        if src["name"] in tops: raise ToolError(f"two sources are named '{src['name']}'")
        tops.add(src["name"])
        base = _split(src["path"])[0] or "/"
        for r in _subtree(st, src["path"]) if src["kind"] == "dir" else [src]:
            if r["kind"] != "symlink": _allow(me, r, "rx" if r["kind"] == "dir" else "r", "read")
            entries.append({"path": r["path"][len(base):].lstrip("/"), "kind": r["kind"], "mode": r["mode"], "binary": r["binary"],
                            "content": r["content"], "size": r["size"], "target": r["target"], "entries": thaw(r["entries"])})
    p = _new_slot(st, me, archive_path)
    fields = _archive_fields(entries, ext)
    _charge(st, {me["username"]: fields["size"]})
    row = st.insert("node", _row(p, "file", me["username"], me["primary_group"], "644", now, now, **fields))
    _touch_dir(st, row["parent"])
    return {"path": p, "entries": len(entries), "size": row["size"], "sources": sorted(tops)}

def _with_parents(entries) -> list:
    "Archive entries with a directory entry before any entry whose directory the archive does not list."
    out, seen = [], set()
    for e in entries:
        parts = e["path"].split("/")
        for k in range(1, len(parts)):
            d = "/".join(parts[:k])
            if d not in seen: out.append({"path": d, "kind": "dir", "mode": "755", "binary": False, "content": "", "size": 0})
            seen.add(d)
        if e["path"] not in seen: out.append(e)
        seen.add(e["path"])
    return out

@server.write(produces="node", after=("create_file_archive",))
def extract_file_archive(st, archive_path: NodePath, destination: str = ".", overwrite: bool = False):
    """Unpack an archive into a directory; extracted files belong to you.

    Args:
        archive_path: The .zip, .tar or .tar.gz file.
        destination: The existing directory to unpack into (default: the working directory).
        overwrite: Replace files that already exist (directories are merged).
    """
    me, now = _me(st), st.meta["now"]
    arc = _file(st, me, archive_path)
    if not arc["entries"]: raise ToolError(f"'{arc['path']}' is not an archive")
    _allow(me, arc, "r", "read")
    d = _dir(st, me, destination)
    _allow(me, d, "wx", "create entries in")
    plan, grow = [], 0
    for e in _with_parents(arc["entries"]):
        q = _join(d["path"], e["path"])
        old = st.get("node", q)
        if old is not None:
            if e["kind"] == "dir" and old["kind"] == "dir": continue
            if not overwrite or old["kind"] == "dir" or e["kind"] == "dir": raise ToolError(f"'{q}' already exists; pass overwrite=true to replace files")
            _allow(me, old, "w", "overwrite")
            _unlocked(me, [old])
        plan.append((q, e, old))
        grow += e["size"] if e["kind"] == "file" else 0
    _charge(st, {me["username"]: grow})
    for q, e, old in plan:
        if old is not None: st.delete("node", q)
        st.insert("node", _row(q, e["kind"], me["username"], me["primary_group"], e["mode"], now, now, content=e["content"],
                               size=e["size"], binary=e["binary"], target=e.get("target"), entries=e.get("entries")))
    _touch_dir(st, d["path"])
    return {"archive": arc["path"], "destination": d["path"], "extracted": [q for q, _, _ in plan]}

@server.write
def lock_file(st, path: NodePath):
    """Lock a file for editing so that other users cannot change, move or delete it until you unlock it.

    Args:
        path: The file to lock (you need write permission).
    """
    me = _me(st)
    node = _file(st, me, path)
    _allow(me, node, "w", "lock")
    if node["locked_by"]: raise ToolError(f"'{node['path']}' is already locked by {node['locked_by']}")
    st.update("node", node["path"], locked_by=me["username"])
    return {"path": node["path"], "locked_by": me["username"]}

@server.write(after=("lock_file",))
def unlock_file(st, path: NodePath):
    """Release the lock on a file (your own lock; admins may release anyone's).

    Args:
        path: The locked file.
    """
    me = _me(st)
    node = _file(st, me, path)
    if not node["locked_by"]: raise ToolError(f"'{node['path']}' is not locked")
    if node["locked_by"] != me["username"] and not _is_admin(me):
        raise ToolError(f"'{node['path']}' is locked by {node['locked_by']}; only they or an admin can unlock it")
    st.update("node", node["path"], locked_by=None)
    return {"path": node["path"], "locked_by": None, "was_locked_by": node["locked_by"]}
