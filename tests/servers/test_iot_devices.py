from prove_nb.server import load_server
from tests.servers.harness import Case, server_suite

srv = load_server("iot_devices")

def row(s, table, pred=lambda r: True, **eq):
    "The first row of `table` matching the fields `eq` and the predicate (seed data is deterministic)."
    return next(r for r in s.state.rows(table) if all(r.get(k) == v for k, v in eq.items()) and pred(r))

def dev(s, pred=lambda r: True, **eq): return row(s, "device", pred, status="online", **eq)
def get(s, key): return s.state.get("device", key)
def newest(s, table): return list(s.state.rows(table))[-1][s.state.specs[table].key]
def home_devices(s, home): return [d for d in s.state.rows("device") if d["home_id"] == home]

def secure_lock(s):
    "An online locked lock whose home has no unlocked lock (so the home can be armed away)."
    return dev(s, lambda d: d["locked"] and all(x["locked"] for x in home_devices(s, d["home_id"]) if x["kind"] == "lock"), kind="lock")
def idle_camera(s):
    "An online camera that is not recording, in a home whose locks are all locked."
    return dev(s, lambda d: not d["recording"] and all(x["locked"] for x in home_devices(s, d["home_id"]) if x["kind"] == "lock"), kind="camera")
def runnable_scene(s):
    "A seeded scene whose devices are all online (and that only locks)."
    acts = lambda sc: [a for a in s.state.rows("scene_action") if a["scene_id"] == sc["scene_id"]]
    return row(s, "scene", lambda sc: acts(sc) and all(get(s, a["device_id"])["status"] == "online" for a in acts(sc)))
def outdated(s, ok_battery=True):
    "An online device with a newer firmware available, whose battery does (or does not) allow updating."
    for h in s.state.rows("home"):
        for u in s.call("check_device_firmware_updates", {"home_id": h["home_id"]}).content:
            if u["status"] == "online" and (u["battery"] is None or u["battery"] >= 20) == ok_battery: return u
def latest(s, model):
    return max((r["version"] for r in s.state.rows("firmware_release") if r["model"] == model), key=lambda v: tuple(map(int, v.split("."))))
def two(s, kind):
    "Two devices of `kind` in the same home."
    for h in s.state.rows("home"):
        ds = [d["device_id"] for d in home_devices(s, h["home_id"]) if d["kind"] == kind]
        if len(ds) >= 2: return h["home_id"], ds[:2]
def switchable_group(s):
    return row(s, "device_group", lambda g: all(get(s, d)["status"] == "online" for d in g["device_ids"])
               and any(get(s, d)["power"] == "off" for d in g["device_ids"]))
def other_room(s, d, same_home=True):
    return row(s, "room", lambda r: (r["home_id"] == d["home_id"]) == same_home and r["room_id"] != d["room_id"])["room_id"]
def sensor(s, *types): return row(s, "device", lambda d: d["sensor_type"] in types, kind="sensor")

def light_state_ok(s, r):
    d = get(s, r.content["device_id"])
    assert d["brightness"] == 35 and r.content["brightness"] == 35

def scene_applied(s, r):
    for a in s.state.rows("scene_action"):
        if a["scene_id"] == r.content["scene_id"]:
            d = get(s, a["device_id"])
            assert all(d[k] == a[k] for k in ("power", "brightness", "color", "target_temp", "locked") if a[k] is not None)

def energy_total_ok(s, r):
    want = sum(e["kwh"] for e in s.state.rows("energy_reading") if get(s, e["device_id"])["home_id"] == "home_0001"
               and "2026-06-01" <= e["date"] <= "2026-06-07")
    assert abs(r.content["total_kwh"] - want) < 1e-6 and r.content["devices"]

ARM = lambda f: ("set_home_security_mode", lambda s: {"home_id": f(s)["home_id"], "mode": "armed_away"})
NEW_SCENE = ("create_home_scene", {"home_id": "home_0001", "name": "Late Snack"})
NEW_LIGHT_GROUP = ("create_device_group", lambda s: {"home_id": two(s, "light")[0], "name": "Test Lights", "device_ids": two(s, "light")[1]})

