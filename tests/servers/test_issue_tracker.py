from prove_nb.server import load_server
from tests.servers.harness import Case, server_suite

srv = load_server("issue_tracker")
SEED = srv.seed_state(0)
TODAY = "2026-06-15"

def rows(table, **eq): return [r for r in SEED.rows(table) if all(r.get(k) == v for k, v in eq.items())]
def get(s, table, key): return s.state.get(table, key)
def newest(s, table): return max(r[s.state.specs[table].key] for r in s.state.rows(table))
def roles(p): return {m["role"]: m["user_id"] for m in rows("membership", project_id=p)}

P = next(p["project_id"] for p in rows("project", status="active") if set(roles(p["project_id"])) == {"owner", "maintainer", "developer", "reporter"})
R = roles(P)
OWNER, MAINT, DEV, REP = R["owner"], R["maintainer"], R["developer"], R["reporter"]
OUTSIDER = next(u["user_id"] for u in rows("user") if not rows("membership", project_id=P, user_id=u["user_id"]))
ARCHIVED = rows("project", status="archived")[0]["project_id"]
OTHER = next(p["project_id"] for p in rows("project", status="active") if p["project_id"] != P)
LABEL, FOREIGN_LABEL = rows("label", project_id=P)[0]["label_id"], rows("label", project_id=OTHER)[0]["label_id"]
MILESTONE = rows("milestone", project_id=P, status="open")[0]["milestone_id"]
CLOSED_MS = rows("milestone", status="closed")[0]
def issue(status, project=P, **eq): return next(i["issue_id"] for i in rows("issue", project_id=project, status=status, **eq))

NEW = ("create_tracker_issue", {"project_id": P, "reporter_id": REP, "title": "Checkout button overlaps footer", "issue_type": "bug"})
NEW2 = ("create_tracker_issue", {"project_id": P, "reporter_id": DEV, "title": "Refactor cart service", "issue_type": "task"})
LAST = lambda s: {"issue_id": newest(s, "issue")}
ASSIGN = ("assign_tracker_issue", lambda s: {**LAST(s), "assignee_id": DEV})
START = ("start_issue_progress", LAST)
REVIEW = ("submit_issue_for_review", LAST)
READY = [NEW, ASSIGN, START, REVIEW]
NEXT = [f"iss_{SEED.count('issue') + k:04d}" for k in (1, 2, 3)]  # ids the next three new issues get
PREV = lambda s: f"iss_{int(newest(s, 'issue')[4:]) - 1:04d}"

def check_created(s, r):
    assert r.content["status"] == "open" and r.content["label_ids"] == [LABEL]
    assert r.content["key"] == f"{SEED.get('project', P)['key']}-{len(rows('issue', project_id=P)) + 1}"

