import pytest
from prove_nb.server import load_server
from prove_nb.state import integrity_errors
from tests.servers.harness import Case, server_suite

srv = load_server("video_meeting")
LATER = "2026-08-03T10:00"  # a Monday with nothing booked

def rows(s, table, **eq): return [r for r in s.state.rows(table) if all(r[k] == v for k, v in eq.items())]
def lic(s, uid): return s.state.get("user", uid)["license"]
def users(s, license): return [u["user_id"] for u in rows(s, "user", license=license)]
def personal(s, license="pro"): return next(r for r in rows(s, "room", kind="personal") if lic(s, r["owner_id"]) == license)
def shared(s): return max(rows(s, "room", kind="shared"), key=lambda r: (r["capacity"], r["room_id"]))
def soon(s, license="pro"):
    "A scheduled meeting that may be started now, hosted by someone with `license`."
    return next(m for m in rows(s, "meeting", status="scheduled") if m["start"] < "2026-06-15T09:15" and lic(s, m["host_id"]) == license)
def later(s): return next(m for m in rows(s, "meeting", status="scheduled") if m["start"] > "2026-06-16")
def live(s, recording=True): return next(m for m in rows(s, "meeting", status="live") if m["recording"] == recording)
def just_started(s): return next(m for m in rows(s, "meeting", status="live") if m["started_at"] == s.state.meta["now"])
def recording(s): return rows(s, "recording", status="available")[0]
def host_of_rec(s, r): return s.state.get("meeting", r["meeting_id"])["host_id"]
def outsider(s, m): return next(u["user_id"] for u in s.state.rows("user") if u["user_id"] != m["host_id"]
                               and not rows(s, "participant", meeting_id=m["meeting_id"], user_id=u["user_id"]))
def attendee(s, m): return rows(s, "participant", meeting_id=m["meeting_id"], role="attendee")[0]["user_id"]
def newest(s, table): return max(r[s.state.specs[table].key] for r in s.state.rows(table))
def meeting(s, mid): return s.state.get("meeting", mid)

def plan(s, **kw):
    "A meeting in a pro user's personal room next August, with one invitee."
    room = personal(s)
    guest = next(u for u in users(s, "pro") if u != room["owner_id"])
    return {"host_id": room["owner_id"], "room_id": room["room_id"], "topic": "Pricing review", "start": LATER,
            "duration_minutes": 60, "invitee_ids": [guest], **kw}
def crowd(s):
    "A meeting that fills a personal room to capacity."
    room = min(rows(s, "room", kind="personal"), key=lambda r: (r["capacity"], r["room_id"]))
    others = [u["user_id"] for u in s.state.rows("user") if u["user_id"] != room["owner_id"]]
    return {"host_id": room["owner_id"], "room_id": room["room_id"], "topic": "Tight squeeze", "start": LATER,
            "duration_minutes": 30, "invitee_ids": others[:room["capacity"] - 1]}
def overcrowd(s):
    "The crowded meeting with one invitee too many."
    c = crowd(s)
    extra = next(u["user_id"] for u in s.state.rows("user") if u["user_id"] not in c["invitee_ids"] + [c["host_id"]])
    return {**c, "invitee_ids": c["invitee_ids"] + [extra]}
def basic_shared(s, minutes): return {"host_id": users(s, "basic")[0], "room_id": shared(s)["room_id"], "topic": "Long call",
                                      "start": LATER, "duration_minutes": minutes}
def check_planned(s, r):
    m = meeting(s, r.content["meeting_id"])
    assert (m["status"], m["start"], m["host_id"]) == ("scheduled", LATER + ":00", plan(s)["host_id"])
    assert [p["user_id"] for p in rows(s, "participant", meeting_id=m["meeting_id"])] == plan(s)["invitee_ids"]
def check_ended(s, r):
    m = meeting(s, r.content["meeting_id"])
    assert m["status"] == "ended" and m["ended_at"] == s.state.meta["now"]
    rec = s.state.get("recording", r.content["recording_id"])
    assert rec["meeting_id"] == m["meeting_id"] and rec["status"] == "available" and rec["duration_minutes"] >= 1

