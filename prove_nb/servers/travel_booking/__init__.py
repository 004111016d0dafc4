"""Travel booking: flights and hotels, travellers with passports and loyalty accounts, bookings, seats, bags, changes,
cancellations and itineraries (20 tools).

Rules: cabins sell out (each flight has seats left per cabin); international flights need a passport valid six months
past departure; a traveller cannot hold two overlapping flights; departed or cancelled flights cannot be booked,
changed or cancelled. Fares come as basic (no changes, no refund), standard (change fee, refund minus a fee until 24 h
before departure) or flex (free changes, full refund). Seats must exist in the booked cabin and be free; exit rows need
a passenger aged 15 or more. At most 3 checked bags. Hotels have a number of rooms per night; stays cancel free until
the hotel's deadline, later the first night is charged.
"""
import math
from datetime import date, datetime, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.travel_booking.phrasing import PHRASES
from prove_nb.servers._common import NOW_DT, need
from prove_nb.state import TableSpec

AIRPORTS = {  # code: (city, country, lat, lon)
    "JFK": ("New York", "US", 40.6413, -73.7781), "LAX": ("Los Angeles", "US", 33.9416, -118.4085),
    "SFO": ("San Francisco", "US", 37.6213, -122.3790), "ORD": ("Chicago", "US", 41.9742, -87.9073),
    "LHR": ("London", "GB", 51.4700, -0.4543), "CDG": ("Paris", "FR", 49.0097, 2.5479),
    "FCO": ("Rome", "IT", 41.8003, 12.2389), "NRT": ("Tokyo", "JP", 35.7720, 140.3929),
    "SIN": ("Singapore", "SG", 1.3644, 103.9915), "DXB": ("Dubai", "AE", 25.2532, 55.3657)}
ROUTES = [("JFK", "LAX"), ("JFK", "SFO"), ("ORD", "LAX"), ("JFK", "LHR"), ("LHR", "CDG"), ("CDG", "FCO"), ("SFO", "NRT"),
          ("LHR", "DXB"), ("DXB", "SIN"), ("NRT", "SIN"), ("ORD", "LHR"), ("JFK", "CDG")]
AIRLINES = {"SW": "SkyWays", "AN": "AeroNova", "BJ": "BlueJet", "PA": "Pacific Air"}
CITIES = sorted({c for c, *_ in AIRPORTS.values()})
FIRST = ["Amelia", "Bruno", "Camille", "Diego", "Emma", "Felix", "Giulia", "Hassan", "Isla", "Jamal", "Keiko", "Lucas",
         "Mei", "Nadia", "Oscar", "Paula", "Quentin", "Rosa", "Sven", "Tara"]
LAST = ["Anderson", "Bianchi", "Chen", "Dubois", "Evans", "Fischer", "Garcia", "Hughes", "Ito", "Jensen", "Khan", "Lopez",
        "Moreau", "Nakamura", "Okoye", "Petrov"]
NATIONS = ["US", "GB", "FR", "IT", "JP", "SG", "AE", "DE", "CA", "BR"]
HOTEL_BRANDS = ["Grand", "Harbor", "Park", "Royal", "Urban", "Garden", "Skyline", "Riverside", "Central", "Boutique"]
HOTEL_KINDS = ["Hotel", "Suites", "Inn", "Residence", "Palace", "Lodge"]
AMENITIES = ["wifi", "breakfast", "pool", "gym", "spa", "parking", "airport_shuttle", "restaurant", "pet_friendly"]
TRIPS = ["Summer holiday", "Client visit", "Family reunion", "Conference trip", "Weekend getaway", "Honeymoon"]

BUSINESS_SEATS = tuple(f"{r}{c}" for r in (1, 2, 3) for c in "ACDF")
ECONOMY_SEATS = tuple(f"{r}{c}" for r in range(10, 30) for c in "ABCDEF")
EXIT_ROWS = (14, 15)
FARE_FACTOR = {"basic": 0.8, "standard": 1.0, "flex": 1.3}
CHANGE_FEE = {"standard": 75.0, "flex": 0.0}
CANCEL_FEE = 100.0
BAG_FEE, MAX_BAGS = 40.0, 3
SEAT_FEE_BASIC, SEAT_FEE_EXIT = 15.0, 30.0

def _km(a: str, b: str) -> float:
    "Great-circle distance between two airports."
    (_, _, la1, lo1), (_, _, la2, lo2) = AIRPORTS[a], AIRPORTS[b]
    p1, p2, dl = math.radians(la1), math.radians(la2), math.radians(lo2 - lo1)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 6371.0 * 2 * math.asin(math.sqrt(h))

# Seed layout: flight booking b belongs to traveller b // 3 (three each), hotel booking and loyalty account k to traveller
# k, itinerary k to traveller 2k (and holds that traveller's own bookings); a row past the last traveller is skipped.

def _nth_traveler(pick, n: int) -> str | None:
    "The key of the n-th traveller made, or None past the last."
    travelers = pick.rows("traveler")
    return travelers[n]["traveler_id"] if n < len(travelers) else None

