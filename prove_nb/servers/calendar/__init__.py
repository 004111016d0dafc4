"""Calendar: people with working hours, their calendars, one-off and recurring events, and invitations (17 tools).

Rules: a person is busy during the confirmed events they organize or have accepted (or tentatively accepted);
booking, rescheduling, inviting or accepting into a busy slot is refused unless `allow_conflict` is set, and so is
inviting someone outside their working days and hours; events start in the future and last at most 24 hours;
recurring events repeat daily, on weekdays, weekly or every two weeks, and single occurrences can be cancelled;
rescheduling resets every attendee's response; the organizer is never an invitee and cannot be removed.
"""
from datetime import date as Date, datetime, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.calendar.phrasing import PHRASES
from prove_nb.servers._common import NOW, TODAY, FIRST_NAMES, LAST_NAMES, need
from prove_nb.state import TableSpec

FIRST = FIRST_NAMES
LAST = LAST_NAMES
DEPARTMENTS = ["Engineering", "Design", "Sales", "Marketing", "Finance", "People", "Support"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
HOURS = [("09:00", "17:00")] * 5 + [("08:00", "16:00"), ("10:00", "18:00"), ("07:30", "15:30"), ("08:30", "17:30")]
WEEKS = [tuple(DAYS[:5])] * 8 + [tuple(DAYS[:4]), tuple(DAYS[1:6])]
CAL_NAMES = {"team": ["Platform team", "Growth squad", "Support rota", "Design crew", "Sales EMEA", "Finance close"],
             "project": ["Project Atlas", "Website relaunch", "Q3 planning", "Mobile app v2", "Data migration", "Hiring 2026"],
             "personal": ["Personal", "Family", "Health", "Side projects"]}
TITLES = {"primary": ["Design review", "Sprint planning", "Customer call: Acme", "Budget sync", "Interview: backend engineer",
                      "Quarterly business review", "Lunch & learn", "Roadmap workshop", "Vendor demo", "Hiring debrief",
                      "Architecture deep dive", "Pricing discussion", "Onboarding session", "Board prep"],
          "team": ["Team standup", "Retrospective", "Weekly sync", "Backlog grooming", "Demo day", "Team lunch"],
          "project": ["Kickoff", "Launch readiness", "Status update", "Risk review", "Milestone check-in", "Stakeholder demo"],
          "personal": ["Dentist", "Gym", "School pickup", "Focus time", "Doctor appointment", "Piano lesson"]}
LOCATIONS = ["Room Everest", "Room Kilimanjaro", "Room Fuji", "Room Denali", "Video call", "Cafeteria", "HQ 3rd floor", ""]
Frequency = Literal["daily", "weekdays", "weekly", "biweekly"]
Response = Literal["accepted", "declined", "tentative"]
BUSY = ("accepted", "tentative")

def _person(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    taken = pick.memo.setdefault("emails", set())
    email = f"{first.lower()}.{last.lower()}@northwind.example"
    if email in taken: email = f"{first.lower()}.{last.lower()}{len(taken)}@northwind.example"
    taken.add(email)
    start, end = rng.choice(HOURS)
    return {"name": f"{first} {last}", "email": email, "department": rng.choice(DEPARTMENTS),
            "work_start": start, "work_end": end, "work_days": rng.choice(WEEKS)}

def _calendar(rng, i, pick):
    "First every person's primary calendar, then, half the time, a second calendar of someone's."
    people = pick.rows("person")
    if i < len(people): owner, kind = people[i]["person_id"], "primary"
    elif rng.random() < 0.5: return None
    else: owner, kind = pick("person"), rng.choice(["team", "team", "project", "personal"])
    name = "Work" if kind == "primary" else rng.choice(CAL_NAMES[kind])
    return {"owner_id": owner, "name": name, "kind": kind, "color": rng.choice(["blue", "green", "red", "purple", "orange", "teal"]),
            "description": f"{name} calendar"}

def _event(rng, i, pick):
    cal = pick("calendar")
    c = pick.row("calendar", cal)
    day = TODAY + timedelta(days=rng.randint(-21, 35))
    if day.weekday() >= 5: day += timedelta(days=7 - day.weekday())
    start = datetime(day.year, day.month, day.day, 8) + timedelta(minutes=30 * rng.randint(0, 18))
    title = rng.choice(TITLES[c["kind"]])
    recurrence, count = None, 1
    if title == "Team standup": recurrence, count, minutes = "weekdays", rng.randint(10, 30), 15
    else:
        minutes = rng.choice([30, 30, 45, 60, 60, 90, 120])
        if rng.random() < 0.2: recurrence, count = rng.choice(["weekly", "weekly", "biweekly", "weekdays"]), rng.randint(3, 12)
    return {"calendar_id": cal, "organizer_id": c["owner_id"], "title": title, "start": _iso(start),
            "end": _iso(start + timedelta(minutes=minutes)), "location": "" if c["kind"] == "personal" else rng.choice(LOCATIONS),
            "description": "", "status": "confirmed" if rng.random() < 0.93 else "cancelled", "recurrence": recurrence,
            "occurrences": count, "cancelled_dates": ()}

def _invitation(rng, i, pick):
    seen, ev = pick.memo.setdefault("invited", set()), pick("event")
    e, person = pick.row("event", ev), pick("person")
    personal = pick.row("calendar", e["calendar_id"])["kind"] == "personal"
    if personal or person == e["organizer_id"] or (ev, person) in seen: return None
    seen.add((ev, person))
    past = e["end"] < NOW
    weights = [70, 20, 10, 0] if past else [40, 10, 10, 40]
    return {"event_id": ev, "person_id": person,
            "response": rng.choices(["accepted", "declined", "tentative", "needs_action"], weights)[0]}

server = ToolServer(
    "calendar", "Shared calendars: people and their working hours, events (one-off and recurring) and invitations.",
    [TableSpec("person", "person_id", "per_"),
     TableSpec("calendar", "calendar_id", "cal_", {"owner_id": "person"}),
     TableSpec("event", "event_id", "evt_", {"calendar_id": "calendar", "organizer_id": "person"}),
     TableSpec("invitation", "invitation_id", "inv_", {"event_id": "event", "person_id": "person"})],
    {"person": _person, "calendar": _calendar, "event": _event, "invitation": _invitation},
    {"person": 24, "calendar": 48, "event": 120, "invitation": 320}, phrases=PHRASES)

PersonId = Annotated[str, Entity("person")]
PersonIds = Annotated[list[str], Entity("person")]
CalendarId = Annotated[str, Entity("calendar")]
EventId = Annotated[str, Entity("event")]
InvitationId = Annotated[str, Entity("invitation")]

# ---- time helpers -------------------------------------------------------------------------------------------------
def _iso(d: datetime) -> str: return d.isoformat(timespec="seconds")

def _when(s, what) -> datetime:
    "A date-time from 'YYYY-MM-DDTHH:MM' (seconds optional)."
    for fmt in ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M"):
        try: return datetime.strptime(s, fmt)
        except (TypeError, ValueError): pass
    raise ToolError(f"{what} must be a date-time like 2026-06-16T10:00, got '{s}'")

def _day(s, what) -> Date:
    try:
        if len(s) == 10: return Date.fromisoformat(s)
    except (TypeError, ValueError): pass
    raise ToolError(f"{what} must be a date like 2026-06-16, got '{s}'")

def _minutes(hhmm, what) -> int:
    try:
        h, m = hhmm.split(":")
        if len(hhmm) == 5 and 0 <= int(h) < 24 and 0 <= int(m) < 60: return int(h) * 60 + int(m)
    except ValueError: pass
    raise ToolError(f"{what} must be a time like 09:30, got '{hhmm}'")

def _now(st) -> datetime: return datetime.fromisoformat(st.meta["now"])

STEP = {"daily": 1, "weekdays": 1, "weekly": 7, "biweekly": 14}

def _slots(ev, include_cancelled=False) -> list:
    "Every occurrence of an event as (start, end) date-times (cancelled single occurrences left out unless asked)."
    start, end = datetime.fromisoformat(ev["start"]), datetime.fromisoformat(ev["end"])
    if not ev["recurrence"]: return [(start, end)]
    out, k, step = [], 0, timedelta(days=STEP[ev["recurrence"]])
    while len(out) < ev["occurrences"]:
        s = start + k * step
        k += 1
        if ev["recurrence"] == "weekdays" and s.weekday() >= 5: continue
        out.append((s, s + (end - start)))
    skip = set(ev["cancelled_dates"]) if not include_cancelled else set()
    return [(s, e) for s, e in out if s.date().isoformat() not in skip]

def _upcoming(st, ev) -> list:
    now = _now(st)
    return [(s, e) for s, e in _slots(ev) if e > now]

# ---- lookups and rules ---------------------------------------------------------------------------------------------
def _people(st, ids) -> list:
    ids = list(ids or [])
    if len(set(ids)) != len(ids): raise ToolError("a person is listed twice")
    return [need(st, "person", p) for p in ids]

def _label(p) -> str: return f"{p['name']} ({p['person_id']})"

def _live(st, event_id):
    "A confirmed event that has not ended yet."
    ev = need(st, "event", event_id)
    if ev["status"] != "confirmed": raise ToolError(f"event {event_id} is {ev['status']}")
    if not _upcoming(st, ev): raise ToolError(f"event {event_id} has already taken place")
    return ev

def _busy_events(st, pid) -> list:
    "Confirmed events a person organizes or has accepted or tentatively accepted."
    evs = [e for e in st.rows("event") if e["organizer_id"] == pid and e["status"] == "confirmed"]
    for inv in st.rows("invitation"):
        if inv["person_id"] == pid and inv["response"] in BUSY:
            e = st.get("event", inv["event_id"])
            if e["status"] == "confirmed": evs.append(e)
    return evs

def _clash(st, pid, slots, skip=None):
    "The first busy event of a person that overlaps one of `slots`, as (event, start), or None."
    lo, hi = min(s for s, _ in slots), max(e for _, e in slots)
    for ev in sorted(_busy_events(st, pid), key=lambda e: e["event_id"]):
        if ev["event_id"] == skip or ev["start"] >= _iso(hi): continue
        for s, e in _slots(ev):
            if s < hi and lo < e and any(s < b and a < e for a, b in slots): return ev, s
    return None

def _off_hours(person, slots):
    "The first slot outside a person's working days and hours, or None."
    ws, we = _minutes(person["work_start"], "work_start"), _minutes(person["work_end"], "work_end")
    for s, e in slots:
        if DAYS[s.weekday()] not in person["work_days"] or s.date() != e.date() or \
                s.hour * 60 + s.minute < ws or e.hour * 60 + e.minute > we: return s
    return None

def _check_free(st, organizer_id, invitees, slots, skip=None, allow_conflict=False):
    "Refuse (unless allowed) when the organizer or an invitee is busy, or an invitee is outside working hours."
    if allow_conflict or not slots: return
    for p in ([need(st, "person", organizer_id)] if organizer_id else []) + list(invitees):
        hit = _clash(st, p["person_id"], slots, skip)
        if hit:
            ev, s = hit
            raise ToolError(f"{_label(p)} is busy at {_iso(s)} with '{ev['title']}' ({ev['event_id']}); "
                            "choose another time or pass allow_conflict=true")
    for p in invitees:
        s = _off_hours(p, slots)
        if s is not None:
            raise ToolError(f"{_label(p)} works {'/'.join(p['work_days'])} {p['work_start']}-{p['work_end']}; "
                            f"{_iso(s)} is outside their working hours (pass allow_conflict=true to invite anyway)")

def _future_span(st, start, end):
    if start <= _now(st): raise ToolError(f"start {_iso(start)} is not in the future (now is {st.meta['now']})")
    if end <= start: raise ToolError(f"end {_iso(end)} must be after start {_iso(start)}")
    if end - start > timedelta(hours=24): raise ToolError("an event can last at most 24 hours")

def _title(title):
    if not (title or "").strip(): raise ToolError("title must not be empty")
    return title.strip()

def _invite(st, event_id, people) -> list:
    return [{"invitation_id": st.insert("invitation", {"event_id": event_id, "person_id": p["person_id"],
                                                       "response": "needs_action"})["invitation_id"],
             "person_id": p["person_id"]} for p in people]

def _event_out(st, ev) -> dict:
    "An event with its attendees and (for recurring events) its upcoming occurrences."
    invs = sorted(st.find("invitation", event_id=ev["event_id"]), key=lambda r: r["invitation_id"])
    out = dict(ev)
    out["attendees"] = [{"invitation_id": r["invitation_id"], "person_id": r["person_id"],
                         "name": st.get("person", r["person_id"])["name"], "response": r["response"]} for r in invs]
    if ev["recurrence"]: out["upcoming_occurrences"] = [_iso(s) for s, _ in _upcoming(st, ev)][:10]
    return out

# ---- read tools ----------------------------------------------------------------------------------------------------
@server.read(produces="person")
def search_calendar_users(st, query: str = "", department: Literal["Engineering", "Design", "Sales", "Marketing", "Finance", "People", "Support"] | None = None):
    """Find people by part of their name or email, with their working days and hours.

    Args:
        query: Text contained in the person's name or email (case-insensitive); empty matches everyone.
        department: Only people in this department.
    """
    q = (query or "").lower()
    return [dict(p) for p in st.rows("person") if (q in p["name"].lower() or q in p["email"].lower())
            and department in (None, p["department"])]

@server.read(produces=("calendar", "person"))
def list_calendars(st, owner_id: PersonId | None = None, kind: Literal["primary", "team", "project", "personal"] | None = None,
                   query: str = ""):
    """List calendars, optionally those of one owner, of one kind, or whose name contains some text.

    Args:
        owner_id: Only calendars owned by this person.
        kind: Only calendars of this kind (every person has one primary calendar).
        query: Text contained in the calendar's name (case-insensitive).
    """
    if owner_id is not None: need(st, "person", owner_id)
    q = (query or "").lower()
    return [{**c, "owner_name": st.get("person", c["owner_id"])["name"]} for c in st.rows("calendar")
            if owner_id in (None, c["owner_id"]) and kind in (None, c["kind"]) and q in c["name"].lower()]

@server.read(produces="event")
def list_calendar_events(st, calendar_id: CalendarId | None = None, attendee_id: PersonId | None = None,
                         start_date: str | None = None, end_date: str | None = None, query: str = "",
                         include_cancelled: bool = False):
    """List event occurrences between two dates on one calendar or involving one person, earliest first.

    Args:
        calendar_id: Only events on this calendar.
        attendee_id: Only events this person organizes or is invited to (whatever their response).
        start_date: First day, YYYY-MM-DD (default today).
        end_date: Last day, YYYY-MM-DD, at most 92 days after start_date (default six days after start_date).
        query: Text contained in the event title (case-insensitive).
        include_cancelled: Also list cancelled events and cancelled occurrences.
    """
    if calendar_id is None and attendee_id is None: raise ToolError("give a calendar_id or an attendee_id")
    if calendar_id is not None: need(st, "calendar", calendar_id)
    lo = _day(start_date, "start_date") if start_date else _now(st).date()
    hi = _day(end_date, "end_date") if end_date else lo + timedelta(days=6)
    if hi < lo: raise ToolError(f"end_date {hi} is before start_date {lo}")
    if (hi - lo).days > 92: raise ToolError("the date range can span at most 92 days")
    mine = None
    if attendee_id is not None:
        need(st, "person", attendee_id)
        mine = {i["event_id"]: i["response"] for i in st.rows("invitation") if i["person_id"] == attendee_id}
    q, out = (query or "").lower(), []
    for ev in st.rows("event"):
        if calendar_id not in (None, ev["calendar_id"]) or q not in ev["title"].lower(): continue
        if mine is not None and ev["event_id"] not in mine and ev["organizer_id"] != attendee_id: continue
        if ev["status"] != "confirmed" and not include_cancelled: continue
        cancelled = set(ev["cancelled_dates"])
        for s, e in _slots(ev, include_cancelled=True):
            if not lo <= s.date() <= hi: continue
            gone = ev["status"] != "confirmed" or s.date().isoformat() in cancelled
            if gone and not include_cancelled: continue
            row = {"event_id": ev["event_id"], "title": ev["title"], "start": _iso(s), "end": _iso(e), "calendar_id": ev["calendar_id"],
                   "organizer_id": ev["organizer_id"], "location": ev["location"], "recurrence": ev["recurrence"],
                   "status": "cancelled" if gone else "confirmed"}
            if mine is not None: row["response"] = "organizer" if ev["organizer_id"] == attendee_id else mine[ev["event_id"]]
            out.append(row)
    return sorted(out, key=lambda r: (r["start"], r["event_id"]))

@server.read(produces=("event", "invitation", "person"))
def get_calendar_event(st, event_id: EventId):
    """Get one event: time, recurrence, status, attendees with their responses and invitation ids.

    Args:
        event_id: The event to look up.
    """
    return _event_out(st, need(st, "event", event_id))

@server.read(produces="event")
def get_free_busy(st, person_ids: PersonIds, date: str):
    """Show each person's working hours and busy times (events they organize or accepted) on one day.

    Args:
        person_ids: The people to look up (1 to 10).
        date: The day, YYYY-MM-DD.
    """
    day = _day(date, "date")
    people = _people(st, person_ids)
    if not 1 <= len(people) <= 10: raise ToolError("give between 1 and 10 person_ids")
    out = []
    for p in people:
        busy = [{"start": _iso(s), "end": _iso(e), "event_id": ev["event_id"], "title": ev["title"]}
                for ev in _busy_events(st, p["person_id"]) for s, e in _slots(ev) if s.date() == day]
        out.append({"person_id": p["person_id"], "name": p["name"], "works_this_day": DAYS[day.weekday()] in p["work_days"],
                    "work_start": p["work_start"], "work_end": p["work_end"],
                    "busy": sorted(busy, key=lambda b: (b["start"], b["event_id"]))})
    return out

@server.read
def find_meeting_slots(st, person_ids: PersonIds, date: str, duration_minutes: int = 30):
    """Find start times on one day when all the given people are within working hours and free, on the half hour.

    Args:
        person_ids: The people who must all attend (1 to 10).
        date: The day, YYYY-MM-DD, today or later.
        duration_minutes: Length of the meeting in minutes (15 to 480).
    """
    day = _day(date, "date")
    people = _people(st, person_ids)
    duration_minutes = 30 if duration_minutes is None else duration_minutes
    if not 1 <= len(people) <= 10: raise ToolError("give between 1 and 10 person_ids")
    if not 15 <= duration_minutes <= 480: raise ToolError(f"duration_minutes must be between 15 and 480, got {duration_minutes}")
    if day < _now(st).date(): raise ToolError(f"date {day} is in the past")
    for p in people:
        if DAYS[day.weekday()] not in p["work_days"]: raise ToolError(f"{_label(p)} does not work on {DAYS[day.weekday()]}s")
    midnight = datetime(day.year, day.month, day.day)
    lo = max(_minutes(p["work_start"], "work_start") for p in people)
    hi = min(_minutes(p["work_end"], "work_end") for p in people)
    busy = [(s, e) for p in people for ev in _busy_events(st, p["person_id"]) for s, e in _slots(ev) if s.date() == day]
    out, dur = [], timedelta(minutes=duration_minutes)
    for m in range((lo + 29) // 30 * 30, hi - duration_minutes + 1, 30):
        s = midnight + timedelta(minutes=m)
        if s > _now(st) and not any(a < s + dur and s < b for a, b in busy):
            out.append({"start": _iso(s), "end": _iso(s + dur)})
    return out

@server.read(produces=("invitation", "event"))
def list_event_invitations(st, person_id: PersonId, response: Literal["needs_action", "accepted", "declined", "tentative"] | None = None,
                           upcoming_only: bool = True):
    """List the invitations a person has received, with each event's title, start and organizer.

    Args:
        person_id: The invited person.
        response: Only invitations with this response (needs_action means not answered yet).
        upcoming_only: Only invitations to confirmed events that have not ended yet.
    """
    need(st, "person", person_id)
    upcoming_only, out = upcoming_only is not False, []
    for inv in st.rows("invitation"):
        if inv["person_id"] != person_id or response not in (None, inv["response"]): continue
        ev = st.get("event", inv["event_id"])
        nxt = _upcoming(st, ev)
        if upcoming_only and (ev["status"] != "confirmed" or not nxt): continue
        out.append({**inv, "title": ev["title"], "start": _iso(nxt[0][0]) if nxt else ev["start"], "event_status": ev["status"],
                    "organizer_id": ev["organizer_id"], "recurrence": ev["recurrence"]})
    return sorted(out, key=lambda r: (r["start"], r["invitation_id"]))

# ---- write tools ---------------------------------------------------------------------------------------------------
@server.write(produces=("event", "invitation"))
def create_calendar_event(st, calendar_id: CalendarId, title: str, start: str, end: str, attendee_ids: PersonIds | None = None,
                          location: str = "", description: str = "", allow_conflict: bool = False):
    """Create a one-off event on a calendar (its owner organizes it) and invite attendees.

    Args:
        calendar_id: The calendar to put the event on.
        title: Short title of the event.
        start: Start, YYYY-MM-DDTHH:MM, in the future.
        end: End, YYYY-MM-DDTHH:MM, after start and at most 24 hours later.
        attendee_ids: People to invite (not the organizer).
        location: Room, address or 'Video call'.
        description: Agenda or notes.
        allow_conflict: Book even if someone is busy or an invitee is outside working hours.
    """
    cal = need(st, "calendar", calendar_id)
    title = _title(title)
    s, e = _when(start, "start"), _when(end, "end")
    _future_span(st, s, e)
    people = _people(st, attendee_ids)
    if any(p["person_id"] == cal["owner_id"] for p in people):
        raise ToolError(f"{cal['owner_id']} owns calendar {calendar_id} and organizes the event; do not invite them")
    _check_free(st, cal["owner_id"], people, [(s, e)], allow_conflict=allow_conflict)
    ev = st.insert("event", {"calendar_id": calendar_id, "organizer_id": cal["owner_id"], "title": title, "start": _iso(s),
                             "end": _iso(e), "location": location or "", "description": description or "", "status": "confirmed",
                             "recurrence": None, "occurrences": 1, "cancelled_dates": ()})
    return {**ev, "invitations": _invite(st, ev["event_id"], people)}

@server.write(produces=("event", "invitation"))
def create_recurring_calendar_event(st, calendar_id: CalendarId, title: str, first_start: str, duration_minutes: int,
                                    frequency: Frequency, occurrences: int, attendee_ids: PersonIds | None = None,
                                    location: str = "", allow_conflict: bool = False):
    """Create a repeating event (e.g. a weekly 1:1) on a calendar and invite attendees to every occurrence.

    Args:
        calendar_id: The calendar to put the series on.
        title: Short title of the event.
        first_start: Start of the first occurrence, YYYY-MM-DDTHH:MM, in the future (a weekday for 'weekdays').
        duration_minutes: Length of each occurrence in minutes (5 to 480).
        frequency: How often it repeats: every day, every weekday (Mon-Fri), every week or every two weeks.
        occurrences: Number of occurrences (2 to 52).
        attendee_ids: People to invite (not the organizer).
        location: Room, address or 'Video call'.
        allow_conflict: Book even if someone is busy or an invitee is outside working hours.
    """
    cal = need(st, "calendar", calendar_id)
    title = _title(title)
    s = _when(first_start, "first_start")
    if not 5 <= duration_minutes <= 480: raise ToolError(f"duration_minutes must be between 5 and 480, got {duration_minutes}")
    if not 2 <= occurrences <= 52: raise ToolError(f"occurrences must be between 2 and 52, got {occurrences}")
    if frequency == "weekdays" and s.weekday() >= 5: raise ToolError(f"first_start {first_start} falls on a weekend")
    e = s + timedelta(minutes=duration_minutes)
    _future_span(st, s, e)
    people = _people(st, attendee_ids)
    if any(p["person_id"] == cal["owner_id"] for p in people):
        raise ToolError(f"{cal['owner_id']} owns calendar {calendar_id} and organizes the event; do not invite them")
    row = {"calendar_id": calendar_id, "organizer_id": cal["owner_id"], "title": title, "start": _iso(s), "end": _iso(e),
           "location": location or "", "description": "", "status": "confirmed", "recurrence": frequency,
           "occurrences": occurrences, "cancelled_dates": ()}
    _check_free(st, cal["owner_id"], people, _slots(row), allow_conflict=allow_conflict)
    ev = st.insert("event", row)
    out = {**ev, "invitations": _invite(st, ev["event_id"], people)}
    out["occurrence_starts"] = [_iso(a) for a, _ in _slots(ev)]
    return out

@server.write(produces="invitation", after=("create_calendar_event",))
def reschedule_calendar_event(st, event_id: EventId, new_start: str, new_end: str | None = None, allow_conflict: bool = False):
    """Move a one-off event to a new time; every attendee's response goes back to needs_action.

    Args:
        event_id: The event to move (recurring events cannot be moved; cancel occurrences instead).
        new_start: New start, YYYY-MM-DDTHH:MM, in the future.
        new_end: New end, YYYY-MM-DDTHH:MM (default: keep the event's length).
        allow_conflict: Move even if someone who has not declined is busy or outside working hours.
    """
    ev = _live(st, event_id)
    if ev["recurrence"]: raise ToolError(f"event {event_id} repeats {ev['recurrence']}; cancel single occurrences or the series instead")
    old_s, old_e = datetime.fromisoformat(ev["start"]), datetime.fromisoformat(ev["end"])
    s = _when(new_start, "new_start")
    e = _when(new_end, "new_end") if new_end else s + (old_e - old_s)
    if (s, e) == (old_s, old_e): raise ToolError(f"event {event_id} is already at {ev['start']}-{ev['end'][11:]}")
    _future_span(st, s, e)
    invs = sorted(st.find("invitation", event_id=event_id), key=lambda r: r["invitation_id"])
    people = [st.get("person", i["person_id"]) for i in invs if i["response"] != "declined"]
    _check_free(st, ev["organizer_id"], people, [(s, e)], skip=event_id, allow_conflict=allow_conflict)
    st.update("event", event_id, start=_iso(s), end=_iso(e))
    for i in invs: st.update("invitation", i["invitation_id"], response="needs_action")
    return _event_out(st, st.get("event", event_id))

@server.write(after=("create_calendar_event",))
def update_calendar_event_details(st, event_id: EventId, title: str | None = None, location: str | None = None,
                                  description: str | None = None):
    """Change the title, location or description of an upcoming event (leave a field out to keep it).

    Args:
        event_id: The event to change.
        title: New title.
        location: New location.
        description: New agenda or notes.
    """
    ev = _live(st, event_id)
    changes = {k: v for k, v in {"title": title, "location": location, "description": description}.items() if v is not None}
    if "title" in changes: changes["title"] = _title(title)
    changes = {k: v for k, v in changes.items() if ev[k] != v}
    if not changes: raise ToolError(f"nothing to change on event {event_id}")
    return dict(st.update("event", event_id, **changes))

@server.write(after=("create_calendar_event",))
def cancel_calendar_event(st, event_id: EventId):
    """Cancel an upcoming event; for a recurring event this cancels the whole series.

    Args:
        event_id: The event to cancel.
    """
    _live(st, event_id)
    st.update("event", event_id, status="cancelled")
    return {"event_id": event_id, "status": "cancelled", "attendees_notified": len(st.find("invitation", event_id=event_id))}

@server.write(after=("create_recurring_calendar_event",))
def cancel_event_occurrence(st, event_id: EventId, date: str):
    """Cancel one upcoming occurrence of a recurring event; cancelling the last remaining one cancels the series.

    Args:
        event_id: The recurring event.
        date: Day of the occurrence to cancel, YYYY-MM-DD.
    """
    ev = _live(st, event_id)
    if not ev["recurrence"]: raise ToolError(f"event {event_id} does not repeat; use cancel_calendar_event")
    day = _day(date, "date")
    if date in ev["cancelled_dates"]: raise ToolError(f"the {date} occurrence of {event_id} is already cancelled")
    hit = [s for s, _ in _slots(ev) if s.date() == day]
    if not hit: raise ToolError(f"event {event_id} has no occurrence on {date}")
    if hit[0] <= _now(st): raise ToolError(f"the {date} occurrence of {event_id} has already started")
    left = len(_upcoming(st, ev)) - 1
    st.update("event", event_id, cancelled_dates=tuple(sorted(ev["cancelled_dates"] + (date,))),
              **({} if left else {"status": "cancelled"}))
    return {"event_id": event_id, "cancelled_date": date, "upcoming_occurrences_left": left}

@server.write(produces="invitation", after=("create_calendar_event",))
def invite_to_calendar_event(st, event_id: EventId, person_ids: PersonIds, allow_conflict: bool = False):
    """Invite more people to an upcoming event (all its upcoming occurrences, if it repeats).

    Args:
        event_id: The event.
        person_ids: The people to invite (not the organizer, not already invited).
        allow_conflict: Invite even if someone is busy or outside working hours.
    """
    ev = _live(st, event_id)
    people = _people(st, person_ids)
    if not people: raise ToolError("give at least one person to invite")
    invited = {i["person_id"]: i["response"] for i in st.find("invitation", event_id=event_id)}
    for p in people:
        if p["person_id"] == ev["organizer_id"]: raise ToolError(f"{_label(p)} organizes event {event_id}")
        if p["person_id"] in invited: raise ToolError(f"{_label(p)} is already invited to {event_id} ({invited[p['person_id']]})")
    _check_free(st, None, people, _upcoming(st, ev), skip=event_id, allow_conflict=allow_conflict)
    return {"event_id": event_id, "invitations": _invite(st, event_id, people)}

@server.write(after=("invite_to_calendar_event",))
def remove_calendar_event_attendee(st, event_id: EventId, person_id: PersonId):
    """Remove an invited person from an upcoming event (their invitation is withdrawn).

    Args:
        event_id: The event.
        person_id: The attendee to remove (the organizer cannot be removed).
    """
    ev = _live(st, event_id)
    p = need(st, "person", person_id)
    if person_id == ev["organizer_id"]: raise ToolError(f"{_label(p)} organizes event {event_id} and cannot be removed")
    inv = st.find("invitation", event_id=event_id, person_id=person_id)
    if not inv: raise ToolError(f"{_label(p)} is not invited to event {event_id}")
    st.delete("invitation", inv[0]["invitation_id"])
    return {"event_id": event_id, "removed": person_id, "invitation_id": inv[0]["invitation_id"]}

@server.write(after=("invite_to_calendar_event",))
def respond_to_event_invitation(st, invitation_id: InvitationId, response: Response, allow_conflict: bool = False):
    """Accept, decline or tentatively accept an invitation; accepting into a busy slot is refused unless allowed.

    Args:
        invitation_id: The invitation to answer.
        response: The answer.
        allow_conflict: Accept even if the person is already busy at that time.
    """
    inv = need(st, "invitation", invitation_id)
    ev = _live(st, inv["event_id"])
    if inv["response"] == response: raise ToolError(f"invitation {invitation_id} is already {response}")
    if response in BUSY:
        _check_free(st, inv["person_id"], [], _upcoming(st, ev), skip=ev["event_id"], allow_conflict=allow_conflict)
    st.update("invitation", invitation_id, response=response)
    return {"invitation_id": invitation_id, "event_id": ev["event_id"], "person_id": inv["person_id"], "response": response}

@server.write
def set_working_hours(st, person_id: PersonId, work_start: str, work_end: str,
                      work_days: list[Literal["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]]):
    """Set the days and hours a person works; invitations outside them are refused.

    Args:
        person_id: The person.
        work_start: Start of the working day, HH:MM.
        work_end: End of the working day, HH:MM, after work_start.
        work_days: The days they work, e.g. ["Mon", "Tue", "Wed", "Thu", "Fri"].
    """
    p = need(st, "person", person_id)
    if _minutes(work_end, "work_end") <= _minutes(work_start, "work_start"):
        raise ToolError(f"work_end {work_end} must be after work_start {work_start}")
    if not work_days or len(set(work_days)) != len(work_days): raise ToolError("work_days must list each working day once")
    days = tuple(d for d in DAYS if d in work_days)
    if (p["work_start"], p["work_end"], p["work_days"]) == (work_start, work_end, days):
        raise ToolError(f"{_label(p)} already works {'/'.join(days)} {work_start}-{work_end}")
    return dict(st.update("person", person_id, work_start=work_start, work_end=work_end, work_days=days))
