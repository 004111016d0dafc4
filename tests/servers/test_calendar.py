import pytest
from datetime import datetime, timedelta
from prove_nb.server import load_server
from prove_nb.state import integrity_errors
from prove_nb.servers.calendar import _upcoming
from tests.servers.harness import Case, server_suite

srv = load_server("calendar")
DAY = "2026-06-17"  # a Wednesday, two days after the server clock

def primary(s, pid): return [c for c in s.state.rows("calendar") if c["owner_id"] == pid and c["kind"] == "primary"][0]["calendar_id"]
def workers(s, n=2):
    "The first `n` people who work on DAY."
    return [p["person_id"] for p in s.state.rows("person") if "Wed" in p["work_days"]][:n]
def slot(s, pids, dur=30, k=0):
    "The k-th half-hour slot on DAY when everyone in `pids` is free and working."
    return s.call("find_meeting_slots", {"person_ids": pids, "date": DAY, "duration_minutes": dur}).content[k]
def upcoming(s, recurring=None):
    "A confirmed event that has not ended and has attendees (optionally recurring or not)."
    for ev in s.state.rows("event"):
        if ev["status"] == "confirmed" and _upcoming(s.state, ev) and s.state.find("invitation", event_id=ev["event_id"]) \
                and (recurring is None or bool(ev["recurrence"]) == recurring): return ev
def past(s): return next(e for e in s.state.rows("event") if e["status"] == "confirmed" and not _upcoming(s.state, e))
def busy_invite(s):
    "An accepted invitation to an upcoming one-off event: (person, event)."
    for i in s.state.rows("invitation"):
        ev = s.state.get("event", i["event_id"])
        if i["response"] == "accepted" and ev["status"] == "confirmed" and not ev["recurrence"] and _upcoming(s.state, ev):
            return i["person_id"], ev
def other(s, *pids): return next(p["person_id"] for p in s.state.rows("person") if p["person_id"] not in pids)
def pending(s): return next(i for i in s.state.rows("invitation") if i["response"] == "needs_action" and _upcoming(s.state, s.state.get("event", i["event_id"]))
                            and s.state.get("event", i["event_id"])["status"] == "confirmed")
def newest(s, table): return max(r[s.state.specs[table].key] for r in s.state.rows(table))
def ev(s, eid): return s.state.get("event", eid)
def invs(s, eid): return s.state.find("invitation", event_id=eid)

def meeting(s, attendees=True, **kw):
    "Arguments of a one-off meeting on DAY, organized by the first worker, at a slot free for both workers."
    a, b = workers(s)
    t = slot(s, [a, b])
    return {"calendar_id": primary(s, a), "title": "Roadmap chat", "start": t["start"], "end": t["end"],
            "attendee_ids": [b] if attendees else [], **kw}
CREATE = ("create_calendar_event", lambda s: meeting(s))
CREATE_SOLO = ("create_calendar_event", lambda s: meeting(s, attendees=False))
def clash_args(s, **kw):
    "A meeting that invites someone at the time of an event they accepted."
    p, e = busy_invite(s)
    org = other(s, p, e["organizer_id"])
    return {"calendar_id": primary(s, org), "title": "Clash", "start": e["start"], "end": e["end"], "attendee_ids": [p], **kw}
def recurring_clash(s):
    "A weekly series whose first occurrence falls on an event an invitee accepted."
    a = clash_args(s)
    return {"calendar_id": a["calendar_id"], "title": "Weekly clash", "first_start": a["start"], "duration_minutes": 30,
            "frequency": "weekly", "occurrences": 3, "attendee_ids": a["attendee_ids"]}
def off_hours_args(s):
    a, b = workers(s)
    return {"calendar_id": primary(s, a), "title": "Early bird", "start": f"{DAY}T06:00", "end": f"{DAY}T06:30", "attendee_ids": [b]}

def check_slots(s, r):
    assert r.content, "expected free slots"
    busy = s.call("get_free_busy", {"person_ids": workers(s), "date": DAY}).content
    for t in r.content:
        assert all(not (b["start"] < t["end"] and t["start"] < b["end"]) for p in busy for b in p["busy"])
        assert all(p["work_start"] <= t["start"][11:16] and t["end"][11:16] <= p["work_end"] for p in busy)

