import pytest
from prove_nb.server import load_server
from prove_nb.state import integrity_errors
from tests.servers.harness import Case, server_suite

srv = load_server("vehicle")

def row(s, table, pred=lambda r: True, **eq):
    "The first row of `table` matching the fields `eq` and the predicate (seed data is deterministic)."
    return next(r for r in s.state.rows(table) if all(r.get(k) == v for k, v in eq.items()) and pred(r))

def V(s, key): return s.state.get("vehicle", key)
def doors(s, vid): return {d["position"]: d for d in s.state.rows("door") if d["vehicle_id"] == vid}
def at(s, v): return s.state.get("place", v["location_place_id"])["category"]
def veh(s, pred=lambda v: True, **eq): return row(s, "vehicle", pred, **eq)

def parked(s, locked=None):
    "A parked combustion vehicle; with `locked`, one whose doors are all locked (True) or not (False)."
    return veh(s, lambda v: v["fuel_type"] != "electric" and (locked is None or all(d["locked"] for d in doors(s, v["vehicle_id"]).values()) == locked),
               engine="stopped")
def moving(s): return veh(s, lambda v: v["speed_kmh"] > 0)
def idling(s): return veh(s, engine="running", speed_kmh=0, brake_pressed=True)
def combustion_at_pump(s): return veh(s, lambda v: v["fuel_type"] != "electric" and at(s, v) == "gas_station" and v["fuel_level_l"] < v["tank_capacity_l"] - 5, engine="stopped")
def nearest(s, vid, category):
    "The closest place of `category` to a vehicle that it can reach."
    ests = [s.call("estimate_drive_to_place", {"vehicle_id": vid, "place_id": p["place_id"]}).content for p in s.state.rows("place")
            if p["category"] == category and p["place_id"] != V(s, vid)["location_place_id"]]
    return min((e for e in ests if e["reachable"]), key=lambda e: e["distance_km"])["place_id"]
def unreachable(s, vid):
    return next(p["place_id"] for p in s.state.rows("place")
                if not s.call("estimate_drive_to_place", {"vehicle_id": vid, "place_id": p["place_id"]}).content["reachable"])

def drive_to(vid, category):
    "Setup calls that take a parked vehicle to the nearest place of `category` and park it there with the engine off."
    return [("lock_vehicle_doors", {"vehicle_id": vid}), ("set_brake_pedal", {"vehicle_id": vid, "pressed": True}),
            ("start_vehicle_engine", {"vehicle_id": vid}), ("set_brake_pedal", {"vehicle_id": vid, "pressed": False}),
            ("set_navigation_destination", lambda s: {"vehicle_id": vid, "place_id": nearest(s, vid, category)}),
            ("drive_to_destination", {"vehicle_id": vid}), ("stop_vehicle_engine", {"vehicle_id": vid})]

_seed = srv.session(0)
EV = veh(_seed, fuel_type="electric", engine="stopped")["vehicle_id"]   # plugged in at a charging station (see test_fixtures)
OPEN_CAR = parked(_seed, locked=False)["vehicle_id"]                    # parked with some doors unlocked
IDLER = idling(_seed)["vehicle_id"]                                     # engine running, brake held, doors locked

def drove(s, r):
    v, trip = V(s, IDLER), s.state.get("trip", r.content["trip_id"])
    assert v["location_place_id"] == trip["to_place_id"] and v["destination_place_id"] is None
    assert v["fuel_level_l"] < srv.seed_state(0).get("vehicle", IDLER)["fuel_level_l"]

