from prove_nb.server import load_server
from tests.servers.harness import Case, server_suite

srv = load_server("retail_chain")
SEED = srv.seed_state(0)
TODAY = "2026-06-15"

def rows(table, **eq): return [r for r in SEED.rows(table) if all(r.get(k) == v for k, v in eq.items())]
def get(s, table, key): return s.state.get(table, key)
def newest(s, table): return max(r[s.state.specs[table].key] for r in s.state.rows(table))
def is_open(store): return SEED.get("store", store)["status"] == "open"
def incoming(store, sku):
    return sum(t["quantity"] for t in rows("transfer", to_store_id=store, sku_id=sku, status="in_transit")) + \
           sum(o["quantity"] for o in rows("restock_order", store_id=store, sku_id=sku, status="ordered"))
def room(inv): return inv["max_stock"] - inv["on_hand"] - incoming(inv["store_id"], inv["sku_id"])
def on_hand(s, store, sku): return s.state.find("inventory", store_id=store, sku_id=sku)[0]["on_hand"]

def transfer_pair():
    "Source and destination inventory rows of one SKU at two open stores, the source with stock, the destination with room."
    for a in rows("inventory"):
        for b in rows("inventory", sku_id=a["sku_id"]):
            if a["store_id"] != b["store_id"] and is_open(a["store_id"]) and is_open(b["store_id"]) and a["on_hand"] >= 2 and room(b) >= 2:
                return a, b
SRC, DST = transfer_pair()
MOVE = {"from_store_id": SRC["store_id"], "to_store_id": DST["store_id"], "sku_id": SRC["sku_id"], "quantity": 2}
SHELF = next(i for i in rows("inventory") if is_open(i["store_id"]) and room(i) >= SEED.get("sku", i["sku_id"])["case_pack"])
PACK = SEED.get("sku", SHELF["sku_id"])["case_pack"]
ORDER = {"store_id": SHELF["store_id"], "sku_id": SHELF["sku_id"], "quantity": PACK}

def free_slot():
    "An active employee at an open store, and a day next week on which they have no shift and 4 spare weekly hours."
    for e in rows("employee", status="active"):
        store = SEED.get("store", e["store_id"])
        mine = rows("shift", employee_id=e["employee_id"])
        if store["status"] == "open" and sum(s["end_hour"] - s["start_hour"] for s in mine if "2026-06-22" <= s["date"] <= "2026-06-28") + 4 <= e["max_weekly_hours"]:
            day = next(d for d in ("2026-06-23", "2026-06-24", "2026-06-25") if not any(s["date"] == d for s in mine))
            return {"employee_id": e["employee_id"], "store_id": e["store_id"], "date": day,
                    "start_hour": store["open_hour"], "end_hour": store["open_hour"] + 4}
SLOT = free_slot()
OTHER_REGION = next(s["store_id"] for s in rows("store", status="open") if s["region"] != SEED.get("store", SLOT["store_id"])["region"])
FUTURE = next(s for s in rows("shift", status="scheduled") if s["date"] > TODAY)

def check_transfer(s, r):
    assert r.content["status"] == "in_transit"
    assert on_hand(s, SRC["store_id"], SRC["sku_id"]) == SRC["on_hand"] - 2 and on_hand(s, DST["store_id"], DST["sku_id"]) == DST["on_hand"]

