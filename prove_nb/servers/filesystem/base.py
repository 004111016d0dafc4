"""Filesystem: a virtual file tree held in state, with users, groups, permissions, quotas, links, trash and archives (40 tools).

The tree never touches the host. Every path is normalized ('.', '..', repeated slashes; relative paths start at the
working directory) and cannot climb above '/'. A node's key is its absolute path and `parent` names its directory, so
moving a directory re-keys its whole subtree. Rules: a node needs an existing parent directory; the acting user (the
shell's user) needs x on every directory above a path, r to read or list, w on a directory to add or remove entries,
w on a file to change it; only a file's owner may chmod it; chown and quotas need the admin group; a file locked by one
user refuses changes by the others; the files a user owns may not exceed the user's quota; non-empty directories are
removed only recursively; neither the working directory nor anything above it can be removed.
"""
import difflib, fnmatch, hashlib, json, re, time
from collections import deque
from datetime import datetime, timedelta
from typing import Annotated, Literal

import regex  # like re, but a search can be given a time limit and releases the GIL

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers._common import NOW, FIRST_NAMES, LAST_NAMES
from prove_nb.state import TableSpec, thaw

SHELL = "sh_0001"  # the one shell: who acts, and where
FIRST = FIRST_NAMES[:16] + ("Quinn", "Rosa", "Sam", "Tara")
LAST = LAST_NAMES[:12]
GROUPS = ["admin", "staff", "dev", "design", "finance", "research", "ops", "marketing", "legal", "support"]
PROJECTS = ["inventory-api", "ml-pipeline", "website-redesign", "budget-tool", "chat-bot", "data-cleaning", "mobile-app",
            "invoice-parser", "search-service", "etl-jobs"]
MODULES = ["main", "utils", "models", "api", "config", "db", "cli", "parser", "report", "auth", "cache", "storage"]
TOPICS = ["roadmap", "budget", "onboarding", "release", "hiring", "security", "pricing", "retrospective", "launch", "audit"]
WORDS = ["review", "update", "draft", "final", "summary", "plan", "notes", "checklist", "proposal", "minutes"]
TASKS = ["Email the vendor about the invoice", "Update the README", "Fix the failing test", "Book the meeting room",
         "Send the quarterly report", "Renew the TLS certificate", "Back up the database", "Review the pull request",
         "Clean up old logs", "Prepare the demo"]
# subdirectory names and the hint their contents follow, by the hint of the parent directory
SUBDIRS = {"home": [("documents", "documents"), ("projects", "projects"), ("downloads", "downloads"), ("photos", "photos"),
                    ("notes", "notes"), ("backups", "downloads"), (".config", "etc")],
           "projects": [(p, "project") for p in PROJECTS],
           "project": [("src", "src"), ("tests", "tests"), ("docs", "docs"), ("scripts", "scripts"), ("data", "data")],
           "documents": [("reports", "docs"), ("invoices", "data"), ("letters", "notes"), ("drafts", "docs"),
                         ("2025", "documents"), ("2026", "documents")],
           "team": [("meetings", "docs"), ("specs", "docs"), ("reports", "docs"), ("templates", "docs"), ("archive", "documents")]}
EXTS = {"src": [".py"], "tests": [".py"], "scripts": [".sh", ".py"], "docs": [".md"], "data": [".csv", ".json"],
        "documents": [".md", ".txt", ".csv", ".pdf"], "notes": [".txt", ".md"], "photos": [".jpg", ".png"],
        "downloads": [".pdf", ".zip", ".tar.gz", ".txt"], "logs": [".log"], "etc": [".conf", ".yaml"], "tmp": [".tmp", ".txt"],
        "home": [".txt", ".md"], "team": [".md", ".csv"], "project": [".md"], "projects": [".md"]}
BINARY = {".jpg", ".png", ".pdf", ".zip", ".tar.gz"}