CASES = [
    Case("list_tracker_projects", {}, check=lambda s, r: r.content and all(p["status"] == "active" for p in r.content)
         and sum(p["unresolved_issues"] for p in r.content) > 0),
    Case("list_tracker_projects", {"query": 3}, ok=False, error="must be string"),
    Case("find_tracker_users", {"query": SEED.get("user", DEV)["username"]}, check=lambda s, r: r.content[0]["user_id"] == DEV),
    Case("find_tracker_users", {"query": ["x"]}, ok=False, error="must be string"),
    Case("list_project_members", {"project_id": P, "role": "reporter"}, check=lambda s, r: r.content and all(m["role"] == "reporter" for m in r.content)),
    Case("list_project_members", {"project_id": "prj_9999"}, ok=False, error="no project"),
    Case("search_tracker_issues", {"project_id": P, "status": "open", "limit": 50},
         check=lambda s, r: r.content and all(i["status"] == "open" and i["project_id"] == P for i in r.content)
         and [i["priority"] for i in r.content] == sorted((i["priority"] for i in r.content), key=["critical", "high", "medium", "low"].index)),
    Case("search_tracker_issues", {"text": rows("issue")[0]["key"].lower()}, check=lambda s, r: [i["issue_id"] for i in r.content] == [rows("issue")[0]["issue_id"]]),
    Case("search_tracker_issues", {"status": "done"}, ok=False, error="must be one of"),
    Case("get_tracker_issue", {"issue_id": rows("issue_link", kind="blocks")[0]["target_issue_id"]},
         check=lambda s, r: any(l["kind"] == "blocks" for l in r.content["links"]) and isinstance(r.content["blocked_by_open"], list)),
    Case("get_tracker_issue", {"issue_id": "iss_9999"}, ok=False, error="no issue"),
    Case("list_project_labels", {"project_id": P}, check=lambda s, r: {l["label_id"] for l in r.content} == {l["label_id"] for l in rows("label", project_id=P)}),
    Case("list_project_labels", {}, ok=False, error="missing required parameter"),
    Case("list_project_milestones", {"project_id": P, "status": "open"}, check=lambda s, r: r.content and all(m["status"] == "open" for m in r.content)),
    Case("list_project_milestones", {"project_id": P, "status": "done"}, ok=False, error="must be one of"),
    Case("create_tracker_issue", {**NEW[1], "label_ids": [LABEL, LABEL]}, check=check_created),
    Case("create_tracker_issue", {**NEW[1], "reporter_id": OUTSIDER}, ok=False, error="not a member"),
    Case("create_tracker_issue", {**NEW[1], "project_id": ARCHIVED, "reporter_id": rows("membership", project_id=ARCHIVED)[0]["user_id"]},
         ok=False, error="archived"),
    Case("create_tracker_issue", {**NEW[1], "label_ids": [FOREIGN_LABEL]}, ok=False, error="another project"),
    Case("assign_tracker_issue", lambda s: {**LAST(s), "assignee_id": DEV}, setup=[NEW], check=lambda s, r: r.content["assignee_id"] == DEV),
    Case("assign_tracker_issue", lambda s: {**LAST(s), "assignee_id": REP}, setup=[NEW], ok=False, error="only owners or maintainers or developers can be assigned"),
    Case("assign_tracker_issue", lambda s: {**LAST(s), "assignee_id": OUTSIDER}, setup=[NEW], ok=False, error="not a member"),
    Case("assign_tracker_issue", {"issue_id": issue("closed"), "assignee_id": DEV}, ok=False, error="reopen it first"),
    Case("set_issue_priority", lambda s: {**LAST(s), "priority": "critical"}, setup=[NEW], check=lambda s, r: r.content["priority"] == "critical"),
    Case("set_issue_priority", lambda s: {**LAST(s), "priority": "medium"}, setup=[NEW], ok=False, error="already has priority"),
    Case("start_issue_progress", LAST, setup=[NEW, ASSIGN], check=lambda s, r: r.content["status"] == "in_progress"),
    Case("start_issue_progress", LAST, setup=[NEW], ok=False, error="no assignee"),
    Case("start_issue_progress", LAST, setup=[NEW2, NEW, ASSIGN, ("link_tracker_issues", lambda s: {"source_issue_id": PREV(s), "target_issue_id": newest(s, "issue"), "kind": "blocks"})],
         ok=False, error="blocked by"),
    Case("submit_issue_for_review", LAST, setup=[NEW, ASSIGN, START], check=lambda s, r: r.content["status"] == "review"),
    Case("submit_issue_for_review", LAST, setup=[NEW], ok=False, error="only in_progress"),
    Case("close_tracker_issue", lambda s: {**LAST(s), "actor_id": MAINT, "resolution": "fixed"}, setup=READY,
         check=lambda s, r: r.content["status"] == "closed" and r.content["resolution"] == "fixed"),
    Case("close_tracker_issue", lambda s: {**LAST(s), "actor_id": OWNER, "resolution": "duplicate"},
         setup=[NEW2, NEW, ("link_tracker_issues", lambda s: {"source_issue_id": newest(s, "issue"), "target_issue_id": PREV(s), "kind": "duplicates"})],
         check=lambda s, r: r.content["resolution"] == "duplicate"),
    Case("close_tracker_issue", lambda s: {**LAST(s), "actor_id": MAINT, "resolution": "fixed"}, setup=[NEW], ok=False, error="must pass review"),
    Case("close_tracker_issue", lambda s: {**LAST(s), "actor_id": DEV, "resolution": "wont_fix"}, setup=[NEW], ok=False, error="only owners or maintainers can close"),
    Case("close_tracker_issue", lambda s: {**LAST(s), "actor_id": MAINT, "resolution": "duplicate"}, setup=[NEW], ok=False, error="not linked as a duplicate"),
    Case("reopen_tracker_issue", {"issue_id": issue("closed"), "actor_id": REP, "reason": "Still happens on Android"},
         check=lambda s, r: r.content["status"] == "open" and r.content["resolution"] is None
         and get(s, "comment", newest(s, "comment"))["body"] == "Reopened: Still happens on Android"),
    Case("reopen_tracker_issue", {"issue_id": issue("open"), "actor_id": REP, "reason": "x"}, ok=False, error="not closed"),
    Case("add_issue_comment", {"issue_id": issue("open"), "author_id": REP, "body": "Seeing this too."},
         check=lambda s, r: get(s, "comment", r.content["comment_id"])["issue_id"] == issue("open")),
    Case("add_issue_comment", {"issue_id": issue("open"), "author_id": OUTSIDER, "body": "Me too"}, ok=False, error="not a member"),
    Case("add_issue_comment", {"issue_id": rows("issue", project_id=ARCHIVED)[0]["issue_id"], "author_id": OWNER, "body": "hi"}, ok=False, error="read-only"),
    Case("apply_issue_label", lambda s: {**LAST(s), "label_id": LABEL}, setup=[NEW], check=lambda s, r: r.content["label_ids"] == [LABEL]),
    Case("apply_issue_label", lambda s: {**LAST(s), "label_id": FOREIGN_LABEL}, setup=[NEW], ok=False, error="another project"),
    Case("apply_issue_label", lambda s: {**LAST(s), "label_id": LABEL}, setup=[NEW, ("apply_issue_label", lambda s: {**LAST(s), "label_id": LABEL})],
         ok=False, error="already has label"),
    Case("create_project_milestone", {"project_id": P, "actor_id": MAINT, "title": "v9.0", "due_date": "2026-12-01"},
         check=lambda s, r: get(s, "milestone", r.content["milestone_id"])["status"] == "open"),
    Case("create_project_milestone", {"project_id": P, "actor_id": DEV, "title": "v9.0", "due_date": "2026-12-01"}, ok=False, error="create milestones"),
    Case("create_project_milestone", {"project_id": P, "actor_id": OWNER, "title": "v9.0", "due_date": "2026-01-01"}, ok=False, error="in the past"),
    Case("create_project_milestone", {"project_id": P, "actor_id": OWNER, "title": SEED.get("milestone", MILESTONE)["title"], "due_date": "2026-12-01"},
         ok=False, error="already has a milestone"),
    Case("set_issue_milestone", lambda s: {**LAST(s), "milestone_id": MILESTONE}, setup=[NEW], check=lambda s, r: r.content["milestone_id"] == MILESTONE),
    Case("set_issue_milestone", lambda s: {"issue_id": issue("open", CLOSED_MS["project_id"]), "milestone_id": CLOSED_MS["milestone_id"]},
         ok=False, error="is closed"),
    Case("set_issue_milestone", lambda s: {**LAST(s), "milestone_id": rows("milestone", project_id=OTHER)[0]["milestone_id"]}, setup=[NEW],
         ok=False, error="another project"),
    Case("link_tracker_issues", lambda s: {"source_issue_id": PREV(s), "target_issue_id": newest(s, "issue"), "kind": "blocks"}, setup=[NEW, NEW2],
         check=lambda s, r: r.content["kind"] == "blocks"),
    Case("link_tracker_issues", {"source_issue_id": "iss_0001", "target_issue_id": "iss_0001", "kind": "relates_to"}, ok=False, error="itself"),
    Case("link_tracker_issues", lambda s: {"source_issue_id": newest(s, "issue"), "target_issue_id": PREV(s), "kind": "blocks"},
         setup=[NEW, NEW2, ("link_tracker_issues", lambda s: {"source_issue_id": PREV(s), "target_issue_id": newest(s, "issue"), "kind": "blocks"})],
         ok=False, error="cycle"),
    Case("link_tracker_issues", {"source_issue_id": NEXT[2], "target_issue_id": NEXT[0], "kind": "blocks"},
         setup=[NEW, NEW2, NEW, *[("link_tracker_issues", {"source_issue_id": a, "target_issue_id": b, "kind": "blocks"})
                                  for a, b in zip(NEXT, NEXT[1:])]], ok=False, error="cycle"),
    Case("link_tracker_issues", lambda s: {"source_issue_id": PREV(s), "target_issue_id": newest(s, "issue"), "kind": "relates_to"},
         setup=[NEW, NEW2, ("link_tracker_issues", lambda s: {"source_issue_id": newest(s, "issue"), "target_issue_id": PREV(s), "kind": "relates_to"})],
         ok=False, error="already linked"),
    Case("link_tracker_issues", lambda s: {"source_issue_id": newest(s, "issue"), "target_issue_id": issue("open", OTHER), "kind": "duplicates"},
         setup=[NEW], ok=False, error="same project"),
    Case("add_project_member", {"project_id": P, "actor_id": OWNER, "user_id": OUTSIDER, "role": "maintainer"},
         check=lambda s, r: s.state.find("membership", project_id=P, user_id=OUTSIDER)[0]["role"] == "maintainer"),
    Case("add_project_member", {"project_id": P, "actor_id": MAINT, "user_id": OUTSIDER, "role": "maintainer"}, ok=False, error="add a maintainer"),
    Case("add_project_member", {"project_id": P, "actor_id": MAINT, "user_id": DEV, "role": "developer"}, ok=False, error="already a developer"),
]