CASES = [
    Case("list_vehicles", {"fuel_type": "electric"}, check=lambda s, r: r.content and all(v["fuel_type"] == "electric" for v in r.content)),
    Case("list_vehicles", {"fuel_type": "petrol"}, ok=False, error="must be one of"),
    Case("get_vehicle_status", {"vehicle_id": "veh_0001"},
         check=lambda s, r: len(r.content["doors"]) == 5 and r.content["range_km"] > 0 and r.content["location_name"]),
    Case("get_vehicle_status", {"vehicle_id": "veh_0999"}, ok=False, error="no vehicle"),
    Case("check_tire_pressure", {"vehicle_id": "veh_0001"},
         check=lambda s, r: len(r.content) == 4 and all((t["status"] == "low") == (t["pressure_psi"] <= t["recommended_psi"] - 3) for t in r.content)),
    Case("check_tire_pressure", {"vehicle_id": "nope"}, ok=False, error="no vehicle"),
    Case("search_navigation_places", {"category": "gas_station", "city": "napa"},
         check=lambda s, r: r.content and all(p["category"] == "gas_station" and p["city"] == "Napa" for p in r.content)),
    Case("search_navigation_places", {"category": "airport"}, ok=False, error="must be one of"),
    Case("list_vehicle_trips", lambda s: {"vehicle_id": row(s, "trip")["vehicle_id"], "limit": 2},
         check=lambda s, r: 1 <= len(r.content) <= 2 and r.content == sorted(r.content, key=lambda t: t["date"], reverse=True)),
    Case("list_vehicle_trips", {"vehicle_id": "veh_0001", "limit": 0}, ok=False, error="between 1 and 50"),
    Case("estimate_drive_to_place", lambda s: {"vehicle_id": "veh_0002", "place_id": "plc_0001"},
         check=lambda s, r: r.content["reachable"] == (r.content["range_km"] >= r.content["distance_km"]) and r.content["distance_km"] > 0),
    Case("estimate_drive_to_place", {"vehicle_id": "veh_0002", "place_id": "plc_9999"}, ok=False, error="no place"),
    Case("lock_vehicle_doors", lambda s: {"vehicle_id": parked(s, locked=False)["vehicle_id"]},
         check=lambda s, r: all(d["locked"] for d in doors(s, r.content["vehicle_id"]).values())),
    Case("lock_vehicle_doors", lambda s: {"vehicle_id": moving(s)["vehicle_id"], "doors": ["driver", "trunk"]}, ok=False, error="already locked"),
    Case("unlock_vehicle_doors", lambda s: {"vehicle_id": IDLER, "doors": ["driver"]},
         check=lambda s, r: not doors(s, IDLER)["driver"]["locked"] and doors(s, IDLER)["passenger"]["locked"]),
    Case("unlock_vehicle_doors", lambda s: {"vehicle_id": moving(s)["vehicle_id"]}, ok=False, error="moving"),
    Case("set_vehicle_window", {"vehicle_id": "veh_0001", "position": "rear_left", "open_percent": 60},
         check=lambda s, r: doors(s, "veh_0001")["rear_left"]["window_open_pct"] == 60),
    Case("set_vehicle_window", {"vehicle_id": "veh_0001", "position": "trunk", "open_percent": 60}, ok=False, error="must be one of"),
    Case("set_brake_pedal", lambda s: {"vehicle_id": moving(s)["vehicle_id"], "pressed": True},
         check=lambda s, r: V(s, r.content["vehicle_id"])["speed_kmh"] == 0 and V(s, r.content["vehicle_id"])["cruise_speed_kmh"] is None),
    Case("set_brake_pedal", {"vehicle_id": IDLER, "pressed": True}, ok=False, error="already pressed"),
    Case("start_vehicle_engine", {"vehicle_id": OPEN_CAR},
         setup=[("lock_vehicle_doors", {"vehicle_id": OPEN_CAR}), ("set_brake_pedal", {"vehicle_id": OPEN_CAR, "pressed": True})],
         check=lambda s, r: V(s, OPEN_CAR)["engine"] == "running"),
    Case("start_vehicle_engine", {"vehicle_id": OPEN_CAR}, setup=[("set_brake_pedal", {"vehicle_id": OPEN_CAR, "pressed": True})],
         ok=False, error="unlocked"),
    Case("start_vehicle_engine", {"vehicle_id": OPEN_CAR}, setup=[("lock_vehicle_doors", {"vehicle_id": OPEN_CAR})], ok=False, error="press the brake"),
    Case("stop_vehicle_engine", {"vehicle_id": IDLER}, check=lambda s, r: V(s, IDLER)["engine"] == "stopped" and V(s, IDLER)["climate_mode"] == "off"),
    Case("stop_vehicle_engine", lambda s: {"vehicle_id": moving(s)["vehicle_id"]}, ok=False, error="moving"),
    Case("set_climate_control", {"vehicle_id": IDLER, "mode": "heat", "temperature_c": 22.5, "fan_speed": 7},
         check=lambda s, r: (V(s, IDLER)["climate_mode"], V(s, IDLER)["cabin_temp_c"], V(s, IDLER)["fan_speed"]) == ("heat", 22.5, 7)),
    Case("set_climate_control", lambda s: {"vehicle_id": veh(s, lambda v: v["fuel_type"] != "electric", engine="stopped")["vehicle_id"], "mode": "cool"},
         ok=False, error="not running"),
    Case("set_climate_control", {"vehicle_id": IDLER, "mode": "heat", "temperature_c": 35}, ok=False, error="<= 30"),
    Case("set_vehicle_headlights", {"vehicle_id": "veh_0001", "mode": "auto"}, check=lambda s, r: V(s, "veh_0001")["headlights"] == "auto"),
    Case("set_vehicle_headlights", {"vehicle_id": "veh_0001", "mode": "off"}, ok=False, error="already off"),
    Case("set_cruise_control", lambda s: {"vehicle_id": moving(s)["vehicle_id"], "enabled": True, "speed_kmh": 95},
         check=lambda s, r: (V(s, r.content["vehicle_id"])["cruise_speed_kmh"], V(s, r.content["vehicle_id"])["speed_kmh"]) == (95, 95)),
    Case("set_cruise_control", {"vehicle_id": IDLER, "enabled": True, "speed_kmh": 90}, ok=False, error="needs at least 40 km/h"),
    Case("set_cruise_control", {"vehicle_id": IDLER, "enabled": False}, ok=False, error="not engaged"),
    Case("set_navigation_destination", {"vehicle_id": "veh_0001", "place_id": "plc_0001"},
         check=lambda s, r: V(s, "veh_0001")["destination_place_id"] == "plc_0001" and r.content["distance_km"] > 0),
    Case("set_navigation_destination", lambda s: {"vehicle_id": "veh_0001", "place_id": V(s, "veh_0001")["location_place_id"]},
         ok=False, error="already at"),
    Case("drive_to_destination", {"vehicle_id": IDLER}, check=drove,
         setup=[("set_brake_pedal", {"vehicle_id": IDLER, "pressed": False}),
                ("set_navigation_destination", lambda s: {"vehicle_id": IDLER, "place_id": nearest(s, IDLER, "restaurant")})]),
    Case("drive_to_destination", {"vehicle_id": IDLER}, ok=False, error="no navigation destination"),
    Case("drive_to_destination", {"vehicle_id": IDLER}, ok=False, error="release the brake",
         setup=[("set_navigation_destination", lambda s: {"vehicle_id": IDLER, "place_id": nearest(s, IDLER, "restaurant")})]),
    Case("drive_to_destination", {"vehicle_id": IDLER}, ok=False, error="refuel or charge first",
         setup=[("set_brake_pedal", {"vehicle_id": IDLER, "pressed": False}),
                ("set_navigation_destination", lambda s: {"vehicle_id": IDLER, "place_id": unreachable(s, IDLER)})]),
    Case("refuel_vehicle", lambda s: {"vehicle_id": combustion_at_pump(s)["vehicle_id"], "liters": 5},
         check=lambda s, r: V(s, r.content["vehicle_id"])["fuel_level_l"] == r.content["fuel_level_l"]
         == round(srv.seed_state(0).get("vehicle", r.content["vehicle_id"])["fuel_level_l"] + 5, 1)),
    Case("refuel_vehicle", lambda s: {"vehicle_id": combustion_at_pump(s)["vehicle_id"], "liters": 500}, ok=False, error="holds only"),
    Case("refuel_vehicle", {"vehicle_id": EV, "liters": 5}, ok=False, error="use charge_vehicle_battery"),
    Case("refuel_vehicle", {"vehicle_id": IDLER, "liters": 5}, ok=False, error="stop the engine"),
    Case("charge_vehicle_battery", {"vehicle_id": EV, "target_percent": 90},
         check=lambda s, r: V(s, EV)["battery_pct"] == 90 and at(s, V(s, EV)) == "charging_station"),
    Case("charge_vehicle_battery", {"vehicle_id": EV, "target_percent": 90}, setup=drive_to(EV, "parking"), ok=False,
         error="not at a charging_station"),
    Case("charge_vehicle_battery", lambda s: {"vehicle_id": combustion_at_pump(s)["vehicle_id"], "target_percent": 90}, ok=False, error="use refuel_vehicle"),
    Case("inflate_tire", lambda s: {"vehicle_id": combustion_at_pump(s)["vehicle_id"], "position": "rear_right", "pressure_psi": 36},
         check=lambda s, r: row(s, "tire", vehicle_id=r.content["vehicle_id"], position="rear_right")["pressure_psi"] == 36.0),
    Case("inflate_tire", lambda s: {"vehicle_id": combustion_at_pump(s)["vehicle_id"], "position": "rear_right", "pressure_psi": 49},
         ok=False, error="safe maximum"),
    Case("inflate_tire", {"vehicle_id": IDLER, "position": "front_left", "pressure_psi": 34}, ok=False, error="not at a gas_station"),
]

