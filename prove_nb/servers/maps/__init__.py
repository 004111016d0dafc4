"""Maps: places with coordinates, categories and opening hours in five cities; geocoding, distances, routes and nearby
search (mostly read-only), plus users' saved places, shared lists and reviews (16 tools).

Geometry is deterministic: every street has a fixed point in its city and house numbers run east along it, so
`geocode_address` can place any address on a known street; distances are great-circle (haversine). Routes: walking up
to 30 km, cycling up to 100 km, transit only within one city, driving only on one continent. Users have one home and
one work place at most, save a place once, review a place once, and edit only lists they own or collaborate on.
"""
import math, re
from datetime import datetime
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.maps.phrasing import PHRASES
from prove_nb.servers._common import need
from prove_nb.state import TableSpec

CITIES = {  # name: (lat, lon, continent, streets)
    "San Francisco": (37.7749, -122.4194, "north_america", ["Market St", "Mission St", "Valencia St", "Castro St", "Hayes St",
                      "Divisadero St", "Geary Blvd", "Polk St", "Columbus Ave", "Irving St"]),
    "New York": (40.7128, -74.0060, "north_america", ["Broadway", "5th Ave", "Lexington Ave", "Canal St", "Houston St",
                 "Bleecker St", "Madison Ave", "Amsterdam Ave", "Delancey St", "Park Ave"]),
    "London": (51.5074, -0.1278, "europe", ["Oxford St", "Baker St", "Regent St", "Kings Rd", "Brick Ln", "Fleet St", "Strand",
               "Portobello Rd", "Camden High St", "Borough High St"]),
    "Paris": (48.8566, 2.3522, "europe", ["Rue de Rivoli", "Boulevard Saint-Germain", "Rue Oberkampf", "Avenue Montaigne",
              "Rue Mouffetard", "Rue de Charonne", "Boulevard Haussmann", "Rue des Martyrs", "Rue Cler", "Quai de Valmy"]),
    "Tokyo": (35.6762, 139.6503, "asia", ["Omotesando", "Meiji Dori", "Chuo Dori", "Yasukuni Dori", "Aoyama Dori",
              "Takeshita Dori", "Showa Dori", "Sotobori Dori", "Kototoi Dori", "Roppongi Dori"])}
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
HOURS = {  # category: (weekday hours, saturday, sunday)
    "restaurant": ("11:30-22:30", "11:30-23:00", "12:00-22:00"), "cafe": ("07:00-18:00", "08:00-17:00", "08:00-16:00"),
    "museum": ("10:00-18:00", "10:00-20:00", "10:00-18:00"), "park": ("06:00-22:00", "06:00-22:00", "06:00-22:00"),
    "pharmacy": ("08:00-20:00", "09:00-18:00", "closed"), "supermarket": ("07:00-23:00", "07:00-23:00", "09:00-21:00"),
    "bar": ("17:00-23:59", "15:00-23:59", "15:00-23:00"), "gym": ("06:00-22:00", "08:00-20:00", "08:00-20:00"),
    "hospital": ("00:00-24:00",) * 3, "library": ("09:00-20:00", "10:00-17:00", "closed"),
    "train_station": ("05:00-24:00",) * 3, "hotel": ("00:00-24:00",) * 3}
CATEGORY = Literal["restaurant", "cafe", "museum", "park", "pharmacy", "supermarket", "bar", "gym", "hospital", "library",
                   "train_station", "hotel"]
CityName = Literal["San Francisco", "New York", "London", "Paris", "Tokyo"]
WORDS = ["Golden", "Maple", "Harbor", "Lantern", "Willow", "Copper", "Juniper", "Sunset", "Orchard", "Cedar", "Azure",
         "Marigold", "Northside", "Riverside", "Pinecone", "Velvet", "Saffron", "Meridian"]
