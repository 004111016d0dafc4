"""Smart home: homes, rooms, typed devices, scenes, automations, device groups, firmware and energy (25 tools).

Rules: only online devices can be controlled; thermostats accept targets inside their own range; brightness is 0-100
and only colour bulbs take colours; a light must be on before its brightness or colour changes; arming a home "away"
needs every lock locked (and starts every camera recording), and while armed away nothing unlocks or stops recording;
scenes and groups only hold devices of their own home; firmware updates need the device online with enough battery.
"""
import collections
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.iot_devices.phrasing import PHRASES
from prove_nb.servers._common import OWNERS, need
from prove_nb.state import TableSpec

PLACES = [("Maple Street House", "Portland"), ("Lakeside Cabin", "Tahoe City"), ("Harbor Loft", "Seattle"),
          ("Cedar Grove Home", "Boulder"), ("Sunset Apartment", "San Diego"), ("Oak Hill Cottage", "Asheville"),
          ("Riverside Townhouse", "Austin"), ("Pine Ridge Chalet", "Aspen"), ("Bayview Condo", "San Francisco"),
          ("Willow Lane House", "Madison")]
STREETS = ["Maple St", "Lake Rd", "Harbor Ave", "Cedar Ln", "Sunset Blvd", "Oak Hill Dr", "River Rd", "Pine Ct"]
ROOMS = ["Living Room", "Kitchen", "Master Bedroom", "Guest Bedroom", "Office", "Garage", "Hallway", "Dining Room",
         "Nursery", "Basement", "Patio", "Bathroom"]
# model -> (kind, extra facts); thermostats carry their own temperature range, bulbs whether they take colours
MODELS = {
    "Nest Thermostat E": ("thermostat", {"min_temp": 9.0, "max_temp": 32.0}),
    "Ecobee SmartThermostat": ("thermostat", {"min_temp": 7.0, "max_temp": 30.0}),
    "Hue White Ambiance": ("light", {"supports_color": False}),
    "Hue Color A19": ("light", {"supports_color": True}),
    "LIFX Mini": ("light", {"supports_color": True}),
    "August Smart Lock": ("lock", {}),
    "Yale Assure Lock 2": ("lock", {}),
    "Arlo Pro 4": ("camera", {}),
    "Ring Stick Up Cam": ("camera", {}),
    "Aqara Temperature Sensor": ("sensor", {"sensor_type": "temperature", "unit": "C"}),
    "Eve Room Humidity": ("sensor", {"sensor_type": "humidity", "unit": "%"}),
    "Hue Motion Sensor": ("sensor", {"sensor_type": "motion", "unit": "detected"}),
    "Aqara Door Sensor": ("sensor", {"sensor_type": "contact", "unit": "open"}),
    "Kasa Smart Plug": ("plug", {}),
    "Meross Smart Plug": ("plug", {}),
}
KIND_WEIGHTS = ["light"] * 5 + ["plug"] * 2 + ["sensor"] * 3 + ["thermostat", "lock", "camera"]
LABELS = {"thermostat": "Thermostat", "light": "Light", "lock": "Door Lock", "camera": "Camera", "sensor": "Sensor", "plug": "Plug"}
BATTERY_KINDS = {"lock", "sensor", "camera"}
SWITCHABLE = {"light", "plug"}
Color = Literal["warm_white", "cool_white", "daylight", "red", "orange", "yellow", "green", "blue", "purple", "pink"]
WHITES = ("warm_white", "cool_white", "daylight")
SCENE_NAMES = ["Good Morning", "Movie Night", "Away", "Bedtime", "Dinner", "Focus", "Party", "Relax", "Wake Up", "Reading"]
GROUP_NAMES = {"light": ["Downstairs Lights", "Evening Lamps", "Ceiling Lights", "Holiday Lights"],
               "plug": ["All Plugs", "Media Corner", "Outdoor Plugs"]}
KWH = {"thermostat": (1.5, 6.0), "light": (0.05, 0.6), "lock": (0.0, 0.02), "camera": (0.05, 0.2), "sensor": (0.0, 0.01),
       "plug": (0.2, 3.5)}

def _home(rng, i, pick):
    name, city = PLACES[i % len(PLACES)]
    return {"name": name if i < len(PLACES) else f"{name} {i // len(PLACES) + 1}", "owner": rng.choice(OWNERS),
            "address": f"{rng.randint(10, 980)} {rng.choice(STREETS)}, {city}",
            "security_mode": rng.choice(["disarmed", "disarmed", "armed_home"])}

