"""Team chat: workspaces, public and private channels, messages, threads, reactions, pins and direct messages (11 tools).

The session acts as one logged-in user. Rules: a public channel is visible to everyone in its workspace, a private
channel or a direct-message conversation only to its members; posting, pinning and inviting need membership (join a
public channel first); private channels accept invitations only from their members; archived channels refuse changes;
a thread reply answers a top-level message of the same channel; a user reacts with a given emoji at most once per
message; channel names are unique within a workspace; direct messages go to active users who share a workspace.
"""
import re
from datetime import datetime, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.team_chat.phrasing import PHRASES
from prove_nb.servers._common import NOW, FIRST_NAMES, LAST_NAMES, need
from prove_nb.state import TableSpec

LOGIN = "login_0001"
FIRST = FIRST_NAMES[:16] + ("Quinn", "Rosa", "Sam", "Tara")
LAST = LAST_NAMES[:12]
TITLES = ["Software Engineer", "Product Manager", "Designer", "Data Scientist", "Support Lead", "Engineering Manager",
          "Marketing Specialist", "Recruiter", "DevOps Engineer", "QA Analyst"]
WORKSPACES = [("Acme Corp", "acme"), ("Open Source Guild", "osguild"), ("Northwind Labs", "northwind"), ("Blue Harbor", "blueharbor")]
CHANNELS = ["engineering", "design", "launch-q3", "support", "sales", "incidents", "hiring", "product", "marketing",
            "watercooler", "release-train", "data-team", "customer-feedback", "security", "standup"]
TOPICS = {"engineering": "Builds, reviews and architecture", "incidents": "Production incidents: page here first",
          "launch-q3": "Everything for the Q3 launch", "support": "Customer tickets that need a hand", "general": "Company-wide news"}
EMOJI = ["thumbsup", "heart", "tada", "eyes", "white_check_mark", "rocket", "joy", "pray", "fire", "thinking_face"]
LINES = ["The {x} build is green again.", "Can someone review my PR for the {x}?", "Reminder: {x} sync at 3pm.",
         "A customer asked about the {x}; who owns it?", "Deployed the {x} to staging.", "Heads up: the {x} is down for maintenance tonight.",
         "Draft of the {x} doc is in the shared folder.", "Great work on the {x} everyone!", "Is the {x} still blocked?",
         "Moving the {x} review to Thursday."]
THINGS = ["billing service", "onboarding flow", "mobile app", "search index", "API gateway", "Q3 roadmap", "pricing page",
          "data pipeline", "SSO rollout", "release notes"]
REPLIES = ["On it.", "Thanks!", "Looks good to me.", "I can take this.", "Done, see the latest commit.", "Can we push to tomorrow?",
           "+1", "Let me check and get back to you."]
def _ago(rng, max_minutes: int) -> datetime:
    return datetime.fromisoformat(NOW) - timedelta(minutes=rng.randint(5, max_minutes))

def _workspace(rng, i, pick):
    name, domain = WORKSPACES[i % len(WORKSPACES)]
    suffix = "" if i < len(WORKSPACES) else f" {i // len(WORKSPACES) + 1}"
    return {"name": name + suffix, "domain": f"{domain}{suffix.strip()}.chat.example", "plan": rng.choice(["free", "pro", "business"])}

def _chat_user(rng, i, pick):
    first = FIRST[i % len(FIRST)]
    last = rng.choice(LAST)
    mine = [w["workspace_id"] for w in pick.rows("workspace")[:2]] if i == 0 else sorted({pick("workspace") for _ in range(rng.choice([1, 1, 2]))})
    return {"display_name": f"{first} {last}", "handle": f"{first.lower()}.{last.lower()}{'' if i < len(FIRST) else i}",
            "title": rng.choice(TITLES), "workspace_ids": tuple(mine), "timezone": rng.choice(["Europe/Berlin", "America/New_York", "Asia/Tokyo"]),
            "status": "active" if i == 0 or rng.random() < 0.9 else "deactivated"}

def _members(pick, w) -> list:
    "The users of workspace `w`, in the order made."
    return [u["user_id"] for u in pick.rows("chat_user") if w in u["workspace_ids"]]