def check_created(s, r):
    e = ev(s, r.content["event_id"])
    assert e["status"] == "confirmed" and e["organizer_id"] == workers(s)[0]
    assert [(i["person_id"], i["response"]) for i in invs(s, e["event_id"])] == [(workers(s)[1], "needs_action")]

def check_moved(s, r):
    "The meeting left its first slot, kept its 30 minutes, and every response went back to needs_action."
    e = ev(s, r.content["event_id"])
    assert e["start"] == r.content["start"] != slot(s, workers(s))["start"]
    assert datetime.fromisoformat(e["end"]) - datetime.fromisoformat(e["start"]) == timedelta(minutes=30)
    assert [i["response"] for i in invs(s, e["event_id"])] == ["needs_action"]

CASES = [
    Case("search_calendar_users", {"query": "an"}, check=lambda s, r: r.content and all(
        "an" in p["name"].lower() or "an" in p["email"].lower() for p in r.content)),
    Case("search_calendar_users", {"department": "Legal"}, ok=False, error="must be one of"),
    Case("list_calendars", {"owner_id": "per_0001"}, check=lambda s, r: r.content and all(c["owner_id"] == "per_0001" for c in r.content)
         and sum(c["kind"] == "primary" for c in r.content) == 1),
    Case("list_calendars", {"owner_id": "per_9999"}, ok=False, error="no person"),
    Case("list_calendar_events", lambda s: {"calendar_id": upcoming(s)["calendar_id"], "start_date": "2026-06-01", "end_date": "2026-08-31"},
         check=lambda s, r: r.content and all(e["calendar_id"] == upcoming(s)["calendar_id"] and "2026-06-01" <= e["start"] < "2026-09"
                                              for e in r.content) and upcoming(s)["event_id"] in {e["event_id"] for e in r.content}),
    Case("list_calendar_events", {"attendee_id": "per_0002", "start_date": DAY},
         check=lambda s, r: all(e["response"] in ("organizer", "accepted", "declined", "tentative", "needs_action") for e in r.content)),
    Case("list_calendar_events", {"start_date": DAY}, ok=False, error="give a calendar_id or an attendee_id"),
    Case("list_calendar_events", {"attendee_id": "per_0001", "start_date": DAY, "end_date": "2026-06-01"}, ok=False, error="before start_date"),
    Case("get_calendar_event", lambda s: {"event_id": upcoming(s)["event_id"]},
         check=lambda s, r: len(r.content["attendees"]) == len(invs(s, r.content["event_id"])) > 0),
    Case("get_calendar_event", {"event_id": "evt_9999"}, ok=False, error="no event"),
    Case("get_free_busy", lambda s: {"person_ids": workers(s), "date": DAY},
         check=lambda s, r: [p["person_id"] for p in r.content] == workers(s) and all(b["start"].startswith(DAY) for p in r.content for b in p["busy"])),
    Case("get_free_busy", {"person_ids": ["per_0001"], "date": "June 17"}, ok=False, error="must be a date"),
    Case("find_meeting_slots", lambda s: {"person_ids": workers(s), "date": DAY}, check=check_slots),
    Case("find_meeting_slots", {"person_ids": ["per_0001"], "date": "2026-06-21"}, ok=False, error="does not work on Sun"),
    Case("find_meeting_slots", {"person_ids": ["per_0001"], "date": "2026-06-01"}, ok=False, error="in the past"),
    Case("list_event_invitations", lambda s: {"person_id": pending(s)["person_id"], "response": "needs_action"},
         check=lambda s, r: pending(s)["invitation_id"] in {i["invitation_id"] for i in r.content}
         and all(i["response"] == "needs_action" and i["person_id"] == pending(s)["person_id"] for i in r.content)),
    Case("list_event_invitations", {"person_id": "per_0001", "response": "maybe"}, ok=False, error="must be one of"),
    # create_calendar_event: free slot; busy attendee; busy but allowed; outside working hours; in the past; organizer invited
    Case("create_calendar_event", meeting, check=check_created),
    Case("create_calendar_event", clash_args, ok=False, error="is busy"),
    Case("create_calendar_event", lambda s: clash_args(s, allow_conflict=True),
         check=lambda s, r: ev(s, r.content["event_id"])["start"] == clash_args(s)["start"]),
    Case("create_calendar_event", off_hours_args, ok=False, error="outside their working hours"),
    Case("create_calendar_event", lambda s: meeting(s, start="2026-06-01T10:00", end="2026-06-01T11:00"), ok=False, error="not in the future"),
    Case("create_calendar_event", lambda s: meeting(s, attendee_ids=[workers(s)[0]]), ok=False, error="do not invite them"),
    Case("create_recurring_calendar_event", lambda s: {"calendar_id": primary(s, "per_0003"), "title": "Early sync", "first_start": "2026-09-07T07:00",
                                                        "duration_minutes": 30, "frequency": "weekly", "occurrences": 4},
         check=lambda s, r: r.content["occurrence_starts"] == ["2026-09-07T07:00:00", "2026-09-14T07:00:00", "2026-09-21T07:00:00", "2026-09-28T07:00:00"]
         and ev(s, r.content["event_id"])["recurrence"] == "weekly"),
    Case("create_recurring_calendar_event", lambda s: {"calendar_id": primary(s, "per_0003"), "title": "Standup", "first_start": "2026-06-20T07:00",
                                                        "duration_minutes": 15, "frequency": "weekdays", "occurrences": 5}, ok=False, error="weekend"),
    Case("create_recurring_calendar_event", lambda s: {"calendar_id": primary(s, "per_0003"), "title": "x", "first_start": "2026-09-07T07:00",
                                                        "duration_minutes": 15, "frequency": "weekly", "occurrences": 60}, ok=False, error="between 2 and 52"),
    Case("create_recurring_calendar_event", lambda s: recurring_clash(s), ok=False, error="is busy"),
    # reschedule: a fresh meeting to another free slot (responses reset); recurring refused; unchanged refused
    Case("reschedule_calendar_event", lambda s: {"event_id": newest(s, "event"), "new_start": slot(s, workers(s), k=3)["start"]},
         setup=[CREATE, ("respond_to_event_invitation", lambda s: {"invitation_id": newest(s, "invitation"), "response": "accepted"})],
         check=check_moved),
    Case("reschedule_calendar_event", lambda s: {"event_id": upcoming(s, recurring=True)["event_id"], "new_start": "2026-09-01T10:00"},
         ok=False, error="cancel single occurrences"),
    Case("reschedule_calendar_event", lambda s: {"event_id": newest(s, "event"), "new_start": ev(s, newest(s, "event"))["start"]},
         setup=[CREATE], ok=False, error="already at"),
    Case("reschedule_calendar_event", lambda s: {"event_id": newest(s, "event"), "new_start": f"{DAY}T06:00"},
         setup=[CREATE], ok=False, error="outside their working hours"),
    Case("update_calendar_event_details", lambda s: {"event_id": upcoming(s)["event_id"], "location": "Room Atlas"},
         check=lambda s, r: ev(s, upcoming(s)["event_id"])["location"] == "Room Atlas"),
    Case("update_calendar_event_details", lambda s: {"event_id": upcoming(s)["event_id"], "title": upcoming(s)["title"]},
         ok=False, error="nothing to change"),
    Case("update_calendar_event_details", lambda s: {"event_id": upcoming(s)["event_id"], "title": "  "}, ok=False, error="title must not be empty"),
    Case("cancel_calendar_event", lambda s: {"event_id": upcoming(s)["event_id"]},
         check=lambda s, r: s.state.get("event", r.content["event_id"])["status"] == "cancelled"),
    Case("cancel_calendar_event", lambda s: {"event_id": past(s)["event_id"]}, ok=False, error="already taken place"),
    Case("cancel_calendar_event", lambda s: {"event_id": newest(s, "event")}, setup=[CREATE, ("cancel_calendar_event", lambda s: {"event_id": newest(s, "event")})],
         ok=False, error="is cancelled"),
    Case("cancel_event_occurrence", lambda s: {"event_id": upcoming(s, True)["event_id"], "date": _upcoming(s.state, upcoming(s, True))[1][0].date().isoformat()},
         check=lambda s, r: r.content["cancelled_date"] in ev(s, r.content["event_id"])["cancelled_dates"]
         and r.content["cancelled_date"] not in {e["start"][:10] for e in s.call("list_calendar_events", {
             "calendar_id": ev(s, r.content["event_id"])["calendar_id"], "start_date": r.content["cancelled_date"],
             "end_date": r.content["cancelled_date"]}).content if e["event_id"] == r.content["event_id"]}),
    Case("cancel_event_occurrence", lambda s: {"event_id": upcoming(s, False)["event_id"], "date": DAY}, ok=False, error="does not repeat"),
    Case("cancel_event_occurrence", lambda s: {"event_id": upcoming(s, True)["event_id"], "date": "2027-01-01"}, ok=False, error="no occurrence"),
    Case("invite_to_calendar_event", lambda s: {"event_id": newest(s, "event"), "person_ids": [workers(s)[1]]}, setup=[CREATE_SOLO],
         check=lambda s, r: [i["person_id"] for i in invs(s, newest(s, "event"))] == [workers(s)[1]]),
    Case("invite_to_calendar_event", lambda s: {"event_id": newest(s, "event"), "person_ids": [workers(s)[1]]}, setup=[CREATE],
         ok=False, error="already invited"),
    Case("invite_to_calendar_event", lambda s: {"event_id": upcoming(s)["event_id"], "person_ids": [upcoming(s)["organizer_id"]]},
         ok=False, error="organizes"),
    Case("remove_calendar_event_attendee", lambda s: {"event_id": upcoming(s)["event_id"], "person_id": invs(s, upcoming(s)["event_id"])[0]["person_id"]},
         check=lambda s, r: r.content["removed"] not in {i["person_id"] for i in invs(s, r.content["event_id"])}),
    Case("remove_calendar_event_attendee", lambda s: {"event_id": upcoming(s)["event_id"], "person_id": upcoming(s)["organizer_id"]},
         ok=False, error="cannot be removed"),
    Case("respond_to_event_invitation", lambda s: {"invitation_id": newest(s, "invitation"), "response": "accepted"}, setup=[CREATE],
         check=lambda s, r: s.state.get("invitation", newest(s, "invitation"))["response"] == "accepted"),
    Case("respond_to_event_invitation", lambda s: {"invitation_id": pending(s)["invitation_id"], "response": "declined"},
         check=lambda s, r: s.state.get("invitation", r.content["invitation_id"])["response"] == "declined"),
    Case("respond_to_event_invitation", lambda s: {"invitation_id": newest(s, "invitation"), "response": "accepted"},
         setup=[("create_calendar_event", lambda s: clash_args(s, allow_conflict=True))], ok=False, error="is busy"),
    Case("respond_to_event_invitation", lambda s: {"invitation_id": newest(s, "invitation"), "response": "accepted"},
         setup=[CREATE, ("respond_to_event_invitation", lambda s: {"invitation_id": newest(s, "invitation"), "response": "accepted"})],
         ok=False, error="already accepted"),
    Case("set_working_hours", {"person_id": "per_0001", "work_start": "07:00", "work_end": "15:00", "work_days": ["Fri", "Mon", "Tue"]},
         check=lambda s, r: (r.content["work_start"], r.content["work_days"]) == ("07:00", ["Mon", "Tue", "Fri"])),
    Case("set_working_hours", {"person_id": "per_0001", "work_start": "17:00", "work_end": "09:00", "work_days": ["Mon"]}, ok=False, error="must be after"),
    Case("set_working_hours", {"person_id": "per_0001", "work_start": "9am", "work_end": "17:00", "work_days": ["Mon"]}, ok=False, error="must be a time"),
]