def _room(rng, i, pick):
    home = pick("home")
    names = pick.memo.setdefault("room_names", {}).setdefault(home, set())
    name = next((n for n in rng.sample(ROOMS, len(ROOMS)) if n not in names), f"Room {len(names) + 1}")
    names.add(name)
    return {"home_id": home, "name": name, "floor": 0 if name in ("Garage", "Patio") else -1 if name == "Basement" else rng.randint(0, 1)}

def _firmware(rng, i, pick):
    "Up to four releases per model, oldest first (every model has at least one at every size)."
    model, n = list(MODELS)[i % len(MODELS)], i // len(MODELS)
    if n >= 4: return None
    return {"model": model, "version": f"{2 + n // 3}.{n % 3}.{rng.randint(0, 9)}", "released": f"2025-{1 + 3 * n:02d}-{rng.randint(10, 28)}",
            "notes": rng.choice(["Security fixes", "Improved battery life", "Faster pairing", "Stability improvements",
                                 "New scheduling features"])}

def _device(rng, i, pick):
    room = pick.row("room", pick("room"))
    kind = rng.choice(KIND_WEIGHTS)
    model = rng.choice([m for m, (k, _) in MODELS.items() if k == kind])
    facts = MODELS[model][1]
    names = pick.memo.setdefault("device_names", {})
    n = names[room["room_id"], kind] = names.get((room["room_id"], kind), 0) + 1
    online = rng.random() < 0.88
    row = {"home_id": room["home_id"], "room_id": room["room_id"], "name": f"{room['name']} {LABELS[kind]}" + (f" {n}" if n > 1 else ""),
           "kind": kind, "model": model, "status": "online" if online else "offline",
           "firmware_version": rng.choice([f["version"] for f in pick.group("firmware_release", "model")[model]]),
           "battery": rng.choice([rng.randint(5, 19), rng.randint(20, 100), rng.randint(20, 100)]) if kind in BATTERY_KINDS else None}
    if kind == "thermostat":
        row.update(facts, hvac_mode=rng.choice(["heat", "cool", "auto", "off"]), target_temp=float(rng.randint(18, 24)),
                   current_temp=round(rng.uniform(16, 27), 1))
    elif kind == "light":
        on = rng.random() < 0.4
        row.update(facts, power="on" if on else "off", brightness=rng.choice([20, 40, 60, 80, 100]),
                   color=rng.choice(list(Color.__args__) if facts["supports_color"] else WHITES))
    elif kind == "lock": row.update(locked=rng.random() < 0.7)
    elif kind == "camera": row.update(recording=rng.random() < 0.3)
    elif kind == "plug": row.update(power=rng.choice(["on", "off"]), watts=round(rng.uniform(0, 1200), 1))
    else:
        t = facts["sensor_type"]
        reading = {"temperature": lambda: round(rng.uniform(16, 28), 1), "humidity": lambda: float(rng.randint(25, 70))}.get(
            t, lambda: rng.random() < 0.2)()
        row.update(facts, reading=reading)
    return row

def _scene(rng, i, pick):
    return {"home_id": pick("home"), "name": SCENE_NAMES[i % len(SCENE_NAMES)] + (f" {i // len(SCENE_NAMES) + 1}" if i >= len(SCENE_NAMES) else "")}

def _scene_action(rng, i, pick):
    scene = pick("scene")
    home = pick.row("scene", scene)["home_id"]
    devs = [(d["device_id"], d["kind"]) for d in pick.group("device", "home_id").get(home, [])
            if d["kind"] in ("light", "plug", "thermostat", "lock")]
    if not devs: return None
    dev, kind = rng.choice(devs)
    seen = pick.memo.setdefault("actions", set())
    if (scene, dev) in seen: return None
    seen.add((scene, dev))
    row = {"scene_id": scene, "device_id": dev, "power": None, "brightness": None, "color": None, "target_temp": None, "locked": None}
    if kind == "light": row.update(power="on", brightness=rng.choice([10, 30, 50, 70, 100]), color=rng.choice(WHITES))
    elif kind == "plug": row.update(power=rng.choice(["on", "off"]))
    elif kind == "thermostat": row.update(target_temp=float(rng.randint(18, 23)))
    else: row.update(locked=True)
    return row