CASES = [
    Case("list_retail_stores", {"region": "north"}, check=lambda s, r: r.content and all(x["region"] == "north" for x in r.content)),
    Case("list_retail_stores", {"region": "central"}, ok=False, error="must be one of"),
    Case("search_retail_skus", {"category": "garden", "limit": 50},
         check=lambda s, r: r.content and all(x["category"] == "garden" and "stock_by_store" in x for x in r.content)),
    Case("search_retail_skus", {"limit": 0}, ok=False, error="limit"),
    Case("check_store_inventory", {"store_id": SRC["store_id"], "below_reorder_point": True},
         check=lambda s, r: all(x["on_hand"] <= x["reorder_point"] and x["store_id"] == SRC["store_id"] for x in r.content)),
    Case("check_store_inventory", {"store_id": "st_9999"}, ok=False, error="no store"),
    Case("list_incoming_stock", {"store_id": DST["store_id"]}, setup=[("request_stock_transfer", MOVE)],
         check=lambda s, r: any(x["kind"] == "transfer" and x["transfer_id"] == newest(s, "transfer") for x in r.content)),
    Case("list_incoming_stock", {"store_id": 12}, ok=False, error="must be string"),
    Case("list_store_staff", {"store_id": SLOT["store_id"], "date": FUTURE["date"]},
         check=lambda s, r: r.content and all(sh["date"] == FUTURE["date"] for e in r.content for sh in e["shifts"])),
    Case("list_store_staff", {"store_id": SLOT["store_id"], "date": "next monday"}, ok=False, error="YYYY-MM-DD"),
    Case("request_stock_transfer", MOVE, check=check_transfer),
    Case("request_stock_transfer", {**MOVE, "to_store_id": SRC["store_id"]}, ok=False, error="must differ"),
    Case("request_stock_transfer", {**MOVE, "quantity": SRC["on_hand"] + 1}, ok=False, error="has only"),
    Case("request_stock_transfer", {**MOVE, "sku_id": next(k["sku_id"] for k in rows("sku") if not rows("inventory", store_id=SRC["store_id"], sku_id=k["sku_id"]))},
         ok=False, error="does not carry"),
    Case("receive_stock_transfer", lambda s: {"transfer_id": newest(s, "transfer")}, setup=[("request_stock_transfer", MOVE)],
         check=lambda s, r: r.content["status"] == "received" and on_hand(s, DST["store_id"], DST["sku_id"]) == DST["on_hand"] + 2),
    Case("receive_stock_transfer", {"transfer_id": rows("transfer", status="received")[0]["transfer_id"]}, ok=False, error="not in transit"),
    Case("place_restock_order", ORDER,
         check=lambda s, r: r.content["status"] == "ordered" and r.content["cost"] == round(PACK * SEED.get("sku", SHELF["sku_id"])["unit_cost"], 2)
         and r.content["expected_on"] > TODAY),
    Case("place_restock_order", {**ORDER, "quantity": PACK + 1}, ok=False, error="multiple of the case pack"),
    Case("place_restock_order", {**ORDER, "quantity": PACK * 1000}, ok=False, error="room for only"),
    Case("place_restock_order", {**ORDER, "store_id": rows("store", status="renovation")[0]["store_id"]}, ok=False, error="renovation"),
    Case("receive_restock_order", lambda s: {"order_id": newest(s, "restock_order")}, setup=[("place_restock_order", ORDER)],
         check=lambda s, r: on_hand(s, SHELF["store_id"], SHELF["sku_id"]) == SHELF["on_hand"] + PACK),
    Case("receive_restock_order", {"order_id": rows("restock_order", status="cancelled")[0]["order_id"]}, ok=False, error="not ordered"),
    Case("schedule_staff_shift", SLOT, check=lambda s, r: get(s, "shift", r.content["shift_id"])["status"] == "scheduled"),
    Case("schedule_staff_shift", {**SLOT, "start_hour": SLOT["start_hour"] + 2, "end_hour": SLOT["end_hour"] + 2}, setup=[("schedule_staff_shift", SLOT)],
         ok=False, error="already works"),
    Case("schedule_staff_shift", {**SLOT, "start_hour": SLOT["start_hour"] - 1}, ok=False, error="outside"),
    Case("schedule_staff_shift", {**SLOT, "store_id": OTHER_REGION}, ok=False, error="region"),
    Case("schedule_staff_shift", {**SLOT, "date": "2026-06-01"}, ok=False, error="in the past"),
    Case("schedule_staff_shift", {**SLOT, "employee_id": rows("employee", status="on_leave")[0]["employee_id"]}, ok=False, error="on_leave"),
    Case("cancel_staff_shift", {"shift_id": FUTURE["shift_id"]}, check=lambda s, r: get(s, "shift", FUTURE["shift_id"])["status"] == "cancelled"),
    Case("cancel_staff_shift", {"shift_id": rows("shift", status="completed")[0]["shift_id"]}, ok=False, error="completed"),
]

globals().update(server_suite(srv, CASES, n_tools=11, seeds=[(0, "small"), (1, "small"), (0, "large"), (2, "tiny")]))

def test_weekly_hours_cap():
    "Shifts stop once the employee's weekly hours are used up."
    s = srv.session(0)
    e = SEED.get("employee", SLOT["employee_id"])
    days = [f"2026-06-{d}" for d in range(22, 29)]
    results = [s.call("schedule_staff_shift", {**SLOT, "date": d, "end_hour": SLOT["start_hour"] + 8}) for d in days]
    booked = sum(8 for r in results if r.ok)
    assert booked <= e["max_weekly_hours"] and not all(r.ok for r in results)
    assert any("exceeds" in r.error for r in results if not r.ok)

def test_seed_is_coherent():
    "Inventory pairs are unique; transfers join two stores carrying the SKU; seeded shifts respect hours and weekly caps."
    st = srv.seed_state(0, "small")
    pairs = [(r["store_id"], r["sku_id"]) for r in st.rows("inventory")]
    assert len(pairs) == len(set(pairs))
    for t in st.rows("transfer"): assert {(t["from_store_id"], t["sku_id"]), (t["to_store_id"], t["sku_id"])} <= set(pairs)
    for sh in st.rows("shift"):
        store = st.get("store", sh["store_id"])
        assert store["open_hour"] <= sh["start_hour"] < sh["end_hour"] <= store["close_hour"]
