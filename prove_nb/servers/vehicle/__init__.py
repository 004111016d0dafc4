"""Connected car: vehicles, doors and windows, engine, climate, lights, cruise control, tires, navigation, refuelling and trips (20 tools).

Rules: the engine starts only with every door locked, the brake pressed and fuel or charge left; it stops only at
standstill; pressing the brake while moving brings the car to a stop and cancels cruise control; cruise control
engages only at 40 km/h or more; climate needs the engine running (electric cars: 10% charge); a drive needs the engine
running, the brake released, the doors locked, a destination and enough range; refuelling, charging and tire inflation
happen with the engine off at the right kind of place.
"""
import math
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.vehicle.phrasing import PHRASES
from prove_nb.servers._common import OWNERS, need
from prove_nb.state import TableSpec

# make, model, fuel type, tank litres or battery kWh, consumption per 100 km (litres or kWh), recommended tire psi
MODELS = [("Toyota", "Camry", "gasoline", 60, 7.0, 35), ("Honda", "Civic", "gasoline", 47, 6.5, 32),
          ("Tesla", "Model 3", "electric", 60, 15.0, 42), ("Ford", "F-150", "gasoline", 98, 12.5, 35),
          ("Toyota", "Prius", "hybrid", 43, 4.3, 36), ("Volkswagen", "Golf TDI", "diesel", 50, 5.2, 36),
          ("Hyundai", "Ioniq 5", "electric", 77, 18.0, 41), ("BMW", "X5", "gasoline", 83, 10.5, 35),
          ("Nissan", "Leaf", "electric", 40, 16.0, 36), ("Subaru", "Outback", "gasoline", 70, 8.5, 33)]
CITIES = {"San Francisco": (37.775, -122.419), "Oakland": (37.804, -122.271), "San Jose": (37.338, -121.886),
          "Palo Alto": (37.442, -122.143), "Berkeley": (37.872, -122.273), "Santa Cruz": (36.974, -122.031),
          "Napa": (38.297, -122.286), "Sacramento": (38.582, -121.494), "Monterey": (36.600, -121.894),
          "South Lake Tahoe": (38.939, -119.977)}
PLACE_NAMES = {"gas_station": ["Shell", "Chevron", "Arco", "76 Station", "Valero"],
               "charging_station": ["Tesla Supercharger", "Electrify America", "ChargePoint Hub", "EVgo Fast Charging"],
               "service_center": ["Firestone Complete Auto Care", "Midas", "Jiffy Lube", "Les Schwab Tires"],
               "restaurant": ["Blue Door Bistro", "Golden Wok", "Taqueria El Sol", "Harbor Grill", "Luna Pizzeria"],
               "parking": ["Downtown Garage", "City Center Parking", "Station Lot"],
               "office": ["Acme Labs HQ", "Northwind Offices", "Globex Campus"],
               "shop": ["Whole Foods Market", "Target", "REI Co-op", "Costco"],
               "landmark": ["Scenic Overlook", "Visitor Center", "Old Town Plaza", "Riverside Park"]}
STREETS = ["Main St", "Market St", "El Camino Real", "Broadway", "Mission St", "University Ave", "Ocean Ave", "1st St"]
DOORS = ("driver", "passenger", "rear_left", "rear_right", "trunk")
WHEELS = ("front_left", "front_right", "rear_left", "rear_right")
DoorPos = Literal["driver", "passenger", "rear_left", "rear_right", "trunk"]
WindowPos = Literal["driver", "passenger", "rear_left", "rear_right"]
WheelPos = Literal["front_left", "front_right", "rear_left", "rear_right"]
ROAD_FACTOR, AVG_KMH, CRUISE_MIN = 1.3, 60, 40

def _km(a, b) -> float:
    "Road distance in km between two (lat, lon) points: great-circle distance times a road factor."
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return round(2 * 6371 * math.asin(math.sqrt(h)) * ROAD_FACTOR, 1)