globals().update(server_suite(srv, CASES, n_tools=20, seeds=[(0, "small"), (1, "small"), (0, "large"), (2, "tiny")]))

def test_blocker_must_close_before_fixed():
    "A fixed close waits for the blocking issue; once the blocker is closed it goes through."
    s = srv.session(0)
    for tool, args in [NEW2, *READY]: assert s.call(tool, args(s) if callable(args) else args).ok
    blocked, blocker = newest(s, "issue"), PREV(s)
    assert s.call("link_tracker_issues", {"source_issue_id": blocker, "target_issue_id": blocked, "kind": "blocks"}).ok
    r = s.call("close_tracker_issue", {"issue_id": blocked, "actor_id": OWNER, "resolution": "fixed"})
    assert not r.ok and blocker in r.error
    assert s.call("close_tracker_issue", {"issue_id": blocker, "actor_id": OWNER, "resolution": "wont_fix"}).ok
    assert s.call("close_tracker_issue", {"issue_id": blocked, "actor_id": OWNER, "resolution": "fixed"}).ok

def test_seed_is_coherent():
    "Reporters and assignees are members, assignees are not mere reporters, labels are the project's, blocks links have no cycle."
    st = srv.seed_state(0, "small")
    role = {(m["project_id"], m["user_id"]): m["role"] for m in st.rows("membership")}
    assert len(role) == st.count("membership")
    for i in st.rows("issue"):
        assert (i["project_id"], i["reporter_id"]) in role
        assert i["assignee_id"] is None or role.get((i["project_id"], i["assignee_id"])) not in (None, "reporter")
        assert all(st.get("label", l)["project_id"] == i["project_id"] for l in i["label_ids"])
        assert i["status"] not in ("in_progress", "review") or i["assignee_id"]
    assert all(l["source_issue_id"] < l["target_issue_id"] for l in st.rows("issue_link") if l["kind"] == "blocks")