NAMES = {"restaurant": ["{w} Bistro", "Trattoria {w}", "{w} Kitchen", "{w} Noodle House"], "cafe": ["{w} Bean", "Cafe {w}", "{w} Roasters"],
         "museum": ["{c} Museum of {t}", "{w} Gallery"], "park": ["{w} Park", "{w} Gardens"], "pharmacy": ["{w} Pharmacy"],
         "supermarket": ["FreshMart {w}", "{w} Market"], "bar": ["The {w} Fox", "{w} Tap Room"], "gym": ["{w} Fitness", "Iron {w} Gym"],
         "hospital": ["{w} General Hospital"], "library": ["{w} Public Library"], "train_station": ["{w} Station"], "hotel": ["Hotel {w}", "{w} Inn"]}
TOPICS = ["Modern Art", "Natural History", "Science", "Photography", "Design", "Maritime History"]
TAGS = ["wheelchair_accessible", "outdoor_seating", "wifi", "family_friendly", "pet_friendly", "card_only", "parking"]
FIRST = ["Alex", "Bea", "Carlos", "Dana", "Eli", "Fatima", "George", "Hana", "Ivan", "Julia", "Kofi", "Lena", "Marco", "Nora"]
LAST = ["Abe", "Brown", "Costa", "Duarte", "Eriksen", "Fontaine", "Gupta", "Hale", "Ivanova", "Jones", "Kowalski", "Lind"]
REVIEWS = {5: ["Absolutely loved it.", "A must-visit.", "Perfect in every way."], 4: ["Really good, would return.", "Great spot, a bit busy."],
           3: ["Decent but nothing special.", "Okay for a quick stop."], 2: ["Disappointing visit.", "Service was slow."],
           1: ["Would not recommend.", "Closed when it said open."]}
SPEED = {"walking": 5.0, "cycling": 15.0, "transit": 22.0}  # km/h; driving depends on the distance
DETOUR = {"walking": 1.25, "cycling": 1.2, "driving": 1.35, "transit": 1.3}
MAX_KM = {"walking": 30.0, "cycling": 100.0}

def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    "Great-circle distance in km."
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 6371.0 * 2 * math.asin(math.sqrt(min(1.0, h)))

def street_point(city: str, street: str, number: int = 1) -> tuple:
    "The coordinates of house `number` on `street` in `city`: a fixed point per street, numbers running east."
    lat0, lon0, _, streets = CITIES[city]
    j = streets.index(street)
    r, a = 0.006 * (j + 1) ** 0.8, math.radians(137.5 * j)
    lat = lat0 + r * math.cos(a)
    return round(lat, 6), round(lon0 + (r * math.sin(a) + (number % 400) * 0.00004) / math.cos(math.radians(lat0)), 6)

def _bearing(lat1, lon1, lat2, lon2) -> str:
    y = math.sin(math.radians(lon2 - lon1)) * math.cos(math.radians(lat2))
    x = math.cos(math.radians(lat1)) * math.sin(math.radians(lat2)) - math.sin(math.radians(lat1)) * math.cos(math.radians(lat2)) * math.cos(math.radians(lon2 - lon1))
    return ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"][round(math.degrees(math.atan2(y, x)) % 360 / 45) % 8]

def _place(rng, i, pick):
    city = rng.choice(sorted(CITIES))
    cat = rng.choice(sorted(HOURS))
    street, num = rng.choice(CITIES[city][3]), rng.randint(1, 399)
    lat, lon = street_point(city, street, num)
    wk, sat, sun = HOURS[cat]
    hours = {d: wk for d in DAYS[:5]} | {"sat": sat, "sun": sun}
    if cat in ("museum", "restaurant") and rng.random() < 0.5: hours["mon"] = "closed"
    name = rng.choice(NAMES[cat]).format(w=rng.choice(WORDS), c=city, t=rng.choice(TOPICS))
    return {"name": name, "category": cat, "address": f"{num} {street}, {city}", "city": city, "lat": lat, "lon": lon,
            "rating": round(rng.uniform(3.0, 4.9), 1), "review_count": rng.randint(0, 1500),
            "price_level": rng.randint(1, 4) if cat in ("restaurant", "cafe", "bar", "hotel", "gym") else None,
            "phone": f"+{rng.choice([1, 44, 33, 81])} {rng.randrange(100, 999)} {rng.randrange(1000, 9999)}",
            "opening_hours": hours, "tags": tuple(sorted(rng.sample(TAGS, rng.randint(0, 3))))}