def _channel(rng, i, pick):
    wss, me = [w["workspace_id"] for w in pick.rows("workspace")], pick.rows("chat_user")[0]["user_id"]
    if i < len(wss):
        w, name, kind = wss[i], "general", "public"
        members = _members(pick, w)
    elif i < len(wss) + 2:  # a private and a public channel of the first workspace that you are not in
        w, name, kind = wss[0], ("leadership", "random")[i - len(wss)], ("private", "public")[i - len(wss)]
        others = [u for u in _members(pick, w) if u != me]
        if not others: return None
        members = rng.sample(others, min(len(others), rng.randint(2, 4)))
    else:
        w = rng.choice(wss[:2]) if rng.random() < 0.7 else rng.choice(wss)
        pool = _members(pick, w)
        if len(pool) < 2: return None
        kind = rng.choice(["public"] * 5 + ["private"] * 3 + ["dm"] * 2)
        if kind == "dm":
            members = rng.sample(pool, 2) if me not in pool or rng.random() < 0.3 else [me, rng.choice([u for u in pool if u != me])]
            name = "dm"
        else:
            name = rng.choice(CHANNELS)
            members = rng.sample(pool, rng.randint(min(2, len(pool)), len(pool)))
            if kind == "public" and me in pool and me not in members and rng.random() < 0.5: members.append(me)
    key, names = (w, name if kind != "dm" else tuple(sorted(members))), pick.memo.setdefault("channel_names", set())
    if key in names: return None
    names.add(key)
    return {"workspace_id": w, "name": name if kind != "dm" else "dm-" + "-".join(sorted(members)), "kind": kind,
            "topic": TOPICS.get(name, "") if kind != "dm" else "", "member_ids": tuple(sorted(members)),
            "created_by": members[0], "created_at": (_ago(rng, 360 * 1440) - timedelta(days=40)).isoformat(timespec="seconds"),
            "archived": kind != "dm" and name != "general" and rng.random() < 0.08}

def _message(rng, i, pick):
    ch, made = rng.choice(pick.rows("channel")), pick.rows("message")
    tops = pick.memo.setdefault("tops", {}).setdefault(ch["channel_id"], [])  # where the channel's top-level messages stand in `made`
    author = rng.choice(ch["member_ids"])
    if tops and rng.random() < 0.35:
        parent = made[rng.choice(tops)]
        ts = min(datetime.fromisoformat(parent["ts"]) + timedelta(minutes=rng.randint(1, 600)), datetime.fromisoformat(NOW) - timedelta(minutes=1))
        row = {"thread_id": parent["message_id"], "text": rng.choice(REPLIES)}
    else:
        ts = _ago(rng, 30 * 1440)
        row = {"thread_id": None, "text": rng.choice(LINES).format(x=rng.choice(THINGS))}
        tops.append(len(made))  # this row's place once made
    ts = ts.isoformat(timespec="seconds")
    pinned = row["thread_id"] is None and rng.random() < 0.06
    return {"channel_id": ch["channel_id"], "user_id": author, "ts": ts, **row, "pinned_by": author if pinned else None,
            "pinned_at": ts if pinned else None}

def _reaction(rng, i, pick):
    m = rng.choice(pick.rows("message"))
    user, emoji = rng.choice(pick.row("channel", m["channel_id"])["member_ids"]), rng.choice(EMOJI)
    reacted = pick.memo.setdefault("reacted", set())
    if (m["message_id"], user, emoji) in reacted: return None
    reacted.add((m["message_id"], user, emoji))
    return {"message_id": m["message_id"], "user_id": user, "emoji": emoji}

def _login(rng, i, pick):
    return None if i else {"user_id": pick.rows("chat_user")[0]["user_id"]}