CASES = [
    Case("search_meeting_users", {"license": "pro"}, check=lambda s, r: r.content and {u["user_id"] for u in r.content} == set(users(s, "pro"))),
    Case("search_meeting_users", {"license": "enterprise"}, ok=False, error="must be one of"),
    Case("list_meeting_rooms", {"kind": "shared", "min_capacity": 50},
         check=lambda s, r: r.content and all(x["kind"] == "shared" and x["capacity"] >= 50 for x in r.content)),
    Case("list_meeting_rooms", {"owner_id": "usr_9999"}, ok=False, error="no user"),
    Case("list_video_meetings", {"status": "scheduled"}, check=lambda s, r: len(r.content) == len(rows(s, "meeting", status="scheduled"))
         and [m["start"] for m in r.content] == sorted(m["start"] for m in r.content)),
    Case("list_video_meetings", lambda s: {"participant_id": attendee(s, later(s))},
         check=lambda s, r: later(s)["meeting_id"] in {m["meeting_id"] for m in r.content}),
    Case("list_video_meetings", {"date": "15/06/2026"}, ok=False, error="YYYY-MM-DD"),
    Case("get_video_meeting", lambda s: {"meeting_id": later(s)["meeting_id"]},
         check=lambda s, r: len(r.content["participants"]) == len(rows(s, "participant", meeting_id=later(s)["meeting_id"])) > 0),
    Case("get_video_meeting", {"meeting_id": "mtg_9999"}, ok=False, error="no meeting"),
    Case("schedule_video_meeting", plan, check=check_planned),
    Case("schedule_video_meeting", lambda s: plan(s, host_id=plan(s)["invitee_ids"][0], invitee_ids=[]), ok=False, error="personal room of"),
    Case("schedule_video_meeting", lambda s: basic_shared(s, 60), ok=False, error="basic license"),
    Case("schedule_video_meeting", lambda s: basic_shared(s, 40), check=lambda s, r: r.content["duration_minutes"] == 40),
    Case("schedule_video_meeting", lambda s: plan(s, start="2026-08-03T10:30"), setup=[("schedule_video_meeting", plan)], ok=False, error="is taken"),
    Case("schedule_video_meeting", lambda s: overcrowd(s), ok=False, error="do not fit"),
    Case("schedule_video_meeting", lambda s: plan(s, start="2026-06-01T10:00"), ok=False, error="not in the future"),
    Case("add_meeting_participant", lambda s: {"meeting_id": later(s)["meeting_id"], "user_id": outsider(s, later(s))},
         check=lambda s, r: rows(s, "participant", meeting_id=later(s)["meeting_id"], user_id=r.content["user_id"])),
    Case("add_meeting_participant", lambda s: {"meeting_id": later(s)["meeting_id"], "user_id": later(s)["host_id"]}, ok=False, error="already the host"),
    Case("add_meeting_participant", lambda s: {"meeting_id": newest(s, "meeting"), "user_id": plan(s)["invitee_ids"][0]},
         setup=[("schedule_video_meeting", lambda s: basic_shared(s, 30))], check=lambda s, r: r.content["role"] == "attendee"),
    Case("add_meeting_participant", lambda s: {"meeting_id": newest(s, "meeting"), "user_id": plan(s)["invitee_ids"][0], "role": "co_host"},
         setup=[("schedule_video_meeting", lambda s: basic_shared(s, 30))], ok=False, error="allows no co-hosts"),
    Case("add_meeting_participant", lambda s: {"meeting_id": newest(s, "meeting"), "user_id": outsider(s, meeting(s, newest(s, "meeting")))},
         setup=[("schedule_video_meeting", crowd)], ok=False, error="is full"),
    Case("start_video_meeting", lambda s: {"meeting_id": soon(s)["meeting_id"], "user_id": soon(s)["host_id"], "record": True},
         check=lambda s, r: (meeting(s, r.content["meeting_id"])["status"], meeting(s, r.content["meeting_id"])["started_at"],
                             meeting(s, r.content["meeting_id"])["recording"]) == ("live", s.state.meta["now"], True)),
    Case("start_video_meeting", lambda s: {"meeting_id": later(s)["meeting_id"], "user_id": later(s)["host_id"]}, ok=False, error="15 minutes before"),
    Case("start_video_meeting", lambda s: {"meeting_id": soon(s)["meeting_id"], "user_id": outsider(s, soon(s))}, ok=False, error="not the host or a co-host"),
    Case("start_video_meeting", lambda s: {"meeting_id": soon(s, "basic")["meeting_id"], "user_id": soon(s, "basic")["host_id"], "record": True},
         ok=False, error="cannot record"),
    Case("end_video_meeting", lambda s: {"meeting_id": live(s)["meeting_id"], "user_id": live(s)["host_id"]}, check=check_ended),
    Case("end_video_meeting", lambda s: {"meeting_id": just_started(s)["meeting_id"], "user_id": just_started(s)["host_id"]},
         setup=[("start_video_meeting", lambda s: {"meeting_id": soon(s)["meeting_id"], "user_id": soon(s)["host_id"], "record": True})],
         check=check_ended),
    Case("end_video_meeting", lambda s: {"meeting_id": later(s)["meeting_id"], "user_id": later(s)["host_id"]}, ok=False, error="not live"),
    Case("end_video_meeting", lambda s: {"meeting_id": live(s)["meeting_id"], "user_id": outsider(s, live(s))}, ok=False, error="not the host"),
    Case("cancel_video_meeting", lambda s: {"meeting_id": later(s)["meeting_id"], "user_id": later(s)["host_id"]},
         check=lambda s, r: meeting(s, r.content["meeting_id"])["status"] == "cancelled"),
    Case("cancel_video_meeting", lambda s: {"meeting_id": later(s)["meeting_id"], "user_id": attendee(s, later(s))}, ok=False, error="only the host"),
    Case("cancel_video_meeting", lambda s: {"meeting_id": live(s)["meeting_id"], "user_id": live(s)["host_id"]}, ok=False, error="only scheduled"),
    Case("delete_meeting_recording", lambda s: {"recording_id": recording(s)["recording_id"], "user_id": host_of_rec(s, recording(s))},
         check=lambda s, r: s.state.get("recording", r.content["recording_id"])["status"] == "deleted"),
    Case("delete_meeting_recording", lambda s: {"recording_id": recording(s)["recording_id"],
                                                "user_id": next(u for u in users(s, "pro") if u != host_of_rec(s, recording(s)))},
         ok=False, error="only the host"),
    Case("delete_meeting_recording", lambda s: {"recording_id": "rec_0001", "user_id": host_of_rec(s, s.state.get("recording", "rec_0001"))},
         setup=[("delete_meeting_recording", lambda s: {"recording_id": "rec_0001", "user_id": host_of_rec(s, s.state.get("recording", "rec_0001"))})],
         ok=False, error="already deleted"),
]