def _automation(rng, i, pick):
    scene = pick("scene")
    home = pick.row("scene", scene)["home_id"]
    sensors = [(d["device_id"], d["sensor_type"]) for d in pick.group("device", "home_id").get(home, []) if d["kind"] == "sensor"]
    row = {"home_id": home, "scene_id": scene, "enabled": rng.random() < 0.75, "trigger_time": None, "sensor_id": None,
           "condition": None, "threshold": None}
    if sensors and rng.random() < 0.5:
        sensor, t = rng.choice(sensors)
        numeric = t in ("temperature", "humidity")
        row.update(sensor_id=sensor, condition=rng.choice(["above", "below"]) if numeric else "detected",
                   threshold=float(rng.randint(18, 26) if t == "temperature" else rng.randint(40, 60)) if numeric else None)
        row["name"] = f"When {t} sensor triggers"
    else:
        row.update(trigger_time=f"{rng.randint(5, 23):02d}:{rng.choice(['00', '15', '30', '45'])}")
        row["name"] = f"Daily at {row['trigger_time']}"
    return row

def _group(rng, i, pick):
    home = pick("home")
    kind = rng.choice(["light", "light", "plug"])
    devs = sorted(d["device_id"] for d in pick.group("device", "home_id").get(home, []) if d["kind"] == kind)
    used = pick.memo.setdefault("group_names", {}).setdefault(home, set())
    name = next((n for n in GROUP_NAMES[kind] if n not in used), None)
    if len(devs) < 2 or name is None: return None
    used.add(name)
    return {"home_id": home, "name": name, "kind": kind,
            "device_ids": sorted(rng.sample(devs, rng.randint(2, min(4, len(devs)))))}

def _energy(rng, i, pick):
    dev = pick.row("device", pick("device"))
    lo, hi = KWH[dev["kind"]]
    return {"device_id": dev["device_id"], "date": f"2026-06-{rng.randint(1, 14):02d}", "kwh": round(rng.uniform(lo, hi), 3)}

server = ToolServer(
    "iot_devices", "Smart home control: rooms, thermostats, lights, locks, cameras, sensors, plugs, scenes and automations.",
    [TableSpec("home", "home_id", "home_"),
     TableSpec("room", "room_id", "room_", {"home_id": "home"}),
     TableSpec("firmware_release", "release_id", "fw_"),
     TableSpec("device", "device_id", "dev_", {"home_id": "home", "room_id": "room"}),
     TableSpec("scene", "scene_id", "scn_", {"home_id": "home"}),
     TableSpec("scene_action", "action_id", "act_", {"scene_id": "scene", "device_id": "device"}),
     TableSpec("automation", "automation_id", "auto_", {"home_id": "home", "scene_id": "scene", "sensor_id": "device"}),
     TableSpec("device_group", "group_id", "grp_", {"home_id": "home", "device_ids": "device"}),
     TableSpec("energy_reading", "reading_id", "kwh_", {"device_id": "device"})],
    {"home": _home, "room": _room, "firmware_release": _firmware, "device": _device, "scene": _scene,
     "scene_action": _scene_action, "automation": _automation, "device_group": _group, "energy_reading": _energy},
    {"home": 6, "room": 30, "firmware_release": 60, "device": 60, "scene": 12, "scene_action": 36, "automation": 10,
     "device_group": 10, "energy_reading": 80}, phrases=PHRASES)

HomeId = Annotated[str, Entity("home")]
RoomId = Annotated[str, Entity("room")]
DeviceId = Annotated[str, Entity("device")]
SceneId = Annotated[str, Entity("scene")]
AutomationId = Annotated[str, Entity("automation")]
GroupId = Annotated[str, Entity("device_group")]
Kind = Literal["thermostat", "light", "lock", "camera", "sensor", "plug"]
Power = Literal["on", "off"]
Brightness = Annotated[int | None, {"minimum": 0, "maximum": 100}]

def _view(row) -> dict:
    "A row without the fields that do not apply to it (None)."
    return {k: v for k, v in row.items() if v is not None}

def _usable_device(st, device_id, kinds=None, online=True):
    "The device `device_id`, checked to be of one of `kinds` and (when `online`) reachable."
    dev = need(st, "device", device_id)
    if kinds and dev["kind"] not in kinds:
        raise ToolError(f"device {device_id} is a {dev['kind']}, not a {' or '.join(sorted(kinds))}")
    if online and dev["status"] != "online": raise ToolError(f"device {device_id} ({dev['name']}) is offline")
    return dev