def _user(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"name": f"{first} {last}", "email": f"{first.lower()}{i}@maps.example", "home_city": rng.choice(sorted(CITIES))}

def _saved(rng, i, pick):
    return {"user_id": pick("map_user"), "place_id": pick("map_place"), "label": rng.choice(["favorite", "favorite", "want_to_go"]),
            "note": rng.choice(["", "", "great for meetings", "try the brunch", "bring the kids"]), "saved_at": f"2026-0{rng.randint(1, 6)}-{rng.randint(10, 28)}"}

def _list(rng, i, pick):
    owner, visibility = pick("map_user"), rng.choice(["private", "shared", "public"])
    collab = sorted({pick("map_user") for _ in range(rng.randint(0, 2))} - {owner}) if visibility != "private" else []
    return {"owner_id": owner, "name": rng.choice(["Weekend ideas", "Coffee crawl", "Date night", "Rainy day", "Visitors guide",
                                                   "Work lunch"]) + f" {i + 1}",
            "visibility": visibility, "collaborator_ids": tuple(collab),
            "place_ids": tuple(dict.fromkeys(pick("map_place") for _ in range(rng.randint(1, 6))))}

def _review(rng, i, pick):
    stars = rng.choice([1, 2, 3, 3, 4, 4, 4, 5, 5, 5])
    return {"place_id": pick("map_place"), "user_id": pick("map_user"), "rating": stars, "text": rng.choice(REVIEWS[stars]),
            "date": f"2026-0{rng.randint(1, 6)}-{rng.randint(10, 28)}"}

server = ToolServer(
    "maps", "Maps: places, geocoding, distances, routes, nearby search and opening hours; saved places, lists and reviews.",
    [TableSpec("map_place", "place_id", "poi_"),
     TableSpec("map_user", "user_id", "mpu_"),
     TableSpec("saved_place", "saved_id", "svp_", {"user_id": "map_user", "place_id": "map_place"}),
     TableSpec("place_list", "list_id", "pls_", {"owner_id": "map_user", "collaborator_ids": "map_user", "place_ids": "map_place"}),
     TableSpec("place_review", "review_id", "prv_", {"place_id": "map_place", "user_id": "map_user"})],
    {"map_place": _place, "map_user": _user, "saved_place": _saved, "place_list": _list, "place_review": _review},
    {"map_place": 80, "map_user": 12, "saved_place": 30, "place_list": 10, "place_review": 60}, phrases=PHRASES)

PlaceId = Annotated[str, Entity("map_place")]
UserId = Annotated[str, Entity("map_user")]
SavedId = Annotated[str, Entity("saved_place")]
ListId = Annotated[str, Entity("place_list")]
Day = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

def _now_day_time(st) -> tuple:
    now = datetime.fromisoformat(st.meta["now"])
    return DAYS[now.weekday()], now.strftime("%H:%M")

def _is_open(place, day: str, hhmm: str) -> bool:
    h = place["opening_hours"][day]
    if h == "closed": return False
    start, end = h.split("-")
    return start <= hhmm < end

def _brief(p, **extra) -> dict:
    return {"place_id": p["place_id"], "name": p["name"], "category": p["category"], "address": p["address"],
            "rating": p["rating"], **extra}

def _dist(a, b) -> float: return haversine_km(a["lat"], a["lon"], b["lat"], b["lon"])

def _editable_list(st, user_id, list_id):
    need(st, "map_user", user_id, "user")
    lst = need(st, "place_list", list_id, "place list")
    if user_id != lst["owner_id"] and user_id not in lst["collaborator_ids"]:
        raise ToolError(f"user {user_id} cannot edit list {list_id}: only its owner and collaborators can")
    return lst

