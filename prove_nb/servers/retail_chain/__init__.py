"""Retail chain: stores, per-store inventory, transfers between stores, supplier restock orders and staff shifts (11 tools).

Rules: a store carries a fixed range of SKUs with a shelf capacity each; a transfer needs two different open stores that
both carry the SKU, enough stock at the source (taken when the transfer is requested) and room at the destination;
restock orders come in whole supplier case packs and must fit the shelf with what is already on the way; shifts lie
within the store's opening hours, last 3 to 10 hours, never overlap the employee's other shifts, keep the employee
within their weekly hours and are worked only in stores of the employee's region; started shifts cannot be cancelled.
"""
from datetime import date, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.retail_chain.phrasing import PHRASES
from prove_nb.servers._common import NOW, need
from prove_nb.state import TableSpec

Region = Literal["north", "south", "east", "west"]
Role = Literal["cashier", "stock_associate", "supervisor", "manager"]
CITIES = {"north": ["Leeds", "York", "Newcastle"], "south": ["Brighton", "Southampton", "Exeter"],
          "east": ["Norwich", "Cambridge", "Ipswich"], "west": ["Bristol", "Bath", "Cardiff"]}
SITES = ["Central", "Retail Park", "High Street", "Station", "Riverside", "Outlet"]
GOODS = {"grocery": ["Oat Milk 1L", "Basmati Rice 2kg", "Olive Oil 500ml", "Ground Coffee 250g", "Pasta Fusilli 500g"],
         "household": ["Laundry Pods 30", "Kitchen Roll 4-Pack", "Bin Bags 50", "Dish Soap 900ml", "LED Bulb E27"],
         "health": ["Paracetamol 16", "Toothpaste Mint", "Hand Sanitiser", "Vitamin D 90", "Plasters Assorted"],
         "toys": ["Jigsaw 500pc", "Crayons 24", "Bubble Wand", "Toy Car Set", "Card Game Classic"],
         "garden": ["Compost 40L", "Bird Seed 1kg", "Garden Gloves", "Plant Food 1L", "Slug Pellets"]}
BRANDS = ["Valley", "Hearth", "Everyday", "Pure", "Sunny", "Oakfield", "Kindred", "Home Basics"]
SUPPLIERS = ["Northfield Foods", "Brightline Household", "CarePlus Health", "Playwell Toys", "GreenThumb Supply", "Metro Wholesale"]
FIRST = ["Alice", "Barney", "Chidi", "Daria", "Ewan", "Fatima", "Gordon", "Hannah", "Imran", "Joy", "Kyle", "Leah", "Mo", "Nora", "Owen", "Pia"]
LAST = ["Ashworth", "Bennett", "Clarke", "Doyle", "Evans", "Foster", "Grant", "Hussain", "Irwin", "Jones", "Khan", "Lloyd"]
ROLES = ("cashier", "stock_associate", "supervisor", "manager")

def _day(days_from_now: int) -> str: return (date.fromisoformat(NOW[:10]) + timedelta(days=days_from_now)).isoformat()
def _week(day: str) -> tuple: return date.fromisoformat(day).isocalendar()[:2]

def _store(rng, i, pick):
    region = ("north", "south", "east", "west")[i % 4]
    city = rng.choice(CITIES[region])
    opens, closes, status = rng.choice([7, 8, 8, 9, 10]), rng.choice([18, 20, 21, 22]), "renovation" if i % 11 == 7 else "open"
    return {"name": f"{city} {rng.choice(SITES)}", "city": city, "region": region, "open_hour": opens, "close_hour": closes, "status": status}

def _supplier(rng, i, pick):
    return {"name": SUPPLIERS[i % len(SUPPLIERS)] + ("" if i < len(SUPPLIERS) else f" {i // len(SUPPLIERS) + 1}"),
            "lead_days": rng.choice([2, 3, 5, 7, 10]), "contact": f"orders{i + 1}@supplier.test"}

def _sku(rng, i, pick):
    cat = list(GOODS)[i % len(GOODS)]
    cost = round(rng.uniform(0.5, 12), 2)
    pack, supplier = rng.choice([6, 12, 12, 24, 48]), pick("supplier")
    return {"name": f"{rng.choice(BRANDS)} {rng.choice(GOODS[cat])}", "category": cat, "supplier_id": supplier, "unit_cost": cost,
            "price": round(cost * rng.uniform(1.4, 2.2), 2), "case_pack": pack}