server = ToolServer(
    "team_chat", "Team chat: channels, messages, threads, reactions, pins and direct messages across workspaces.",
    [TableSpec("workspace", "workspace_id", "ws_"),
     TableSpec("chat_user", "user_id", "u_", {"workspace_ids": "workspace"}),
     TableSpec("channel", "channel_id", "ch_", {"workspace_id": "workspace", "member_ids": "chat_user", "created_by": "chat_user"}),
     TableSpec("message", "message_id", "msg_", {"channel_id": "channel", "user_id": "chat_user", "thread_id": "message",
                                                  "pinned_by": "chat_user"}),
     TableSpec("reaction", "reaction_id", "rxn_", {"message_id": "message", "user_id": "chat_user"}),
     TableSpec("chat_login", "login_id", "login_", {"user_id": "chat_user"})],
    {"workspace": _workspace, "chat_user": _chat_user, "channel": _channel, "message": _message, "reaction": _reaction,
     "chat_login": _login},
    {"workspace": 2, "chat_user": 12, "channel": 14, "message": 90, "reaction": 40, "chat_login": 1}, now=NOW, phrases=PHRASES)

WorkspaceId = Annotated[str, Entity("workspace")]
UserId = Annotated[str, Entity("chat_user")]
ChannelId = Annotated[str, Entity("channel")]
MessageId = Annotated[str, Entity("message")]
Emoji = Literal["thumbsup", "heart", "tada", "eyes", "white_check_mark", "rocket", "joy", "pray", "fire", "thinking_face"]

def _me(st): return st.get("chat_user", st.get("chat_login", LOGIN)["user_id"])

def _can_see(me, ch) -> bool:
    return me["user_id"] in ch["member_ids"] or ch["kind"] == "public" and ch["workspace_id"] in me["workspace_ids"]

def _visible_channel(st, me, channel_id):
    ch = need(st, "channel", channel_id, "channel")
    if not _can_see(me, ch): raise ToolError(f"channel {channel_id} is private and {me['user_id']} is not a member")
    return ch

def _member_channel(st, me, channel_id, verb):
    "A channel `me` belongs to and that is not archived."
    ch = _visible_channel(st, me, channel_id)
    if me["user_id"] not in ch["member_ids"]:
        raise ToolError(f"you must be a member of #{ch['name']} to {verb} (join it with invite_to_chat_channel)")
    if ch["archived"]: raise ToolError(f"#{ch['name']} is archived")
    return ch

def _visible_message(st, me, message_id):
    m = need(st, "message", message_id, "message")
    return m, _visible_channel(st, me, m["channel_id"])

def _text(text):
    t = text.strip()
    if not t: raise ToolError("message text must not be empty")
    if len(t) > 4000: raise ToolError(f"message text is {len(t)} characters; the limit is 4000")
    return t

def _names(st, ids) -> list: return [st.get("chat_user", u)["display_name"] for u in ids]

def _msg(st, m) -> dict:
    "A message as readers see it: author name, reply count, reactions summary and pin."
    reactions = {}
    for r in st.find("reaction", message_id=m["message_id"]): reactions.setdefault(r["emoji"], []).append(r["user_id"])
    out = {"message_id": m["message_id"], "channel_id": m["channel_id"], "user_id": m["user_id"],
           "author": st.get("chat_user", m["user_id"])["display_name"], "text": m["text"], "ts": m["ts"],
           "thread_id": m["thread_id"], "pinned": m["pinned_by"] is not None,
           "reactions": [{"emoji": e, "count": len(us), "user_ids": sorted(us)} for e, us in sorted(reactions.items())]}
    if m["thread_id"] is None: out["reply_count"] = len(st.find("message", thread_id=m["message_id"]))
    return out

def _user_out(u) -> dict:
    return {"user_id": u["user_id"], "display_name": u["display_name"], "handle": u["handle"], "title": u["title"],
            "status": u["status"], "workspace_ids": list(u["workspace_ids"])}

def _in_range(value, lo, hi, what):
    if not lo <= value <= hi: raise ToolError(f"{what} must be between {lo} and {hi}, got {value}")

