from prove_nb.server import load_server
from prove_nb.servers.travel_booking import AIRPORTS
from tests.servers.harness import Case, server_suite

srv = load_server("travel_booking")
NOW = "2026-06-15T09:00:00"

def newest(s, table): return list(s.state.rows(table))[-1][s.state.specs[table].key]
def get(s, table, key): return s.state.get(table, key)
def upcoming(s, cabin="economy"):
    "Scheduled future flights with seats left in `cabin`."
    return [f for f in s.state.rows("flight") if f["status"] == "scheduled" and f["depart"] > NOW and f[f"{cabin}_seats_left"] > 1]
def _intl(f): return AIRPORTS[f["origin"]][1] != AIRPORTS[f["destination"]][1]

def bookable(s, cabin="economy", adult=True, pair=False, fare_class="standard"):
    """A (traveler_id, flight_id[, second flight on the same route]) that book_flight accepts on this session."""
    travelers = [t for t in s.state.rows("traveler") if (t["date_of_birth"] < "2000" if adult else t["date_of_birth"] > "2012")]
    flights = upcoming(s, cabin)
    for f in flights:
        twins = [g for g in flights if g is not f and (g["origin"], g["destination"]) == (f["origin"], f["destination"])]
        if pair and not twins: continue
        for t in travelers:
            if s.fork().call("book_flight", {"traveler_id": t["traveler_id"], "flight_id": f["flight_id"], "cabin": cabin,
                                             "fare_class": fare_class}).ok:
                if not pair: return t["traveler_id"], f["flight_id"]
                for g in twins:
                    trial = s.fork()
                    trial.call("book_flight", {"traveler_id": t["traveler_id"], "flight_id": f["flight_id"], "cabin": cabin, "fare_class": fare_class})
                    if trial.call("change_flight", {"booking_id": newest(trial, "flight_booking"), "new_flight_id": g["flight_id"]}).ok:
                        return t["traveler_id"], f["flight_id"], g["flight_id"]
    raise AssertionError("no bookable flight in the seed")

def book(fare_class="standard", **kw):
    "A setup step booking a flight the seed allows."
    return ("book_flight", lambda s: dict(zip(("traveler_id", "flight_id"), bookable(s, fare_class=fare_class, **kw)[:2]),
                                          fare_class=fare_class))
def last_booking(s): return newest(s, "flight_booking")
def sold_out(s): return next(f["flight_id"] for f in s.state.rows("flight") if f["status"] == "scheduled" and f["depart"] > NOW and f["economy_seats_left"] == 0)
def confirmed(s, table, **eq): return next(b for b in s.state.rows(table) if b["status"] == "confirmed" and all(b[k] == v for k, v in eq.items()))
def cancelled(s, table): return next(b["booking_id"] for b in s.state.rows(table) if b["status"] == "cancelled")
def expiring_traveler(s):
    return next(t["traveler_id"] for t in s.state.rows("traveler") if t["passport_expiry"] and t["passport_expiry"] < "2027-01-01")
def intl_flight(s): return next(f["flight_id"] for f in upcoming(s) if _intl(f))
def free_seat(s, flight_id, exit_row=False):
    taken = set(get(s, "flight", flight_id)["taken_seats"])
    return next(f"{r}{c}" for r in ((14, 15) if exit_row else range(20, 30)) for c in "ABCDEF" if f"{r}{c}" not in taken)
def booked_flight(s): return get(s, "flight_booking", last_booking(s))["flight_id"]
def other_route(s):
    f = get(s, "flight", booked_flight(s))
    return next(g["flight_id"] for g in upcoming(s) if (g["origin"], g["destination"]) != (f["origin"], f["destination"]))
def far_hotel(s): return get(s, "hotel", "htl_0001")
BOOK_HOTEL = ("book_hotel", lambda s: {"traveler_id": "trv_0002", "hotel_id": far_hotel(s)["hotel_id"], "check_in": "2026-09-01",
                                       "check_out": "2026-09-04"})

