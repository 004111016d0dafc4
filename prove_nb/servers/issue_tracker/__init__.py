"""Issue tracker: projects with members, issues moving through a workflow, labels, comments, milestones and links (20 tools).

Rules: archived projects are read-only; reporters, commenters and assignees must be project members, and reporters
(the role) cannot be assigned; issues move open -> in_progress (needs an assignee and no open blocker) -> review ->
closed; maintainers and owners close issues, as fixed only from review and only when nothing open blocks them, as
duplicate only once linked as a duplicate; any member reopens a closed issue; labels and milestones belong to one
project; an issue cannot link to itself, pairs are linked once per kind and "blocks" links never form a cycle.
"""
from datetime import date, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.issue_tracker.phrasing import PHRASES
from prove_nb.servers._common import NOW, need
from prove_nb.state import TableSpec

Status = Literal["open", "in_progress", "review", "closed"]
Priority = Literal["low", "medium", "high", "critical"]
PRIORITIES = ("low", "medium", "high", "critical")
FIRST = ["Anya", "Bilal", "Camille", "Dara", "Emeka", "Freya", "Goran", "Hana", "Ivo", "Jade", "Karim", "Lotte", "Milan", "Neha", "Oskar", "Pilar"]
LAST = ["Arnold", "Baptiste", "Cruz", "Dahl", "Eze", "Fontaine", "Gill", "Holm", "Ito", "Jensen", "Kaur", "Lindqvist"]
PROJECTS = [("WEB", "Web Storefront"), ("API", "Public API"), ("MOB", "Mobile App"), ("OPS", "Infrastructure"), ("DATA", "Data Platform"),
            ("PAY", "Payments"), ("AUTH", "Identity"), ("DOCS", "Documentation"), ("SRCH", "Search"), ("NOTIF", "Notifications")]
LABELS = [("bug", "#d73a4a"), ("enhancement", "#a2eeef"), ("frontend", "#7057ff"), ("backend", "#0e8a16"), ("security", "#b60205"),
          ("performance", "#fbca04"), ("good first issue", "#7057ff"), ("tech debt", "#c5def5"), ("needs triage", "#ededed")]
TITLES = {"bug": ["Login button unresponsive on Safari", "Timeout when exporting large reports", "Crash on empty search query",
                  "Wrong currency symbol in invoices", "Memory leak in image cache", "Pagination skips the last page",
                  "Password reset email not sent", "Race condition in session refresh"],
          "feature": ["Add dark mode", "Support SSO with SAML", "Bulk edit for tags", "Export to CSV", "Webhook retries with backoff",
                      "Saved filters", "Two-factor authentication via app"],
          "task": ["Upgrade to Postgres 16", "Rotate API keys", "Write runbook for on-call", "Remove deprecated v1 endpoints",
                   "Add tracing to checkout flow", "Migrate CI to new runners"]}
COMMENTS = ["I can reproduce this on staging.", "Could you attach the logs?", "Working on a fix now.", "PR is up for review.",
            "This looks related to last week's deploy.", "Lowering priority, workaround exists.", "Confirmed fixed on main.",
            "Need design input before starting."]
MILESTONES = ["v2.4", "v2.5", "Q3 hardening", "Beta launch", "Sprint 14", "Sprint 15"]
ROLES = ("owner", "maintainer", "developer", "reporter")

def _day(days_from_now: int) -> str: return (date.fromisoformat(NOW[:10]) + timedelta(days=days_from_now)).isoformat()

def _days_from_now(day: str) -> int: return (date.fromisoformat(day) - date.fromisoformat(NOW[:10])).days

def _user(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"name": f"{first} {last}", "username": f"{first[0].lower()}{last.lower()}{i + 1}", "email": f"{first.lower()}.{last.lower()}{i + 1}@devco.test"}