# ---------------------------------------------------------------- reads

@server.read(produces="map_place")
def search_places(st, query: str = "", category: CATEGORY | None = None, city: CityName | None = None, min_rating: float = 0,
                  open_now: bool = False, limit: int = 10):
    """Search places by text in their name, address or tags, best rated first.

    Args:
        query: Text to look for (case-insensitive); empty matches every place.
        category: Only places of this category.
        city: Only places in this city.
        min_rating: Only places rated at least this (0 to 5).
        open_now: Only places open at the current time.
        limit: Maximum number of places (1 to 50).
    """
    if not 1 <= limit <= 50: raise ToolError(f"limit must be between 1 and 50, got {limit}")
    q, (day, hhmm) = query.lower().strip(), _now_day_time(st)
    out = [p for p in st.rows("map_place") if category in (None, p["category"]) and city in (None, p["city"]) and p["rating"] >= min_rating
           and (q in p["name"].lower() or q in p["address"].lower() or q in " ".join(p["tags"]).replace("_", " "))
           and (not open_now or _is_open(p, day, hhmm))]
    return [_brief(p, city=p["city"]) for p in sorted(out, key=lambda p: (-p["rating"], p["place_id"]))[:limit]]

@server.read(produces=("map_place", "place_review"))
def get_place_details(st, place_id: PlaceId):
    """Get everything about a place: address, coordinates, phone, price level, weekly hours, tags and latest reviews.

    Args:
        place_id: The place to look up.
    """
    p = need(st, "map_place", place_id, "place")
    reviews = sorted(st.find("place_review", place_id=place_id), key=lambda r: (r["date"], r["review_id"]), reverse=True)[:5]
    day, hhmm = _now_day_time(st)
    return {**dict(p), "open_now": _is_open(p, day, hhmm), "latest_reviews": [dict(r) for r in reviews]}

@server.read(produces="map_place")
def geocode_address(st, address: str):
    """Turn an address, place name or city into coordinates: a city centre, a known place, or a house on a known street.

    Args:
        address: Free text such as "120 Market St, San Francisco", "Baker St" or "Paris".
    """
    q = " ".join(address.lower().replace(",", " ").split())
    if not q: raise ToolError("address must not be empty")
    if q.title() in CITIES: return [{"place_id": None, "address": q.title(), "city": q.title(), "lat": CITIES[q.title()][0],
                                     "lon": CITIES[q.title()][1], "match": "city"}]
    hits = [p for p in st.rows("map_place") if q in " ".join(p["address"].lower().replace(",", " ").split()) or q == p["name"].lower()]
    if hits: return [{"place_id": p["place_id"], "address": p["address"], "city": p["city"], "lat": p["lat"], "lon": p["lon"],
                      "match": "place"} for p in sorted(hits, key=lambda p: p["place_id"])[:5]]
    cities = [c for c in CITIES if c.lower() in q]
    num = re.match(r"\s*(\d+)", q)
    streets = [(c, s) for c in (cities or sorted(CITIES)) for s in CITIES[c][3] if s.lower() in q]
    if streets:
        out = []
        for c, s in streets[:5]:
            lat, lon = street_point(c, s, int(num.group(1)) if num else 1)
            out.append({"place_id": None, "address": f"{num.group(1) + ' ' if num else ''}{s}, {c}", "city": c, "lat": lat, "lon": lon, "match": "street"})
        return out
    raise ToolError(f"no location matches '{address}'")