def seats_left_change(s, r):
    f = get(s, "flight", r.content["flight_id"])
    base = srv.seed_state(0).get("flight", r.content["flight_id"])
    assert f["economy_seats_left"] == base["economy_seats_left"] - 1 and r.content["status"] == "confirmed"
    assert r.content["fare_paid"] == f["economy_fare"] * 1.0

def change_done(s, r):
    b = get(s, "flight_booking", r.content["booking_id"])
    assert b["flight_id"] == r.content["new_flight_id"] and b["seat"] is None
    base = srv.seed_state(0)
    for fid, d in ((r.content["old_flight_id"], 0), (r.content["new_flight_id"], -1)):
        assert get(s, "flight", fid)["economy_seats_left"] == base.get("flight", fid)["economy_seats_left"] + d

def cancel_done(s, r):
    b = get(s, "flight_booking", r.content["booking_id"])
    assert b["status"] == "cancelled" and b["refund"] == max(0.0, b["fare_paid"] - 100)
    assert get(s, "flight", b["flight_id"])["economy_seats_left"] == srv.seed_state(0).get("flight", b["flight_id"])["economy_seats_left"]

def itinerary_done(s, r):
    it = get(s, "itinerary", r.content["itinerary_id"])
    assert it["flight_booking_ids"] == (last_booking(s),) and it["hotel_booking_ids"] == ()