def _traveler(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    has_passport = rng.random() < 0.9
    expiry = rng.choice(["2025-11-30", "2026-09-01"] + [f"20{y}-{m:02d}-15" for y in range(28, 35) for m in (3, 8)])
    year = rng.randint(2012, 2020) if rng.random() < 0.15 else rng.randint(1950, 2005)  # some children (no exit rows)
    return {"name": f"{first} {last}", "email": f"{first.lower()}.{last.lower()}{i}@mail.example",
            "date_of_birth": f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "nationality": rng.choice(NATIONS), "passport_number": f"{rng.choice('PXKL')}{rng.randrange(10**7, 10**8)}" if has_passport else None,
            "passport_expiry": expiry if has_passport else None}

def _loyalty(rng, i, pick):
    if (t := _nth_traveler(pick, i)) is None: return None
    points = rng.randrange(0, 90000, 50)
    return {"traveler_id": t, "airline": rng.choice(sorted(AIRLINES)), "number": f"{rng.randrange(10**8, 10**9)}",
            "points": points, "tier": "gold" if points >= 50000 else "silver" if points >= 20000 else "basic"}

def _flight(rng, i, pick):
    o, d = rng.choice(ROUTES)
    if rng.random() < 0.5: o, d = d, o
    code = rng.choice(sorted(AIRLINES))
    km = _km(o, d)
    dep = datetime(2026, 6, 10) + timedelta(days=rng.randrange(36), minutes=rng.randrange(6 * 12, 23 * 12) * 5)
    mins = int(round((km / 820 * 60 + 35) / 5) * 5)
    eco = round((49 + km * 0.085) * rng.uniform(0.8, 1.35))
    eco_left, bus_left = rng.choice([0, 1, 2, 4, 9, 20, 45, 80]), rng.choice([0, 1, 2, 5, 8])
    taken = rng.sample(BUSINESS_SEATS, rng.randint(0, 12 - bus_left)) + rng.sample(ECONOMY_SEATS, rng.randint(0, min(60, 120 - eco_left)))
    past = dep <= NOW_DT
    return {"airline": code, "flight_number": f"{code}{rng.randint(100, 989)}", "origin": o, "destination": d,
            "depart": dep.isoformat(), "arrive": (dep + timedelta(minutes=mins)).isoformat(), "duration_min": mins,
            "economy_fare": float(eco), "business_fare": float(round(eco * rng.uniform(2.8, 3.6))),
            "economy_seats_left": eco_left, "business_seats_left": bus_left, "taken_seats": tuple(sorted(taken)),
            "status": "departed" if past else rng.choice(["scheduled"] * 19 + ["cancelled"])}

def _flight_booking(rng, i, pick):
    if (t := _nth_traveler(pick, i // 3)) is None: return None
    cabin = rng.choice(["economy"] * 6 + ["business"])
    fare_class = rng.choice(["basic", "standard", "standard", "flex"])
    bags = rng.choice([0, 0, 1, 1, 2])
    fare = float(rng.randrange(120, 1400) if cabin == "economy" else rng.randrange(1100, 4800))
    return {"traveler_id": t, "flight_id": pick("flight"), "cabin": cabin, "fare_class": fare_class,
            "fare_paid": fare, "extras_paid": BAG_FEE * bags if cabin == "economy" else 0.0, "seat": None,
            "checked_bags": bags, "points_earned": 0, "status": rng.choice(["confirmed"] * 6 + ["cancelled"]), "refund": 0.0,
            "booked_at": f"2026-{rng.randint(3, 6):02d}-{rng.randint(1, 14):02d}T{rng.randint(7, 22):02d}:00:00"}

def _hotel(rng, i, pick):
    city, stars = rng.choice(CITIES), rng.choice([2, 3, 3, 4, 4, 5])
    return {"name": f"{rng.choice(HOTEL_BRANDS)} {city} {rng.choice(HOTEL_KINDS)}", "city": city, "stars": stars,
            "nightly_rate": float(round(rng.uniform(40, 70) * stars + rng.choice([0, 20, 45]))), "rooms_total": rng.randint(2, 12),
            "amenities": tuple(sorted(rng.sample(AMENITIES, rng.randint(2, 6)))), "rating": round(rng.uniform(6.5, 9.8), 1),
            "free_cancel_hours": rng.choice([24, 48, 72])}

def _hotel_booking(rng, i, pick):
    if (t := _nth_traveler(pick, i)) is None: return None
    ci = date(2026, 6, 1) + timedelta(days=rng.randrange(50))
    nights, rooms = rng.randint(1, 6), rng.choice([1, 1, 1, 2])
    return {"traveler_id": t, "hotel_id": pick("hotel"), "check_in": ci.isoformat(),
            "check_out": (ci + timedelta(days=nights)).isoformat(), "nights": nights, "rooms": rooms,
            "total_price": float(rng.randrange(90, 400) * nights * rooms), "status": rng.choice(["confirmed"] * 5 + ["cancelled"]),
            "refund": 0.0}

def _itinerary(rng, i, pick):
    if (t := _nth_traveler(pick, 2 * i)) is None: return None
    name = f"{rng.choice(TRIPS)} {2026}"
    flights = [b["booking_id"] for b in pick.group("flight_booking", "traveler_id").get(t, [])][:rng.randint(1, 3)]
    hotels = [b["booking_id"] for b in pick.group("hotel_booking", "traveler_id").get(t, [])][:1]
    return {"traveler_id": t, "name": name, "flight_booking_ids": tuple(flights),
            "hotel_booking_ids": tuple(hotels) if rng.random() < 0.7 else (), "created_at": "2026-05-20T10:00:00"}

server = ToolServer(
    "travel_booking", "Travel booking: search and book flights and hotels, seats, bags, changes, cancellations and itineraries.",
    [TableSpec("traveler", "traveler_id", "trv_"),
     TableSpec("loyalty_account", "loyalty_id", "loy_", {"traveler_id": "traveler"}),
     TableSpec("flight", "flight_id", "flt_"),
     TableSpec("flight_booking", "booking_id", "fbk_", {"traveler_id": "traveler", "flight_id": "flight"}),
     TableSpec("hotel", "hotel_id", "htl_"),
     TableSpec("hotel_booking", "booking_id", "hbk_", {"traveler_id": "traveler", "hotel_id": "hotel"}),
     TableSpec("itinerary", "itinerary_id", "itn_", {"traveler_id": "traveler", "flight_booking_ids": "flight_booking",
                                                     "hotel_booking_ids": "hotel_booking"})],
    {"traveler": _traveler, "loyalty_account": _loyalty, "flight": _flight, "flight_booking": _flight_booking,
     "hotel": _hotel, "hotel_booking": _hotel_booking, "itinerary": _itinerary},
    {"traveler": 20, "loyalty_account": 12, "flight": 60, "flight_booking": 60, "hotel": 30, "hotel_booking": 20, "itinerary": 8},
    phrases=PHRASES)

TravelerId = Annotated[str, Entity("traveler")]
FlightId = Annotated[str, Entity("flight")]
FlightBookingId = Annotated[str, Entity("flight_booking")]
HotelId = Annotated[str, Entity("hotel")]
HotelBookingId = Annotated[str, Entity("hotel_booking")]
ItineraryId = Annotated[str, Entity("itinerary")]
Airport = Literal["JFK", "LAX", "SFO", "ORD", "LHR", "CDG", "FCO", "NRT", "SIN", "DXB"]
City = Literal["Chicago", "Dubai", "London", "Los Angeles", "New York", "Paris", "Rome", "San Francisco", "Singapore", "Tokyo"]
Cabin = Literal["economy", "business"]
FareClass = Literal["basic", "standard", "flex"]

def _day(s: str, what: str) -> date:
    try: return date.fromisoformat(s)
    except (TypeError, ValueError): raise ToolError(f"{what} must be a date YYYY-MM-DD, got '{s}'") from None

def _hours_before(st, when: str) -> float:
    "Hours from the server clock until `when` (negative once it has passed)."
    return (datetime.fromisoformat(when) - datetime.fromisoformat(st.meta["now"])).total_seconds() / 3600

def _bookable(st, flight):
    "Raise unless the flight can still be sold or changed to."
    if flight["status"] == "cancelled": raise ToolError(f"flight {flight['flight_id']} is cancelled")
    if flight["status"] == "departed" or _hours_before(st, flight["depart"]) <= 0:
        raise ToolError(f"flight {flight['flight_id']} has already departed")

def _international(flight) -> bool:
    return AIRPORTS[flight["origin"]][1] != AIRPORTS[flight["destination"]][1]

def _check_passport(trav, flight):
    "International flights need a passport valid at least 183 days after departure."
    if not _international(flight): return
    if not trav["passport_number"]:
        raise ToolError(f"traveler {trav['traveler_id']} has no passport on file, required for international flight {flight['flight_id']}")
    if date.fromisoformat(trav["passport_expiry"]) < date.fromisoformat(flight["depart"][:10]) + timedelta(days=183):
        raise ToolError(f"passport of traveler {trav['traveler_id']} expires {trav['passport_expiry']}, less than 6 months after departure")

def _conflict(st, traveler_id, flight, skip=None):
    "The traveller's confirmed booking whose flight overlaps `flight`, if any."
    for b in st.find("flight_booking", traveler_id=traveler_id, status="confirmed"):
        if b["booking_id"] == skip: continue
        f = st.get("flight", b["flight_id"])
        if f["flight_id"] == flight["flight_id"] or (f["depart"] < flight["arrive"] and flight["depart"] < f["arrive"]): return b
    return None

def _fare(flight, cabin, fare_class) -> float:
    return round(flight[f"{cabin}_fare"] * FARE_FACTOR[fare_class], 2)

def _active_booking(st, booking_id):
    "A confirmed booking whose flight has not departed, with its flight."
    b = need(st, "flight_booking", booking_id, "flight booking")
    if b["status"] != "confirmed": raise ToolError(f"flight booking {booking_id} is {b['status']}")
    f = st.get("flight", b["flight_id"])
    if f["status"] == "departed" or _hours_before(st, f["depart"]) <= 0:
        raise ToolError(f"flight {f['flight_id']} of booking {booking_id} has already departed")
    return b, f

def _release_seat(st, flight, seat):
    if seat: st.update("flight", flight["flight_id"], taken_seats=tuple(s for s in st.get("flight", flight["flight_id"])["taken_seats"] if s != seat))

def _age_on(dob: str, day: str) -> int:
    b, d = date.fromisoformat(dob), date.fromisoformat(day[:10])
    return d.year - b.year - ((d.month, d.day) < (b.month, b.day))

def _change_quote(st, booking, new_flight) -> dict:
    "Fee, fare difference, amount due and refund for moving a booking to `new_flight`."
    if booking["fare_class"] == "basic": raise ToolError(f"booking {booking['booking_id']} has a basic fare, which cannot be changed")
    old = st.get("flight", booking["flight_id"])
    if new_flight["flight_id"] == old["flight_id"]: raise ToolError(f"booking {booking['booking_id']} is already on flight {old['flight_id']}")
    if (new_flight["origin"], new_flight["destination"]) != (old["origin"], old["destination"]):
        raise ToolError(f"flight {new_flight['flight_id']} flies {new_flight['origin']}-{new_flight['destination']}, "
                        f"not the booked route {old['origin']}-{old['destination']}")
    _bookable(st, new_flight)
    if new_flight[f"{booking['cabin']}_seats_left"] < 1:
        raise ToolError(f"flight {new_flight['flight_id']} has no {booking['cabin']} seats left")
    new_fare = _fare(new_flight, booking["cabin"], booking["fare_class"])
    diff = round(new_fare - booking["fare_paid"], 2)
    fee = CHANGE_FEE[booking["fare_class"]]
    return {"booking_id": booking["booking_id"], "new_flight_id": new_flight["flight_id"], "new_fare": new_fare, "change_fee": fee,
            "fare_difference": diff, "amount_due": round(fee + max(diff, 0.0), 2),
            "refund": round(-diff, 2) if diff < 0 and booking["fare_class"] == "flex" else 0.0}

def _rooms_free(hotel, bookings, ci: date, co: date) -> int:
    "Rooms of `hotel` free on every night from `ci` to the night before `co`, given its confirmed `bookings`."
    used = 0
    for n in range((co - ci).days):
        night = (ci + timedelta(days=n)).isoformat()
        used = max(used, sum(b["rooms"] for b in bookings if b["check_in"] <= night < b["check_out"]))
    return max(0, hotel["rooms_total"] - used)

def _stay(st, check_in, check_out):
    ci, co = _day(check_in, "check_in"), _day(check_out, "check_out")
    if ci < date.fromisoformat(st.meta["now"][:10]): raise ToolError(f"check_in {check_in} is in the past (today is {st.meta['now'][:10]})")
    if co <= ci: raise ToolError(f"check_out {check_out} must be after check_in {check_in}")
    if (co - ci).days > 30: raise ToolError("stays are limited to 30 nights")
    return ci, co

def _booking_view(st, b) -> dict:
    f = st.get("flight", b["flight_id"])
    return {**dict(b), "flight_number": f["flight_number"], "origin": f["origin"], "destination": f["destination"],
            "depart": f["depart"], "arrive": f["arrive"]}

# ---------------------------------------------------------------- reads

@server.read(produces="flight")
def search_flights(st, origin: Airport, destination: Airport, date: str = "", cabin: Cabin = "economy", max_fare: float = 0):
    """Search scheduled flights on a route, cheapest first, with the standard fare and seats left in a cabin.

    Args:
        origin: Departure airport code.
        destination: Arrival airport code.
        date: Departure day YYYY-MM-DD; empty for every upcoming day.
        cabin: Cabin whose fare and seats to show.
        max_fare: Only flights whose standard fare in the cabin is at most this (0 for no limit).
    """
    if origin == destination: raise ToolError("origin and destination must differ")
    if date: _day(date, "date")
    out = []
    for f in st.rows("flight"):
        if f["origin"] != origin or f["destination"] != destination or f["status"] != "scheduled": continue
        if (date and f["depart"][:10] != date) or _hours_before(st, f["depart"]) <= 0: continue
        fare = f[f"{cabin}_fare"]
        if max_fare and fare > max_fare: continue
        out.append({"flight_id": f["flight_id"], "flight_number": f["flight_number"], "airline": AIRLINES[f["airline"]],
                    "depart": f["depart"], "arrive": f["arrive"], "duration_min": f["duration_min"], "cabin": cabin,
                    "fare": fare, "seats_left": f[f"{cabin}_seats_left"]})
    return sorted(out, key=lambda r: (r["fare"], r["depart"], r["flight_id"]))

@server.read(produces="flight")
def get_flight_details(st, flight_id: FlightId):
    """Get a flight: route, times, status, fares and seats left in both cabins, and whether it is international.

    Args:
        flight_id: The flight to look up.
    """
    f = need(st, "flight", flight_id)
    out = {k: v for k, v in f.items() if k != "taken_seats"}
    return {**out, "airline_name": AIRLINES[f["airline"]], "international": _international(f),
            "fares": {c: {fc: _fare(f, c, fc) for fc in FARE_FACTOR} for c in ("economy", "business")}}

@server.read
def get_seat_map(st, flight_id: FlightId, cabin: Cabin = "economy"):
    """List the free seats of a cabin on a flight, marking exit-row seats (extra legroom, fee, passengers 15+).

    Args:
        flight_id: The flight whose seats to show.
        cabin: The cabin to show.
    """
    f = need(st, "flight", flight_id)
    taken = set(f["taken_seats"])
    seats = BUSINESS_SEATS if cabin == "business" else ECONOMY_SEATS
    free = [s for s in seats if s not in taken]
    return {"flight_id": flight_id, "cabin": cabin, "free_seats": free,
            "exit_row_seats": [s for s in free if cabin == "economy" and int(s[:-1]) in EXIT_ROWS]}

@server.read(produces="hotel")
def search_hotels(st, city: City, check_in: str, check_out: str, rooms: int = 1, min_stars: int = 0, max_nightly_rate: float = 0):
    """Search hotels in a city with enough free rooms for every night of a stay, cheapest first.

    Args:
        city: The city to stay in.
        check_in: Arrival day YYYY-MM-DD (today or later).
        check_out: Departure day YYYY-MM-DD, after check_in.
        rooms: Rooms needed.
        min_stars: Only hotels with at least this many stars.
        max_nightly_rate: Only hotels charging at most this per room and night (0 for no limit).
    """
    ci, co = _stay(st, check_in, check_out)
    if rooms < 1: raise ToolError(f"rooms must be at least 1, got {rooms}")
    booked = {}
    for b in st.rows("hotel_booking"):
        if b["status"] == "confirmed": booked.setdefault(b["hotel_id"], []).append(b)
    out = []
    for h in st.rows("hotel"):
        if h["city"] != city or h["stars"] < min_stars or (max_nightly_rate and h["nightly_rate"] > max_nightly_rate): continue
        free = _rooms_free(h, booked.get(h["hotel_id"], []), ci, co)
        if free >= rooms:
            out.append({**dict(h), "rooms_free": free, "nights": (co - ci).days,
                        "total_price": round(h["nightly_rate"] * rooms * (co - ci).days, 2)})
    return sorted(out, key=lambda r: (r["nightly_rate"], r["hotel_id"]))

@server.read(produces="traveler")
def find_travelers(st, name: str = "", email: str = ""):
    """Find travellers whose name and email contain the given text (case-insensitive).

    Args:
        name: Part of the traveller's name.
        email: Part of the traveller's email address.
    """
    n, e = name.lower(), email.lower()
    return [{"traveler_id": r["traveler_id"], "name": r["name"], "email": r["email"]} for r in st.rows("traveler")
            if n in r["name"].lower() and e in r["email"].lower()]

@server.read(produces=("traveler", "loyalty_account"))
def get_traveler_profile(st, traveler_id: TravelerId):
    """Get a traveller's profile: date of birth, passport, nationality and loyalty accounts with points.

    Args:
        traveler_id: The traveller to look up.
    """
    t = need(st, "traveler", traveler_id)
    return {**dict(t), "loyalty_accounts": [dict(a) for a in st.find("loyalty_account", traveler_id=traveler_id)]}

@server.read(produces=("flight_booking", "flight"))
def list_flight_bookings(st, traveler_id: TravelerId, status: Literal["confirmed", "cancelled"] | None = None):
    """List a traveller's flight bookings with flight times, seat, bags and what was paid.

    Args:
        traveler_id: The traveller whose bookings to list.
        status: Only bookings with this status.
    """
    need(st, "traveler", traveler_id)
    rows = [_booking_view(st, b) for b in st.find("flight_booking", traveler_id=traveler_id) if status in (None, b["status"])]
    return sorted(rows, key=lambda r: (r["depart"], r["booking_id"]))

@server.read(produces=("hotel_booking", "hotel"))
def list_hotel_bookings(st, traveler_id: TravelerId, status: Literal["confirmed", "cancelled"] | None = None):
    """List a traveller's hotel bookings with hotel name, dates, rooms and price.

    Args:
        traveler_id: The traveller whose bookings to list.
        status: Only bookings with this status.
    """
    need(st, "traveler", traveler_id)
    rows = [{**dict(b), "hotel_name": st.get("hotel", b["hotel_id"])["name"], "city": st.get("hotel", b["hotel_id"])["city"]}
            for b in st.find("hotel_booking", traveler_id=traveler_id) if status in (None, b["status"])]
    return sorted(rows, key=lambda r: (r["check_in"], r["booking_id"]))

@server.read(produces=("itinerary", "flight_booking", "hotel_booking"))
def list_itineraries(st, traveler_id: TravelerId):
    """List a traveller's itineraries with their flight and hotel bookings spelled out.

    Args:
        traveler_id: The traveller whose itineraries to list.
    """
    need(st, "traveler", traveler_id)
    out = []
    for it in st.find("itinerary", traveler_id=traveler_id):
        hotels = [st.get("hotel_booking", h) for h in it["hotel_booking_ids"]]
        out.append({**dict(it), "flights": [_booking_view(st, st.get("flight_booking", b)) for b in it["flight_booking_ids"]],
                    "hotels": [{**dict(h), "hotel_name": st.get("hotel", h["hotel_id"])["name"]} for h in hotels]})
    return out

@server.read
def quote_flight_change(st, booking_id: FlightBookingId, new_flight_id: FlightId):
    """Price moving a flight booking to another flight on the same route, without changing anything.

    Args:
        booking_id: The flight booking to change.
        new_flight_id: The flight to move to.
    """
    b, _ = _active_booking(st, booking_id)
    return _change_quote(st, b, need(st, "flight", new_flight_id))

# ---------------------------------------------------------------- writes

@server.write(produces="flight_booking")
def book_flight(st, traveler_id: TravelerId, flight_id: FlightId, cabin: Cabin = "economy", fare_class: FareClass = "standard"):
    """Book a seat in a cabin of a scheduled flight for a traveller; earns loyalty points with the flight's airline.

    Args:
        traveler_id: The traveller who flies.
        flight_id: The flight to book.
        cabin: The cabin to book.
        fare_class: basic (no changes or refund), standard (change fee, partial refund) or flex (free changes, full refund).
    """
    t, f = need(st, "traveler", traveler_id), need(st, "flight", flight_id)
    _bookable(st, f)
    if f[f"{cabin}_seats_left"] < 1: raise ToolError(f"flight {flight_id} has no {cabin} seats left")
    _check_passport(t, f)
    clash = _conflict(st, traveler_id, f)
    if clash: raise ToolError(f"traveler {traveler_id} already holds booking {clash['booking_id']} on an overlapping flight")
    fare = _fare(f, cabin, fare_class)
    acct = next(iter(st.find("loyalty_account", traveler_id=traveler_id, airline=f["airline"])), None)
    points = int(fare) if acct else 0
    if acct: st.update("loyalty_account", acct["loyalty_id"], points=acct["points"] + points)
    st.update("flight", flight_id, **{f"{cabin}_seats_left": f[f"{cabin}_seats_left"] - 1})
    b = st.insert("flight_booking", {"traveler_id": traveler_id, "flight_id": flight_id, "cabin": cabin, "fare_class": fare_class,
                                     "fare_paid": fare, "extras_paid": 0.0, "seat": None, "checked_bags": 0, "points_earned": points,
                                     "status": "confirmed", "refund": 0.0, "booked_at": st.meta["now"]})
    return _booking_view(st, b)

@server.write(after=("book_flight",))
def select_seat(st, booking_id: FlightBookingId, seat: str):
    """Assign a free seat in the booked cabin (basic fares pay a seat fee; economy exit rows cost extra and need age 15+).

    Args:
        booking_id: The flight booking that gets the seat.
        seat: Seat code such as 12C (row number then letter).
    """
    b, f = _active_booking(st, booking_id)
    seat = seat.strip().upper()
    cabin_seats = BUSINESS_SEATS if b["cabin"] == "business" else ECONOMY_SEATS
    if seat not in cabin_seats: raise ToolError(f"seat {seat} is not a {b['cabin']} seat on flight {f['flight_id']}")
    if seat == b["seat"]: raise ToolError(f"booking {booking_id} already has seat {seat}")
    if seat in f["taken_seats"]: raise ToolError(f"seat {seat} on flight {f['flight_id']} is already taken")
    exit_row = b["cabin"] == "economy" and int(seat[:-1]) in EXIT_ROWS
    if exit_row and _age_on(st.get("traveler", b["traveler_id"])["date_of_birth"], f["depart"]) < 15:
        raise ToolError(f"exit-row seat {seat} needs a passenger aged 15 or more")
    fee = (SEAT_FEE_BASIC if b["fare_class"] == "basic" and b["cabin"] == "economy" else 0.0) + (SEAT_FEE_EXIT if exit_row else 0.0)
    _release_seat(st, f, b["seat"])
    st.update("flight", f["flight_id"], taken_seats=tuple(sorted(st.get("flight", f["flight_id"])["taken_seats"] + (seat,))))
    st.update("flight_booking", booking_id, seat=seat, extras_paid=round(b["extras_paid"] + fee, 2))
    return {"booking_id": booking_id, "seat": seat, "previous_seat": b["seat"], "fee": fee}

@server.write(after=("book_flight",))
def add_checked_bags(st, booking_id: FlightBookingId, bags: int):
    """Add checked bags to a flight booking, at most 3 in all.

    Business includes 2 bags free and flex economy 1; every other bag costs 40.

    Args:
        booking_id: The flight booking to add bags to.
        bags: Number of bags to add.
    """
    b, _ = _active_booking(st, booking_id)
    if bags < 1: raise ToolError(f"bags must be at least 1, got {bags}")
    total = b["checked_bags"] + bags
    if total > MAX_BAGS: raise ToolError(f"booking {booking_id} would have {total} checked bags; the maximum is {MAX_BAGS}")
    free = 2 if b["cabin"] == "business" else 1 if b["fare_class"] == "flex" else 0
    fee = BAG_FEE * (max(0, total - free) - max(0, b["checked_bags"] - free))
    st.update("flight_booking", booking_id, checked_bags=total, extras_paid=round(b["extras_paid"] + fee, 2))
    return {"booking_id": booking_id, "checked_bags": total, "fee": fee}

@server.write(produces="flight_booking", after=("book_flight",))
def change_flight(st, booking_id: FlightBookingId, new_flight_id: FlightId):
    """Move a standard or flex booking to another flight on the same route; the seat is released.

    Standard fares pay a 75 change fee; both pay any fare increase, and flex fares get a lower fare refunded.

    Args:
        booking_id: The flight booking to change.
        new_flight_id: The flight to move to.
    """
    b, old = _active_booking(st, booking_id)
    new = need(st, "flight", new_flight_id)
    q = _change_quote(st, b, new)
    clash = _conflict(st, b["traveler_id"], new, skip=booking_id)
    if clash: raise ToolError(f"traveler {b['traveler_id']} already holds booking {clash['booking_id']} on an overlapping flight")
    _check_passport(st.get("traveler", b["traveler_id"]), new)
    cabin = b["cabin"]
    _release_seat(st, old, b["seat"])
    st.update("flight", old["flight_id"], **{f"{cabin}_seats_left": st.get("flight", old["flight_id"])[f"{cabin}_seats_left"] + 1})
    st.update("flight", new_flight_id, **{f"{cabin}_seats_left": new[f"{cabin}_seats_left"] - 1})
    fare_paid = q["new_fare"] if b["fare_class"] == "flex" else max(b["fare_paid"], q["new_fare"])
    st.update("flight_booking", booking_id, flight_id=new_flight_id, seat=None, fare_paid=fare_paid,
              extras_paid=round(b["extras_paid"] + q["change_fee"], 2), refund=round(b["refund"] + q["refund"], 2))
    return {**q, "old_flight_id": old["flight_id"], "seat": None}

@server.write(after=("book_flight",))
def cancel_flight_booking(st, booking_id: FlightBookingId):
    """Cancel a flight booking, freeing its seat and taking back the loyalty points it earned.

    Flex refunds everything paid; standard refunds the fare minus 100 until 24 hours before departure; basic refunds nothing.

    Args:
        booking_id: The flight booking to cancel.
    """
    b, f = _active_booking(st, booking_id)
    if b["fare_class"] == "flex": refund = b["fare_paid"] + b["extras_paid"]
    elif b["fare_class"] == "standard" and _hours_before(st, f["depart"]) >= 24: refund = max(0.0, b["fare_paid"] - CANCEL_FEE)
    else: refund = 0.0
    acct = next(iter(st.find("loyalty_account", traveler_id=b["traveler_id"], airline=f["airline"])), None)
    if acct and b["points_earned"]: st.update("loyalty_account", acct["loyalty_id"], points=max(0, acct["points"] - b["points_earned"]))
    _release_seat(st, f, b["seat"])
    st.update("flight", f["flight_id"], **{f"{b['cabin']}_seats_left": st.get("flight", f["flight_id"])[f"{b['cabin']}_seats_left"] + 1})
    st.update("flight_booking", booking_id, status="cancelled", seat=None, refund=round(refund, 2))
    return {"booking_id": booking_id, "status": "cancelled", "refund": round(refund, 2), "points_removed": b["points_earned"] if acct else 0}

@server.write(produces="hotel_booking")
def book_hotel(st, traveler_id: TravelerId, hotel_id: HotelId, check_in: str, check_out: str, rooms: int = 1):
    """Book rooms at a hotel for a stay; every night needs enough free rooms.

    Args:
        traveler_id: The traveller the stay is booked for.
        hotel_id: The hotel to book.
        check_in: Arrival day YYYY-MM-DD (today or later).
        check_out: Departure day YYYY-MM-DD, after check_in, at most 30 nights later.
        rooms: Number of rooms (1 to 4).
    """
    need(st, "traveler", traveler_id)
    h = need(st, "hotel", hotel_id)
    ci, co = _stay(st, check_in, check_out)
    if not 1 <= rooms <= 4: raise ToolError(f"rooms must be between 1 and 4, got {rooms}")
    free = _rooms_free(h, st.find("hotel_booking", hotel_id=hotel_id, status="confirmed"), ci, co)
    if free < rooms: raise ToolError(f"hotel {hotel_id} has only {free} rooms free from {check_in} to {check_out}, {rooms} needed")
    nights = (co - ci).days
    b = st.insert("hotel_booking", {"traveler_id": traveler_id, "hotel_id": hotel_id, "check_in": ci.isoformat(),
                                    "check_out": co.isoformat(), "nights": nights, "rooms": rooms,
                                    "total_price": round(h["nightly_rate"] * rooms * nights, 2), "status": "confirmed", "refund": 0.0})
    return {**dict(b), "hotel_name": h["name"]}

@server.write(after=("book_hotel",))
def cancel_hotel_booking(st, booking_id: HotelBookingId):
    """Cancel a hotel stay before check-in: free until the hotel's deadline, later the first night is charged.

    Args:
        booking_id: The hotel booking to cancel.
    """
    b = need(st, "hotel_booking", booking_id, "hotel booking")
    if b["status"] != "confirmed": raise ToolError(f"hotel booking {booking_id} is {b['status']}")
    left = _hours_before(st, b["check_in"] + "T15:00:00")
    if left <= 0: raise ToolError(f"hotel booking {booking_id} has already started (check-in {b['check_in']})")
    h = st.get("hotel", b["hotel_id"])
    charge = 0.0 if left >= h["free_cancel_hours"] else round(b["total_price"] / b["nights"], 2)
    st.update("hotel_booking", booking_id, status="cancelled", refund=round(b["total_price"] - charge, 2))
    return {"booking_id": booking_id, "status": "cancelled", "refund": round(b["total_price"] - charge, 2), "charged": charge}

@server.write
def update_passport(st, traveler_id: TravelerId, passport_number: str, expiry_date: str, nationality: str):
    """Store a traveller's new passport (the old one is replaced); it must not be expired.

    Args:
        traveler_id: The traveller whose passport to store.
        passport_number: Passport number, 6 to 9 letters or digits.
        expiry_date: Expiry day YYYY-MM-DD, after today.
        nationality: Two-letter country code of the issuing country, such as US or FR.
    """
    t = need(st, "traveler", traveler_id)
    num = passport_number.strip().upper()
    if not (6 <= len(num) <= 9 and num.isalnum()): raise ToolError(f"invalid passport number '{passport_number}': use 6 to 9 letters or digits")
    if _day(expiry_date, "expiry_date").isoformat() <= st.meta["now"][:10]: raise ToolError(f"passport expired on {expiry_date}")
    nat = nationality.strip().upper()
    if not (len(nat) == 2 and nat.isalpha()): raise ToolError(f"nationality must be a two-letter country code, got '{nationality}'")
    if num == t["passport_number"]: raise ToolError(f"passport {num} is already on file for traveler {traveler_id}")
    st.update("traveler", traveler_id, passport_number=num, passport_expiry=expiry_date, nationality=nat)
    return {"traveler_id": traveler_id, "passport_number": num, "passport_expiry": expiry_date, "nationality": nat}

@server.write(produces="loyalty_account")
def link_loyalty_account(st, traveler_id: TravelerId, airline: Literal["SW", "AN", "BJ", "PA"], number: str):
    """Link a traveller's frequent-flyer account with an airline (one per airline); later bookings earn points.

    Args:
        traveler_id: The traveller who owns the account.
        airline: Airline code: SW SkyWays, AN AeroNova, BJ BlueJet, PA Pacific Air.
        number: The 9-digit membership number.
    """
    need(st, "traveler", traveler_id)
    num = number.strip()
    if not (len(num) == 9 and num.isdigit()): raise ToolError(f"membership number must have 9 digits, got '{number}'")
    if st.find("loyalty_account", traveler_id=traveler_id, airline=airline):
        raise ToolError(f"traveler {traveler_id} already has a {AIRLINES[airline]} loyalty account")
    if st.find("loyalty_account", airline=airline, number=num):
        raise ToolError(f"{AIRLINES[airline]} membership {num} belongs to another traveler")
    return dict(st.insert("loyalty_account", {"traveler_id": traveler_id, "airline": airline, "number": num, "points": 0, "tier": "basic"}))

@server.write(produces="itinerary", after=("book_flight", "book_hotel"))
def create_itinerary(st, traveler_id: TravelerId, name: str, flight_booking_ids: Annotated[list[str], Entity("flight_booking")],
                     hotel_booking_ids: Annotated[list[str], Entity("hotel_booking")] | None = None):
    """Group a traveller's confirmed flight and hotel bookings into a named itinerary.

    Args:
        traveler_id: The traveller whose trip it is.
        name: Name of the itinerary, such as "Paris in July".
        flight_booking_ids: The traveller's confirmed flight bookings to include.
        hotel_booking_ids: The traveller's confirmed hotel bookings to include.
    """
    need(st, "traveler", traveler_id)
    hotels = list(hotel_booking_ids or [])
    if not name.strip(): raise ToolError("the itinerary needs a name")
    if not flight_booking_ids and not hotels: raise ToolError("an itinerary needs at least one booking")
    if len(set(flight_booking_ids)) != len(flight_booking_ids) or len(set(hotels)) != len(hotels): raise ToolError("a booking is listed twice")
    for table, ids in (("flight_booking", flight_booking_ids), ("hotel_booking", hotels)):
        for key in ids:
            b = need(st, table, key)
            if b["traveler_id"] != traveler_id: raise ToolError(f"{table.replace('_', ' ')} {key} belongs to another traveler")
            if b["status"] != "confirmed": raise ToolError(f"{table.replace('_', ' ')} {key} is {b['status']}")
    if any(it["name"].lower() == name.strip().lower() for it in st.find("itinerary", traveler_id=traveler_id)):
        raise ToolError(f"traveler {traveler_id} already has an itinerary named '{name.strip()}'")
    return dict(st.insert("itinerary", {"traveler_id": traveler_id, "name": name.strip(), "flight_booking_ids": list(flight_booking_ids),
                                        "hotel_booking_ids": hotels, "created_at": st.meta["now"]}))