@server.read(produces="map_place")
def reverse_geocode(st, lat: float, lon: float):
    """Name the address at coordinates: the nearest place within 300 m, else the nearest city within 40 km.

    Args:
        lat: Latitude in degrees (-90 to 90).
        lon: Longitude in degrees (-180 to 180).
    """
    if not (-90 <= lat <= 90 and -180 <= lon <= 180): raise ToolError(f"coordinates ({lat}, {lon}) are out of range")
    best = min(st.rows("map_place"), key=lambda p: (haversine_km(lat, lon, p["lat"], p["lon"]), p["place_id"]))
    d = haversine_km(lat, lon, best["lat"], best["lon"])
    if d <= 0.3: return {"place_id": best["place_id"], "name": best["name"], "address": best["address"], "city": best["city"], "distance_km": round(d, 3)}
    city, dc = min(((c, haversine_km(lat, lon, v[0], v[1])) for c, v in CITIES.items()), key=lambda x: x[1])
    if dc <= 40: return {"place_id": None, "name": None, "address": None, "city": city, "distance_km": round(dc, 3)}
    raise ToolError(f"no known address near ({lat}, {lon})")

@server.read
def compute_distance(st, from_place_id: PlaceId, to_place_id: PlaceId):
    """Straight-line (great-circle) distance and compass direction between two places.

    Args:
        from_place_id: The starting place.
        to_place_id: The destination place.
    """
    a, b = need(st, "map_place", from_place_id, "place"), need(st, "map_place", to_place_id, "place")
    if from_place_id == to_place_id: raise ToolError("from_place_id and to_place_id are the same place")
    km = _dist(a, b)
    return {"from_place_id": from_place_id, "to_place_id": to_place_id, "km": round(km, 3), "miles": round(km / 1.609344, 3),
            "direction": _bearing(a["lat"], a["lon"], b["lat"], b["lon"])}

@server.read
def get_directions(st, from_place_id: PlaceId, to_place_id: PlaceId, mode: Literal["walking", "cycling", "transit", "driving"] = "walking"):
    """Route between two places by a travel mode: distance, duration and steps.

    Walking goes up to 30 km, cycling up to 100 km, transit within one city, driving within one continent.

    Args:
        from_place_id: The starting place.
        to_place_id: The destination place.
        mode: How to travel.
    """
    a, b = need(st, "map_place", from_place_id, "place"), need(st, "map_place", to_place_id, "place")
    if from_place_id == to_place_id: raise ToolError("from_place_id and to_place_id are the same place")
    km = round(_dist(a, b) * DETOUR[mode], 2)
    if mode in MAX_KM and km > MAX_KM[mode]: raise ToolError(f"{km} km is too far for {mode} (limit {MAX_KM[mode]:.0f} km)")
    if mode == "transit" and a["city"] != b["city"]: raise ToolError(f"no transit connection between {a['city']} and {b['city']}")
    if mode == "driving" and CITIES[a["city"]][2] != CITIES[b["city"]][2]:
        raise ToolError(f"no driving route between {a['city']} and {b['city']} (different continents)")
    speed = SPEED.get(mode) or (30.0 if km < 50 else 80.0)
    minutes = round(km / speed * 60 + (6 if mode == "transit" else 0))
    street = a["address"].split(", ")[0].lstrip("0123456789 ")
    steps = [f"Head {_bearing(a['lat'], a['lon'], b['lat'], b['lon'])} on {street}", f"Continue for {km} km",
             f"Arrive at {b['name']}, {b['address']}"]
    return {"from_place_id": from_place_id, "to_place_id": to_place_id, "mode": mode, "km": km, "minutes": minutes, "steps": steps}

@server.read(produces="map_place")
def find_nearby_places(st, place_id: PlaceId, radius_km: float = 1.0, category: CATEGORY | None = None, open_now: bool = False,
                       limit: int = 10):
    """Places within a radius of a place, nearest first.

    Args:
        place_id: The place to search around.
        radius_km: Search radius in km (more than 0, at most 20).
        category: Only places of this category.
        open_now: Only places open at the current time.
        limit: Maximum number of places (1 to 50).
    """
    p = need(st, "map_place", place_id, "place")
    if not 0 < radius_km <= 20: raise ToolError(f"radius_km must be more than 0 and at most 20, got {radius_km}")
    if not 1 <= limit <= 50: raise ToolError(f"limit must be between 1 and 50, got {limit}")
    day, hhmm = _now_day_time(st)
    out = [(round(_dist(p, q), 3), q) for q in st.rows("map_place") if q["place_id"] != place_id and q["city"] == p["city"]
           and category in (None, q["category"]) and (not open_now or _is_open(q, day, hhmm))]
    out = sorted(((d, q) for d, q in out if d <= radius_km), key=lambda x: (x[0], x[1]["place_id"]))[:limit]
    return [_brief(q, distance_km=d) for d, q in out]

