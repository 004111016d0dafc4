"""The filesystem server's core: the `server` object, its seed data and row factories, and the path, user and permission
helpers its read tools (`read`) and write tools (`write`) share. The rules they enforce are in the package docstring."""
import hashlib, json
from collections import deque
from datetime import datetime, timedelta
from typing import Annotated

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.filesystem.phrasing import PHRASES
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
    {"group": 6, "user": 8, "node": 160, "trash_item": 5, "shell": 1}, now=NOW, phrases=PHRASES)

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