def _ts(rng, lo_days=1, hi_days=500) -> tuple:
    "A (created, modified) pair of ISO timestamps before the server clock."
    now = datetime.fromisoformat(NOW)
    created = now - timedelta(minutes=rng.randint(lo_days * 1440, hi_days * 1440))
    modified = created + timedelta(minutes=rng.randint(0, int((now - created).total_seconds() // 60) - 30))
    return created.isoformat(), modified.isoformat()

def _stem(rng, hint) -> str:
    if hint == "src": return rng.choice(MODULES)
    if hint == "tests": return f"test_{rng.choice(MODULES)}"
    if hint == "scripts": return rng.choice(["deploy", "backup", "setup", "migrate", "cleanup"])
    if hint == "logs": return rng.choice(["syslog", "auth", "nginx-access", "app", "cron"])
    if hint == "etc": return rng.choice(["hosts", "app", "nginx", "logging", "settings"])
    if hint == "photos": return f"IMG_{rng.randint(1000, 9999)}"
    if hint == "data": return rng.choice(["sales", "expenses", "customers", "inventory", "metrics"]) + f"-{rng.randint(2024, 2026)}"
    if hint == "project": return rng.choice(["README", "CHANGELOG", "CONTRIBUTING", "TODO"])
    return f"{rng.choice(TOPICS)}-{rng.choice(WORDS)}"

def _text(rng, ext, stem) -> str:
    "Realistic text content for a file of this extension."
    who = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    day = f"2026-{rng.randint(1, 6):02d}-{rng.randint(1, 28):02d}"
    if ext == ".py":
        fn, field = rng.choice(["load", "clean", "total", "parse", "export"]), rng.choice(["amount", "status", "name", "date"])
        return (f'"""{stem} module."""\nimport json\n\nLIMIT = {rng.randint(5, 500)}\n\n\ndef {fn}_{field}(items):\n'
                f'    """Return the {field} of every item, at most LIMIT."""\n    return [x["{field}"] for x in items][:LIMIT]\n'
                + (f"\n\ndef test_{fn}():\n    assert {fn}_{field}([]) == []\n" if stem.startswith("test_") else "")
                + ("    # TODO: handle missing keys\n" if rng.random() < 0.4 else ""))
    if ext == ".sh": return f"#!/bin/sh\nset -e\necho \"running {stem}\"\nrsync -a /home/ /srv/backup/{day}/\n"
    if ext == ".md":
        lines = [f"# {stem.replace('-', ' ').title()}", "", f"Owner: {who}", f"Date: {day}", "", "## Summary",
                 f"The {rng.choice(TOPICS)} {rng.choice(WORDS)} is {rng.choice(['on track', 'delayed', 'blocked', 'done'])}.",
                 "", "## Action items"] + [f"- [ ] {rng.choice(TASKS)}" for _ in range(rng.randint(1, 4))]
        return "\n".join(lines) + "\n"
    if ext == ".csv":
        rows = [f"{day},{rng.choice(['travel', 'software', 'hardware', 'catering', 'rent'])},{rng.randint(10, 5000)}.{rng.randint(0, 99):02d}"
                for _ in range(rng.randint(3, 8))]
        return "date,category,amount\n" + "\n".join(rows) + "\n"
    if ext == ".json": return json.dumps({"name": stem, "version": f"1.{rng.randint(0, 9)}.{rng.randint(0, 20)}", "owner": who,
                                          "enabled": rng.random() < 0.7}, indent=2) + "\n"
    if ext == ".log":
        lvls = ["INFO"] * 6 + ["WARN", "ERROR"]
        msgs = ["service started", "request served in 12ms", "disk usage at 81%", "connection refused by db",
                "user login ok", "cache miss", "timeout after 30s", "backup finished"]
        return "".join(f"{day}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00 {rng.choice(lvls)} {rng.choice(msgs)}\n"
                       for _ in range(rng.randint(4, 10)))
    if ext in (".conf", ".yaml", ".toml"):
        sep = ": " if ext == ".yaml" else " = "
        return "".join(f"{k}{sep}{v}\n" for k, v in [("host", f"10.0.{rng.randint(0, 9)}.{rng.randint(2, 250)}"),
                       ("port", rng.choice([80, 443, 5432, 8080])), ("debug", rng.choice(["true", "false"])),
                       ("owner", who.split()[0].lower())])
    items = rng.sample(TASKS, rng.randint(2, 5))
    return f"{stem.replace('-', ' ').capitalize()} ({day})\n" + "".join(f"- {t}\n" for t in items)

def _group(rng, i, pick):
    name = GROUPS[i] if i < len(GROUPS) else f"{GROUPS[2 + i % 8]}{i // 8}"
    return {"group_name": name, "description": "system administrators" if name == "admin" else f"{name} team"}

def _user(rng, i, pick):
    if i == 0: return {"username": "root", "full_name": "System Administrator", "primary_group": "admin", "groups": ("admin",),
                       "quota_bytes": 10_000_000_000}
    first = FIRST[(i - 1) % len(FIRST)]
    name = first.lower() + ("" if i <= len(FIRST) else str((i - 1) // len(FIRST)))
    extra = sorted({pick("group") for _ in range(rng.randint(0, 2))} - {"admin", "staff"})
    return {"username": name, "full_name": f"{first} {rng.choice(LAST)}", "primary_group": "staff",
            "groups": tuple(["admin", "staff"] if i == 1 else ["staff"]) + tuple(extra),
            "quota_bytes": rng.choice([50, 100, 200]) * 1_000_000}

def _row(path, kind, owner, group, mode, created, modified, content="", size=0, **extra):
    parent, name = _split(path)
    return {"path": path, "parent": parent, "name": name, "kind": kind, "owner": owner, "group": group, "mode": mode,
            "content": content, "size": size, "binary": False, "created": created, "modified": modified, "target": None,
            "locked_by": None, "entries": None, **extra}

def _skeleton(rng, users, groups) -> deque:
    "The top of the tree: system directories, one home (with documents) per user, a code project for the shell's user, one shared folder per team."
    q = deque([("/", "root", "admin", "755", "sys"), ("/home", "root", "admin", "755", "sys"),
               ("/shared", "root", "staff", "775", "sys"), ("/tmp", "root", "admin", "777", "tmp"),
               ("/var", "root", "admin", "755", "sys"), ("/var/log", "root", "admin", "755", "logs"),
               ("/etc", "root", "admin", "755", "etc")])
    for k, u in enumerate(users[1:]):
        q.append((f"/home/{u['username']}", u["username"], u["primary_group"], "755" if k == 0 else ("755", "750", "700")[k % 3], "home"))
        q.append((f"/home/{u['username']}/documents", u["username"], u["primary_group"], "755", "documents"))
        if k == 0:
            proj = f"/home/{u['username']}/projects/{rng.choice(PROJECTS)}"
            q.extend((p, u["username"], u["primary_group"], "755", hint) for p, hint in
                     [(_split(proj)[0], "projects"), (proj, "project"), (proj + "/src", "src"), (proj + "/docs", "docs")])
    for g in groups[1:]:
        q.append((f"/shared/{g}", "root", g, "775", "team"))
    return q

def _node(rng, i, pick):
    if i == 0:
        groups = [g["group_name"] for g in pick.rows("group")]
        pick.memo["tree"] = {"queue": _skeleton(rng, pick.rows("user"), groups), "dirs": [], "names": {}, "files": []}
    t = pick.memo["tree"]
    if t["queue"]:
        path, owner, group, mode, hint = t["queue"].popleft()
        c, m = _ts(rng, 200, 700)
        t["names"].setdefault(_split(path)[0], set()).add(_split(path)[1])
        if hint != "sys": t["dirs"].append((path, owner, group, hint, path.count("/")))
        return _row(path, "dir", owner, group, mode, c, m)
    d_path, d_owner, d_group, hint, depth = rng.choice(t["dirs"])
    names = t["names"].setdefault(d_path, set())
    roll = rng.random()
    shared = hint in ("team", "tmp") or d_owner == "root" and hint not in ("logs", "etc")
    owner = pick("user") if shared else d_owner
    group = "staff" if hint == "tmp" else d_group
    c, m = _ts(rng)
    if roll < 0.22 and hint in SUBDIRS and depth < 6:
        name, sub = rng.choice(SUBDIRS[hint])
        if name in names: return None
        names.add(name)
        path = f"{d_path}/{name}"
        t["dirs"].append((path, d_owner, d_group, sub, depth + 1))
        return _row(path, "dir", d_owner, group, "775" if hint == "team" else rng.choice(["755", "755", "750"]), c, m)
    if roll < 0.25 and t["files"] and hint in ("home", "documents", "projects"):
        target = rng.choice(t["files"])
        name = f"link-to-{_split(target)[1]}"
        if name in names: return None
        names.add(name)
        return _row(f"{d_path}/{name}", "symlink", d_owner, group, "777", c, m, target=target, size=len(target))
    ext = rng.choice(EXTS[hint])
    stem = _stem(rng, hint)
    name = stem + ext
    if name in names: name = f"{stem}-{len(names) + 1}{ext}"
    if name in names: return None
    names.add(name)
    path = f"{d_path}/{name}"
    mode = "755" if ext == ".sh" else "664" if hint == "team" else rng.choice(["644"] * 5 + ["600", "640"])
    locked = pick("user") if d_path.startswith("/shared/") and rng.random() < 0.12 else None
    if ext in (".zip", ".tar.gz"):
        entries = ({"path": stem, "kind": "dir", "mode": "755", "binary": False, "content": "", "size": 0},) + tuple(
            {"path": f"{stem}/{_stem(rng, 'docs')}-{k}.md", "kind": "file", "mode": "644", "binary": False,
             "content": (txt := _text(rng, ".md", "notes")), "size": len(txt.encode())} for k in range(rng.randint(1, 3)))
        return _row(path, "file", owner, group, mode, c, m, **_archive_fields(entries, ext), locked_by=locked)
    if ext in BINARY:
        return _row(path, "file", owner, group, mode, c, m, content=f"binary:{ext[1:]}:{rng.getrandbits(48):012x}",
                    size=rng.randint(20_000, 4_000_000), binary=True, locked_by=locked)
    text = _text(rng, ext, stem)
    t["files"].append(path)
    return _row(path, "file", owner, group, mode, c, m, content=text, size=len(text.encode()), locked_by=locked)

def _trash_item(rng, i, pick):
    users = pick.rows("user")[1:]
    u = users[0] if rng.random() < 0.6 or len(users) == 1 else rng.choice(users)
    stem, ext = f"{rng.choice(['old', 'draft', 'scratch', 'copy-of'])}-{rng.choice(TOPICS)}-{i + 1}", rng.choice([".txt", ".md", ".csv"])
    path = f"/home/{u['username']}/documents/{stem}{ext}"
    c, m = _ts(rng, 30, 300)
    text = _text(rng, ext, stem)
    node = _row(path, "file", u["username"], u["primary_group"], "644", c, m, content=text, size=len(text.encode()))
    deleted = (datetime.fromisoformat(NOW) - timedelta(hours=rng.randint(2, 24 * 40))).isoformat()
    return {"original_path": path, "kind": "file", "deleted_by": u["username"], "deleted_at": deleted, "bytes": node["size"],
            "nodes": (node,)}

def _shell(rng, i, pick):
    if i: return None
    users = pick.rows("user")
    me = users[1] if len(users) > 1 else users[0]
    return {"user": me["username"], "cwd": f"/home/{me['username']}" if me["username"] != "root" else "/"}

server = ToolServer(
    "filesystem", "A virtual multi-user file system: browse, read, search, edit, move, share and archive files and folders.",
    [TableSpec("group", "group_name", "grp_"),
     TableSpec("user", "username", "usr_", {"primary_group": "group", "groups": "group"}),
     TableSpec("node", "path", "node_", {"parent": "node", "owner": "user", "group": "group", "locked_by": "user"}),
     TableSpec("trash_item", "trash_id", "trs_", {"deleted_by": "user"}),
     TableSpec("shell", "shell_id", "sh_", {"user": "user", "cwd": "node"})],
    {"group": _group, "user": _user, "node": _node, "trash_item": _trash_item, "shell": _shell},
    {"group": 6, "user": 8, "node": 160, "trash_item": 5, "shell": 1}, now=NOW)

NodePath = Annotated[str, Entity("node")]
NodePaths = Annotated[list[str], Entity("node")]
Username = Annotated[str, Entity("user")]
GroupName = Annotated[str, Entity("group")]
TrashId = Annotated[str, Entity("trash_item")]

# ---- paths ------------------------------------------------------------------------------------------------------------

def _split(path) -> tuple:
    "(parent, name) of an absolute normalized path; the root has no parent."
    if path == "/": return None, "/"
    head, _, name = path.rpartition("/")
    return head or "/", name

def _join(a, b) -> str: return a.rstrip("/") + "/" + b

def _under(path, root) -> bool:
    "Whether `path` is `root` or inside it."
    return path == root or path.startswith(root.rstrip("/") + "/")

def _norm(st, path: str) -> str:
    "The absolute normalized form of `path` (relative to the working directory); never above '/'."
    p = path.strip()
    if not p: raise ToolError("path must not be empty")
    if "\x00" in p: raise ToolError("path must not contain NUL characters")
    if p == "~" or p.startswith("~/"): p = f"/home/{st.get('shell', SHELL)['user']}" + p[1:]
    elif not p.startswith("/"): p = st.get("shell", SHELL)["cwd"] + "/" + p
    parts = []
    for c in p.split("/"):
        if c in ("", "."): continue
        if c == "..":
            if not parts: raise ToolError(f"path '{path}' escapes the root directory")
            parts.pop()
        elif len(c) > 255: raise ToolError(f"file name '{c[:20]}...' is longer than 255 characters")
        else: parts.append(c)
    return "/" + "/".join(parts)

def _resolve(st, path: str, follow: bool = True) -> str:
    "The normalized path with symbolic links replaced by their targets (the last component only when `follow`)."
    queue, cur, hops = deque(c for c in _norm(st, path).split("/") if c), "/", 0
    while queue:
        nxt = _join(cur, queue.popleft())
        node = st.get("node", nxt)
        if node is not None and node["kind"] == "symlink" and (queue or follow):
            hops += 1
            if hops > 8: raise ToolError(f"too many levels of symbolic links in '{path}'")
            queue.extendleft(reversed([c for c in node["target"].split("/") if c]))
            cur = "/"
            continue
        if node is not None and node["kind"] == "file" and queue: raise ToolError(f"'{nxt}' is a file, not a directory")
        cur = nxt
    return cur

def _subtree(st, root: str) -> list:
    "Rows at or under `root`, sorted by path."
    return sorted((r for r in st.rows("node") if _under(r["path"], root)), key=lambda r: r["path"])

# ---- users and permissions --------------------------------------------------------------------------------------------

def _me(st): return st.get("user", st.get("shell", SHELL)["user"])

def _access(me, node) -> int:
    "The rwx bits (4, 2, 1) `me` holds on `node`."
    m = node["mode"]
    digit = m[0] if node["owner"] == me["username"] else m[1] if node["group"] in me["groups"] else m[2]
    return int(digit)

def _rwx(bits: int) -> str: return "".join(c if bits & b else "-" for c, b in (("r", 4), ("w", 2), ("x", 1)))

def _allow(me, node, bits: str, verb: str):
    need = sum({"r": 4, "w": 2, "x": 1}[b] for b in bits)
    if _access(me, node) & need != need:
        raise ToolError(f"permission denied: {me['username']} cannot {verb} '{node['path']}' "
                        f"(mode {node['mode']}, owner {node['owner']}, group {node['group']})")

def _traverse(st, me, path: str):
    "Check x on every directory above `path`."
    parent = _split(path)[0]
    chain = []
    while parent is not None:
        chain.append(parent)
        parent = _split(parent)[0]
    for d in reversed(chain):
        node = st.get("node", d)
        if node is not None: _allow(me, node, "x", "enter")

def _get(st, me, path: str, follow: bool = True):
    "The existing node at `path`, reachable by `me`."
    p = _resolve(st, path, follow)
    _traverse(st, me, p)
    node = st.get("node", p)
    if node is None: raise ToolError(f"no such file or directory: '{p}'")
    return node

def _dir(st, me, path: str):
    node = _get(st, me, path)
    if node["kind"] != "dir": raise ToolError(f"'{node['path']}' is a {node['kind']}, not a directory")
    return node

def _file(st, me, path: str):
    node = _get(st, me, path)
    if node["kind"] != "file": raise ToolError(f"'{node['path']}' is a directory, not a file")
    return node

def _text_of(node) -> str:
    if node["binary"]: raise ToolError(f"'{node['path']}' is a binary file ({node['size']} bytes) and cannot be read as text")
    return node["content"]

def _is_admin(me) -> bool: return "admin" in me["groups"]

def _unlocked(me, rows):
    "Refuse when a row is locked by someone other than `me`."
    for r in rows:
        if r["locked_by"] not in (None, me["username"]): raise ToolError(f"'{r['path']}' is locked by {r['locked_by']}")

def _new_slot(st, me, path: str, follow: bool = False) -> str:
    "The resolved path of a new entry: it must not exist and its parent must be a directory `me` may write."
    p = _resolve(st, path, follow)
    if p == "/": raise ToolError("the root directory already exists")
    if st.get("node", p) is not None: raise ToolError(f"'{p}' already exists")
    parent = _split(p)[0]
    pn = st.get("node", parent)
    if pn is None: raise ToolError(f"parent directory '{parent}' does not exist (create it with make_directory)")
    if pn["kind"] != "dir": raise ToolError(f"'{parent}' is not a directory")
    _traverse(st, me, parent)
    _allow(me, pn, "wx", "create entries in")
    return p

def _removable(st, me, node):
    "Check that `me` may unlink `node` (and everything below it) and that the shell is not inside it."
    if node["path"] == "/": raise ToolError("the root directory cannot be removed")
    cwd = st.get("shell", SHELL)["cwd"]
    if _under(cwd, node["path"]): raise ToolError(f"'{node['path']}' contains the current working directory {cwd}; change directory first")
    _allow(me, st.get("node", node["parent"]), "wx", "remove entries from")
    rows = _subtree(st, node["path"]) if node["kind"] == "dir" else [node]
    nonempty = {r["parent"] for r in rows if r["path"] != node["path"]}
    for r in rows:
        if r["path"] in nonempty: _allow(me, r, "rwx", "remove entries from")
    _unlocked(me, rows)
    return rows

def _touch_dir(st, path):
    if path is not None: st.update("node", path, modified=st.meta["now"])

def _usage(st) -> dict:
    "Bytes of files owned, by user."
    out = {}
    for r in st.rows("node"):
        if r["kind"] == "file": out[r["owner"]] = out.get(r["owner"], 0) + r["size"]
    return out

def _charge(st, deltas: dict):
    "Refuse growth that would put a user over quota: `deltas` is {username: bytes added}."
    grow = {u: d for u, d in deltas.items() if d > 0}
    if not grow: return
    used = _usage(st)
    for u, d in sorted(grow.items()):
        q = st.get("user", u)["quota_bytes"]
        if used.get(u, 0) + d > q:
            raise ToolError(f"disk quota exceeded for {u}: {used.get(u, 0)} of {q} bytes used, {d} more needed")

def _info(node, me=None) -> dict:
    "A node's metadata (no contents)."
    out = {k: node[k] for k in ("path", "name", "kind", "size", "owner", "group", "mode", "modified")}
    if node["kind"] == "symlink": out["target"] = node["target"]
    if node["locked_by"]: out["locked_by"] = node["locked_by"]
    if me is not None: out["access"] = _rwx(_access(me, node))
    return out

def _put_file(st, me, path, content, node=None):
    "Create or overwrite a text file at resolved `path` and return its row."
    size, now = len(content.encode()), st.meta["now"]
    if node is None:
        _charge(st, {me["username"]: size})
        row = st.insert("node", _row(path, "file", me["username"], me["primary_group"], "644", now, now, content, size))
        _touch_dir(st, row["parent"])
        return row
    _charge(st, {node["owner"]: size - node["size"]})
    return st.update("node", path, content=content, size=size, binary=False, entries=None, modified=now)

def _archive_fields(entries, ext) -> dict:
    "Content token, size and entries of an archive file."
    digest = hashlib.sha256(json.dumps(thaw(list(entries)), sort_keys=True).encode()).hexdigest()[:16]
    raw, packed = sum(e["size"] for e in entries), sum(e["size"] for e in entries if e["binary"])  # binaries do not compress
    size = raw + 512 * len(entries) if ext == ".tar" else packed + (raw - packed) * 2 // 5 + 128 * len(entries)
    return {"content": f"archive:{ext[1:]}:{digest}", "size": size, "binary": True, "entries": tuple(entries)}

def _visible(st, me, root) -> list:
    "Rows strictly below directory `root` that `me` can reach (unreadable directories are listed but not entered)."
    rows = [r for r in _subtree(st, root["path"]) if r["path"] != root["path"]]
    blocked = {r["path"] for r in rows if r["kind"] == "dir" and _access(me, r) & 5 != 5}
    if not blocked: return rows
    def hidden(p):
        q = _split(p)[0]
        while q is not None and q != root["path"]:
            if q in blocked: return True
            q = _split(q)[0]
        return False
    return [r for r in rows if not hidden(r["path"])]

def _in_range(value, lo, hi, what="lines"):
    if not lo <= value <= hi: raise ToolError(f"{what} must be between {lo} and {hi}, got {value}")

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