@server.read
def check_opening_hours(st, place_id: PlaceId, day: Day | None = None, time: str = ""):
    """Whether a place is open on a day at a time (default: now), with that day's hours.

    Args:
        place_id: The place to check.
        day: Day of the week; default today.
        time: Time HH:MM (24-hour); default the current time.
    """
    p = need(st, "map_place", place_id, "place")
    today, now = _now_day_time(st)
    day, time = day or today, time or now
    if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", time): raise ToolError(f"time must be HH:MM in 24-hour form, got '{time}'")
    return {"place_id": place_id, "name": p["name"], "day": day, "time": time, "hours": p["opening_hours"][day],
            "is_open": _is_open(p, day, time), "weekly_hours": dict(p["opening_hours"])}

@server.read(produces="map_user")
def find_map_users(st, name: str = "", email: str = ""):
    """Find map users whose name and email contain the given text (case-insensitive).

    Args:
        name: Part of the user's name.
        email: Part of the user's email.
    """
    n, e = name.lower(), email.lower()
    return [dict(u) for u in st.rows("map_user") if n in u["name"].lower() and e in u["email"].lower()]

@server.read(produces=("saved_place", "map_place"))
def list_saved_places(st, user_id: UserId, label: Literal["home", "work", "favorite", "want_to_go"] | None = None):
    """List the places a user has saved, with their labels and notes.

    Args:
        user_id: The user whose saved places to list.
        label: Only saved places with this label.
    """
    need(st, "map_user", user_id, "user")
    rows = [s for s in st.find("saved_place", user_id=user_id) if label in (None, s["label"])]
    return [{**dict(s), "name": st.get("map_place", s["place_id"])["name"], "address": st.get("map_place", s["place_id"])["address"]} for s in rows]

@server.read(produces=("place_list", "map_place"))
def list_place_lists(st, user_id: UserId):
    """List the place lists a user owns or collaborates on, with their places.

    Args:
        user_id: The user whose lists to show.
    """
    need(st, "map_user", user_id, "user")
    return [{**dict(l), "role": "owner" if l["owner_id"] == user_id else "collaborator",
             "places": [{"place_id": p, "name": st.get("map_place", p)["name"]} for p in l["place_ids"]]}
            for l in st.rows("place_list") if l["owner_id"] == user_id or user_id in l["collaborator_ids"]]

# ---------------------------------------------------------------- writes

@server.write(produces="saved_place")
def save_place(st, user_id: UserId, place_id: PlaceId, label: Literal["home", "work", "favorite", "want_to_go"] = "favorite", note: str = ""):
    """Save a place for a user under a label (a user has at most one home and one work place, and saves a place once).

    Args:
        user_id: The user saving the place.
        place_id: The place to save.
        label: How the place is saved.
        note: Optional note, at most 200 characters.
    """
    need(st, "map_user", user_id, "user")
    need(st, "map_place", place_id, "place")
    if len(note) > 200: raise ToolError("note must be at most 200 characters")
    mine = st.find("saved_place", user_id=user_id)
    dup = next((s for s in mine if s["place_id"] == place_id), None)
    if dup: raise ToolError(f"user {user_id} already saved place {place_id} as {dup['label']} ({dup['saved_id']})")
    if label in ("home", "work") and any(s["label"] == label for s in mine):
        raise ToolError(f"user {user_id} already has a {label} place; remove it first")
    return dict(st.insert("saved_place", {"user_id": user_id, "place_id": place_id, "label": label, "note": note,
                                          "saved_at": st.meta["now"][:10]}))

