import hashlib

import pytest
from prove_nb.server import load_server
from prove_nb.state import integrity_errors
from prove_nb.servers.filesystem import _usage
from tests.servers.harness import Case, run_case, server_suite

srv = load_server("filesystem")
HOME = "/home/ada"  # the shell's user is always the first non-root user, ada, starting in her home

def node(s, path): return s.state.get("node", path)
def cwd(s): return s.state.get("shell", "sh_0001")["cwd"]
def W(path, content="alpha\nbeta\ngamma\n"): return ("write_text_file", {"path": path, "content": content})
MK = ("make_directory", {"path": "work/sub", "parents": True})
TREE = [MK, W("work/a.md", "# A\nneedle here\n"), W("work/sub/b.txt", "one\ntwo\n")]
ARCHIVE = ("create_file_archive", {"paths": ["work"], "archive_path": "work.zip"})

def lock_as_ben(path, **extra):
    "Args for a call on `path` after ben (not the shell's user) locked it (a fixture: no tool acts as another user)."
    def args(s):
        s.state.update("node", path, locked_by="ben")
        return {"path": path, **extra}
    return args

def used(s, u): return _usage(s.state).get(u, 0)

CASES = [
    # reads
    Case("get_working_directory", {}, check=lambda s, r: r.content == {"cwd": HOME, "user": "ada"}),
    Case("get_working_directory", {"path": "/"}, ok=False, error="unexpected parameter"),
    Case("get_current_fs_user", {}, check=lambda s, r: r.content["is_admin"] and r.content["used_bytes"] == used(s, "ada")),
    Case("get_current_fs_user", {"user": "ben"}, ok=False, error="unexpected parameter"),
    Case("list_fs_users", {"group": "staff"}, check=lambda s, r: r.content and all("staff" in u["groups"] for u in r.content)),
    Case("list_fs_users", {"group": "wizards"}, ok=False, error="no group"),
    Case("list_directory", {"path": "work", "sort_by": "size"}, setup=TREE,
         check=lambda s, r: [e["name"] for e in r.content] == ["a.md", "sub"] and r.content[0]["access"] == "rw-"),
    Case("list_directory", {"path": "/home/chloe"}, ok=False, error="permission denied"),
    Case("show_directory_tree", {"path": "work", "max_depth": 3}, setup=TREE,
         check=lambda s, r: r.content["tree"] == f"{HOME}/work\n  a.md\n  sub/\n    b.txt" and r.content["files"] == 2),
    Case("show_directory_tree", {"max_depth": 0}, ok=False, error="max_depth"),
    Case("get_path_info", {"path": "work/a.md"}, setup=TREE,
         check=lambda s, r: r.content["owner"] == "ada" and r.content["size"] == 16 and r.content["parent"] == f"{HOME}/work"),
    Case("get_path_info", {"path": "work/missing.md"}, ok=False, error="no such file"),
    Case("read_text_file", {"path": "notes.txt", "start_line": 2, "end_line": 3}, setup=[W("notes.txt")],
         check=lambda s, r: r.content["content"] == "beta\ngamma\n" and r.content["total_lines"] == 3),
    Case("read_text_file", {"path": "notes.txt", "start_line": 9}, setup=[W("notes.txt")], ok=False, error="past the end"),
    Case("read_text_file", {"path": "work.zip"}, setup=TREE + [ARCHIVE], ok=False, error="binary file"),
    Case("read_file_head", {"path": "notes.txt", "lines": 2}, setup=[W("notes.txt")], check=lambda s, r: r.content["lines"] == ["alpha", "beta"]),
    Case("read_file_head", {"path": "notes.txt", "lines": 0}, setup=[W("notes.txt")], ok=False, error="between 1 and 1000"),
    Case("read_file_tail", {"path": "notes.txt", "lines": 1}, setup=[W("notes.txt")], check=lambda s, r: r.content["lines"] == ["gamma"]),
    Case("read_file_tail", {"path": "/etc"}, ok=False, error="not a file"),
    Case("search_file_contents", {"pattern": "NEEDLE", "path": "work", "ignore_case": True}, setup=TREE,
         check=lambda s, r: r.content == [{"path": f"{HOME}/work/a.md", "line_number": 2, "line": "needle here"}]),
    Case("search_file_contents", {"pattern": "(", "regex": True}, ok=False, error="invalid regular expression"),
    Case("search_file_contents", {"pattern": "a" * 501}, ok=False, error="at most 500"),
    Case("search_file_contents", {"pattern": "(a|aa)+$", "path": "bad.txt", "regex": True}, setup=[("write_text_file", {"path": "bad.txt", "content": "a" * 80 + "!"})],
         ok=False, error="s of matching a search may use"),
    Case("find_paths", {"path": "/", "name": "*.txt", "kind": "file", "owner": "ada"}, setup=TREE,
         check=lambda s, r: f"{HOME}/work/sub/b.txt" in [e["path"] for e in r.content] and all(e["name"].endswith(".txt") for e in r.content)),
    Case("find_paths", {"owner": "nobody"}, ok=False, error="no user"),
    Case("count_file_words", {"path": "work/a.md"}, setup=TREE,
         check=lambda s, r: (r.content["lines"], r.content["words"], r.content["bytes"]) == (2, 4, 16)),
    Case("count_file_words", {"path": "work.zip"}, setup=TREE + [ARCHIVE], ok=False, error="binary file"),
    Case("compare_files", {"path_a": "x.txt", "path_b": "y.txt"}, setup=[W("x.txt"), W("y.txt", "alpha\nBETA\ngamma\n")],
         check=lambda s, r: not r.content["identical"] and (r.content["added"], r.content["removed"]) == (1, 1) and "+BETA" in r.content["diff"]),
    Case("compare_files", {"path_a": "x.txt", "path_b": "x.txt", "context_lines": 11}, setup=[W("x.txt")], ok=False, error="context_lines"),
    Case("get_disk_usage", {"path": "work"}, setup=TREE,
         check=lambda s, r: (r.content["bytes"], r.content["files"], r.content["directories"]) == (24, 2, 1)),
    Case("get_disk_usage", {"path": "work/a.md"}, setup=TREE, ok=False, error="not a directory"),
    Case("get_file_checksum", {"path": "notes.txt", "algorithm": "md5"}, setup=[W("notes.txt")],
         check=lambda s, r: r.content["checksum"] == hashlib.md5(b"alpha\nbeta\ngamma\n").hexdigest()),
    Case("get_file_checksum", {"path": "notes.txt", "algorithm": "crc32"}, setup=[W("notes.txt")], ok=False, error="must be one of"),
    Case("list_file_trash", {}, check=lambda s, r: r.content and all(s.state.get("trash_item", t["trash_id"])["deleted_by"] == "ada" for t in r.content)),
    Case("list_file_trash", {"name": 3}, ok=False, error="must be string"),
    Case("get_disk_quota", {"username": "ben"}, check=lambda s, r: r.content["used_bytes"] == used(s, "ben")
         and r.content["free_bytes"] == r.content["quota_bytes"] - r.content["used_bytes"]),
    Case("get_disk_quota", {"username": "nobody"}, ok=False, error="no user"),
    # writes
    Case("change_working_directory", {"path": "../../tmp"}, check=lambda s, r: cwd(s) == "/tmp"),
    Case("change_working_directory", {"path": "/home/chloe/documents"}, ok=False, error="cannot enter '/home/chloe'"),
    Case("make_directory", {"path": "a/b/c", "parents": True, "mode": "700"},
         check=lambda s, r: r.content["created"] == [f"{HOME}/a", f"{HOME}/a/b", f"{HOME}/a/b/c"] and node(s, f"{HOME}/a/b")["mode"] == "700"),
    Case("make_directory", {"path": "a/b/c"}, ok=False, error="parent directory '/home/ada/a/b' does not exist"),
    Case("make_directory", {"path": "/home/chloe/x"}, ok=False, error="permission denied"),
    Case("write_text_file", {"path": "./new//file.txt", "content": "hi"}, setup=[("make_directory", {"path": "new"})],
         check=lambda s, r: node(s, f"{HOME}/new/file.txt")["content"] == "hi" and node(s, f"{HOME}/new/file.txt")["parent"] == f"{HOME}/new"),
    Case("write_text_file", {"path": "notes.txt", "content": "x"}, setup=[W("notes.txt")], ok=False, error="overwrite=true"),
    Case("write_text_file", {"path": "/../x.txt", "content": "x"}, ok=False, error="escapes the root"),
    Case("write_text_file", {"path": "big.txt", "content": "x" * 5000}, setup=[("set_disk_quota", lambda s: {"username": "ada", "quota_bytes": used(s, "ada") + 1000})],
         ok=False, error="disk quota exceeded"),
    Case("append_to_file", {"path": "notes.txt", "content": "delta"}, setup=[W("notes.txt")],
         check=lambda s, r: node(s, f"{HOME}/notes.txt")["content"] == "alpha\nbeta\ngamma\ndelta" and r.content["bytes_added"] == 5),
    Case("append_to_file", {"path": "missing.txt", "content": "x"}, ok=False, error="no such file"),
    Case("append_to_file", lock_as_ben(f"{HOME}/notes.txt", content="more"), setup=[W("notes.txt")], ok=False, error="locked by ben"),
    Case("touch_path", {"path": "empty.log"}, check=lambda s, r: node(s, f"{HOME}/empty.log")["size"] == 0 and r.content["created"]),
    Case("touch_path", {"path": "/home/chloe/x"}, ok=False, error="permission denied"),
    Case("replace_text_in_file", {"path": "notes.txt", "old_text": "a", "new_text": "A", "count": 2}, setup=[W("notes.txt")],
         check=lambda s, r: node(s, f"{HOME}/notes.txt")["content"] == "AlphA\nbeta\ngamma\n" and r.content["replacements"] == 2),
    Case("replace_text_in_file", {"path": "notes.txt", "old_text": "omega", "new_text": "x"}, setup=[W("notes.txt")], ok=False, error="does not occur"),
    Case("copy_path", {"source": "work", "destination": "/tmp", "recursive": True}, setup=TREE,
         check=lambda s, r: node(s, "/tmp/work/sub/b.txt")["content"] == "one\ntwo\n" and node(s, "/tmp/work/sub")["parent"] == "/tmp/work"
         and node(s, f"{HOME}/work/a.md") is not None and integrity_errors(s.state) == []),
    Case("copy_path", {"source": "work", "destination": "/tmp"}, setup=TREE, ok=False, error="recursive=true"),
    Case("move_path", {"source": f"{HOME}/work", "destination": "/tmp"}, setup=TREE + [("change_working_directory", {"path": "work/sub"})],
         check=lambda s, r: node(s, f"{HOME}/work") is None and node(s, "/tmp/work/sub/b.txt") is not None and cwd(s) == "/tmp/work/sub"
         and integrity_errors(s.state) == []),
    Case("move_path", {"source": "work", "destination": "work/sub"}, setup=TREE, ok=False, error="inside itself"),
    Case("rename_path", {"path": "work", "new_name": "play"}, setup=TREE,
         check=lambda s, r: node(s, f"{HOME}/play/sub/b.txt")["parent"] == f"{HOME}/play/sub" and node(s, f"{HOME}/work/a.md") is None),
    Case("rename_path", {"path": "work", "new_name": "a/b"}, setup=TREE, ok=False, error="not a valid file name"),
    Case("remove_file", {"path": "notes.txt"}, setup=[W("notes.txt")], check=lambda s, r: node(s, f"{HOME}/notes.txt") is None),
    Case("remove_file", {"path": "work"}, setup=TREE, ok=False, error="use remove_directory"),
    Case("remove_directory", {"path": "work", "recursive": True}, setup=TREE,
         check=lambda s, r: r.content["entries_removed"] == 4 and not any(p["path"].startswith(f"{HOME}/work") for p in s.state.rows("node"))),
    Case("remove_directory", {"path": "work"}, setup=TREE, ok=False, error="not empty"),
    Case("remove_directory", {"path": HOME, "recursive": True}, ok=False, error="current working directory"),
    Case("trash_path", {"path": "work"}, setup=TREE,
         check=lambda s, r: node(s, f"{HOME}/work") is None and len(s.state.get("trash_item", r.content["trash_id"])["nodes"]) == 4),
    Case("trash_path", {"path": "/"}, ok=False, error="root directory cannot be removed"),
    Case("restore_from_file_trash", lambda s: {"trash_id": "trs_0006", "destination": "/tmp/restored"},
         setup=TREE + [("trash_path", {"path": "work"})],
         check=lambda s, r: node(s, "/tmp/restored/sub/b.txt")["owner"] == "ada" and s.state.get("trash_item", "trs_0006") is None),
    Case("restore_from_file_trash", {"trash_id": "trs_0006"}, setup=[W("notes.txt"), ("trash_path", {"path": "notes.txt"}), W("notes.txt")],
         ok=False, error="already exists"),
    Case("empty_file_trash", {}, check=lambda s, r: not s.state.find("trash_item", deleted_by="ada") and r.content["deleted"]),
    Case("empty_file_trash", {}, setup=[("empty_file_trash", {})], ok=False, error="already empty"),
    Case("create_symlink", {"target": "work/sub", "link_path": "shortcut"}, setup=TREE,
         check=lambda s, r: node(s, f"{HOME}/shortcut")["target"] == f"{HOME}/work/sub"
         and s.call("read_text_file", {"path": "shortcut/b.txt"}).content["path"] == f"{HOME}/work/sub/b.txt"),
    Case("create_symlink", {"target": "nowhere", "link_path": "shortcut"}, ok=False, error="does not exist"),
    Case("change_permissions", {"path": "work", "mode": "750", "recursive": True}, setup=TREE,
         check=lambda s, r: node(s, f"{HOME}/work/sub/b.txt")["mode"] == "750" and r.content["changed"] == 4),
    Case("change_permissions", {"path": "/etc", "mode": "777"}, ok=False, error="only the owner root"),
    Case("change_permissions", {"path": "notes.txt", "mode": "rwx"}, setup=[W("notes.txt")], ok=False, error="three octal digits"),
    Case("change_owner", {"path": "notes.txt", "new_owner": "ben"}, setup=[W("notes.txt")],
         check=lambda s, r: node(s, f"{HOME}/notes.txt")["owner"] == "ben"),
    Case("change_owner", {"path": "notes.txt", "new_owner": "ben"},
         setup=[W("notes.txt", "x" * 2000), ("set_disk_quota", lambda s: {"username": "ben", "quota_bytes": used(s, "ben") + 1000})],
         ok=False, error="disk quota exceeded for ben"),
    Case("change_group", {"path": "notes.txt", "group": "dev"}, setup=[W("notes.txt")], check=lambda s, r: node(s, f"{HOME}/notes.txt")["group"] == "dev"),
    Case("change_group", {"path": "notes.txt", "group": "wizards"}, setup=[W("notes.txt")], ok=False, error="no group"),
    Case("set_disk_quota", {"username": "ben", "quota_bytes": 900_000_000}, check=lambda s, r: s.state.get("user", "ben")["quota_bytes"] == 900_000_000),
    Case("set_disk_quota", lambda s: {"username": "ada", "quota_bytes": max(1000, used(s, "ada") - 1)}, setup=[W("notes.txt", "x" * 3000)],
         ok=False, error="already uses"),
    Case("create_file_archive", {"paths": ["work", "notes.txt"], "archive_path": "bundle.tar"}, setup=TREE + [W("notes.txt")],
         check=lambda s, r: [e["path"] for e in node(s, f"{HOME}/bundle.tar")["entries"]] == ["work", "work/a.md", "work/sub", "work/sub/b.txt", "notes.txt"]
         and node(s, f"{HOME}/bundle.tar")["size"] == 16 + 8 + 17 + 512 * 5),
    Case("create_file_archive", {"paths": ["work"], "archive_path": "work.rar"}, setup=TREE, ok=False, error="must end in"),
    Case("extract_file_archive", {"archive_path": "work.zip", "destination": "/tmp"}, setup=TREE + [ARCHIVE],
         check=lambda s, r: node(s, "/tmp/work/sub/b.txt")["content"] == "one\ntwo\n" and node(s, "/tmp/work/a.md")["owner"] == "ada"
         and integrity_errors(s.state) == []),
    Case("extract_file_archive", {"archive_path": "work.zip", "destination": "."}, setup=TREE + [ARCHIVE], ok=False, error="already exists"),
    Case("extract_file_archive", {"archive_path": "work/a.md"}, setup=TREE, ok=False, error="not an archive"),
    Case("lock_file", {"path": "notes.txt"}, setup=[W("notes.txt")], check=lambda s, r: node(s, f"{HOME}/notes.txt")["locked_by"] == "ada"),
    Case("lock_file", {"path": "notes.txt"}, setup=[W("notes.txt"), ("lock_file", {"path": "notes.txt"})], ok=False, error="already locked"),
    Case("unlock_file", {"path": "notes.txt"}, setup=[W("notes.txt"), ("lock_file", {"path": "notes.txt"})],
         check=lambda s, r: node(s, f"{HOME}/notes.txt")["locked_by"] is None),
    Case("unlock_file", {"path": "notes.txt"}, setup=[W("notes.txt")], ok=False, error="not locked"),
]

