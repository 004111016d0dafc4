"""Video meetings: users with licenses, virtual rooms with a capacity, meetings, participants and recordings (10 tools).

Rules: a personal room is used only by its owner, a shared room by anyone; a room holds one meeting at a time and
a host hosts one meeting at a time; host plus participants never exceed the room's capacity; basic-license hosts
get meetings of at most 40 minutes, no co-hosts and no recording; meetings go scheduled -> live -> ended (or
scheduled -> cancelled); only the host or a co-host starts or ends a meeting, at most 15 minutes before its start;
only the host cancels it or deletes its recordings; ending a recorded meeting stores its recording.
"""
from datetime import datetime, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.video_meeting.phrasing import PHRASES
from prove_nb.servers._common import NOW_DT, FIRST_NAMES, LAST_NAMES, need
from prove_nb.state import TableSpec

FIRST = FIRST_NAMES
LAST = LAST_NAMES
SHARED_ROOMS = ["All-hands hall", "Sales floor", "Support bridge", "Engineering huddle", "Board room", "Training studio",
                "Partner lounge", "Design studio", "Town square", "Hiring panel"]
TOPICS = ["Weekly sync", "Customer onboarding", "Sprint review", "Interview: data analyst", "Product demo", "Incident review",
          "Partner check-in", "All-hands Q&A", "Design critique", "Training: security basics", "Budget walkthrough", "1:1"]
BASIC_MINUTES, EARLY_START = 40, timedelta(minutes=15)
LIVE_OR_SCHEDULED = ("scheduled", "live")

def _iso(d: datetime) -> str: return d.isoformat(timespec="seconds")