def _place(rng, i, pick):
    city = rng.choice(list(CITIES))
    cat = rng.choice(["gas_station"] * 3 + ["charging_station"] * 2 + ["service_center"] + list(PLACE_NAMES)[3:])
    base = f"{rng.choice(PLACE_NAMES[cat])} {city}"
    seen = pick.memo.setdefault("place_names", {})
    seen[base] = seen.get(base, 0) + 1
    lat, lon = CITIES[city]
    lat, lon = round(lat + rng.uniform(-0.03, 0.03), 4), round(lon + rng.uniform(-0.03, 0.03), 4)
    return {"name": base + (f" #{seen[base]}" if seen[base] > 1 else ""), "category": cat,
            "address": f"{rng.randint(1, 2400)} {rng.choice(STREETS)}, {city}, CA", "city": city, "lat": lat, "lon": lon}

def _vehicle(rng, i, pick):
    make, model, fuel, cap, cons, _ = rng.choice(MODELS)
    electric = fuel == "electric"
    state = "driving" if i % 4 == 1 else rng.choice(["parked", "parked", "parked", "idling"])
    speed = rng.choice([55, 70, 88, 100, 110]) if state == "driving" else 0
    location = pick("place")
    dest = pick("place") if state == "driving" else None
    if electric and state == "parked":  # a parked EV is plugged in at a charging station
        stations = pick.group("place", "category").get("charging_station", [])
        location = stations[i % len(stations)]["place_id"] if stations else location
    return {"owner": rng.choice(OWNERS), "make": make, "model": model, "year": rng.randint(2016, 2026), "fuel_type": fuel,
            "plate": f"{rng.randint(1, 9)}{''.join(rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ') for _ in range(3))}{rng.randint(100, 999)}",
            "tank_capacity_l": None if electric else float(cap), "battery_capacity_kwh": float(cap) if electric else None,
            "fuel_level_l": None if electric else round(rng.uniform(0.03, 1) * cap, 1),
            "battery_pct": rng.randint(4, 100) if electric else None, "consumption_per_100km": cons,
            "odometer_km": rng.randint(800, 180000), "engine": "stopped" if state == "parked" else "running", "speed_kmh": speed,
            "brake_pressed": state == "idling", "cruise_speed_kmh": speed if state == "driving" and rng.random() < 0.5 else None,
            "headlights": rng.choice(["off", "auto", "on"]) if state != "parked" else "off",
            "climate_mode": rng.choice(["auto", "cool", "heat", "off"]) if state != "parked" else "off",
            "cabin_temp_c": float(rng.randint(18, 24)), "fan_speed": rng.randint(1, 6),
            "location_place_id": location, "destination_place_id": dest if dest != location else None}

def _door(rng, i, pick):
    "Five doors per vehicle, in order (the door table is sized to five per vehicle)."
    vehicles, (v, k) = pick.rows("vehicle"), divmod(i, len(DOORS))
    if v >= len(vehicles): return None
    pos = DOORS[k]
    return {"vehicle_id": vehicles[v]["vehicle_id"], "position": pos, "locked": vehicles[v]["engine"] == "running" or rng.random() < 0.6,
            "window_open_pct": None if pos == "trunk" else rng.choice([0, 0, 0, 0, 10, 25, 50, 100])}

def _tire(rng, i, pick):
    "Four tires per vehicle, in order (the tire table is sized to four per vehicle)."
    vehicles, (v, k) = pick.rows("vehicle"), divmod(i, len(WHEELS))
    if v >= len(vehicles): return None
    psi = next(m[5] for m in MODELS if m[:2] == (vehicles[v]["make"], vehicles[v]["model"]))
    return {"vehicle_id": vehicles[v]["vehicle_id"], "position": WHEELS[k], "recommended_psi": float(psi),
            "pressure_psi": float(psi + rng.choice([-9, -5, -2, -1, 0, 0, 0, 1, 2])), "last_checked": f"2026-06-{rng.randint(1, 14):02d}"}

def _trip(rng, i, pick):
    a, b = pick("place"), pick("place")
    if a == b: return None
    pa, pb = pick.row("place", a), pick.row("place", b)
    km = _km((pa["lat"], pa["lon"]), (pb["lat"], pb["lon"]))
    return {"vehicle_id": pick("vehicle"), "from_place_id": a, "to_place_id": b, "date": f"2026-0{rng.randint(3, 6)}-{rng.randint(1, 14):02d}",
            "distance_km": km, "duration_min": round(km / AVG_KMH * 60 + rng.randint(2, 15))}