globals().update(server_suite(srv, CASES, n_tools=10, seeds=None))

@pytest.mark.parametrize("seed,size", [(0, "small"), (1, "small"), (0, "large"), (2, "large"), (3, "tiny")])
def test_seed_integrity(seed, size):
    st = srv.seed_state(seed, size)
    assert integrity_errors(st) == []
    heads = {}
    for p in st.rows("participant"): heads[p["meeting_id"]] = heads.get(p["meeting_id"], 1) + 1
    for m in st.rows("meeting"):
        room = st.get("room", m["room_id"])
        assert heads.get(m["meeting_id"], 1) <= room["capacity"] and (room["kind"] == "shared" or room["owner_id"] == m["host_id"])
        assert st.get("user", m["host_id"])["license"] == "pro" or m["duration_minutes"] <= 40

def test_lifecycle():
    "schedule -> cannot start yet; a soon meeting: co-host starts with recording, host ends, host deletes the recording."
    s = srv.session()
    m = soon(s)
    co = outsider(s, m)
    assert s.call("add_meeting_participant", {"meeting_id": m["meeting_id"], "user_id": co, "role": "co_host"}).ok
    assert s.call("start_video_meeting", {"meeting_id": m["meeting_id"], "user_id": co, "record": True}).ok
    again = s.call("start_video_meeting", {"meeting_id": m["meeting_id"], "user_id": co})
    assert not again.ok and "is live" in again.error
    rec = s.call("end_video_meeting", {"meeting_id": m["meeting_id"], "user_id": m["host_id"]}).content["recording_id"]
    assert not s.call("delete_meeting_recording", {"recording_id": rec, "user_id": co}).ok
    assert s.call("delete_meeting_recording", {"recording_id": rec, "user_id": m["host_id"]}).ok
