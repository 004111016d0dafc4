from prove_nb.server import load_server
from prove_nb.servers.maps import CITIES, haversine_km, street_point
from tests.servers.harness import Case, server_suite

srv = load_server("maps")

def get(s, table, key): return s.state.get(table, key)
def newest(s, table): return list(s.state.rows(table))[-1][s.state.specs[table].key]
def place(s, **eq): return next(p for p in s.state.rows("map_place") if all(p[k] == v for k, v in eq.items()))
def pair(s, same_city=True, max_km=None, min_km=0):
    "Two places (ids) in the same (or different) city within the distance bounds."
    ps = list(s.state.rows("map_place"))
    return next((a["place_id"], b["place_id"]) for a in ps for b in ps if a is not b and (a["city"] == b["city"]) == same_city
                and min_km <= haversine_km(a["lat"], a["lon"], b["lat"], b["lon"]) <= (max_km or 1e9))
def far_pair(s, city_a, city_b): return place(s, city=city_a)["place_id"], place(s, city=city_b)["place_id"]
def closed_on_monday(s): return next(p["place_id"] for p in s.state.rows("map_place") if p["opening_hours"]["mon"] == "closed")
def non_editor(s, lst):
    return next(u["user_id"] for u in s.state.rows("map_user") if u["user_id"] != lst["owner_id"] and u["user_id"] not in lst["collaborator_ids"])
def collab_list(s): return next(l for l in s.state.rows("place_list") if l["collaborator_ids"])
def saved(s): return next(iter(s.state.rows("saved_place")))
def unsaved_place(s, user_id):
    mine = {x["place_id"] for x in s.state.find("saved_place", user_id=user_id)}
    return next(p["place_id"] for p in s.state.rows("map_place") if p["place_id"] not in mine)
def unreviewed(s, user_id):
    mine = {r["place_id"] for r in s.state.find("place_review", user_id=user_id)}
    return next(p for p in s.state.rows("map_place") if p["place_id"] not in mine)
SAVE_HOME = ("save_place", lambda s: {"user_id": "mpu_0001", "place_id": unsaved_place(s, "mpu_0001"), "label": "home"})

def nearby_ok(s, r):
    p = get(s, "map_place", "poi_0001")
    ds = [x["distance_km"] for x in r.content]
    assert ds == sorted(ds) and all(d <= 3 for d in ds) and all(get(s, "map_place", x["place_id"])["city"] == p["city"] for x in r.content)
    inside = [q for q in s.state.rows("map_place") if q["place_id"] != "poi_0001" and q["city"] == p["city"]
              and haversine_km(p["lat"], p["lon"], q["lat"], q["lon"]) <= 3]
    assert len(r.content) == min(10, len(inside))

def review_ok(s, r):
    before = srv.seed_state(0).get("map_place", r.content["place_id"])
    after = get(s, "map_place", r.content["place_id"])
    assert after["review_count"] == before["review_count"] + 1
    assert after["rating"] == round((before["rating"] * before["review_count"] + 5) / (before["review_count"] + 1), 2)