globals().update(server_suite(srv, CASES, n_tools=40, seeds=None))

@pytest.mark.parametrize("seed,size", [(0, "small"), (1, "small"), (0, "large"), (3, "large")])
def test_seed_integrity(seed, size):
    st = srv.seed_state(seed, size)
    assert integrity_errors(st) == []
    assert st.get("shell", "sh_0001")["user"] == "ada" and st.get("node", "/home/ada")["kind"] == "dir"
    usage = _usage(st)
    assert all(usage.get(u["username"], 0) <= u["quota_bytes"] for u in st.rows("user"))
    assert all(r["parent"] is None or st.get("node", r["parent"])["kind"] == "dir" for r in st.rows("node"))

def test_tree_stays_consistent_through_a_session():
    s = srv.session(0)
    calls = [MK, *TREE[1:], ("create_symlink", {"target": "work", "link_path": "w"}), ("copy_path", {"source": "work", "destination": "w2", "recursive": True}),
             ("move_path", {"source": "w2", "destination": "w/sub"}), ("rename_path", {"path": "work/sub/w2", "new_name": "inner"}),
             ("trash_path", {"path": "work/sub"}), ("restore_from_file_trash", {"trash_id": "trs_0006", "destination": "back"}),
             ("create_file_archive", {"paths": ["back"], "archive_path": "/tmp/back.tar.gz"}),
             ("extract_file_archive", {"archive_path": "/tmp/back.tar.gz", "destination": "/tmp"}),
             ("remove_directory", {"path": "back", "recursive": True})]
    for name, args in calls:
        r = s.call(name, args)
        assert r.ok, (name, r.error)
    assert integrity_errors(s.state) == []
    assert s.state.get("node", "/tmp/back/inner/sub/b.txt")["content"] == "one\ntwo\n"
    assert s.call("read_text_file", {"path": "w/a.md"}).ok  # the link still points at the directory