CASES = [
    Case("list_smart_homes", {"city": "portland"}, check=lambda s, r: r.content and all("Portland" in h["address"] for h in r.content)),
    Case("list_smart_homes", {"owner": 3}, ok=False, error="must be string"),
    Case("list_home_rooms", {"home_id": "home_0001"},
         check=lambda s, r: sum(x["devices"] for x in r.content) == len(home_devices(s, "home_0001"))),
    Case("list_home_rooms", {"home_id": "home_9999"}, ok=False, error="no home"),
    Case("list_smart_devices", {"home_id": "home_0001", "kind": "light"},
         check=lambda s, r: r.content and all(d["kind"] == "light" and d["home_id"] == "home_0001" and "locked" not in d for d in r.content)),
    Case("list_smart_devices", lambda s: {"home_id": "home_0001", "room_id": row(s, "room", lambda r: r["home_id"] != "home_0001")["room_id"]},
         ok=False, error="not in home"),
    Case("get_device_status", {"device_id": "dev_0001"}, check=lambda s, r: r.content["room_name"] == s.state.get("room", get(s, "dev_0001")["room_id"])["name"]),
    Case("get_device_status", {"device_id": "dev_9999"}, ok=False, error="no device"),
    Case("list_home_scenes", lambda s: {"home_id": runnable_scene(s)["home_id"]},
         check=lambda s, r: r.content and all(a["scene_id"] == sc["scene_id"] for sc in r.content for a in sc["actions"])),
    Case("list_home_scenes", {"home_id": "nope"}, ok=False, error="no home"),
    Case("list_home_automations", {"home_id": "home_0001", "enabled": False},
         check=lambda s, r: r.content and all(not a["enabled"] and a["home_id"] == "home_0001" for a in r.content)),
    Case("list_home_automations", {"home_id": "home_0001", "enabled": "yes"}, ok=False, error="must be boolean"),
    Case("list_device_groups", lambda s: {"home_id": row(s, "device_group")["home_id"]}, check=lambda s, r: len(r.content) >= 1),
    Case("list_device_groups", {}, ok=False, error="missing required parameter 'home_id'"),
    Case("check_device_firmware_updates", {"home_id": "home_0001"},
         check=lambda s, r: r.content and all(tuple(map(int, u["latest_version"].split("."))) > tuple(map(int, u["current_version"].split(".")))
                                              for u in r.content)),
    Case("check_device_firmware_updates", {"home_id": "home_0042"}, ok=False, error="no home"),
    Case("get_home_energy_usage", {"home_id": "home_0001", "start_date": "2026-06-01", "end_date": "2026-06-07"}, check=energy_total_ok),
    Case("get_home_energy_usage", {"home_id": "home_0001", "start_date": "2026-06-09", "end_date": "2026-06-01"}, ok=False, error="after end_date"),
    Case("switch_device_power", lambda s: {"device_id": dev(s, kind="light", power="off")["device_id"], "power": "on"},
         check=lambda s, r: get(s, r.content["device_id"])["power"] == "on"),
    Case("switch_device_power", lambda s: {"device_id": dev(s, kind="thermostat")["device_id"], "power": "on"}, ok=False, error="not a light or plug"),
    Case("switch_device_power", lambda s: {"device_id": row(s, "device", kind="light", status="offline")["device_id"], "power": "on"},
         ok=False, error="offline"),
    Case("set_light_state", lambda s: {"device_id": dev(s, kind="light", power="on")["device_id"], "brightness": 35}, check=light_state_ok),
    Case("set_light_state", lambda s: {"device_id": dev(s, kind="light", power="off")["device_id"], "brightness": 35}, ok=False, error="switch it on first"),
    Case("set_light_state", lambda s: {"device_id": dev(s, kind="light", power="on", supports_color=False)["device_id"], "color": "red"},
         ok=False, error="only supports white"),
    Case("set_light_state", lambda s: {"device_id": dev(s, kind="light", power="on")["device_id"], "brightness": 150}, ok=False, error="<= 100"),
    Case("set_thermostat", lambda s: {"device_id": dev(s, kind="thermostat")["device_id"], "target_temp": 21.5, "hvac_mode": "heat"},
         check=lambda s, r: (get(s, r.content["device_id"])["target_temp"], get(s, r.content["device_id"])["hvac_mode"]) == (21.5, "heat")),
    Case("set_thermostat", lambda s: {"device_id": dev(s, kind="thermostat")["device_id"], "target_temp": 40}, ok=False, error="accepts"),
    Case("lock_smart_lock", lambda s: {"device_id": dev(s, kind="lock", locked=False)["device_id"]},
         check=lambda s, r: get(s, r.content["device_id"])["locked"] is True),
    Case("lock_smart_lock", lambda s: {"device_id": dev(s, kind="lock", locked=True)["device_id"]}, ok=False, error="already locked"),
    Case("unlock_smart_lock", lambda s: {"device_id": dev(s, kind="lock", locked=True)["device_id"]},
         check=lambda s, r: get(s, r.content["device_id"])["locked"] is False),
    Case("unlock_smart_lock", lambda s: {"device_id": secure_lock(s)["device_id"]}, setup=[ARM(secure_lock)], ok=False, error="armed away"),
    Case("set_camera_recording", lambda s: {"device_id": idle_camera(s)["device_id"], "recording": True},
         check=lambda s, r: get(s, r.content["device_id"])["recording"] is True),
    Case("set_camera_recording", lambda s: {"device_id": idle_camera(srv.session())["device_id"], "recording": False},
         setup=[ARM(idle_camera)], ok=False, error="armed away"),
    Case("move_device_to_room", lambda s: {"device_id": "dev_0001", "room_id": other_room(s, get(s, "dev_0001"))},
         check=lambda s, r: get(s, "dev_0001")["room_id"] == r.content["room_id"]),
    Case("move_device_to_room", lambda s: {"device_id": "dev_0001", "room_id": other_room(s, get(s, "dev_0001"), same_home=False)},
         ok=False, error="not in the device's home"),
    Case("set_home_security_mode", lambda s: {"home_id": idle_camera(s)["home_id"], "mode": "armed_away"},
         check=lambda s, r: r.content["cameras_started"] and all(get(s, c)["recording"] for c in r.content["cameras_started"])
         and s.state.get("home", r.content["home_id"])["security_mode"] == "armed_away"),
    Case("set_home_security_mode", lambda s: {"home_id": dev(s, kind="lock", locked=False)["home_id"], "mode": "armed_away"},
         ok=False, error="unlocked"),
    Case("create_home_scene", {"home_id": "home_0001", "name": "Late Snack"},
         check=lambda s, r: s.state.get("scene", r.content["scene_id"])["home_id"] == "home_0001"),
    Case("create_home_scene", lambda s: {"home_id": row(s, "scene")["home_id"], "name": row(s, "scene")["name"].upper()}, ok=False, error="already has a scene"),
    Case("add_scene_action", lambda s: {"scene_id": newest(s, "scene"), "device_id": dev(s, kind="light", home_id="home_0001")["device_id"],
                                        "power": "on", "brightness": 25},
         setup=[NEW_SCENE], check=lambda s, r: s.state.get("scene_action", r.content["action_id"])["brightness"] == 25),
    Case("add_scene_action", lambda s: {"scene_id": newest(s, "scene"), "device_id": dev(s, kind="lock", home_id="home_0001")["device_id"],
                                        "brightness": 25}, setup=[NEW_SCENE], ok=False, error="does not take brightness"),
    Case("add_scene_action", lambda s: {"scene_id": newest(s, "scene"), "device_id": dev(s, lambda d: d["home_id"] != "home_0001")["device_id"],
                                        "power": "on"}, setup=[NEW_SCENE], ok=False, error="not in the home"),
    Case("activate_home_scene", lambda s: {"scene_id": runnable_scene(s)["scene_id"]}, check=scene_applied),
    Case("activate_home_scene", lambda s: {"scene_id": newest(s, "scene")}, setup=[NEW_SCENE], ok=False, error="no device settings"),
    Case("create_home_automation", lambda s: {"scene_id": row(s, "scene")["scene_id"], "name": "Evening", "trigger_time": "19:30"},
         check=lambda s, r: s.state.get("automation", r.content["automation_id"])["enabled"] is True),
    Case("create_home_automation", lambda s: {"scene_id": row(s, "scene", home_id=sensor(s, "motion")["home_id"])["scene_id"], "name": "Hall motion",
                                         "sensor_id": sensor(s, "motion")["device_id"], "condition": "detected"},
         check=lambda s, r: r.content["sensor_id"] == sensor(s, "motion")["device_id"]),
    Case("create_home_automation", lambda s: {"scene_id": row(s, "scene")["scene_id"], "name": "X", "trigger_time": "7pm"}, ok=False, error="HH:MM"),
    Case("create_home_automation", lambda s: {"scene_id": row(s, "scene", home_id=sensor(s, "temperature")["home_id"])["scene_id"], "name": "Hot",
                                         "sensor_id": sensor(s, "temperature")["device_id"], "condition": "detected"},
         ok=False, error="needs condition 'above' or 'below'"),
    Case("set_home_automation_enabled", lambda s: {"automation_id": row(s, "automation", enabled=True)["automation_id"], "enabled": False},
         check=lambda s, r: s.state.get("automation", r.content["automation_id"])["enabled"] is False),
    Case("set_home_automation_enabled", lambda s: {"automation_id": row(s, "automation", enabled=True)["automation_id"], "enabled": True},
         ok=False, error="already enabled"),
    Case("create_device_group", lambda s: {"home_id": two(s, "light")[0], "name": "Test Lights", "device_ids": two(s, "light")[1]},
         check=lambda s, r: s.state.get("device_group", r.content["group_id"])["device_ids"] == tuple(sorted(two(s, "light")[1]))),
    Case("create_device_group", lambda s: {"home_id": two(s, "light")[0], "name": "Mixed",
                                           "device_ids": [two(s, "light")[1][0], dev(s, kind="plug", home_id=two(s, "light")[0])["device_id"]]},
         ok=False, error="only lights or only plugs"),
    Case("create_device_group", {"home_id": "home_0001", "name": "Solo", "device_ids": ["dev_0001"]}, ok=False, error="at least two"),
    Case("set_device_group_power", lambda s: {"group_id": switchable_group(s)["group_id"], "power": "on"},
         check=lambda s, r: all(get(s, d)["power"] == "on" for d in s.state.get("device_group", r.content["group_id"])["device_ids"])),
    Case("set_device_group_power", lambda s: {"group_id": row(s, "device_group", lambda g: any(get(s, d)["status"] == "offline" for d in g["device_ids"]))["group_id"],
                                              "power": "on"}, ok=False, error="offline"),
    Case("update_device_firmware", lambda s: {"device_id": outdated(s)["device_id"]},
         check=lambda s, r: get(s, r.content["device_id"])["firmware_version"] == latest(s, get(s, r.content["device_id"])["model"])),
    Case("update_device_firmware", lambda s: {"device_id": outdated(s, ok_battery=False)["device_id"]}, ok=False, error="battery"),
]

globals().update(server_suite(srv, CASES, n_tools=25, seeds=[(0, "small"), (1, "small"), (2, "tiny"), (0, "large"), (3, "large")]))

def test_armed_away_blocks_a_scene_that_unlocks():
    "A scene that unlocks a door cannot run while its home is armed away, and runs once the home is disarmed."
    s = srv.session(0)
    lock = secure_lock(s)
    sc = s.call("create_home_scene", {"home_id": lock["home_id"], "name": "Open Up"}).content["scene_id"]
    assert s.call("add_scene_action", {"scene_id": sc, "device_id": lock["device_id"], "locked": False}).ok
    assert s.call("set_home_security_mode", {"home_id": lock["home_id"], "mode": "armed_away"}).ok
    r = s.call("activate_home_scene", {"scene_id": sc})
    assert not r.ok and "armed away" in r.error and get(s, lock["device_id"])["locked"] is True
    assert s.call("set_home_security_mode", {"home_id": lock["home_id"], "mode": "disarmed"}).ok
    assert s.call("activate_home_scene", {"scene_id": sc}).ok and get(s, lock["device_id"])["locked"] is False