server = ToolServer(
    "vehicle", "Connected-car control: doors, windows, engine, climate, lights, cruise control, tires, navigation, fuel and trips.",
    [TableSpec("place", "place_id", "plc_"),
     TableSpec("vehicle", "vehicle_id", "veh_", {"location_place_id": "place", "destination_place_id": "place"}),
     TableSpec("door", "door_id", "door_", {"vehicle_id": "vehicle"}),
     TableSpec("tire", "tire_id", "tire_", {"vehicle_id": "vehicle"}),
     TableSpec("trip", "trip_id", "trip_", {"vehicle_id": "vehicle", "from_place_id": "place", "to_place_id": "place"})],
    {"place": _place, "vehicle": _vehicle, "door": _door, "tire": _tire, "trip": _trip},
    {"place": 40, "vehicle": 8, "door": 8 * len(DOORS), "tire": 8 * len(WHEELS), "trip": 30}, phrases=PHRASES)

VehicleId = Annotated[str, Entity("vehicle")]
PlaceId = Annotated[str, Entity("place")]
Percent = Annotated[int, {"minimum": 0, "maximum": 100}]

def _parts(st, table, vehicle_id) -> dict:
    "The doors or tires of a vehicle by position."
    return {r["position"]: r for r in st.rows(table) if r["vehicle_id"] == vehicle_id}

def _electric(v): return v["fuel_type"] == "electric"

def _range_km(v) -> float:
    "How far the vehicle can go on its fuel or charge."
    energy = v["battery_pct"] / 100 * v["battery_capacity_kwh"] if _electric(v) else v["fuel_level_l"]
    return round(energy / v["consumption_per_100km"] * 100, 1)

def _energy_for(v, km) -> float:
    "Fuel (litres) or charge (percentage points) a drive of `km` uses."
    use = km * v["consumption_per_100km"] / 100
    return round(use / v["battery_capacity_kwh"] * 100, 1) if _electric(v) else round(use, 1)

def _place_km(st, a, b) -> float:
    pa, pb = st.get("place", a), st.get("place", b)
    return _km((pa["lat"], pa["lon"]), (pb["lat"], pb["lon"]))

def _running(v):
    if v["engine"] != "running": raise ToolError(f"the engine of {v['vehicle_id']} is not running")

def _standstill(v, doing):
    if v["speed_kmh"] > 0: raise ToolError(f"cannot {doing} while {v['vehicle_id']} is moving at {v['speed_kmh']} km/h; press the brake first")

def _at(st, v, categories, doing):
    place = st.get("place", v["location_place_id"])
    if place["category"] not in categories:
        raise ToolError(f"cannot {doing}: {v['vehicle_id']} is at {place['name']} ({place['category']}), not at a {' or '.join(categories)}")
    return place

@server.read(produces="vehicle")
def list_vehicles(st, owner: str = "", fuel_type: Literal["gasoline", "diesel", "hybrid", "electric"] | None = None):
    """List vehicles with make, model, plate and fuel type, optionally filtered.

    Args:
        owner: Part of the owner's name (case-insensitive).
        fuel_type: Only vehicles with this fuel type.
    """
    o = owner.lower()
    return [{k: v[k] for k in ("vehicle_id", "owner", "make", "model", "year", "plate", "fuel_type")}
            for v in st.rows("vehicle") if o in v["owner"].lower() and fuel_type in (None, v["fuel_type"])]

@server.read(produces=("vehicle", "place"))
def get_vehicle_status(st, vehicle_id: VehicleId):
    """Get a vehicle's full status: engine, speed, brake, fuel or charge and range, climate, lights, cruise control, doors and windows, location and destination.

    Args:
        vehicle_id: The vehicle to inspect.
    """
    v = need(st, "vehicle", vehicle_id)
    dest = v["destination_place_id"]
    return {**{k: x for k, x in v.items() if x is not None}, "range_km": _range_km(v),
            "location_name": st.get("place", v["location_place_id"])["name"],
            **({"destination_name": st.get("place", dest)["name"]} if dest else {}),
            "doors": [{k: x for k, x in d.items() if x is not None and k != "vehicle_id"} for d in _parts(st, "door", vehicle_id).values()]}