CASES = [
    Case("search_places", {"category": "cafe", "city": "Paris"},
         check=lambda s, r: all(get(s, "map_place", p["place_id"])["category"] == "cafe" and p["city"] == "Paris" for p in r.content)
         and len(r.content) == min(10, sum(1 for p in s.state.rows("map_place") if p["category"] == "cafe" and p["city"] == "Paris"))),
    Case("search_places", {"query": "park", "open_now": True, "limit": 50},
         check=lambda s, r: r.content and all("park" in p["name"].lower() + p["address"].lower() + " ".join(get(s, "map_place", p["place_id"])["tags"]).replace("_", " ") and get(s, "map_place", p["place_id"])["category"] != "restaurant"
                                              for p in r.content)),
    Case("search_places", {"query": "x", "limit": 0}, ok=False, error="limit"),
    Case("get_place_details", {"place_id": "poi_0001"},
         check=lambda s, r: r.content["opening_hours"]["mon"] and all(v["place_id"] == "poi_0001" for v in r.content["latest_reviews"])),
    Case("get_place_details", {"place_id": "poi_9999"}, ok=False, error="no place"),
    Case("geocode_address", {"address": "120 Market St, San Francisco"},
         check=lambda s, r: (r.content[0]["lat"], r.content[0]["lon"]) == street_point("San Francisco", "Market St", 120)),
    Case("geocode_address", lambda s: {"address": get(s, "map_place", "poi_0001")["address"].upper()},
         check=lambda s, r: r.content[0]["place_id"] == "poi_0001"),
    Case("geocode_address", {"address": "tokyo"}, check=lambda s, r: r.content[0]["lat"] == CITIES["Tokyo"][0]),
    Case("geocode_address", {"address": "1 Nowhere Lane, Atlantis"}, ok=False, error="no location matches"),
    Case("reverse_geocode", lambda s: {"lat": get(s, "map_place", "poi_0002")["lat"], "lon": get(s, "map_place", "poi_0002")["lon"]},
         check=lambda s, r: r.content["place_id"] == "poi_0002" and r.content["distance_km"] == 0),
    Case("reverse_geocode", {"lat": 0.0, "lon": 0.0}, ok=False, error="no known address"),
    Case("reverse_geocode", {"lat": 95.0, "lon": 0.0}, ok=False, error="out of range"),
    Case("compute_distance", {"from_place_id": "poi_0001", "to_place_id": "poi_0002"},
         check=lambda s, r: abs(r.content["km"] - haversine_km(*(get(s, "map_place", p)[k] for p in ("poi_0001", "poi_0002") for k in ("lat", "lon")))) < 1e-3),
    Case("compute_distance", {"from_place_id": "poi_0001", "to_place_id": "poi_0001"}, ok=False, error="same place"),
    Case("get_directions", lambda s: dict(zip(("from_place_id", "to_place_id"), pair(s, max_km=5)), mode="walking"),
         check=lambda s, r: r.content["minutes"] == round(r.content["km"] / 5 * 60) and r.content["steps"][-1].startswith("Arrive")),
    Case("get_directions", lambda s: dict(zip(("from_place_id", "to_place_id"), far_pair(s, "London", "Paris")), mode="driving"),
         check=lambda s, r: r.content["km"] > 300),
    Case("get_directions", lambda s: dict(zip(("from_place_id", "to_place_id"), far_pair(s, "London", "Paris")), mode="transit"),
         ok=False, error="no transit connection"),
    Case("get_directions", lambda s: dict(zip(("from_place_id", "to_place_id"), far_pair(s, "London", "Tokyo")), mode="driving"),
         ok=False, error="different continents"),
    Case("get_directions", lambda s: dict(zip(("from_place_id", "to_place_id"), far_pair(s, "London", "Paris")), mode="walking"),
         ok=False, error="too far for walking"),
    Case("find_nearby_places", {"place_id": "poi_0001", "radius_km": 3}, check=nearby_ok),
    Case("find_nearby_places", {"place_id": "poi_0001", "radius_km": 50}, ok=False, error="radius_km"),
    Case("check_opening_hours", lambda s: {"place_id": closed_on_monday(s)}, check=lambda s, r: r.content["day"] == "mon" and r.content["is_open"] is False),
    Case("check_opening_hours", lambda s: {"place_id": place(s, category="hospital")["place_id"], "day": "sun", "time": "03:30"},
         check=lambda s, r: r.content["is_open"] is True),
    Case("check_opening_hours", {"place_id": "poi_0001", "time": "25:00"}, ok=False, error="HH:MM"),
    Case("find_map_users", {"name": ""}, check=lambda s, r: len(r.content) == s.state.count("map_user")),
    Case("find_map_users", {"email": None, "name": 3}, ok=False, error="must be string"),
    Case("list_saved_places", lambda s: {"user_id": saved(s)["user_id"]},
         check=lambda s, r: saved(s)["saved_id"] in [x["saved_id"] for x in r.content] and all(x["name"] for x in r.content)),
    Case("list_saved_places", {"user_id": "mpu_9999"}, ok=False, error="no user"),
    Case("list_place_lists", lambda s: {"user_id": collab_list(s)["collaborator_ids"][0]},
         check=lambda s, r: any(l["list_id"] == collab_list(s)["list_id"] and l["role"] == "collaborator" for l in r.content)),
    Case("list_place_lists", {"user_id": "nobody"}, ok=False, error="no user"),
    Case("save_place", lambda s: {"user_id": "mpu_0001", "place_id": unsaved_place(s, "mpu_0001"), "label": "want_to_go", "note": "rooftop"},
         check=lambda s, r: get(s, "saved_place", r.content["saved_id"])["note"] == "rooftop"),
    Case("save_place", lambda s: {"user_id": "mpu_0001", "place_id": unsaved_place(s, "mpu_0001"), "label": "home"}, setup=[SAVE_HOME],
         ok=False, error="already has a home place"),
    Case("save_place", lambda s: {"user_id": saved(s)["user_id"], "place_id": saved(s)["place_id"]}, ok=False, error="already saved"),
    Case("remove_saved_place", lambda s: {"user_id": saved(s)["user_id"], "saved_id": saved(s)["saved_id"]},
         check=lambda s, r: get(s, "saved_place", r.content["saved_id"]) is None),
    Case("remove_saved_place", lambda s: {"user_id": "mpu_0012" if saved(s)["user_id"] != "mpu_0012" else "mpu_0011",
                                          "saved_id": saved(s)["saved_id"]}, ok=False, error="another user"),
    Case("create_place_list", {"user_id": "mpu_0001", "name": "Best ramen", "visibility": "shared", "collaborator_ids": ["mpu_0002"]},
         check=lambda s, r: get(s, "place_list", r.content["list_id"])["collaborator_ids"] == ("mpu_0002",)),
    Case("create_place_list", {"user_id": "mpu_0001", "name": "Secret", "collaborator_ids": ["mpu_0002"]}, ok=False, error="private list"),
    Case("create_place_list", lambda s: {"user_id": s.state.get("place_list", "pls_0001")["owner_id"],
                                         "name": s.state.get("place_list", "pls_0001")["name"].upper()}, ok=False, error="already has a list"),
    Case("add_place_to_list", lambda s: {"user_id": collab_list(s)["collaborator_ids"][0], "list_id": collab_list(s)["list_id"],
                                         "place_id": next(p["place_id"] for p in s.state.rows("map_place") if p["place_id"] not in collab_list(s)["place_ids"])},
         check=lambda s, r: get(s, "place_list", r.content["list_id"])["place_ids"] == tuple(r.content["place_ids"])),
    Case("add_place_to_list", lambda s: {"user_id": non_editor(s, collab_list(s)), "list_id": collab_list(s)["list_id"], "place_id": "poi_0001"},
         ok=False, error="cannot edit"),
    Case("add_place_to_list", lambda s: {"user_id": collab_list(s)["owner_id"], "list_id": collab_list(s)["list_id"],
                                         "place_id": collab_list(s)["place_ids"][0]}, ok=False, error="already in list"),
    Case("write_place_review", lambda s: {"user_id": "mpu_0003", "place_id": unreviewed(s, "mpu_0003")["place_id"], "rating": 5, "text": "Lovely"},
         check=review_ok),
    Case("write_place_review", lambda s: {"user_id": "mpu_0003", "place_id": "poi_0001", "rating": 6}, ok=False, error="between 1 and 5"),
    Case("write_place_review", lambda s: {"user_id": get(s, "place_review", "prv_0001")["user_id"], "place_id": get(s, "place_review", "prv_0001")["place_id"],
                                          "rating": 4}, ok=False, error="already reviewed"),
]

globals().update(server_suite(srv, CASES, n_tools=16, seeds=[(0, "small"), (2, "small"), (1, "tiny"), (0, "large")]))
def test_mostly_read_only(): assert sum(t.kind == "read" for t in srv.tools.values()) == 11

def test_places_lie_on_their_street():
    "Every place sits where geocoding its street and house number says."
    for p in srv.seed_state(0).rows("map_place"):
        num, rest = p["address"].split(" ", 1)
        assert street_point(p["city"], rest.rsplit(", ", 1)[0], int(num)) == (p["lat"], p["lon"])