@server.write(after=("save_place",))
def remove_saved_place(st, user_id: UserId, saved_id: SavedId):
    """Remove one of a user's saved places.

    Args:
        user_id: The user who saved the place.
        saved_id: The saved place to remove.
    """
    s = need(st, "saved_place", saved_id, "saved place")
    if s["user_id"] != user_id: raise ToolError(f"saved place {saved_id} belongs to another user")
    st.delete("saved_place", saved_id)
    return {"saved_id": saved_id, "removed": True, "place_id": s["place_id"]}

@server.write(produces="place_list")
def create_place_list(st, user_id: UserId, name: str, visibility: Literal["private", "shared", "public"] = "private",
                      collaborator_ids: Annotated[list[str], Entity("map_user")] | None = None):
    """Create an empty list of places owned by a user; collaborators may add places too.

    Args:
        user_id: The user who owns the list.
        name: List name, unique among the user's lists (1 to 60 characters).
        visibility: Who can see the list.
        collaborator_ids: Other users allowed to add places.
    """
    need(st, "map_user", user_id, "user")
    name, collab = name.strip(), list(dict.fromkeys(collaborator_ids or []))
    if not 1 <= len(name) <= 60: raise ToolError("list name must have 1 to 60 characters")
    if any(l["name"].lower() == name.lower() for l in st.find("place_list", owner_id=user_id)):
        raise ToolError(f"user {user_id} already has a list named '{name}'")
    for c in collab:
        need(st, "map_user", c, "user")
        if c == user_id: raise ToolError("the owner cannot also be a collaborator")
    if collab and visibility == "private": raise ToolError("a private list cannot have collaborators; use shared or public")
    return dict(st.insert("place_list", {"owner_id": user_id, "name": name, "visibility": visibility,
                                         "collaborator_ids": sorted(collab), "place_ids": []}))

@server.write(after=("create_place_list",))
def add_place_to_list(st, user_id: UserId, list_id: ListId, place_id: PlaceId):
    """Add a place to a list the user owns or collaborates on (no duplicates, at most 50 places).

    Args:
        user_id: The user making the change.
        list_id: The list to add to.
        place_id: The place to add.
    """
    lst = _editable_list(st, user_id, list_id)
    need(st, "map_place", place_id, "place")
    if place_id in lst["place_ids"]: raise ToolError(f"place {place_id} is already in list {list_id}")
    if len(lst["place_ids"]) >= 50: raise ToolError(f"list {list_id} is full (50 places)")
    st.update("place_list", list_id, place_ids=lst["place_ids"] + (place_id,))
    return {"list_id": list_id, "place_ids": list(lst["place_ids"]) + [place_id]}

@server.write(produces="place_review")
def write_place_review(st, user_id: UserId, place_id: PlaceId, rating: int, text: str = ""):
    """Review a place once per user; the place's average rating and review count are updated.

    Args:
        user_id: The reviewing user.
        place_id: The place reviewed.
        rating: Stars from 1 to 5.
        text: Optional review text, at most 500 characters.
    """
    need(st, "map_user", user_id, "user")
    p = need(st, "map_place", place_id, "place")
    if not 1 <= rating <= 5: raise ToolError(f"rating must be between 1 and 5, got {rating}")
    if len(text) > 500: raise ToolError("review text must be at most 500 characters")
    if st.find("place_review", place_id=place_id, user_id=user_id): raise ToolError(f"user {user_id} already reviewed place {place_id}")
    n = p["review_count"]
    st.update("map_place", place_id, rating=round((p["rating"] * n + rating) / (n + 1), 2), review_count=n + 1)
    r = st.insert("place_review", {"place_id": place_id, "user_id": user_id, "rating": rating, "text": text.strip(),
                                   "date": st.meta["now"][:10]})
    return {**dict(r), "place_rating": st.get("map_place", place_id)["rating"], "review_count": n + 1}