def _date(s, what):
    if len(s) != 10 or s[4] != "-" or s[7] != "-" or not (s[:4] + s[5:7] + s[8:]).isdigit():
        raise ToolError(f"{what} must be YYYY-MM-DD, got '{s}'")
    return s

def _version(v) -> tuple: return tuple(int(x) for x in v.split("."))

def _latest_release(st, model):
    rels = [r for r in st.rows("firmware_release") if r["model"] == model]
    return max(rels, key=lambda r: _version(r["version"])) if rels else None

def _check_setting(dev, power=None, brightness=None, color=None, target_temp=None, locked=None):
    "Refuse settings that do not fit the device's kind or range."
    given = {k for k, v in dict(power=power, brightness=brightness, color=color, target_temp=target_temp, locked=locked).items() if v is not None}
    allowed = {"light": {"power", "brightness", "color"}, "plug": {"power"}, "thermostat": {"target_temp"}, "lock": {"locked"}}.get(dev["kind"])
    if allowed is None: raise ToolError(f"{dev['kind']} {dev['device_id']} cannot be controlled by scenes")
    if not given: raise ToolError("give at least one setting (power, brightness, color, target_temp or locked)")
    if given - allowed: raise ToolError(f"{dev['kind']} {dev['device_id']} does not take {', '.join(sorted(given - allowed))}")
    if color is not None and color not in WHITES and not dev.get("supports_color"):
        raise ToolError(f"light {dev['device_id']} ({dev['model']}) only supports white tones {list(WHITES)}")
    if target_temp is not None and not dev["min_temp"] <= target_temp <= dev["max_temp"]:
        raise ToolError(f"thermostat {dev['device_id']} accepts {dev['min_temp']} to {dev['max_temp']} C, got {target_temp}")

def _armed_away(st, home_id): return st.get("home", home_id)["security_mode"] == "armed_away"

@server.read(produces="home")
def list_smart_homes(st, owner: str = "", city: str = ""):
    """List the smart homes, optionally filtered by owner name or city.

    Args:
        owner: Part of the owner's name (case-insensitive).
        city: Part of the address, e.g. a city (case-insensitive).
    """
    o, c = owner.lower(), city.lower()
    return [dict(r) for r in st.rows("home") if o in r["owner"].lower() and c in r["address"].lower()]

@server.read(produces="room")
def list_home_rooms(st, home_id: HomeId):
    """List the rooms of a home with how many devices each holds.

    Args:
        home_id: The home whose rooms to list.
    """
    need(st, "home", home_id)
    n = collections.Counter(d["room_id"] for d in st.rows("device") if d["home_id"] == home_id)
    return [{**r, "devices": n[r["room_id"]]} for r in st.rows("room") if r["home_id"] == home_id]

@server.read(produces="device")
def list_smart_devices(st, home_id: HomeId, room_id: RoomId | None = None, kind: Kind | None = None,
                       status: Literal["online", "offline"] | None = None):
    """List a home's devices with their current state (sensors include their latest reading).

    Args:
        home_id: The home whose devices to list.
        room_id: Only devices in this room.
        kind: Only devices of this kind.
        status: Only online or only offline devices.
    """
    need(st, "home", home_id)
    if room_id is not None and need(st, "room", room_id)["home_id"] != home_id: raise ToolError(f"room {room_id} is not in home {home_id}")
    return [_view(d) for d in st.rows("device") if d["home_id"] == home_id and room_id in (None, d["room_id"])
            and kind in (None, d["kind"]) and status in (None, d["status"])]

@server.read(produces=("device", "room"))
def get_device_status(st, device_id: DeviceId):
    """Get one device's full state: kind, room, online status, battery, firmware and its settings or reading.

    Args:
        device_id: The device to look up.
    """
    d = need(st, "device", device_id)
    return {**_view(d), "room_name": st.get("room", d["room_id"])["name"]}

@server.read(produces=("scene", "device"))
def list_home_scenes(st, home_id: HomeId):
    """List a home's scenes with the device settings each one applies.

    Args:
        home_id: The home whose scenes to list.
    """
    need(st, "home", home_id)
    acts = collections.defaultdict(list)
    for a in st.rows("scene_action"): acts[a["scene_id"]].append(_view(a))
    return [{**s, "actions": acts[s["scene_id"]]} for s in st.rows("scene") if s["home_id"] == home_id]