@server.read
def check_tire_pressure(st, vehicle_id: VehicleId):
    """Read the pressure of each tire against its recommended value (low: 3 psi or more under; high: 5 psi or more over).

    Args:
        vehicle_id: The vehicle whose tires to check.
    """
    need(st, "vehicle", vehicle_id)
    def status(t):
        d = t["pressure_psi"] - t["recommended_psi"]
        return "low" if d <= -3 else "high" if d >= 5 else "ok"
    return [{**t, "status": status(t)} for t in _parts(st, "tire", vehicle_id).values()]

@server.read(produces="place")
def search_navigation_places(st, query: str = "", category: Literal["gas_station", "charging_station", "service_center", "restaurant", "parking",
                                                        "office", "shop", "landmark"] | None = None, city: str = ""):
    """Search places a vehicle can navigate to by name, category and city.

    Args:
        query: Part of the place's name (case-insensitive).
        category: Only places of this category.
        city: Part of the city name (case-insensitive).
    """
    q, c = query.lower(), city.lower()
    return [dict(p) for p in st.rows("place") if q in p["name"].lower() and c in p["city"].lower() and category in (None, p["category"])]

@server.read(produces=("trip", "place"))
def list_vehicle_trips(st, vehicle_id: VehicleId, limit: int = 10):
    """List a vehicle's logged trips, most recent first.

    Args:
        vehicle_id: The vehicle whose trips to list.
        limit: Maximum number of trips (1 to 50).
    """
    need(st, "vehicle", vehicle_id)
    if not 1 <= limit <= 50: raise ToolError(f"limit must be between 1 and 50, got {limit}")
    trips = [dict(t) for t in st.rows("trip") if t["vehicle_id"] == vehicle_id]
    return sorted(trips, key=lambda t: (t["date"], t["trip_id"]), reverse=True)[:limit]

@server.read
def estimate_drive_to_place(st, vehicle_id: VehicleId, place_id: PlaceId):
    """Estimate a drive from the vehicle's location to a place: distance, duration, fuel or charge needed, and whether the range suffices.

    Args:
        vehicle_id: The vehicle.
        place_id: The place to drive to.
    """
    v, p = need(st, "vehicle", vehicle_id), need(st, "place", place_id)
    km = _place_km(st, v["location_place_id"], place_id)
    return {"vehicle_id": vehicle_id, "place_id": place_id, "place_name": p["name"], "distance_km": km,
            "duration_min": round(km / AVG_KMH * 60), ("charge_needed_pct" if _electric(v) else "fuel_needed_l"): _energy_for(v, km),
            "range_km": _range_km(v), "reachable": _range_km(v) >= km}

@server.write
def lock_vehicle_doors(st, vehicle_id: VehicleId, doors: list[DoorPos] | None = None):
    """Lock some or all doors of a vehicle.

    Args:
        vehicle_id: The vehicle.
        doors: Doors to lock; all five when omitted.
    """
    need(st, "vehicle", vehicle_id)
    parts = _parts(st, "door", vehicle_id)
    todo = [parts[p] for p in (doors or DOORS) if not parts[p]["locked"]]
    if not todo: raise ToolError(f"the {'requested doors' if doors else 'doors'} of {vehicle_id} are already locked")
    for d in todo: st.update("door", d["door_id"], locked=True)
    return {"vehicle_id": vehicle_id, "locked": [d["position"] for d in todo]}

@server.write(after=("lock_vehicle_doors",))
def unlock_vehicle_doors(st, vehicle_id: VehicleId, doors: list[DoorPos] | None = None):
    """Unlock some or all doors of a vehicle that is standing still.

    Args:
        vehicle_id: The vehicle.
        doors: Doors to unlock; all five when omitted.
    """
    v = need(st, "vehicle", vehicle_id)
    _standstill(v, "unlock doors")
    parts = _parts(st, "door", vehicle_id)
    todo = [parts[p] for p in (doors or DOORS) if parts[p]["locked"]]
    if not todo: raise ToolError(f"the {'requested doors' if doors else 'doors'} of {vehicle_id} are already unlocked")
    for d in todo: st.update("door", d["door_id"], locked=False)
    return {"vehicle_id": vehicle_id, "unlocked": [d["position"] for d in todo]}