def _project(rng, i, pick):
    key, name = PROJECTS[i % len(PROJECTS)]
    if i >= len(PROJECTS): key, name = f"{key}{i // len(PROJECTS) + 1}", f"{name} {i // len(PROJECTS) + 1}"
    return {"key": key, "name": name, "owner_id": pick("user"), "status": "archived" if i % 7 == 5 else "active",
            "created_at": _day(-rng.randint(200, 900))}

def _membership(rng, i, pick):
    "First every project's owner, then members with other roles."
    projects = pick.rows("project")
    if i < len(projects): p, user, role = projects[i], projects[i]["owner_id"], "owner"
    else: p, user, role = rng.choice(projects), pick("user"), rng.choice(ROLES[1:] + ("developer",))
    seen = pick.memo.setdefault("members", set())
    if (p["project_id"], user) in seen: return None
    seen.add((p["project_id"], user))
    return {"project_id": p["project_id"], "user_id": user, "role": role}

def _label(rng, i, pick):
    projects = pick.rows("project")
    p, (name, color) = projects[i % len(projects)], LABELS[(i // len(projects)) % len(LABELS)]  # every project gets the same first labels
    return {"project_id": p["project_id"], "name": name, "color": color}

def _milestone(rng, i, pick):
    projects = pick.rows("project")
    p, due = projects[i % len(projects)], rng.randint(-40, 90)
    return {"project_id": p["project_id"], "title": MILESTONES[(i // len(projects)) % len(MILESTONES)], "due_date": _day(due),
            "status": "closed" if due < -10 else "open"}

def _issue(rng, i, pick):
    p = rng.choice(pick.rows("project"))
    members = pick.group("membership", "project_id")[p["project_id"]]
    kind = rng.choice(["bug", "bug", "feature", "task"])
    status = rng.choice(["open", "open", "open", "in_progress", "in_progress", "review", "closed", "closed"])
    workers = [m["user_id"] for m in members if m["role"] != "reporter"]
    assignee = rng.choice(workers) if status != "open" or rng.random() < 0.5 else None
    created = -rng.randint(1, 120)
    counts = pick.memo.setdefault("issue_counts", {})
    n = counts[p["project_id"]] = counts.get(p["project_id"], 0) + 1
    labels = [l["label_id"] for l in pick.group("label", "project_id").get(p["project_id"], [])]
    milestones = [m["milestone_id"] for m in pick.group("milestone", "project_id").get(p["project_id"], []) if m["status"] == "open"]
    return {"project_id": p["project_id"], "key": f"{p['key']}-{n}",
            "title": rng.choice(TITLES[kind]), "type": kind, "priority": rng.choice(PRIORITIES + ("medium", "high")), "status": status,
            "resolution": rng.choice(["fixed", "fixed", "wont_fix"]) if status == "closed" else None,
            "reporter_id": rng.choice(members)["user_id"], "assignee_id": assignee,
            "milestone_id": rng.choice([None] + milestones),
            "label_ids": tuple(sorted(set(rng.sample(labels, min(len(labels), rng.choice([0, 1, 1, 2])))))),
            "description": f"Reported from the {p['name']} team.", "created_at": _day(created),
            "updated_at": _day(rng.randint(created, 0))}

def _comment(rng, i, pick):
    iss = rng.choice(pick.rows("issue"))
    return {"issue_id": iss["issue_id"], "author_id": rng.choice(pick.group("membership", "project_id")[iss["project_id"]])["user_id"],
            "body": rng.choice(COMMENTS), "created_at": _day(rng.randint(_days_from_now(iss["created_at"]), 0))}

def _link(rng, i, pick):
    a = rng.choice(pick.rows("issue"))["issue_id"]
    b = rng.choice(pick.group("issue", "project_id")[pick.row("issue", a)["project_id"]])["issue_id"]
    kind = rng.choice(["blocks", "blocks", "relates_to", "duplicates"])
    seen = pick.memo.setdefault("links", set())
    if a == b or (min(a, b), max(a, b)) in seen or (kind == "blocks" and a > b): return None  # blocks only point forward: no cycles
    seen.add((min(a, b), max(a, b)))
    return {"source_issue_id": a, "target_issue_id": b, "kind": kind}

server = ToolServer(
    "issue_tracker", "A software issue tracker: projects and members, issues through their workflow, labels, comments, milestones and links.",
    [TableSpec("user", "user_id", "usr_"),
     TableSpec("project", "project_id", "prj_", {"owner_id": "user"}),
     TableSpec("membership", "membership_id", "mbr_", {"project_id": "project", "user_id": "user"}),
     TableSpec("label", "label_id", "lbl_", {"project_id": "project"}),
     TableSpec("milestone", "milestone_id", "ms_", {"project_id": "project"}),
     TableSpec("issue", "issue_id", "iss_", {"project_id": "project", "reporter_id": "user", "assignee_id": "user",
                                              "milestone_id": "milestone", "label_ids": "label"}),
     TableSpec("comment", "comment_id", "cmt_", {"issue_id": "issue", "author_id": "user"}),
     TableSpec("issue_link", "link_id", "lnk_", {"source_issue_id": "issue", "target_issue_id": "issue"})],
    {"user": _user, "project": _project, "membership": _membership, "label": _label, "milestone": _milestone, "issue": _issue,
     "comment": _comment, "issue_link": _link},
    {"user": 25, "project": 6, "membership": 48, "label": 36, "milestone": 12, "issue": 80, "comment": 90, "issue_link": 40},
    now=NOW, phrases=PHRASES)

UserId = Annotated[str, Entity("user")]
ProjectId = Annotated[str, Entity("project")]
IssueId = Annotated[str, Entity("issue")]
LabelId = Annotated[str, Entity("label")]
MilestoneId = Annotated[str, Entity("milestone")]

def _today(st) -> str: return st.meta["now"][:10]

def _role(st, project_id, user_id):
    "The user's role in the project, or None."
    m = st.find("membership", project_id=project_id, user_id=user_id)
    return m[0]["role"] if m else None

def _member(st, project_id, user_id, roles=ROLES, doing="do that"):
    "Check that `user_id` is a member of the project with one of `roles`."
    need(st, "user", user_id)
    role = _role(st, project_id, user_id)
    if role is None: raise ToolError(f"user {user_id} is not a member of project {project_id}")
    if role not in roles: raise ToolError(f"user {user_id} is a {role} of project {project_id}; only {' or '.join(r + 's' for r in roles)} can {doing}")
    return role

def _active_project(st, project_id):
    p = need(st, "project", project_id)
    if p["status"] != "active": raise ToolError(f"project {project_id} is {p['status']} and read-only")
    return p

def _issue(st, issue_id, open_only=False):
    "The issue, in an active project (and not closed, if `open_only`)."
    i = need(st, "issue", issue_id)
    _active_project(st, i["project_id"])
    if open_only and i["status"] == "closed": raise ToolError(f"issue {issue_id} is closed; reopen it first")
    return i

def _open_blockers(st, issue_id) -> list:
    "Ids of the issues that block this one and are not closed."
    return sorted(l["source_issue_id"] for l in st.find("issue_link", target_issue_id=issue_id, kind="blocks")
                  if st.get("issue", l["source_issue_id"])["status"] != "closed")

def _touch(st, issue_id, **changes): return dict(st.update("issue", issue_id, updated_at=_today(st), **changes))

@server.read(produces="project")
def list_tracker_projects(st, query: str = "", include_archived: bool = False):
    """List projects (key, name, owner, status) with their number of issues not yet closed.

    Args:
        query: Part of the project key or name (case-insensitive).
        include_archived: Also list archived projects.
    """
    q = query.lower()
    unresolved = {}
    for i in st.rows("issue"):
        if i["status"] != "closed": unresolved[i["project_id"]] = unresolved.get(i["project_id"], 0) + 1
    return [{**dict(p), "unresolved_issues": unresolved.get(p["project_id"], 0)} for p in st.rows("project")
            if (q in p["key"].lower() or q in p["name"].lower()) and (include_archived or p["status"] == "active")]

@server.read(produces="user")
def find_tracker_users(st, query: str = ""):
    """Find users whose name, username or email contains the text (case-insensitive).

    Args:
        query: Part of a name, username or email.
    """
    q = query.lower()
    return [dict(u) for u in st.rows("user") if q in u["name"].lower() or q in u["username"].lower() or q in u["email"].lower()]

@server.read(produces=("user", "membership"))
def list_project_members(st, project_id: ProjectId, role: Literal["owner", "maintainer", "developer", "reporter"] | None = None):
    """List the members of a project with their names and roles.

    Args:
        project_id: The project.
        role: Only members with this role.
    """
    need(st, "project", project_id)
    return [{**dict(m), "name": st.get("user", m["user_id"])["name"], "username": st.get("user", m["user_id"])["username"]}
            for m in st.find("membership", project_id=project_id) if role in (None, m["role"])]

@server.read(produces="issue")
def search_tracker_issues(st, project_id: ProjectId | None = None, status: Status | None = None, assignee_id: UserId | None = None,
                          label_id: LabelId | None = None, milestone_id: MilestoneId | None = None, priority: Priority | None = None,
                          text: str = "", limit: int = 20):
    """Search issues with filters, most urgent first; each hit shows key, title, status, priority, assignee and labels.

    Args:
        project_id: Only issues of this project.
        status: Only issues in this workflow state.
        assignee_id: Only issues assigned to this user.
        label_id: Only issues carrying this label.
        milestone_id: Only issues planned for this milestone.
        priority: Only issues of this priority.
        text: Text that must appear in the title or the issue key, e.g. "WEB-12" (case-insensitive).
        limit: Maximum number of issues (1 to 50).
    """
    if not 1 <= limit <= 50: raise ToolError(f"limit must be between 1 and 50, got {limit}")
    if project_id is not None: need(st, "project", project_id)
    t = text.lower()
    hits = [dict(i) for i in st.rows("issue") if project_id in (None, i["project_id"]) and status in (None, i["status"])
            and assignee_id in (None, i["assignee_id"]) and (label_id is None or label_id in i["label_ids"])
            and milestone_id in (None, i["milestone_id"]) and priority in (None, i["priority"])
            and (t in i["title"].lower() or t == i["key"].lower())]
    return sorted(hits, key=lambda i: (-PRIORITIES.index(i["priority"]), i["issue_id"]))[:limit]

@server.read(produces=("issue", "comment", "issue_link", "label", "milestone", "user"))
def get_tracker_issue(st, issue_id: IssueId):
    """Get one issue in full: fields, label names, comments, links in both directions and the open issues blocking it.

    Args:
        issue_id: The issue to look up.
    """
    i = need(st, "issue", issue_id)
    comments = sorted((dict(c) for c in st.find("comment", issue_id=issue_id)), key=lambda c: (c["created_at"], c["comment_id"]))
    links = [dict(l) for l in st.rows("issue_link") if issue_id in (l["source_issue_id"], l["target_issue_id"])]
    return {**dict(i), "labels": [st.get("label", l)["name"] for l in i["label_ids"]], "comments": comments,
            "links": sorted(links, key=lambda l: l["link_id"]), "blocked_by_open": _open_blockers(st, issue_id)}

@server.read(produces="label")
def list_project_labels(st, project_id: ProjectId):
    """List the labels defined in a project.

    Args:
        project_id: The project.
    """
    need(st, "project", project_id)
    return [dict(l) for l in st.find("label", project_id=project_id)]

@server.read(produces="milestone")
def list_project_milestones(st, project_id: ProjectId, status: Literal["open", "closed"] | None = None):
    """List a project's milestones by due date, with how many of their issues are closed.

    Args:
        project_id: The project.
        status: Only milestones in this state.
    """
    need(st, "project", project_id)
    out = []
    for m in st.find("milestone", project_id=project_id):
        if status in (None, m["status"]):
            issues = st.find("issue", milestone_id=m["milestone_id"])
            out.append({**dict(m), "issues": len(issues), "closed_issues": sum(i["status"] == "closed" for i in issues)})
    return sorted(out, key=lambda m: (m["due_date"], m["milestone_id"]))

@server.write(produces="issue")
def create_tracker_issue(st, project_id: ProjectId, reporter_id: UserId, title: str, issue_type: Literal["bug", "feature", "task"],
                         priority: Priority = "medium", description: str = "", label_ids: list[LabelId] | None = None):
    """File a new open issue in an active project; the reporter must be a project member.

    Args:
        project_id: The project to file the issue in.
        reporter_id: The member filing the issue.
        title: A one-line summary.
        issue_type: Kind of issue.
        priority: How urgent it is.
        description: Details, steps to reproduce.
        label_ids: Labels of this project to put on the issue.
    """
    p = _active_project(st, project_id)
    _member(st, project_id, reporter_id)
    if not title.strip(): raise ToolError("title must not be empty")
    labels = sorted(set(label_ids or []))
    for l in labels:
        if need(st, "label", l)["project_id"] != project_id: raise ToolError(f"label {l} belongs to another project")
    n = len(st.find("issue", project_id=project_id)) + 1
    return dict(st.insert("issue", {"project_id": project_id, "key": f"{p['key']}-{n}", "title": title.strip(), "type": issue_type,
                                    "priority": priority, "status": "open", "resolution": None, "reporter_id": reporter_id, "assignee_id": None,
                                    "milestone_id": None, "label_ids": labels, "description": description.strip(),
                                    "created_at": _today(st), "updated_at": _today(st)}))

@server.write(after=("create_tracker_issue",))
def assign_tracker_issue(st, issue_id: IssueId, assignee_id: UserId):
    """Assign an issue that is not closed to a project member who is not just a reporter.

    Args:
        issue_id: The issue to assign.
        assignee_id: The member who will work on it.
    """
    i = _issue(st, issue_id, open_only=True)
    _member(st, i["project_id"], assignee_id, ("owner", "maintainer", "developer"), "be assigned issues")
    if i["assignee_id"] == assignee_id: raise ToolError(f"issue {issue_id} is already assigned to {assignee_id}")
    return _touch(st, issue_id, assignee_id=assignee_id)

@server.write(after=("create_tracker_issue",))
def set_issue_priority(st, issue_id: IssueId, priority: Priority):
    """Change the priority of an issue that is not closed.

    Args:
        issue_id: The issue.
        priority: The new priority.
    """
    i = _issue(st, issue_id, open_only=True)
    if i["priority"] == priority: raise ToolError(f"issue {issue_id} already has priority {priority}")
    return _touch(st, issue_id, priority=priority)

@server.write(after=("assign_tracker_issue",))
def start_issue_progress(st, issue_id: IssueId):
    """Move an open, assigned issue to in_progress; it must not be blocked by an issue that is still open.

    Args:
        issue_id: The issue to start.
    """
    i = _issue(st, issue_id)
    if i["status"] != "open": raise ToolError(f"issue {issue_id} is {i['status']}; only open issues can be started")
    if i["assignee_id"] is None: raise ToolError(f"issue {issue_id} has no assignee; assign it first")
    blockers = _open_blockers(st, issue_id)
    if blockers: raise ToolError(f"issue {issue_id} is blocked by unresolved issues {', '.join(blockers)}")
    return _touch(st, issue_id, status="in_progress")

@server.write(after=("start_issue_progress",))
def submit_issue_for_review(st, issue_id: IssueId):
    """Move an in_progress issue to review.

    Args:
        issue_id: The issue whose work is ready for review.
    """
    i = _issue(st, issue_id)
    if i["status"] != "in_progress": raise ToolError(f"issue {issue_id} is {i['status']}; only in_progress issues go to review")
    return _touch(st, issue_id, status="review")

@server.write(after=("submit_issue_for_review",))
def close_tracker_issue(st, issue_id: IssueId, actor_id: UserId, resolution: Literal["fixed", "wont_fix", "duplicate", "cannot_reproduce"]):
    """Close an issue as a maintainer or owner: "fixed" only from review and with no open blockers, "duplicate" only once linked as one.

    Args:
        issue_id: The issue to close.
        actor_id: The maintainer or owner closing it.
        resolution: Why it is closed.
    """
    i = _issue(st, issue_id, open_only=True)
    _member(st, i["project_id"], actor_id, ("owner", "maintainer"), "close issues")
    if resolution == "fixed":
        if i["status"] != "review": raise ToolError(f"issue {issue_id} is {i['status']}; it must pass review before closing as fixed")
        blockers = _open_blockers(st, issue_id)
        if blockers: raise ToolError(f"issue {issue_id} is blocked by unresolved issues {', '.join(blockers)}")
    if resolution == "duplicate" and not st.find("issue_link", source_issue_id=issue_id, kind="duplicates"):
        raise ToolError(f"issue {issue_id} is not linked as a duplicate of another issue; link it first")
    return _touch(st, issue_id, status="closed", resolution=resolution)

@server.write(after=("close_tracker_issue",))
def reopen_tracker_issue(st, issue_id: IssueId, actor_id: UserId, reason: str):
    """Reopen a closed issue (any project member); the reason is added as a comment.

    Args:
        issue_id: The closed issue.
        actor_id: The member reopening it.
        reason: Why it is reopened.
    """
    i = _issue(st, issue_id)
    _member(st, i["project_id"], actor_id)
    if i["status"] != "closed": raise ToolError(f"issue {issue_id} is {i['status']}, not closed")
    if not reason.strip(): raise ToolError("reason must not be empty")
    st.insert("comment", {"issue_id": issue_id, "author_id": actor_id, "body": f"Reopened: {reason.strip()}", "created_at": _today(st)})
    return _touch(st, issue_id, status="open", resolution=None)

@server.write(produces="comment")
def add_issue_comment(st, issue_id: IssueId, author_id: UserId, body: str):
    """Comment on an issue of an active project; the author must be a project member.

    Args:
        issue_id: The issue.
        author_id: The member writing the comment.
        body: The comment text.
    """
    i = _issue(st, issue_id)
    _member(st, i["project_id"], author_id)
    if not body.strip(): raise ToolError("body must not be empty")
    c = st.insert("comment", {"issue_id": issue_id, "author_id": author_id, "body": body.strip(), "created_at": _today(st)})
    _touch(st, issue_id)
    return dict(c)

@server.write(after=("create_tracker_issue",))
def apply_issue_label(st, issue_id: IssueId, label_id: LabelId):
    """Put one of the project's labels on an issue.

    Args:
        issue_id: The issue.
        label_id: A label of the issue's project.
    """
    i = _issue(st, issue_id)
    if need(st, "label", label_id)["project_id"] != i["project_id"]: raise ToolError(f"label {label_id} belongs to another project")
    if label_id in i["label_ids"]: raise ToolError(f"issue {issue_id} already has label {label_id}")
    return _touch(st, issue_id, label_ids=sorted(i["label_ids"] + (label_id,)))

@server.write(produces="milestone")
def create_project_milestone(st, project_id: ProjectId, actor_id: UserId, title: str, due_date: str):
    """Create an open milestone in a project (maintainers and owners only); titles are unique per project.

    Args:
        project_id: The project.
        actor_id: The maintainer or owner creating it.
        title: Name of the milestone, e.g. "v3.0".
        due_date: Due day, YYYY-MM-DD, today or later.
    """
    _active_project(st, project_id)
    _member(st, project_id, actor_id, ("owner", "maintainer"), "create milestones")
    if not title.strip(): raise ToolError("title must not be empty")
    try: date.fromisoformat(due_date)
    except ValueError: raise ToolError(f"due_date must be YYYY-MM-DD, got '{due_date}'") from None
    if due_date < _today(st): raise ToolError(f"due_date {due_date} is in the past (today is {_today(st)})")
    if any(m["title"].lower() == title.strip().lower() for m in st.find("milestone", project_id=project_id)):
        raise ToolError(f"project {project_id} already has a milestone '{title.strip()}'")
    return dict(st.insert("milestone", {"project_id": project_id, "title": title.strip(), "due_date": due_date, "status": "open"}))

@server.write(after=("create_project_milestone",))
def set_issue_milestone(st, issue_id: IssueId, milestone_id: MilestoneId):
    """Plan an issue that is not closed for an open milestone of its project.

    Args:
        issue_id: The issue.
        milestone_id: An open milestone of the same project.
    """
    i = _issue(st, issue_id, open_only=True)
    m = need(st, "milestone", milestone_id)
    if m["project_id"] != i["project_id"]: raise ToolError(f"milestone {milestone_id} belongs to another project")
    if m["status"] != "open": raise ToolError(f"milestone {milestone_id} is closed")
    if i["milestone_id"] == milestone_id: raise ToolError(f"issue {issue_id} is already in milestone {milestone_id}")
    return _touch(st, issue_id, milestone_id=milestone_id)

def _blocks_path(st, start, goal) -> bool:
    "Whether `start` already blocks `goal`, directly or through other issues."
    seen, todo = set(), [start]
    while todo:
        x = todo.pop()
        if x == goal: return True
        if x in seen: continue
        seen.add(x)
        todo += [l["target_issue_id"] for l in st.find("issue_link", source_issue_id=x, kind="blocks")]
    return False

@server.write(produces="issue_link")
def link_tracker_issues(st, source_issue_id: IssueId, target_issue_id: IssueId, kind: Literal["blocks", "duplicates", "relates_to"]):
    """Link two different issues: source blocks target, source duplicates target (same project), or they relate.

    Args:
        source_issue_id: The issue the link starts from.
        target_issue_id: The issue the link points to.
        kind: What the link means.
    """
    if source_issue_id == target_issue_id: raise ToolError("an issue cannot be linked to itself")
    a, b = _issue(st, source_issue_id), _issue(st, target_issue_id)
    if kind == "duplicates" and a["project_id"] != b["project_id"]: raise ToolError("a duplicate must be in the same project as the original")
    pair = (source_issue_id, target_issue_id)
    if any((l["source_issue_id"], l["target_issue_id"]) in (pair, pair[::-1] if kind != "blocks" else pair) for l in st.find("issue_link", kind=kind)):
        raise ToolError(f"issues {source_issue_id} and {target_issue_id} are already linked as {kind}")
    if kind == "blocks" and _blocks_path(st, target_issue_id, source_issue_id):
        raise ToolError(f"{target_issue_id} already blocks {source_issue_id}; the link would make a cycle")
    return dict(st.insert("issue_link", {"source_issue_id": source_issue_id, "target_issue_id": target_issue_id, "kind": kind}))

@server.write(produces="membership")
def add_project_member(st, project_id: ProjectId, actor_id: UserId, user_id: UserId, role: Literal["maintainer", "developer", "reporter"]):
    """Add a user to a project; maintainers and owners add developers and reporters, only the owner adds maintainers.

    Args:
        project_id: The project.
        actor_id: The owner or maintainer adding the member.
        user_id: The user to add.
        role: The new member's role.
    """
    _active_project(st, project_id)
    _member(st, project_id, actor_id, ("owner",) if role == "maintainer" else ("owner", "maintainer"), f"add a {role}")
    need(st, "user", user_id)
    existing = _role(st, project_id, user_id)
    if existing: raise ToolError(f"user {user_id} is already a {existing} of project {project_id}")
    return dict(st.insert("membership", {"project_id": project_id, "user_id": user_id, "role": role}))