@server.read(produces=("automation", "scene", "device"))
def list_home_automations(st, home_id: HomeId, enabled: bool | None = None):
    """List a home's automations: what triggers them (a time or a sensor) and which scene they run.

    Args:
        home_id: The home whose automations to list.
        enabled: Only enabled (true) or only disabled (false) automations.
    """
    need(st, "home", home_id)
    return [_view(a) for a in st.rows("automation") if a["home_id"] == home_id and enabled in (None, a["enabled"])]

@server.read(produces=("device_group", "device"))
def list_device_groups(st, home_id: HomeId):
    """List a home's device groups (lights or plugs switched together) and their members.

    Args:
        home_id: The home whose groups to list.
    """
    need(st, "home", home_id)
    return [dict(g) for g in st.rows("device_group") if g["home_id"] == home_id]

@server.read(produces="device")
def check_device_firmware_updates(st, home_id: HomeId):
    """List the devices of a home whose firmware is older than the latest release for their model.

    Args:
        home_id: The home whose devices to check.
    """
    need(st, "home", home_id)
    out = []
    for d in st.rows("device"):
        rel = _latest_release(st, d["model"]) if d["home_id"] == home_id else None
        if rel and _version(rel["version"]) > _version(d["firmware_version"]):
            out.append({"device_id": d["device_id"], "name": d["name"], "model": d["model"], "status": d["status"],
                        "battery": d["battery"], "current_version": d["firmware_version"], "latest_version": rel["version"],
                        "release_notes": rel["notes"]})
    return out

@server.read(produces="device")
def get_home_energy_usage(st, home_id: HomeId, start_date: str, end_date: str, device_id: DeviceId | None = None):
    """Total a home's energy use in kWh between two dates (inclusive), per device, largest first.

    Args:
        home_id: The home whose energy use to total.
        start_date: First day, YYYY-MM-DD.
        end_date: Last day, YYYY-MM-DD, not before start_date.
        device_id: Only this device of the home.
    """
    need(st, "home", home_id)
    if _date(start_date, "start_date") > _date(end_date, "end_date"): raise ToolError(f"start_date {start_date} is after end_date {end_date}")
    if device_id is not None and need(st, "device", device_id)["home_id"] != home_id:
        raise ToolError(f"device {device_id} is not in home {home_id}")
    devs = {d["device_id"]: d for d in st.rows("device") if d["home_id"] == home_id and device_id in (None, d["device_id"])}
    kwh = collections.Counter()
    for r in st.rows("energy_reading"):
        if r["device_id"] in devs and start_date <= r["date"] <= end_date: kwh[r["device_id"]] += r["kwh"]
    per = [{"device_id": d, "name": devs[d]["name"], "kwh": round(v, 3)} for d, v in sorted(kwh.items(), key=lambda x: (-x[1], x[0]))]
    return {"home_id": home_id, "start_date": start_date, "end_date": end_date, "total_kwh": round(sum(kwh.values()), 3), "devices": per}

@server.write
def switch_device_power(st, device_id: DeviceId, power: Power):
    """Switch a light or smart plug on or off.

    Args:
        device_id: The light or plug to switch.
        power: The new power state.
    """
    dev = _usable_device(st, device_id, SWITCHABLE)
    if dev["power"] == power: raise ToolError(f"{dev['kind']} {device_id} ({dev['name']}) is already {power}")
    st.update("device", device_id, power=power)
    return {"device_id": device_id, "name": dev["name"], "power": power}

@server.write(after=("switch_device_power",))
def set_light_state(st, device_id: DeviceId, brightness: Brightness = None, color: Color | None = None):
    """Change the brightness and/or colour of a light that is switched on (white-only bulbs take only white tones).

    Args:
        device_id: The light to adjust.
        brightness: Brightness in percent, 0 to 100.
        color: Colour or white tone.
    """
    dev = _usable_device(st, device_id, {"light"})
    if brightness is None and color is None: raise ToolError("give a brightness or a color")
    if dev["power"] != "on": raise ToolError(f"light {device_id} ({dev['name']}) is off; switch it on first")
    _check_setting(dev, brightness=brightness, color=color)
    changes = {k: v for k, v in dict(brightness=brightness, color=color).items() if v is not None}
    return _view(st.update("device", device_id, **changes))