@server.write
def set_vehicle_window(st, vehicle_id: VehicleId, position: WindowPos, open_percent: Percent):
    """Open or close one window to a given percentage (0 closed, 100 fully open).

    Args:
        vehicle_id: The vehicle.
        position: Which window.
        open_percent: How far open, 0 to 100.
    """
    need(st, "vehicle", vehicle_id)
    d = _parts(st, "door", vehicle_id)[position]
    if d["window_open_pct"] == open_percent: raise ToolError(f"the {position} window of {vehicle_id} is already {open_percent}% open")
    st.update("door", d["door_id"], window_open_pct=open_percent)
    return {"vehicle_id": vehicle_id, "position": position, "window_open_pct": open_percent}

@server.write
def set_brake_pedal(st, vehicle_id: VehicleId, pressed: bool):
    """Press or release the brake pedal; pressing it while moving brings the vehicle to a stop and cancels cruise control.

    Args:
        vehicle_id: The vehicle.
        pressed: True to press and hold the brake, false to release it.
    """
    v = need(st, "vehicle", vehicle_id)
    if v["brake_pressed"] == pressed: raise ToolError(f"the brake of {vehicle_id} is already {'pressed' if pressed else 'released'}")
    changes = {"brake_pressed": pressed, **({"speed_kmh": 0, "cruise_speed_kmh": None} if pressed else {})}
    st.update("vehicle", vehicle_id, **changes)
    return {"vehicle_id": vehicle_id, "brake_pressed": pressed, "speed_kmh": 0 if pressed else v["speed_kmh"]}

@server.write(after=("lock_vehicle_doors", "set_brake_pedal"))
def start_vehicle_engine(st, vehicle_id: VehicleId):
    """Start the engine; every door must be locked, the brake pressed, and some fuel or charge left.

    Args:
        vehicle_id: The vehicle to start.
    """
    v = need(st, "vehicle", vehicle_id)
    if v["engine"] == "running": raise ToolError(f"the engine of {vehicle_id} is already running")
    unlocked = [p for p, d in _parts(st, "door", vehicle_id).items() if not d["locked"]]
    if unlocked: raise ToolError(f"cannot start {vehicle_id}: doors {', '.join(unlocked)} are unlocked")
    if not v["brake_pressed"]: raise ToolError(f"cannot start {vehicle_id}: press the brake pedal first")
    if _range_km(v) <= 0: raise ToolError(f"cannot start {vehicle_id}: it has no {'charge' if _electric(v) else 'fuel'} left")
    st.update("vehicle", vehicle_id, engine="running")
    return {"vehicle_id": vehicle_id, "engine": "running", "range_km": _range_km(v)}

@server.write(after=("start_vehicle_engine",))
def stop_vehicle_engine(st, vehicle_id: VehicleId):
    """Stop the engine of a vehicle standing still (climate turns off too, except in electric cars).

    Args:
        vehicle_id: The vehicle to stop.
    """
    v = need(st, "vehicle", vehicle_id)
    _running(v)
    _standstill(v, "stop the engine")
    st.update("vehicle", vehicle_id, engine="stopped", cruise_speed_kmh=None, climate_mode=v["climate_mode"] if _electric(v) else "off")
    return {"vehicle_id": vehicle_id, "engine": "stopped"}

@server.write
def set_climate_control(st, vehicle_id: VehicleId, mode: Literal["off", "auto", "heat", "cool", "defrost"],
                        temperature_c: Annotated[float | None, {"minimum": 16, "maximum": 30}] = None,
                        fan_speed: Annotated[int | None, {"minimum": 0, "maximum": 10}] = None):
    """Set the cabin climate; needs the engine running (electric cars: at least 10% charge instead).

    Args:
        vehicle_id: The vehicle.
        mode: Climate mode.
        temperature_c: Cabin target temperature, 16 to 30 degrees Celsius; unchanged when omitted.
        fan_speed: Fan speed 0 to 10; unchanged when omitted.
    """
    v = need(st, "vehicle", vehicle_id)
    if _electric(v):
        if v["engine"] != "running" and v["battery_pct"] < 10: raise ToolError(f"battery of {vehicle_id} is {v['battery_pct']}%; climate needs 10%")
    else: _running(v)
    new = {"climate_mode": mode, "cabin_temp_c": v["cabin_temp_c"] if temperature_c is None else float(temperature_c),
           "fan_speed": v["fan_speed"] if fan_speed is None else fan_speed}
    if all(v[k] == x for k, x in new.items()): raise ToolError(f"the climate of {vehicle_id} is already set that way")
    st.update("vehicle", vehicle_id, **new)
    return {"vehicle_id": vehicle_id, **new}