globals().update(server_suite(srv, CASES, n_tools=17, seeds=None))

@pytest.mark.parametrize("seed,size", [(0, "small"), (1, "small"), (0, "large"), (2, "large"), (3, "tiny")])
def test_seed_integrity(seed, size):
    st = srv.seed_state(seed, size)
    assert integrity_errors(st) == []
    assert all(st.get("calendar", e["calendar_id"])["owner_id"] == e["organizer_id"] for e in st.rows("event"))
    assert len({(i["event_id"], i["person_id"]) for i in st.rows("invitation")}) == st.count("invitation")

def test_invitation_slot_is_then_busy():
    "After accepting, the person is busy: the same slot is no longer offered and booking it again is refused."
    s = srv.session()
    a, b = workers(s)
    t = slot(s, [a, b])
    r = s.call("create_calendar_event", meeting(s))
    s.call("respond_to_event_invitation", {"invitation_id": r.content["invitations"][0]["invitation_id"], "response": "accepted"})
    assert t not in s.call("find_meeting_slots", {"person_ids": [b], "date": DAY}).content
    again = s.call("create_calendar_event", {"calendar_id": primary(s, other(s, a, b)), "title": "x", "start": t["start"], "end": t["end"], "attendee_ids": [b]})
    assert not again.ok and "is busy" in again.error