@server.write
def set_thermostat(st, device_id: DeviceId, target_temp: float,
                   hvac_mode: Literal["heat", "cool", "auto", "off"] | None = None):
    """Set a thermostat's target temperature (inside that thermostat's own range) and optionally its mode.

    Args:
        device_id: The thermostat to set.
        target_temp: Target temperature in degrees Celsius.
        hvac_mode: Heating/cooling mode; unchanged when omitted.
    """
    dev = _usable_device(st, device_id, {"thermostat"})
    _check_setting(dev, target_temp=target_temp)
    return _view(st.update("device", device_id, target_temp=float(target_temp), hvac_mode=hvac_mode or dev["hvac_mode"]))

@server.write
def lock_smart_lock(st, device_id: DeviceId):
    """Lock a smart door lock.

    Args:
        device_id: The lock to lock.
    """
    dev = _usable_device(st, device_id, {"lock"})
    if dev["locked"]: raise ToolError(f"lock {device_id} ({dev['name']}) is already locked")
    st.update("device", device_id, locked=True)
    return {"device_id": device_id, "name": dev["name"], "locked": True}

@server.write(after=("lock_smart_lock",))
def unlock_smart_lock(st, device_id: DeviceId):
    """Unlock a smart door lock (refused while its home is armed away).

    Args:
        device_id: The lock to unlock.
    """
    dev = _usable_device(st, device_id, {"lock"})
    if not dev["locked"]: raise ToolError(f"lock {device_id} ({dev['name']}) is already unlocked")
    if _armed_away(st, dev["home_id"]): raise ToolError(f"home {dev['home_id']} is armed away; disarm it before unlocking")
    st.update("device", device_id, locked=False)
    return {"device_id": device_id, "name": dev["name"], "locked": False}

@server.write
def set_camera_recording(st, device_id: DeviceId, recording: bool):
    """Start or stop a camera's recording (recording cannot stop while its home is armed away).

    Args:
        device_id: The camera.
        recording: True to start recording, false to stop.
    """
    dev = _usable_device(st, device_id, {"camera"})
    if dev["recording"] == recording: raise ToolError(f"camera {device_id} is already {'recording' if recording else 'stopped'}")
    if not recording and _armed_away(st, dev["home_id"]):
        raise ToolError(f"home {dev['home_id']} is armed away; disarm it before stopping camera {device_id}")
    st.update("device", device_id, recording=recording)
    return {"device_id": device_id, "name": dev["name"], "recording": recording}

@server.write
def move_device_to_room(st, device_id: DeviceId, room_id: RoomId):
    """Move a device to another room of the same home (offline devices can be moved too).

    Args:
        device_id: The device to move.
        room_id: The destination room, in the device's home.
    """
    dev, room = _usable_device(st, device_id, online=False), need(st, "room", room_id)
    if room["home_id"] != dev["home_id"]: raise ToolError(f"room {room_id} is in home {room['home_id']}, not in the device's home {dev['home_id']}")
    if dev["room_id"] == room_id: raise ToolError(f"device {device_id} is already in {room['name']}")
    st.update("device", device_id, room_id=room_id)
    return {"device_id": device_id, "room_id": room_id, "room_name": room["name"]}

@server.write
def set_home_security_mode(st, home_id: HomeId, mode: Literal["disarmed", "armed_home", "armed_away"]):
    """Arm or disarm a home; arming away needs every lock locked and starts recording on all online cameras.

    Args:
        home_id: The home to arm or disarm.
        mode: The new security mode.
    """
    home = need(st, "home", home_id)
    if home["security_mode"] == mode: raise ToolError(f"home {home_id} is already {mode}")
    devs = [d for d in st.rows("device") if d["home_id"] == home_id]
    started = []
    if mode == "armed_away":
        open_locks = sorted(d["device_id"] for d in devs if d["kind"] == "lock" and not d["locked"])
        if open_locks: raise ToolError(f"cannot arm away: locks {', '.join(open_locks)} are unlocked")
        for d in devs:
            if d["kind"] == "camera" and d["status"] == "online" and not d["recording"]:
                st.update("device", d["device_id"], recording=True)
                started.append(d["device_id"])
    st.update("home", home_id, security_mode=mode)
    return {"home_id": home_id, "security_mode": mode, "cameras_started": started}

@server.write(produces="scene")
def create_home_scene(st, home_id: HomeId, name: str):
    """Create an empty scene in a home (add device settings to it with add_scene_action).

    Args:
        home_id: The home the scene belongs to.
        name: Scene name, unique within the home.
    """
    need(st, "home", home_id)
    name = name.strip()
    if not name: raise ToolError("scene name must not be empty")
    if any(s["name"].lower() == name.lower() for s in st.rows("scene") if s["home_id"] == home_id):
        raise ToolError(f"home {home_id} already has a scene named '{name}'")
    return dict(st.insert("scene", {"home_id": home_id, "name": name}))