@server.write
def set_vehicle_headlights(st, vehicle_id: VehicleId, mode: Literal["on", "off", "auto"]):
    """Switch the headlights on, off or to automatic.

    Args:
        vehicle_id: The vehicle.
        mode: Headlight mode.
    """
    v = need(st, "vehicle", vehicle_id)
    if v["headlights"] == mode: raise ToolError(f"the headlights of {vehicle_id} are already {mode}")
    st.update("vehicle", vehicle_id, headlights=mode)
    return {"vehicle_id": vehicle_id, "headlights": mode}

@server.write
def set_cruise_control(st, vehicle_id: VehicleId, enabled: bool, speed_kmh: Annotated[int | None, {"minimum": 40, "maximum": 160}] = None):
    """Engage cruise control (only while driving at 40 km/h or more) at a set speed, or cancel it.

    Args:
        vehicle_id: The vehicle.
        enabled: True to engage, false to cancel.
        speed_kmh: Cruise speed 40 to 160 km/h; the current speed when omitted.
    """
    v = need(st, "vehicle", vehicle_id)
    if not enabled:
        if v["cruise_speed_kmh"] is None: raise ToolError(f"cruise control of {vehicle_id} is not engaged")
        st.update("vehicle", vehicle_id, cruise_speed_kmh=None)
        return {"vehicle_id": vehicle_id, "cruise_control": "off", "speed_kmh": v["speed_kmh"]}
    _running(v)
    if v["speed_kmh"] < CRUISE_MIN: raise ToolError(f"cruise control needs at least {CRUISE_MIN} km/h; {vehicle_id} is at {v['speed_kmh']} km/h")
    target = v["speed_kmh"] if speed_kmh is None else speed_kmh
    if v["cruise_speed_kmh"] == target: raise ToolError(f"cruise control of {vehicle_id} is already set to {target} km/h")
    st.update("vehicle", vehicle_id, cruise_speed_kmh=target, speed_kmh=target)
    return {"vehicle_id": vehicle_id, "cruise_control": "on", "speed_kmh": target}

@server.write
def set_navigation_destination(st, vehicle_id: VehicleId, place_id: PlaceId):
    """Set the navigation destination; returns the distance and whether the current range reaches it.

    Args:
        vehicle_id: The vehicle.
        place_id: The place to navigate to (not the current location).
    """
    v, p = need(st, "vehicle", vehicle_id), need(st, "place", place_id)
    if place_id == v["location_place_id"]: raise ToolError(f"{vehicle_id} is already at {p['name']}")
    if place_id == v["destination_place_id"]: raise ToolError(f"{p['name']} is already the destination of {vehicle_id}")
    st.update("vehicle", vehicle_id, destination_place_id=place_id)
    km = _place_km(st, v["location_place_id"], place_id)
    return {"vehicle_id": vehicle_id, "destination_place_id": place_id, "destination_name": p["name"], "distance_km": km,
            "eta_min": round(km / AVG_KMH * 60), "reachable": _range_km(v) >= km}

@server.write(produces="trip", after=("set_navigation_destination", "start_vehicle_engine"))
def drive_to_destination(st, vehicle_id: VehicleId):
    """Drive to the navigation destination and log the trip; needs the engine running, the brake released, doors locked and enough range.

    Args:
        vehicle_id: The vehicle to drive.
    """
    v = need(st, "vehicle", vehicle_id)
    dest = v["destination_place_id"]
    if dest is None: raise ToolError(f"{vehicle_id} has no navigation destination; set one first")
    _running(v)
    if v["brake_pressed"]: raise ToolError(f"release the brake of {vehicle_id} before driving")
    unlocked = [p for p, d in _parts(st, "door", vehicle_id).items() if not d["locked"]]
    if unlocked: raise ToolError(f"lock doors {', '.join(unlocked)} of {vehicle_id} before driving")
    km = _place_km(st, v["location_place_id"], dest)
    if _range_km(v) < km:
        raise ToolError(f"{vehicle_id} has {_range_km(v)} km of range but the trip is {km} km; refuel or charge first")
    used = _energy_for(v, km)
    energy = {"battery_pct": max(0, round(v["battery_pct"] - used))} if _electric(v) else {"fuel_level_l": round(v["fuel_level_l"] - used, 1)}
    st.update("vehicle", vehicle_id, location_place_id=dest, destination_place_id=None, speed_kmh=0, cruise_speed_kmh=None,
              odometer_km=round(v["odometer_km"] + km), **energy)
    trip = st.insert("trip", {"vehicle_id": vehicle_id, "from_place_id": v["location_place_id"], "to_place_id": dest,
                              "date": st.meta["now"][:10], "distance_km": km, "duration_min": round(km / AVG_KMH * 60)})
    return {**dict(trip), **energy, "range_km": _range_km(st.get("vehicle", vehicle_id))}