def _user(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    taken = pick.memo.setdefault("emails", set())
    email = f"{first.lower()}.{last.lower()}@northwind.example"
    if email in taken: email = f"{first.lower()}.{last.lower()}{len(taken)}@northwind.example"
    taken.add(email)
    return {"name": f"{first} {last}", "email": email, "license": rng.choice(["basic", "pro", "pro"])}

def _room(rng, i, pick):
    shared = rng.random() < 0.4
    return {"owner_id": pick("user"), "kind": "shared" if shared else "personal",
            "name": rng.choice(SHARED_ROOMS) if shared else f"Personal room {i + 1}",
            "capacity": rng.choice([25, 50, 100, 300]) if shared else rng.choice([4, 10, 25])}

def _meeting(rng, i, pick):
    room_id = pick("room")
    room = pick.row("room", room_id)
    host = room["owner_id"] if room["kind"] == "personal" else pick("user")
    basic = pick.row("user", host)["license"] == "basic"
    duration = rng.choice([15, 30, 40] if basic else [30, 45, 60, 90])
    live_hosts = pick.memo.setdefault("live_hosts", set())
    status = rng.choices(["ended", "live", "scheduled", "cancelled"], [35, 8, 50, 7])[0]
    if status == "live" and host in live_hosts: status = "scheduled"
    day = NOW_DT.replace(hour=8, minute=0) + timedelta(days=rng.randint(1, 30))  # a working slot within a month, later or earlier
    slot = timedelta(minutes=30 * rng.randint(0, 18))
    if status == "ended": start = day - timedelta(days=2 * (day - NOW_DT).days + 1) + slot
    elif status == "live": start = NOW_DT - timedelta(minutes=rng.randint(0, duration - 5))
    elif rng.random() < 0.15: start = NOW_DT + timedelta(minutes=rng.choice([5, 10]))  # about to start
    else: start = day + slot
    if status == "live": live_hosts.add(host)
    started = _iso(start) if status in ("live", "ended") else None
    return {"room_id": room_id, "host_id": host, "topic": rng.choice(TOPICS), "start": _iso(start),
            "duration_minutes": duration, "status": status, "started_at": started,
            "ended_at": _iso(start + timedelta(minutes=duration)) if status == "ended" else None,
            "recording": status in ("live", "ended") and not basic and rng.random() < 0.5,
            "waiting_room": rng.random() < 0.5, "capacity": room["capacity"]}

def _participant(rng, i, pick):
    seen, heads = pick.memo.setdefault("participants", set()), pick.memo.setdefault("headcount", {})
    mid, user = pick("meeting"), pick("user")
    m = pick.row("meeting", mid)
    if user == m["host_id"] or (mid, user) in seen or heads.get(mid, 1) >= m["capacity"]: return None
    seen.add((mid, user))
    heads[mid] = heads.get(mid, 1) + 1
    pro = pick.row("user", m["host_id"])["license"] == "pro"
    return {"meeting_id": mid, "user_id": user, "role": "co_host" if pro and rng.random() < 0.15 else "attendee"}

def _recording(rng, i, pick):
    seen, mid = pick.memo.setdefault("recorded", set()), pick("meeting")
    m = pick.row("meeting", mid)
    if m["status"] != "ended" or not m["recording"] or mid in seen: return None
    seen.add(mid)
    return {"meeting_id": mid, "duration_minutes": m["duration_minutes"], "size_mb": m["duration_minutes"] * rng.randint(8, 15),
            "status": "available", "created_at": m["ended_at"]}

server = ToolServer(
    "video_meeting", "Video meetings: users and licenses, virtual rooms, scheduled and live meetings, participants and recordings.",
    [TableSpec("user", "user_id", "usr_"),
     TableSpec("room", "room_id", "rom_", {"owner_id": "user"}),
     TableSpec("meeting", "meeting_id", "mtg_", {"room_id": "room", "host_id": "user"}),
     TableSpec("participant", "participant_id", "par_", {"meeting_id": "meeting", "user_id": "user"}),
     TableSpec("recording", "recording_id", "rec_", {"meeting_id": "meeting"})],
    {"user": _user, "room": _room, "meeting": _meeting, "participant": _participant, "recording": _recording},
    {"user": 20, "room": 12, "meeting": 48, "participant": 140, "recording": 60}, phrases=PHRASES)

UserId = Annotated[str, Entity("user")]
RoomId = Annotated[str, Entity("room")]
MeetingId = Annotated[str, Entity("meeting")]
RecordingId = Annotated[str, Entity("recording")]

# ---- helpers -------------------------------------------------------------------------------------------------------
def _now(st) -> datetime: return datetime.fromisoformat(st.meta["now"])

def _when(s) -> datetime:
    "A date-time from 'YYYY-MM-DDTHH:MM' (seconds optional)."
    for fmt in ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M"):
        try: return datetime.strptime(s, fmt)
        except ValueError: pass
    raise ToolError(f"start must be a date-time like 2026-06-16T10:00, got '{s}'")

def _span(m):
    s = datetime.fromisoformat(m["start"])
    return s, s + timedelta(minutes=m["duration_minutes"])

def _overlapping(st, start, end, **eq):
    "A scheduled or live meeting matching `eq` that overlaps [start, end), or None."
    for m in sorted(st.find("meeting", **eq), key=lambda m: m["meeting_id"]):
        if m["status"] in LIVE_OR_SCHEDULED:
            s, e = _span(m)
            if s < end and start < e: return m
    return None

def _role(st, m, user_id) -> str:
    "The user's role in a meeting: host, co_host, attendee or none."
    if m["host_id"] == user_id: return "host"
    p = st.find("participant", meeting_id=m["meeting_id"], user_id=user_id)
    return p[0]["role"] if p else "none"

def _runner(st, meeting_id, user_id):
    "A meeting and a user allowed to start or end it (its host or a co-host)."
    m, u = need(st, "meeting", meeting_id), need(st, "user", user_id)
    if _role(st, m, user_id) not in ("host", "co_host"):
        raise ToolError(f"{u['name']} ({user_id}) is not the host or a co-host of meeting {meeting_id}")
    return m

def _head_count(st, meeting_id) -> int: return 1 + len(st.find("participant", meeting_id=meeting_id))

def _meeting_out(st, m) -> dict:
    "A meeting with its room, participants and recordings."
    parts = sorted(st.find("participant", meeting_id=m["meeting_id"]), key=lambda p: p["participant_id"])
    return {**m, "host_name": st.get("user", m["host_id"])["name"], "room_name": st.get("room", m["room_id"])["name"],
            "participants": [{**p, "name": st.get("user", p["user_id"])["name"]} for p in parts],
            "recordings": sorted((dict(r) for r in st.find("recording", meeting_id=m["meeting_id"])), key=lambda r: r["recording_id"])}

# ---- read tools ----------------------------------------------------------------------------------------------------
@server.read(produces="user")
def search_meeting_users(st, query: str = "", license: Literal["basic", "pro"] | None = None):
    """Find video-meeting users by part of their name or email, with their license.

    Args:
        query: Text contained in the name or email (case-insensitive); empty matches everyone.
        license: Only users with this license (basic: meetings up to 40 minutes, no recording or co-hosts).
    """
    q = (query or "").lower()
    return [dict(u) for u in st.rows("user") if (q in u["name"].lower() or q in u["email"]) and license in (None, u["license"])]

@server.read(produces=("room", "user"))
def list_meeting_rooms(st, owner_id: UserId | None = None, kind: Literal["personal", "shared"] | None = None, min_capacity: int = 0):
    """List virtual meeting rooms with owner, kind and capacity (personal rooms are used only by their owner).

    Args:
        owner_id: Only rooms owned by this user.
        kind: Only personal or only shared rooms.
        min_capacity: Only rooms that hold at least this many people.
    """
    if owner_id is not None: need(st, "user", owner_id)
    return [dict(r) for r in st.rows("room") if owner_id in (None, r["owner_id"]) and kind in (None, r["kind"])
            and r["capacity"] >= (min_capacity or 0)]

@server.read(produces=("meeting", "room", "user"))
def list_video_meetings(st, host_id: UserId | None = None, participant_id: UserId | None = None, room_id: RoomId | None = None,
                        status: Literal["scheduled", "live", "ended", "cancelled"] | None = None, date: str | None = None):
    """List meetings by host, participant, room, status or day, earliest first.

    Args:
        host_id: Only meetings this user hosts.
        participant_id: Only meetings this user hosts or takes part in.
        room_id: Only meetings in this room.
        status: Only meetings in this state.
        date: Only meetings starting on this day, YYYY-MM-DD.
    """
    for t, k in (("user", host_id), ("user", participant_id), ("room", room_id)):
        if k is not None: need(st, t, k)
    if date is not None and (len(date) != 10 or date[4] != "-" or date[7] != "-"): raise ToolError(f"date must be YYYY-MM-DD, got '{date}'")
    mine = {p["meeting_id"] for p in st.rows("participant") if p["user_id"] == participant_id} if participant_id else set()
    out = [{**m, "participant_count": _head_count(st, m["meeting_id"]) - 1} for m in st.rows("meeting")
           if host_id in (None, m["host_id"]) and room_id in (None, m["room_id"]) and status in (None, m["status"])
           and (date is None or m["start"][:10] == date)
           and (participant_id is None or m["host_id"] == participant_id or m["meeting_id"] in mine)]
    return sorted(out, key=lambda m: (m["start"], m["meeting_id"]))

@server.read(produces=("meeting", "participant", "recording", "user"))
def get_video_meeting(st, meeting_id: MeetingId):
    """Get one meeting: room, host, time, status, participants with roles, and recordings.

    Args:
        meeting_id: The meeting to look up.
    """
    return _meeting_out(st, need(st, "meeting", meeting_id))

# ---- write tools ---------------------------------------------------------------------------------------------------
@server.write(produces=("meeting", "participant"))
def schedule_video_meeting(st, host_id: UserId, room_id: RoomId, topic: str, start: str, duration_minutes: int,
                           invitee_ids: Annotated[list[str], Entity("user")] | None = None, waiting_room: bool = True):
    """Schedule a meeting in a room; the room and the host must be free and the room must hold everyone.

    Args:
        host_id: The user who hosts the meeting.
        room_id: The room; a personal room only for its owner.
        topic: What the meeting is about.
        start: Start, YYYY-MM-DDTHH:MM, in the future.
        duration_minutes: Length in minutes (15 to 480; at most 40 for basic-license hosts).
        invitee_ids: Users to add as attendees.
        waiting_room: Whether participants wait until admitted.
    """
    host, room = need(st, "user", host_id), need(st, "room", room_id)
    if room["kind"] == "personal" and room["owner_id"] != host_id:
        raise ToolError(f"room {room_id} is the personal room of {room['owner_id']}; {host_id} cannot host in it")
    if not (topic or "").strip(): raise ToolError("topic must not be empty")
    s = _when(start)
    if s <= _now(st): raise ToolError(f"start {_iso(s)} is not in the future (now is {st.meta['now']})")
    if not 15 <= duration_minutes <= 480: raise ToolError(f"duration_minutes must be between 15 and 480, got {duration_minutes}")
    if host["license"] == "basic" and duration_minutes > BASIC_MINUTES:
        raise ToolError(f"{host['name']} ({host_id}) has a basic license: meetings last at most {BASIC_MINUTES} minutes")
    invitees = list(invitee_ids or [])
    if len(set(invitees)) != len(invitees): raise ToolError("an invitee is listed twice")
    for u in invitees: need(st, "user", u)
    if host_id in invitees: raise ToolError(f"{host_id} hosts the meeting; do not invite them")
    if len(invitees) + 1 > room["capacity"]:
        raise ToolError(f"room {room_id} holds {room['capacity']} people; {len(invitees) + 1} including the host do not fit")
    e = s + timedelta(minutes=duration_minutes)
    for clash, who in ((_overlapping(st, s, e, room_id=room_id), f"room {room_id}"), (_overlapping(st, s, e, host_id=host_id), f"host {host_id}")):
        if clash: raise ToolError(f"{who} is taken by meeting {clash['meeting_id']} ('{clash['topic']}') at {clash['start']}")
    m = st.insert("meeting", {"room_id": room_id, "host_id": host_id, "topic": topic.strip(), "start": _iso(s),
                              "duration_minutes": duration_minutes, "status": "scheduled", "started_at": None, "ended_at": None,
                              "recording": False, "waiting_room": waiting_room is not False, "capacity": room["capacity"]})
    for u in invitees: st.insert("participant", {"meeting_id": m["meeting_id"], "user_id": u, "role": "attendee"})
    return _meeting_out(st, m)

@server.write(produces="participant", after=("schedule_video_meeting",))
def add_meeting_participant(st, meeting_id: MeetingId, user_id: UserId, role: Literal["attendee", "co_host"] = "attendee"):
    """Add a user to a scheduled or live meeting as an attendee or co-host (co-hosts need a pro-license host).

    Args:
        meeting_id: The meeting.
        user_id: The user to add.
        role: attendee, or co_host (may start, end and record the meeting).
    """
    m, u, role = need(st, "meeting", meeting_id), need(st, "user", user_id), role or "attendee"
    if m["status"] not in LIVE_OR_SCHEDULED: raise ToolError(f"meeting {meeting_id} is {m['status']}")
    had = _role(st, m, user_id)
    if had != "none": raise ToolError(f"{u['name']} ({user_id}) is already the {had.replace('_', '-')} of meeting {meeting_id}"
                                      if had != "attendee" else f"{u['name']} ({user_id}) already attends meeting {meeting_id}")
    if role == "co_host" and st.get("user", m["host_id"])["license"] != "pro":
        raise ToolError(f"the host of meeting {meeting_id} has a basic license, which allows no co-hosts")
    if _head_count(st, meeting_id) >= m["capacity"]: raise ToolError(f"meeting {meeting_id} is full ({m['capacity']} people)")
    p = st.insert("participant", {"meeting_id": meeting_id, "user_id": user_id, "role": role})
    return {**p, "participant_count": _head_count(st, meeting_id) - 1}

@server.write(after=("schedule_video_meeting",))
def start_video_meeting(st, meeting_id: MeetingId, user_id: UserId, record: bool = False):
    """Start a scheduled meeting (at most 15 minutes early), optionally recording it.

    Args:
        meeting_id: The meeting to start.
        user_id: Who starts it: the host or a co-host.
        record: Record the meeting to the cloud (needs a pro-license host).
    """
    m = _runner(st, meeting_id, user_id)
    if m["status"] != "scheduled": raise ToolError(f"meeting {meeting_id} is {m['status']}, not scheduled")
    s, e = _span(m)
    now = _now(st)
    if now < s - EARLY_START: raise ToolError(f"meeting {meeting_id} starts at {m['start']}; it can be started from 15 minutes before")
    if now >= e: raise ToolError(f"meeting {meeting_id} was due to end at {_iso(e)}; schedule a new one")
    if record and st.get("user", m["host_id"])["license"] != "pro": raise ToolError(f"the host of meeting {meeting_id} has a basic license, which cannot record")
    live = [x for x in st.find("meeting", host_id=m["host_id"], status="live")]
    if live: raise ToolError(f"host {m['host_id']} is already running meeting {live[0]['meeting_id']}")
    busy = [x for x in st.find("meeting", room_id=m["room_id"], status="live")]
    if busy: raise ToolError(f"room {m['room_id']} is in use by meeting {busy[0]['meeting_id']}")
    return _meeting_out(st, st.update("meeting", meeting_id, status="live", started_at=_iso(now), recording=record))

@server.write(produces="recording", after=("start_video_meeting",))
def end_video_meeting(st, meeting_id: MeetingId, user_id: UserId):
    """End a live meeting for everyone; if it was being recorded, the recording becomes available.

    Args:
        meeting_id: The live meeting.
        user_id: Who ends it: the host or a co-host.
    """
    m = _runner(st, meeting_id, user_id)
    if m["status"] != "live": raise ToolError(f"meeting {meeting_id} is {m['status']}, not live")
    now = _now(st)
    st.update("meeting", meeting_id, status="ended", ended_at=_iso(now))
    rec = None
    if m["recording"]:
        minutes = max(1, int((now - datetime.fromisoformat(m["started_at"])).total_seconds() // 60))
        rec = st.insert("recording", {"meeting_id": meeting_id, "duration_minutes": minutes, "size_mb": minutes * 10,
                                      "status": "available", "created_at": _iso(now)})
    return {"meeting_id": meeting_id, "status": "ended", "ended_at": _iso(now), "recording_id": rec and rec["recording_id"]}

@server.write(after=("schedule_video_meeting",))
def cancel_video_meeting(st, meeting_id: MeetingId, user_id: UserId):
    """Cancel a scheduled meeting; only its host can.

    Args:
        meeting_id: The meeting to cancel.
        user_id: The user asking (must be the host).
    """
    m, u = need(st, "meeting", meeting_id), need(st, "user", user_id)
    if m["host_id"] != user_id: raise ToolError(f"only the host ({m['host_id']}) can cancel meeting {meeting_id}, not {u['name']} ({user_id})")
    if m["status"] != "scheduled": raise ToolError(f"meeting {meeting_id} is {m['status']}; only scheduled meetings can be cancelled")
    st.update("meeting", meeting_id, status="cancelled")
    return {"meeting_id": meeting_id, "status": "cancelled", "participants_notified": _head_count(st, meeting_id) - 1}

@server.write(after=("end_video_meeting",))
def delete_meeting_recording(st, recording_id: RecordingId, user_id: UserId):
    """Delete a meeting's recording; only the meeting's host can.

    Args:
        recording_id: The recording to delete.
        user_id: The user asking (must be the meeting's host).
    """
    r, u = need(st, "recording", recording_id), need(st, "user", user_id)
    m = st.get("meeting", r["meeting_id"])
    if m["host_id"] != user_id: raise ToolError(f"only the host ({m['host_id']}) of meeting {m['meeting_id']} can delete its recordings, not {u['name']} ({user_id})")
    if r["status"] != "available": raise ToolError(f"recording {recording_id} is already {r['status']}")
    return dict(st.update("recording", recording_id, status="deleted"))