CASES = [
    Case("search_flights", {"origin": "JFK", "destination": "LHR"},
         check=lambda s, r: r.content and all(get(s, "flight", f["flight_id"])["origin"] == "JFK" and f["depart"] > NOW for f in r.content)
         and [f["fare"] for f in r.content] == sorted(f["fare"] for f in r.content)),
    Case("search_flights", {"origin": "JFK", "destination": "JFK"}, ok=False, error="must differ"),
    Case("search_flights", {"origin": "JFK", "destination": "LHR", "date": "13/07/2026"}, ok=False, error="YYYY-MM-DD"),
    Case("get_flight_details", {"flight_id": "flt_0003"},
         check=lambda s, r: r.content["fares"]["economy"]["flex"] == round(r.content["economy_fare"] * 1.3, 2) and not r.content["international"]),
    Case("get_flight_details", {"flight_id": "flt_9999"}, ok=False, error="no flight"),
    Case("get_seat_map", {"flight_id": "flt_0003"},
         check=lambda s, r: r.content["free_seats"] and not set(r.content["free_seats"]) & set(get(s, "flight", "flt_0003")["taken_seats"])),
    Case("get_seat_map", {"flight_id": "flt_0003", "cabin": "first"}, ok=False, error="must be one of"),
    Case("search_hotels", {"city": "Paris", "check_in": "2026-06-20", "check_out": "2026-06-23"},
         check=lambda s, r: r.content and all(h["city"] == "Paris" and h["rooms_free"] >= 1 and h["total_price"] == h["nightly_rate"] * 3 for h in r.content)),
    Case("search_hotels", {"city": "Paris", "check_in": "2026-06-23", "check_out": "2026-06-20"}, ok=False, error="must be after"),
    Case("search_hotels", {"city": "Paris", "check_in": "2026-06-01", "check_out": "2026-06-03"}, ok=False, error="in the past"),
    Case("find_travelers", {"name": ""}, check=lambda s, r: len(r.content) == s.state.count("traveler")),
    Case("find_travelers", {"name": 5}, ok=False, error="must be string"),
    Case("get_traveler_profile", {"traveler_id": "trv_0001"}, check=lambda s, r: r.content["loyalty_accounts"][0]["traveler_id"] == "trv_0001"),
    Case("get_traveler_profile", {"traveler_id": "trv_9999"}, ok=False, error="no traveler"),
    Case("list_flight_bookings", {"traveler_id": "trv_0001"},
         check=lambda s, r: [b["booking_id"] for b in r.content] and all(b["traveler_id"] == "trv_0001" and "depart" in b for b in r.content)),
    Case("list_flight_bookings", {"traveler_id": "trv_0001", "status": "pending"}, ok=False, error="must be one of"),
    Case("list_hotel_bookings", {"traveler_id": "trv_0001"}, check=lambda s, r: [b["booking_id"] for b in r.content] == ["hbk_0001"]),
    Case("list_hotel_bookings", {"traveler_id": "nobody"}, ok=False, error="no traveler"),
    Case("list_itineraries", {"traveler_id": "trv_0001"},
         check=lambda s, r: r.content[0]["itinerary_id"] == "itn_0001" and r.content[0]["flights"][0]["booking_id"] == "fbk_0001"),
    Case("list_itineraries", {"traveler_id": "trv_9999"}, ok=False, error="no traveler"),
    Case("quote_flight_change", lambda s: {"booking_id": last_booking(s), "new_flight_id": bookable(s, pair=True)[2]},
         setup=[("book_flight", lambda s: dict(zip(("traveler_id", "flight_id"), bookable(s, pair=True)[:2])))],
         check=lambda s, r: r.content["change_fee"] == 75.0 and r.content["amount_due"] == 75.0 + max(0.0, r.content["fare_difference"])),
    Case("quote_flight_change", lambda s: {"booking_id": last_booking(s), "new_flight_id": "flt_0001"}, setup=[book("basic")],
         ok=False, error="basic fare"),
    Case("book_flight", lambda s: dict(zip(("traveler_id", "flight_id"), bookable(s))), check=seats_left_change),
    Case("book_flight", lambda s: {"traveler_id": "trv_0001", "flight_id": sold_out(s)}, ok=False, error="no economy seats left"),
    Case("book_flight", lambda s: {"traveler_id": expiring_traveler(s), "flight_id": intl_flight(s)}, ok=False, error="less than 6 months"),
    Case("book_flight", lambda s: {"traveler_id": get(s, "flight_booking", last_booking(s))["traveler_id"], "flight_id": booked_flight(s)},
         setup=[book()], ok=False, error="overlapping flight"),
    Case("book_flight", {"traveler_id": "trv_0001", "flight_id": "flt_0001"}, ok=False, error="already departed"),
    Case("select_seat", lambda s: {"booking_id": last_booking(s), "seat": free_seat(s, booked_flight(s), exit_row=True)}, setup=[book("basic")],
         check=lambda s, r: r.content["seat"] in get(s, "flight", booked_flight(s))["taken_seats"] and r.content["fee"] == 45.0
         and get(s, "flight_booking", last_booking(s))["extras_paid"] == 45.0),
    Case("select_seat", lambda s: {"booking_id": last_booking(s), "seat": get(s, "flight", booked_flight(s))["taken_seats"][-1]},
         setup=[book()], ok=False, error="already taken"),
    Case("select_seat", lambda s: {"booking_id": last_booking(s), "seat": free_seat(s, booked_flight(s), exit_row=True)},
         setup=[book(adult=False)], ok=False, error="aged 15"),
    Case("select_seat", lambda s: {"booking_id": last_booking(s), "seat": "2A"}, setup=[book()], ok=False, error="not a economy seat"),
    Case("add_checked_bags", lambda s: {"booking_id": last_booking(s), "bags": 2}, setup=[book()],
         check=lambda s, r: r.content["fee"] == 80.0 and get(s, "flight_booking", last_booking(s))["checked_bags"] == 2),
    Case("add_checked_bags", lambda s: {"booking_id": last_booking(s), "bags": 4}, setup=[book()], ok=False, error="maximum is 3"),
    Case("change_flight", lambda s: {"booking_id": last_booking(s), "new_flight_id": bookable(s, pair=True)[2]},
         setup=[("book_flight", lambda s: dict(zip(("traveler_id", "flight_id"), bookable(s, pair=True)[:2])))], check=change_done),
    Case("change_flight", lambda s: {"booking_id": last_booking(s), "new_flight_id": other_route(s)}, setup=[book()],
         ok=False, error="not the booked route"),
    Case("cancel_flight_booking", lambda s: {"booking_id": last_booking(s)}, setup=[book()], check=cancel_done),
    Case("cancel_flight_booking", lambda s: {"booking_id": cancelled(s, "flight_booking")}, ok=False, error="is cancelled"),
    Case("book_hotel", lambda s: {"traveler_id": "trv_0002", "hotel_id": far_hotel(s)["hotel_id"], "check_in": "2026-09-01", "check_out": "2026-09-04", "rooms": 1},
         check=lambda s, r: r.content["total_price"] == far_hotel(s)["nightly_rate"] * 3 and r.content["status"] == "confirmed"),
    Case("book_hotel", lambda s: {"traveler_id": "trv_0002", "hotel_id": far_hotel(s)["hotel_id"], "check_in": "2026-09-01",
                                  "check_out": "2026-09-04", "rooms": 1},
         setup=[BOOK_HOTEL] * srv.seed_state(0).get("hotel", "htl_0001")["rooms_total"], ok=False, error="rooms free"),
    Case("cancel_hotel_booking", lambda s: {"booking_id": newest(s, "hotel_booking")}, setup=[BOOK_HOTEL],
         check=lambda s, r: r.content["refund"] == get(s, "hotel_booking", newest(s, "hotel_booking"))["total_price"] and r.content["charged"] == 0),
    Case("cancel_hotel_booking", lambda s: {"booking_id": cancelled(s, "hotel_booking")}, ok=False, error="is cancelled"),
    Case("update_passport", {"traveler_id": "trv_0006", "passport_number": "p1234567", "expiry_date": "2035-01-31", "nationality": "sg"},
         check=lambda s, r: get(s, "traveler", "trv_0006")["passport_number"] == "P1234567" and get(s, "traveler", "trv_0006")["nationality"] == "SG"),
    Case("update_passport", {"traveler_id": "trv_0006", "passport_number": "P1234567", "expiry_date": "2026-01-31", "nationality": "SG"},
         ok=False, error="expired"),
    Case("link_loyalty_account", {"traveler_id": "trv_0020", "airline": "BJ", "number": "123456789"},
         check=lambda s, r: get(s, "loyalty_account", r.content["loyalty_id"])["points"] == 0),
    Case("link_loyalty_account", lambda s: {"traveler_id": "trv_0001", "airline": get(s, "loyalty_account", "loy_0001")["airline"],
                                            "number": "123456789"}, ok=False, error="already has"),
    Case("create_itinerary", lambda s: {"traveler_id": get(s, "flight_booking", last_booking(s))["traveler_id"], "name": "Autumn trip",
                                        "flight_booking_ids": [last_booking(s)]}, setup=[book()], check=itinerary_done),
    Case("create_itinerary", {"traveler_id": "trv_0002", "name": "Mixed", "flight_booking_ids": ["fbk_0001"]}, ok=False, error="another traveler"),
]

globals().update(server_suite(srv, CASES, n_tools=20, seeds=[(0, "small"), (3, "small"), (1, "tiny"), (0, "large")]))

def test_loyalty_points_round_trip():
    "Booking with the traveller's airline earns points; cancelling takes them back."
    s = srv.session(0)
    acct = get(s, "loyalty_account", "loy_0001")
    f = next(f for f in upcoming(s) if f["airline"] == acct["airline"] and s.fork().call("book_flight", {"traveler_id": "trv_0001", "flight_id": f["flight_id"]}).ok)
    r = s.call("book_flight", {"traveler_id": "trv_0001", "flight_id": f["flight_id"], "fare_class": "flex"})
    assert r.content["points_earned"] == int(r.content["fare_paid"]) and get(s, "loyalty_account", "loy_0001")["points"] == acct["points"] + r.content["points_earned"]
    c = s.call("cancel_flight_booking", {"booking_id": r.content["booking_id"]})
    assert c.content["refund"] == r.content["fare_paid"] and get(s, "loyalty_account", "loy_0001")["points"] == acct["points"]