@server.read(produces=("channel", "workspace"))
def list_chat_channels(st, workspace_id: WorkspaceId | None = None, name: str = "", kind: Literal["public", "private", "dm"] | None = None,
                       member_only: bool = False, include_archived: bool = False):
    """List the channels and direct-message conversations you can see, with topic, members and whether you belong.

    Args:
        workspace_id: Only channels of this workspace (one you belong to).
        name: Part of the channel name (case-insensitive).
        kind: Only public channels, private channels or direct messages.
        member_only: Only channels you are a member of.
        include_archived: Include archived channels.
    """
    me = _me(st)
    if workspace_id is not None and workspace_id not in me["workspace_ids"]:
        raise ToolError(f"you are not in workspace '{workspace_id}' (yours: {', '.join(me['workspace_ids'])})")
    out = []
    for c in st.rows("channel"):
        if not _can_see(me, c) or workspace_id not in (None, c["workspace_id"]) or kind not in (None, c["kind"]): continue
        if name.lower() not in c["name"].lower() or member_only and me["user_id"] not in c["member_ids"]: continue
        if c["archived"] and not include_archived: continue
        ws = st.get("workspace", c["workspace_id"])
        row = {"channel_id": c["channel_id"], "workspace": {"workspace_id": ws["workspace_id"], "name": ws["name"]}, "name": c["name"], "kind": c["kind"],
               "topic": c["topic"], "member_count": len(c["member_ids"]), "is_member": me["user_id"] in c["member_ids"],
               "archived": c["archived"]}
        if c["kind"] == "dm": row["with"] = _names(st, [u for u in c["member_ids"] if u != me["user_id"]])
        out.append(row)
    return out

@server.read(produces=("chat_user", "workspace"))
def list_workspace_members(st, workspace_id: WorkspaceId | None = None, query: str = "", channel_id: ChannelId | None = None):
    """Find people in your workspaces (or in one channel) by name, handle or job title.

    Args:
        workspace_id: Only members of this workspace (one you belong to).
        query: Part of the display name, handle or title (case-insensitive).
        channel_id: Only members of this channel (one you can see).
    """
    me = _me(st)
    if workspace_id is not None and workspace_id not in me["workspace_ids"]:
        raise ToolError(f"you are not in workspace '{workspace_id}' (yours: {', '.join(me['workspace_ids'])})")
    ch = _visible_channel(st, me, channel_id) if channel_id is not None else None
    q = query.lower()
    return [_user_out(u) for u in st.rows("chat_user")
            if set(u["workspace_ids"]) & set([workspace_id] if workspace_id else me["workspace_ids"])
            and (ch is None or u["user_id"] in ch["member_ids"])
            and (q in u["display_name"].lower() or q in u["handle"] or q in u["title"].lower())]

@server.read(produces="message")
def get_channel_history(st, channel_id: ChannelId, limit: int = 20, from_user: UserId | None = None, pinned_only: bool = False):
    """Read the latest top-level messages of a channel you can see (newest first), with reply counts, reactions and pins.

    Args:
        channel_id: The channel or direct-message conversation.
        limit: Maximum number of messages (1 to 200).
        from_user: Only messages written by this user.
        pinned_only: Only pinned messages.
    """
    _in_range(limit, 1, 200, "limit")
    me = _me(st)
    _visible_channel(st, me, channel_id)
    rows = [m for m in st.find("message", channel_id=channel_id, thread_id=None)
            if from_user in (None, m["user_id"]) and (not pinned_only or m["pinned_by"])]
    rows.sort(key=lambda m: (m["ts"], m["message_id"]), reverse=True)
    return [_msg(st, m) for m in rows[:limit]]

@server.read(produces="message")
def get_message_thread(st, message_id: MessageId):
    """Read a message with all the replies in its thread, oldest reply first.

    Args:
        message_id: The thread's top-level message (or any reply in it).
    """
    me = _me(st)
    m, _ = _visible_message(st, me, message_id)
    parent = st.get("message", m["thread_id"]) if m["thread_id"] else m
    replies = sorted(st.find("message", thread_id=parent["message_id"]), key=lambda r: (r["ts"], r["message_id"]))
    return {"parent": _msg(st, parent), "replies": [_msg(st, r) for r in replies]}

@server.read(produces="message")
def search_chat_messages(st, query: str, channel_id: ChannelId | None = None, from_user: UserId | None = None, limit: int = 20):
    """Search the messages of every channel you can see for text (case-insensitive), newest first.

    Args:
        query: Text the message must contain.
        channel_id: Only this channel.
        from_user: Only messages written by this user.
        limit: Maximum number of results (1 to 100).
    """
    if not query.strip(): raise ToolError("query must not be empty")
    _in_range(limit, 1, 100, "limit")
    me = _me(st)
    if channel_id is not None: _visible_channel(st, me, channel_id)
    seen = {c["channel_id"]: c["name"] for c in st.rows("channel") if _can_see(me, c)}
    q = query.lower()
    rows = [m for m in st.rows("message") if m["channel_id"] in seen and channel_id in (None, m["channel_id"])
            and from_user in (None, m["user_id"]) and q in m["text"].lower()]
    rows.sort(key=lambda m: (m["ts"], m["message_id"]), reverse=True)
    return [{**_msg(st, m), "channel_name": seen[m["channel_id"]]} for m in rows[:limit]]