globals().update(server_suite(srv, CASES, n_tools=20, seeds=None))

def test_fixtures():
    "The seed has what the cases rely on: an idling, locked vehicle away from pumps; a moving one; an EV plugged in at a charger."
    s = srv.session(0)
    assert all(d["locked"] for d in doors(s, IDLER).values())
    assert at(s, V(s, IDLER)) not in ("gas_station", "service_center") and moving(s)
    assert at(s, V(s, EV)) == "charging_station" and V(s, EV)["battery_pct"] < 90

@pytest.mark.parametrize("seed,size", [(0, "small"), (1, "small"), (2, "tiny"), (3, "medium"), (0, "large"), (4, "large")])
def test_seed_integrity(seed, size):
    st = srv.seed_state(seed, size)
    assert integrity_errors(st) == []
    assert st.count("door") == 5 * st.count("vehicle") and st.count("tire") == 4 * st.count("vehicle")

def test_full_drive_chain():
    "Lock, brake, start, release, navigate, drive, stop: the odometer grows by the trip and a trip is logged."
    s = srv.session(0)
    vid = OPEN_CAR
    before = V(s, vid)
    assert not s.call("start_vehicle_engine", {"vehicle_id": vid}).ok
    for tool, args in drive_to(vid, "restaurant"): assert s.call(tool, args(s) if callable(args) else args).ok, tool
    after = V(s, vid)
    trip = s.call("list_vehicle_trips", {"vehicle_id": vid, "limit": 1}).content[0]
    assert trip["date"] == "2026-06-15" and after["location_place_id"] == trip["to_place_id"]
    assert after["odometer_km"] == round(before["odometer_km"] + trip["distance_km"]) and after["engine"] == "stopped"