@server.write(produces="scene_action", after=("create_home_scene",))
def add_scene_action(st, scene_id: SceneId, device_id: DeviceId, power: Power | None = None, brightness: Brightness = None,
                     color: Color | None = None, target_temp: float | None = None, locked: bool | None = None):
    """Add one device's settings to a scene: power/brightness/color for lights, power for plugs, target_temp for thermostats, locked for locks.

    Args:
        scene_id: The scene to extend.
        device_id: A device in the scene's home, not yet in the scene.
        power: Power state for a light or plug.
        brightness: Brightness 0 to 100 for a light.
        color: Colour for a light.
        target_temp: Target temperature for a thermostat, inside its range.
        locked: True to lock, false to unlock a lock.
    """
    scene, dev = need(st, "scene", scene_id), _usable_device(st, device_id, online=False)
    if dev["home_id"] != scene["home_id"]: raise ToolError(f"device {device_id} is not in the home of scene {scene_id}")
    if any(a["device_id"] == device_id for a in st.rows("scene_action") if a["scene_id"] == scene_id):
        raise ToolError(f"scene {scene_id} already sets device {device_id}")
    _check_setting(dev, power, brightness, color, target_temp, locked)
    act = st.insert("scene_action", {"scene_id": scene_id, "device_id": device_id, "power": power, "brightness": brightness,
                                     "color": color, "target_temp": None if target_temp is None else float(target_temp), "locked": locked})
    return _view(act)

@server.write(after=("add_scene_action",))
def activate_home_scene(st, scene_id: SceneId):
    """Apply every setting of a scene at once; all of its devices must be online.

    Args:
        scene_id: The scene to activate.
    """
    scene = need(st, "scene", scene_id)
    acts = [a for a in st.rows("scene_action") if a["scene_id"] == scene_id]
    if not acts: raise ToolError(f"scene {scene_id} ({scene['name']}) has no device settings yet")
    devs = {a["device_id"]: st.get("device", a["device_id"]) for a in acts}
    offline = sorted(d for d, row in devs.items() if row["status"] != "online")
    if offline: raise ToolError(f"scene {scene_id} cannot run: devices {', '.join(offline)} are offline")
    if any(a["locked"] is False for a in acts) and _armed_away(st, scene["home_id"]):
        raise ToolError(f"scene {scene_id} unlocks a door but home {scene['home_id']} is armed away")
    for a in acts:
        changes = {k: a[k] for k in ("power", "brightness", "color", "target_temp", "locked") if a[k] is not None}
        if devs[a["device_id"]]["kind"] == "light" and (a["brightness"] is not None or a["color"] is not None): changes.setdefault("power", "on")
        st.update("device", a["device_id"], **changes)
    return {"scene_id": scene_id, "name": scene["name"], "devices_updated": sorted(devs)}

@server.write(produces="automation", after=("create_home_scene",))
def create_home_automation(st, scene_id: SceneId, name: str, trigger_time: str | None = None, sensor_id: DeviceId | None = None,
                      condition: Literal["above", "below", "detected"] | None = None, threshold: float | None = None):
    """Create an enabled automation that runs a scene daily at a time or when a sensor of the same home triggers.

    Args:
        scene_id: The scene to run.
        name: Automation name.
        trigger_time: Daily time HH:MM (24 h); give this or sensor_id, not both.
        sensor_id: A sensor in the scene's home that triggers the automation.
        condition: For a sensor trigger: above/below a threshold (temperature, humidity) or detected (motion, contact).
        threshold: The reading that trips an above/below condition.
    """
    scene = need(st, "scene", scene_id)
    if (trigger_time is None) == (sensor_id is None): raise ToolError("give exactly one trigger: trigger_time or sensor_id")
    if trigger_time is not None:
        hh, _, mm = trigger_time.partition(":")
        if not (len(hh) == len(mm) == 2 and hh.isdigit() and mm.isdigit() and int(hh) < 24 and int(mm) < 60):
            raise ToolError(f"trigger_time must be HH:MM, got '{trigger_time}'")
        if condition is not None or threshold is not None: raise ToolError("condition and threshold only apply to sensor triggers")
    else:
        sensor = _usable_device(st, sensor_id, {"sensor"}, online=False)
        if sensor["home_id"] != scene["home_id"]: raise ToolError(f"sensor {sensor_id} is not in the home of scene {scene_id}")
        numeric = sensor["sensor_type"] in ("temperature", "humidity")
        if numeric and (condition not in ("above", "below") or threshold is None):
            raise ToolError(f"a {sensor['sensor_type']} sensor needs condition 'above' or 'below' and a threshold")
        if not numeric and (condition != "detected" or threshold is not None):
            raise ToolError(f"a {sensor['sensor_type']} sensor needs condition 'detected' and no threshold")
    if not name.strip(): raise ToolError("automation name must not be empty")
    row = st.insert("automation", {"home_id": scene["home_id"], "scene_id": scene_id, "enabled": True, "trigger_time": trigger_time,
                                   "sensor_id": sensor_id, "condition": condition,
                                   "threshold": None if threshold is None else float(threshold), "name": name.strip()})
    return _view(row)