@server.write(produces="channel")
def create_chat_channel(st, workspace_id: WorkspaceId, name: str, private: bool = False, topic: str = "",
                        invite_user_ids: Annotated[list[str], Entity("chat_user")] | None = None):
    """Create a channel in one of your workspaces; you become its first member, optionally with others invited.

    Args:
        workspace_id: The workspace to create it in.
        name: Lowercase name of letters, digits, '-' and '_' (at most 80 characters), unique in the workspace.
        private: Make it private (visible only to members).
        topic: A short description of what the channel is for.
        invite_user_ids: Other active members of the workspace to add right away.
    """
    me = _me(st)
    need(st, "workspace", workspace_id, "workspace")
    if workspace_id not in me["workspace_ids"]: raise ToolError(f"you are not in workspace '{workspace_id}'")
    name = name.strip().lstrip("#")
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,79}", name):
        raise ToolError(f"invalid channel name '{name}': use lowercase letters, digits, '-' and '_' (at most 80 characters)")
    if any(c["name"] == name for c in st.find("channel", workspace_id=workspace_id)):
        raise ToolError(f"a channel named #{name} already exists in {workspace_id}")
    members = {me["user_id"]}
    for u in invite_user_ids or []: members.add(_invitable(st, u, workspace_id)["user_id"])
    ch = st.insert("channel", {"workspace_id": workspace_id, "name": name, "kind": "private" if private else "public",
                               "topic": topic.strip(), "member_ids": sorted(members), "created_by": me["user_id"],
                               "created_at": st.meta["now"], "archived": False})
    return {"channel_id": ch["channel_id"], "name": name, "kind": ch["kind"], "member_ids": list(ch["member_ids"])}

def _invitable(st, user_id, workspace_id):
    u = need(st, "chat_user", user_id, "user")
    if u["status"] != "active": raise ToolError(f"user {user_id} ({u['display_name']}) is deactivated")
    if workspace_id not in u["workspace_ids"]: raise ToolError(f"user {user_id} ({u['display_name']}) is not in workspace {workspace_id}")
    return u

@server.write(after=("create_chat_channel",))
def invite_to_chat_channel(st, channel_id: ChannelId, user_id: UserId | None = None):
    """Add someone to a channel, or yourself (leave user_id out) to join a public channel; private channels take invitations only from members.

    Args:
        channel_id: The channel.
        user_id: The person to add (default: yourself).
    """
    me = _me(st)
    ch = _visible_channel(st, me, channel_id)
    if ch["kind"] == "dm": raise ToolError("direct-message conversations cannot gain members; create a private channel instead")
    if ch["archived"]: raise ToolError(f"#{ch['name']} is archived")
    who = _invitable(st, user_id or me["user_id"], ch["workspace_id"])
    if who["user_id"] in ch["member_ids"]: raise ToolError(f"{who['display_name']} is already a member of #{ch['name']}")
    if who["user_id"] != me["user_id"] and me["user_id"] not in ch["member_ids"]:
        raise ToolError(f"only members of #{ch['name']} can invite others; join it first")
    st.update("channel", channel_id, member_ids=sorted(ch["member_ids"] + (who["user_id"],)))
    return {"channel_id": channel_id, "user_id": who["user_id"], "member_count": len(ch["member_ids"]) + 1}