def foreign_team_dir(s):
    "A /shared team folder whose group the shell's user is not in."
    groups = s.state.get("user", "ada")["groups"]
    return next(r["path"] for r in s.state.rows("node") if r["parent"] == "/shared" and r["group"] not in groups)

RULES = [
    Case("write_text_file", lambda s: {"path": foreign_team_dir(s) + "/x.md", "content": "x"}, ok=False, error="permission denied"),
    Case("write_text_file", {"path": "/shared/staff/x.md", "content": "x"}, check=lambda s, r: node(s, "/shared/staff/x.md")["group"] == "staff"),
    Case("read_text_file", {"path": "~/work/a.md"}, setup=TREE, check=lambda s, r: r.content["path"] == f"{HOME}/work/a.md"),
    Case("copy_path", {"source": "notes.txt", "destination": "notes.txt"}, setup=[W("notes.txt")], ok=False, error="same path"),
    Case("copy_path", {"source": "notes.txt", "destination": "n2.txt"}, setup=[W("notes.txt"), W("n2.txt", "old")], ok=False, error="overwrite=true"),
    Case("copy_path", {"source": "notes.txt", "destination": "n2.txt", "overwrite": True}, setup=[W("notes.txt"), W("n2.txt", "old")],
         check=lambda s, r: node(s, f"{HOME}/n2.txt")["content"] == "alpha\nbeta\ngamma\n"),
    Case("read_text_file", {"path": "t.txt"}, setup=[W("t.txt"), W("u.txt"), ("create_symlink", {"target": "t.txt", "link_path": "a"}),
                                                     ("create_symlink", {"target": "u.txt", "link_path": "b"}), ("remove_file", {"path": "t.txt"}),
                                                     ("remove_file", {"path": "u.txt"}), ("move_path", {"source": "b", "destination": "t.txt"}),
                                                     ("move_path", {"source": "a", "destination": "u.txt"})], ok=False, error="too many levels"),
    Case("move_path", {"source": f"{HOME}/notes.txt", "destination": "/tmp/n.txt"}, setup=[W("notes.txt"), ("lock_file", {"path": "notes.txt"})],
         check=lambda s, r: node(s, "/tmp/n.txt")["locked_by"] == "ada"),
    Case("trash_path", lock_as_ben(f"{HOME}/notes.txt"), setup=[W("notes.txt")], ok=False, error="locked by ben"),
]

@pytest.mark.parametrize("case", RULES, ids=lambda c: f"{c.tool}-{'ok' if c.ok else 'fail'}")
def test_rule(case): run_case(srv, case)

def test_seeded_archives_extract_cleanly():
    s = srv.session(0, "medium")
    arcs = [r["path"] for r in s.state.rows("node") if r["entries"] and r["path"].startswith("/home/ada/")] or \
           [r["path"] for r in s.state.rows("node") if r["entries"]][:1]
    s.state.update("node", arcs[0], mode="644", owner="ada")  # make one readable to the shell's user whatever the seed
    r = s.call("extract_file_archive", {"archive_path": arcs[0], "destination": "/tmp"})
    assert r.ok, r.error
    assert integrity_errors(s.state) == [] and r.content["extracted"]