@server.write(after=("create_home_automation",))
def set_home_automation_enabled(st, automation_id: AutomationId, enabled: bool):
    """Enable or disable an automation.

    Args:
        automation_id: The automation.
        enabled: True to enable, false to disable.
    """
    a = need(st, "automation", automation_id)
    if a["enabled"] == enabled: raise ToolError(f"automation {automation_id} is already {'enabled' if enabled else 'disabled'}")
    st.update("automation", automation_id, enabled=enabled)
    return {"automation_id": automation_id, "name": a["name"], "enabled": enabled}

@server.write(produces="device_group")
def create_device_group(st, home_id: HomeId, name: str, device_ids: list[Annotated[str, Entity("device")]]):
    """Group two or more lights, or two or more plugs, of one home so they can be switched together.

    Args:
        home_id: The home of the group.
        name: Group name, unique within the home.
        device_ids: The member devices: all lights or all plugs, all in this home.
    """
    need(st, "home", home_id)
    ids = sorted(set(device_ids))
    if len(ids) < 2: raise ToolError("a group needs at least two different devices")
    devs = [_usable_device(st, d, SWITCHABLE, online=False) for d in ids]
    elsewhere = [d["device_id"] for d in devs if d["home_id"] != home_id]
    if elsewhere: raise ToolError(f"devices {', '.join(elsewhere)} are not in home {home_id}")
    kinds = {d["kind"] for d in devs}
    if len(kinds) > 1: raise ToolError("a group holds only lights or only plugs, not both")
    if not name.strip(): raise ToolError("group name must not be empty")
    if any(g["name"].lower() == name.strip().lower() for g in st.rows("device_group") if g["home_id"] == home_id):
        raise ToolError(f"home {home_id} already has a group named '{name.strip()}'")
    return dict(st.insert("device_group", {"home_id": home_id, "name": name.strip(), "kind": kinds.pop(), "device_ids": ids}))

@server.write(after=("create_device_group",))
def set_device_group_power(st, group_id: GroupId, power: Power):
    """Switch every device of a group on or off; all members must be online.

    Args:
        group_id: The group to switch.
        power: The new power state.
    """
    g = need(st, "device_group", group_id, "device group")
    devs = [st.get("device", d) for d in g["device_ids"]]
    offline = [d["device_id"] for d in devs if d["status"] != "online"]
    if offline: raise ToolError(f"group {group_id} cannot switch: devices {', '.join(offline)} are offline")
    changed = [d["device_id"] for d in devs if d["power"] != power]
    if not changed: raise ToolError(f"every device of group {group_id} is already {power}")
    for d in changed: st.update("device", d, power=power)
    return {"group_id": group_id, "power": power, "devices_switched": changed}

@server.write
def update_device_firmware(st, device_id: DeviceId):
    """Install the latest firmware release for a device's model; the device must be online and, if on battery, above 20%.

    Args:
        device_id: The device to update.
    """
    dev = _usable_device(st, device_id)
    rel = _latest_release(st, dev["model"])
    if rel is None or _version(rel["version"]) <= _version(dev["firmware_version"]):
        raise ToolError(f"device {device_id} already runs the latest firmware {dev['firmware_version']}")
    if dev["battery"] is not None and dev["battery"] < 20:
        raise ToolError(f"device {device_id} battery is {dev['battery']}%; charge it above 20% before updating")
    st.update("device", device_id, firmware_version=rel["version"])
    return {"device_id": device_id, "previous_version": dev["firmware_version"], "firmware_version": rel["version"],
            "release_id": rel["release_id"]}