@server.write
def refuel_vehicle(st, vehicle_id: VehicleId, liters: float):
    """Add fuel to a gasoline, diesel or hybrid vehicle parked at a gas station with the engine off.

    Args:
        vehicle_id: The vehicle to refuel.
        liters: Litres to add; the tank cannot overflow.
    """
    v = need(st, "vehicle", vehicle_id)
    if _electric(v): raise ToolError(f"{vehicle_id} is electric; use charge_vehicle_battery")
    if liters <= 0: raise ToolError(f"liters must be positive, got {liters}")
    if v["engine"] != "stopped": raise ToolError(f"stop the engine of {vehicle_id} before refuelling")
    _at(st, v, ["gas_station"], "refuel")
    room = round(v["tank_capacity_l"] - v["fuel_level_l"], 1)
    if liters > room: raise ToolError(f"the tank of {vehicle_id} holds only {room} more litres")
    level = round(v["fuel_level_l"] + liters, 1)
    st.update("vehicle", vehicle_id, fuel_level_l=level)
    return {"vehicle_id": vehicle_id, "fuel_level_l": level, "range_km": _range_km(st.get("vehicle", vehicle_id))}

@server.write
def charge_vehicle_battery(st, vehicle_id: VehicleId, target_percent: Annotated[int, {"minimum": 1, "maximum": 100}]):
    """Charge an electric vehicle parked at a charging station (engine off) up to a target percentage.

    Args:
        vehicle_id: The vehicle to charge.
        target_percent: Charge level to reach, above the current one, at most 100.
    """
    v = need(st, "vehicle", vehicle_id)
    if not _electric(v): raise ToolError(f"{vehicle_id} runs on {v['fuel_type']}; use refuel_vehicle")
    if v["engine"] != "stopped": raise ToolError(f"stop {vehicle_id} before charging")
    _at(st, v, ["charging_station"], "charge")
    if target_percent <= v["battery_pct"]: raise ToolError(f"{vehicle_id} is already at {v['battery_pct']}%")
    st.update("vehicle", vehicle_id, battery_pct=target_percent)
    return {"vehicle_id": vehicle_id, "battery_pct": target_percent, "range_km": _range_km(st.get("vehicle", vehicle_id))}

@server.write(after=("check_tire_pressure",))
def inflate_tire(st, vehicle_id: VehicleId, position: WheelPos, pressure_psi: Annotated[float, {"minimum": 20, "maximum": 50}]):
    """Set one tire's pressure at a gas station or service center, standing still, up to 8 psi over the recommended value.

    Args:
        vehicle_id: The vehicle.
        position: Which tire.
        pressure_psi: The new pressure in psi.
    """
    v = need(st, "vehicle", vehicle_id)
    _standstill(v, "inflate tires")
    _at(st, v, ["gas_station", "service_center"], "inflate tires")
    t = _parts(st, "tire", vehicle_id)[position]
    if pressure_psi > t["recommended_psi"] + 8: raise ToolError(f"{pressure_psi} psi exceeds the safe maximum of {t['recommended_psi'] + 8} psi")
    if t["pressure_psi"] == pressure_psi: raise ToolError(f"the {position} tire of {vehicle_id} is already at {pressure_psi} psi")
    st.update("tire", t["tire_id"], pressure_psi=float(pressure_psi), last_checked=st.meta["now"][:10])
    return {"vehicle_id": vehicle_id, "position": position, "pressure_psi": float(pressure_psi), "recommended_psi": t["recommended_psi"]}