@server.write(produces="message")
def post_chat_message(st, channel_id: ChannelId, text: str, thread_id: MessageId | None = None):
    """Post a message to a channel you are a member of, or reply in a thread when thread_id is given.

    Args:
        channel_id: The channel to post in.
        text: The message (1 to 4000 characters).
        thread_id: The top-level message to reply to (in the same channel).
    """
    me = _me(st)
    ch = _member_channel(st, me, channel_id, "post")
    if thread_id is not None:
        parent = need(st, "message", thread_id, "message")
        if parent["channel_id"] != channel_id: raise ToolError(f"message {thread_id} is in channel {parent['channel_id']}, not {channel_id}")
        if parent["thread_id"] is not None: raise ToolError(f"message {thread_id} is itself a reply; reply to its thread {parent['thread_id']}")
    m = st.insert("message", {"channel_id": channel_id, "user_id": me["user_id"], "text": _text(text), "ts": st.meta["now"],
                              "thread_id": thread_id, "pinned_by": None, "pinned_at": None})
    return {"message_id": m["message_id"], "channel_id": channel_id, "channel_name": ch["name"], "thread_id": thread_id, "ts": m["ts"]}

@server.write(produces=("message", "channel"))
def send_chat_direct_message(st, user_id: UserId, text: str):
    """Send a direct message to a person who shares a workspace with you (the conversation is created if needed).

    Args:
        user_id: The recipient.
        text: The message (1 to 4000 characters).
    """
    me = _me(st)
    u = need(st, "chat_user", user_id, "user")
    if user_id == me["user_id"]: raise ToolError("you cannot send a direct message to yourself")
    if u["status"] != "active": raise ToolError(f"user {user_id} ({u['display_name']}) is deactivated")
    shared = [w for w in me["workspace_ids"] if w in u["workspace_ids"]]
    if not shared: raise ToolError(f"{u['display_name']} shares no workspace with you")
    body, pair = _text(text), tuple(sorted((me["user_id"], user_id)))
    dm = next((c for c in st.find("channel", kind="dm") if c["member_ids"] == pair), None)
    if dm is None:
        dm = st.insert("channel", {"workspace_id": shared[0], "name": "dm-" + "-".join(pair), "kind": "dm", "topic": "",
                                   "member_ids": pair, "created_by": me["user_id"], "created_at": st.meta["now"], "archived": False})
    m = st.insert("message", {"channel_id": dm["channel_id"], "user_id": me["user_id"], "text": body, "ts": st.meta["now"],
                              "thread_id": None, "pinned_by": None, "pinned_at": None})
    return {"message_id": m["message_id"], "channel_id": dm["channel_id"], "to": user_id}

@server.write(after=("post_chat_message",))
def add_message_reaction(st, message_id: MessageId, emoji: Emoji):
    """React to a message with an emoji (once per emoji per person), in a channel you can see.

    Args:
        message_id: The message.
        emoji: The reaction.
    """
    me = _me(st)
    m, ch = _visible_message(st, me, message_id)
    if ch["archived"]: raise ToolError(f"#{ch['name']} is archived")
    if st.find("reaction", message_id=message_id, user_id=me["user_id"], emoji=emoji):
        raise ToolError(f"you already reacted with :{emoji}: to {message_id}")
    r = st.insert("reaction", {"message_id": message_id, "user_id": me["user_id"], "emoji": emoji})
    return {"reaction_id": r["reaction_id"], "message_id": message_id, "emoji": emoji,
            "count": len(st.find("reaction", message_id=message_id, emoji=emoji))}

@server.write(after=("post_chat_message",))
def pin_chat_message(st, message_id: MessageId, unpin: bool = False):
    """Pin a message to its channel (or unpin it) so everyone finds it; you must be a member of the channel.

    Args:
        message_id: The message.
        unpin: Remove the pin instead of adding it.
    """
    me = _me(st)
    m, ch = _visible_message(st, me, message_id)
    _member_channel(st, me, ch["channel_id"], "pin messages")
    if unpin and not m["pinned_by"]: raise ToolError(f"message {message_id} is not pinned")
    if not unpin and m["pinned_by"]: raise ToolError(f"message {message_id} is already pinned")
    if not unpin and sum(1 for x in st.find("message", channel_id=ch["channel_id"]) if x["pinned_by"]) >= 100:
        raise ToolError(f"#{ch['name']} already has 100 pinned messages")
    st.update("message", message_id, pinned_by=None if unpin else me["user_id"], pinned_at=None if unpin else st.meta["now"])
    return {"message_id": message_id, "channel_id": ch["channel_id"], "pinned": not unpin}