def _inventory(rng, i, pick):
    store, sku = pick("store"), pick("sku")
    seen = pick.memo.setdefault("carried", set())
    if (store, sku) in seen: return None
    seen.add((store, sku))
    pack = pick.row("sku", sku)["case_pack"]
    cap = pack * rng.choice([4, 6, 8, 10])
    on_hand = rng.choice([0, pack // 2, pack, 2 * pack, 3 * pack, cap // 2, cap])
    return {"store_id": store, "sku_id": sku, "on_hand": on_hand, "reorder_point": pack * rng.choice([1, 2]), "max_stock": cap}

def _transfer(rng, i, pick):
    inv = rng.choice(pick.rows("inventory"))
    others = [c["store_id"] for c in pick.group("inventory", "sku_id")[inv["sku_id"]] if c["store_id"] != inv["store_id"]]
    if not others or inv["on_hand"] < 2: return None
    status = rng.choice(["in_transit", "in_transit", "received", "cancelled"])
    created = rng.randint(-20, -1)
    return {"from_store_id": inv["store_id"], "to_store_id": rng.choice(others), "sku_id": inv["sku_id"],
            "quantity": rng.randint(1, inv["on_hand"] // 2), "status": status, "requested_on": _day(created),
            "received_on": _day(created + 2) if status == "received" else None}

def _restock(rng, i, pick):
    inv = rng.choice(pick.rows("inventory"))
    sku = pick.row("sku", inv["sku_id"])
    pack, lead = sku["case_pack"], pick.row("supplier", sku["supplier_id"])["lead_days"]
    qty = pack * rng.randint(1, max(1, inv["max_stock"] // pack // 3))
    seen = pick.memo.setdefault("restocked", set())
    if (inv["store_id"], inv["sku_id"]) in seen: return None
    seen.add((inv["store_id"], inv["sku_id"]))
    ordered = rng.randint(-25, -1)
    status = rng.choice(["ordered", "ordered", "received", "cancelled"])
    return {"store_id": inv["store_id"], "sku_id": inv["sku_id"], "quantity": qty, "cost": round(qty * sku["unit_cost"], 2), "status": status,
            "ordered_on": _day(ordered), "expected_on": _day(ordered + lead),
            "received_on": _day(min(ordered + lead, 0)) if status == "received" else None}

def _employee(rng, i, pick):
    stores = pick.rows("store")
    manager = i < len(stores)  # every store gets a manager first
    store = stores[i] if manager else rng.choice(stores)
    role = "manager" if manager else rng.choice(["cashier", "cashier", "stock_associate", "stock_associate", "supervisor"])
    hours = 40 if manager else rng.choice([16, 24, 30, 37, 40])
    status = "on_leave" if i % 13 == 9 else "active"
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"name": f"{first} {last}", "store_id": store["store_id"], "role": role, "max_weekly_hours": hours, "status": status}

def _shift(rng, i, pick):
    emp = rng.choice(pick.rows("employee"))
    e, store = emp["employee_id"], pick.row("store", emp["store_id"])
    day = _day(rng.randint(-6, 13))
    length = rng.choice([4, 6, 8])
    start = rng.randint(store["open_hour"], store["close_hour"] - length)
    seen, week = pick.memo.setdefault("shift_days", set()), pick.memo.setdefault("week_hours", {})
    if emp["status"] != "active" or store["status"] != "open" or (e, day) in seen: return None
    seen.add((e, day))
    if week.get((e, _week(day)), 0) + length > emp["max_weekly_hours"]: return None
    week[(e, _week(day))] = week.get((e, _week(day)), 0) + length
    return {"employee_id": e, "store_id": store["store_id"], "date": day, "start_hour": start, "end_hour": start + length,
            "status": "completed" if day < NOW[:10] else "scheduled"}

server = ToolServer(
    "retail_chain", "Operations of a chain of shops: stores, stock per store, transfers, supplier restock orders and staff rotas.",
    [TableSpec("store", "store_id", "st_"),
     TableSpec("supplier", "supplier_id", "sup_"),
     TableSpec("sku", "sku_id", "sku_", {"supplier_id": "supplier"}),
     TableSpec("inventory", "inventory_id", "inv_", {"store_id": "store", "sku_id": "sku"}),
     TableSpec("transfer", "transfer_id", "trf_", {"from_store_id": "store", "to_store_id": "store", "sku_id": "sku"}),
     TableSpec("restock_order", "order_id", "po_", {"store_id": "store", "sku_id": "sku"}),
     TableSpec("employee", "employee_id", "emp_", {"store_id": "store"}),
     TableSpec("shift", "shift_id", "shf_", {"employee_id": "employee", "store_id": "store"})],
    {"store": _store, "supplier": _supplier, "sku": _sku, "inventory": _inventory, "transfer": _transfer,
     "restock_order": _restock, "employee": _employee, "shift": _shift},
    {"store": 12, "supplier": 6, "sku": 30, "inventory": 140, "transfer": 24, "restock_order": 24, "employee": 40, "shift": 90},
    now=NOW, phrases=PHRASES)

StoreId = Annotated[str, Entity("store")]
SkuId = Annotated[str, Entity("sku")]
TransferId = Annotated[str, Entity("transfer")]
OrderId = Annotated[str, Entity("restock_order")]
EmployeeId = Annotated[str, Entity("employee")]
ShiftId = Annotated[str, Entity("shift")]

def _today(st) -> str: return st.meta["now"][:10]

def _open_store(st, store_id):
    s = need(st, "store", store_id)
    if s["status"] != "open": raise ToolError(f"store {store_id} is closed for {s['status']}")
    return s

def _shelf(st, store_id, sku_id):
    "The inventory row of a SKU at a store (the store must carry it)."
    need(st, "store", store_id); need(st, "sku", sku_id)
    rows = st.find("inventory", store_id=store_id, sku_id=sku_id)
    if not rows: raise ToolError(f"store {store_id} does not carry sku {sku_id}")
    return rows[0]

def _incoming(st, store_id, sku_id) -> int:
    "Units of a SKU on the way to a store (transfers in transit and open restock orders)."
    return sum(t["quantity"] for t in st.find("transfer", to_store_id=store_id, sku_id=sku_id, status="in_transit")) + \
           sum(o["quantity"] for o in st.find("restock_order", store_id=store_id, sku_id=sku_id, status="ordered"))

def _fits(st, shelf, quantity):
    room = shelf["max_stock"] - shelf["on_hand"] - _incoming(st, shelf["store_id"], shelf["sku_id"])
    if quantity > room:
        raise ToolError(f"store {shelf['store_id']} has room for only {max(room, 0)} more of sku {shelf['sku_id']} (capacity {shelf['max_stock']})")

@server.read(produces="store")
def list_retail_stores(st, region: Region | None = None, city: str = "", open_only: bool = False):
    """List the chain's stores with their opening hours and status.

    Args:
        region: Only stores in this region.
        city: Only stores in this city (case-insensitive).
        open_only: Leave out stores closed for renovation.
    """
    return [dict(s) for s in st.rows("store") if region in (None, s["region"]) and city.lower() in s["city"].lower()
            and (not open_only or s["status"] == "open")]

@server.read(produces=("sku", "store", "supplier"))
def search_retail_skus(st, query: str = "", category: Literal["grocery", "household", "health", "toys", "garden"] | None = None, limit: int = 10):
    """Search SKUs by name; each hit shows its supplier, case pack, price and units on hand per store.

    Args:
        query: Words that must all appear in the SKU name (case-insensitive).
        category: Only SKUs of this category.
        limit: Maximum number of SKUs (1 to 50).
    """
    if not 1 <= limit <= 50: raise ToolError(f"limit must be between 1 and 50, got {limit}")
    words = query.lower().split()
    hits = [s for s in st.rows("sku") if all(w in s["name"].lower() for w in words) and category in (None, s["category"])][:limit]
    stock = {}
    for r in st.rows("inventory"):
        stock.setdefault(r["sku_id"], []).append({"store_id": r["store_id"], "on_hand": r["on_hand"]})
    return [{**dict(s), "supplier": st.get("supplier", s["supplier_id"])["name"],
             "stock_by_store": sorted(stock.get(s["sku_id"], []), key=lambda x: x["store_id"])} for s in hits]

@server.read(produces=("inventory", "sku"))
def check_store_inventory(st, store_id: StoreId, sku_id: SkuId | None = None, below_reorder_point: bool = False):
    """List what a store carries: units on hand, reorder point, capacity and units on the way.

    Args:
        store_id: The store.
        sku_id: Only this SKU.
        below_reorder_point: Only SKUs whose on-hand units are at or below their reorder point.
    """
    need(st, "store", store_id)
    out = []
    for r in sorted(st.find("inventory", store_id=store_id), key=lambda r: r["sku_id"]):
        if sku_id in (None, r["sku_id"]) and (not below_reorder_point or r["on_hand"] <= r["reorder_point"]):
            out.append({**dict(r), "name": st.get("sku", r["sku_id"])["name"], "incoming": _incoming(st, store_id, r["sku_id"])})
    return out

@server.read(produces=("transfer", "restock_order", "sku"))
def list_incoming_stock(st, store_id: StoreId, include_done: bool = False):
    """List the transfers and restock orders headed for a store (by default only those still on the way).

    Args:
        store_id: The receiving store.
        include_done: Also list received and cancelled ones.
    """
    need(st, "store", store_id)
    live = lambda r, s: include_done or r["status"] == s
    out = [{"kind": "transfer", **dict(t)} for t in st.find("transfer", to_store_id=store_id) if live(t, "in_transit")]
    out += [{"kind": "restock_order", **dict(o)} for o in st.find("restock_order", store_id=store_id) if live(o, "ordered")]
    return out

@server.read(produces=("employee", "shift"))
def list_store_staff(st, store_id: StoreId, role: Role | None = None, date: str = ""):
    """List the employees based at a store with their shifts (on one date, or all from today on).

    Args:
        store_id: The store the employees belong to.
        role: Only employees with this role.
        date: Only shifts on this day, YYYY-MM-DD; empty for every shift from today on.
    """
    need(st, "store", store_id)
    if date: _date(date)
    out = []
    for e in sorted(st.find("employee", store_id=store_id), key=lambda e: e["employee_id"]):
        if role in (None, e["role"]):
            shifts = [dict(s) for s in st.find("shift", employee_id=e["employee_id"])
                      if s["status"] == "scheduled" and (s["date"] == date if date else s["date"] >= _today(st))]
            out.append({**dict(e), "shifts": sorted(shifts, key=lambda s: (s["date"], s["start_hour"]))})
    return out

@server.write(produces="transfer")
def request_stock_transfer(st, from_store_id: StoreId, to_store_id: StoreId, sku_id: SkuId, quantity: int):
    """Send units of a SKU from one open store to another that carries it; the units leave the source at once.

    Args:
        from_store_id: The store giving stock.
        to_store_id: The store receiving stock.
        sku_id: The SKU to move.
        quantity: Units to move (at least 1, no more than the source has).
    """
    if from_store_id == to_store_id: raise ToolError("from_store_id and to_store_id must differ")
    _open_store(st, from_store_id); _open_store(st, to_store_id)
    src, dst = _shelf(st, from_store_id, sku_id), _shelf(st, to_store_id, sku_id)
    if quantity < 1: raise ToolError(f"quantity must be at least 1, got {quantity}")
    if quantity > src["on_hand"]: raise ToolError(f"store {from_store_id} has only {src['on_hand']} of sku {sku_id}")
    _fits(st, dst, quantity)
    st.update("inventory", src["inventory_id"], on_hand=src["on_hand"] - quantity)
    return dict(st.insert("transfer", {"from_store_id": from_store_id, "to_store_id": to_store_id, "sku_id": sku_id, "quantity": quantity,
                                       "status": "in_transit", "requested_on": _today(st), "received_on": None}))

@server.write(after=("request_stock_transfer",))
def receive_stock_transfer(st, transfer_id: TransferId):
    """Book a transfer in transit into the destination store's stock.

    Args:
        transfer_id: The transfer that arrived.
    """
    t = need(st, "transfer", transfer_id)
    if t["status"] != "in_transit": raise ToolError(f"transfer {transfer_id} is {t['status']}, not in transit")
    shelf = _shelf(st, t["to_store_id"], t["sku_id"])
    st.update("inventory", shelf["inventory_id"], on_hand=shelf["on_hand"] + t["quantity"])
    return {**dict(st.update("transfer", transfer_id, status="received", received_on=_today(st))), "on_hand": shelf["on_hand"] + t["quantity"]}

@server.write(produces="restock_order")
def place_restock_order(st, store_id: StoreId, sku_id: SkuId, quantity: int):
    """Order a SKU from its supplier for an open store, in whole case packs that fit the shelf with what is on the way.

    Args:
        store_id: The store to restock.
        sku_id: The SKU to order.
        quantity: Units to order, a positive multiple of the SKU's case pack.
    """
    _open_store(st, store_id)
    shelf, sku = _shelf(st, store_id, sku_id), st.get("sku", sku_id)
    if quantity < 1 or quantity % sku["case_pack"]: raise ToolError(f"quantity must be a positive multiple of the case pack {sku['case_pack']}, got {quantity}")
    _fits(st, shelf, quantity)
    lead = st.get("supplier", sku["supplier_id"])["lead_days"]
    return dict(st.insert("restock_order", {"store_id": store_id, "sku_id": sku_id, "quantity": quantity, "cost": round(quantity * sku["unit_cost"], 2),
                                            "status": "ordered", "ordered_on": _today(st),
                                            "expected_on": (date.fromisoformat(_today(st)) + timedelta(days=lead)).isoformat(), "received_on": None}))

@server.write(after=("place_restock_order",))
def receive_restock_order(st, order_id: OrderId):
    """Book a delivered restock order into the store's stock.

    Args:
        order_id: The restock order that arrived.
    """
    o = need(st, "restock_order", order_id, "restock order")
    if o["status"] != "ordered": raise ToolError(f"restock order {order_id} is {o['status']}, not ordered")
    shelf = _shelf(st, o["store_id"], o["sku_id"])
    st.update("inventory", shelf["inventory_id"], on_hand=shelf["on_hand"] + o["quantity"])
    return {**dict(st.update("restock_order", order_id, status="received", received_on=_today(st))), "on_hand": shelf["on_hand"] + o["quantity"]}

def _date(day: str) -> date:
    try: return date.fromisoformat(day)
    except ValueError: raise ToolError(f"date must be YYYY-MM-DD, got '{day}'") from None

@server.write(produces="shift")
def schedule_staff_shift(st, employee_id: EmployeeId, store_id: StoreId, date: str, start_hour: int, end_hour: int):
    """Put an active employee on a shift at an open store of their region, within opening hours and their weekly hours.

    Args:
        employee_id: The employee to schedule.
        store_id: The store where the shift is worked.
        date: The day, YYYY-MM-DD, today or later.
        start_hour: Hour the shift starts (0-23).
        end_hour: Hour the shift ends; the shift lasts 3 to 10 hours.
    """
    e, store = need(st, "employee", employee_id), _open_store(st, store_id)
    day = _date(date)
    if e["status"] != "active": raise ToolError(f"employee {employee_id} is {e['status']}")
    if store["region"] != st.get("store", e["store_id"])["region"]:
        raise ToolError(f"employee {employee_id} works in the {st.get('store', e['store_id'])['region']} region, store {store_id} is in the {store['region']}")
    if date < _today(st): raise ToolError(f"date {date} is in the past (today is {_today(st)})")
    if not 3 <= end_hour - start_hour <= 10: raise ToolError(f"a shift lasts 3 to 10 hours, got {start_hour}:00-{end_hour}:00")
    if start_hour < store["open_hour"] or end_hour > store["close_hour"]:
        raise ToolError(f"store {store_id} is open {store['open_hour']}:00-{store['close_hour']}:00, shift {start_hour}:00-{end_hour}:00 is outside")
    mine = [s for s in st.find("shift", employee_id=employee_id) if s["status"] != "cancelled"]
    for s in mine:
        if s["date"] == date and s["start_hour"] < end_hour and start_hour < s["end_hour"]:
            raise ToolError(f"employee {employee_id} already works {s['start_hour']}:00-{s['end_hour']}:00 on {date} (shift {s['shift_id']})")
    week = sum(s["end_hour"] - s["start_hour"] for s in mine if _week(s["date"]) == day.isocalendar()[:2])
    if week + end_hour - start_hour > e["max_weekly_hours"]:
        raise ToolError(f"employee {employee_id} already has {week} hours that week; {end_hour - start_hour} more exceeds their {e['max_weekly_hours']}")
    return dict(st.insert("shift", {"employee_id": employee_id, "store_id": store_id, "date": date, "start_hour": start_hour,
                                    "end_hour": end_hour, "status": "scheduled"}))

@server.write(after=("schedule_staff_shift",))
def cancel_staff_shift(st, shift_id: ShiftId):
    """Cancel a scheduled shift that has not started yet.

    Args:
        shift_id: The shift to cancel.
    """
    s = need(st, "shift", shift_id)
    if s["status"] != "scheduled": raise ToolError(f"shift {shift_id} is {s['status']}")
    if (s["date"], s["start_hour"]) <= (_today(st), int(st.meta["now"][11:13])): raise ToolError(f"shift {shift_id} has already started")
    return dict(st.update("shift", shift_id, status="cancelled"))
