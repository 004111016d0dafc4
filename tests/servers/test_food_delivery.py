from prove_nb.server import load_server
from prove_nb.servers.maps import haversine_km, street_point
from tests.servers.harness import Case, server_suite

srv = load_server("food_delivery")

def get(s, table, key): return s.state.get(table, key)
def newest(s, table): return list(s.state.rows(table))[-1][s.state.specs[table].key]
def rows(s, table, **eq): return [r for r in s.state.rows(table) if all(r[k] == v for k, v in eq.items())]
def open_now(r): return r["accepting_orders"] and r["opens"] <= "09:00" < r["closes"]
def reaches(r, a): return haversine_km(a["lat"], a["lon"], r["lat"], r["lon"]) <= r["delivery_radius_km"]
def main_dish(s, rid): return max((m for m in rows(s, "menu_item", restaurant_id=rid, available=True)), key=lambda m: m["price"])["menu_item_id"]

def orderable(s, want_open=True, min_wallet=0.0):
    "(diner, restaurant, address) with no open cart there, the restaurant open (or closed) now and delivering to the address."
    for a in s.state.rows("delivery_address"):
        d = get(s, "diner", a["diner_id"])
        if d["wallet_balance"] < min_wallet: continue
        for r in s.state.rows("restaurant"):
            if r["accepting_orders"] and (r["opens"] <= "09:00" < r["closes"]) == want_open and reaches(r, a) \
               and not rows(s, "food_cart", diner_id=d["diner_id"], restaurant_id=r["restaurant_id"], status="open"):
                return d["diner_id"], r["restaurant_id"], a["address_id"]
    raise AssertionError("no orderable combination in the seed")

def cart_setup(**kw):
    "Setup steps: a new cart at an orderable restaurant holding two of its priciest available dish."
    return [("create_food_cart", lambda s: dict(zip(("diner_id", "restaurant_id"), orderable(s, **kw)[:2]))),
            ("add_dish_to_cart", lambda s: {"cart_id": newest(s, "food_cart"), "quantity": 2,
                                            "menu_item_id": main_dish(s, get(s, "food_cart", newest(s, "food_cart"))["restaurant_id"])})]
def new_cart(s): return get(s, "food_cart", newest(s, "food_cart"))
def cart_address(s): return next(a["address_id"] for a in rows(s, "delivery_address", diner_id=new_cart(s)["diner_id"]) if reaches(get(s, "restaurant", new_cart(s)["restaurant_id"]), a))
def other_restaurant_item(s, cart_id):
    return next(m["menu_item_id"] for m in s.state.rows("menu_item") if m["restaurant_id"] != get(s, "food_cart", cart_id)["restaurant_id"] and m["available"])
def sold_out_item(s, cart_id): return next(m["menu_item_id"] for m in rows(s, "menu_item", restaurant_id=get(s, "food_cart", cart_id)["restaurant_id"], available=False))
def cart_rst(s): return get(s, "food_cart", "crt_0001")["restaurant_id"]
def first_line(s): return get(s, "food_cart", "crt_0001")["items"][0]["menu_item_id"]
def order(s, **eq): return next(o for o in s.state.rows("food_order") if all(o[k] == v for k, v in eq.items()))
def reorderable(s):
    return next(o["order_id"] for o in rows(s, "food_order", status="delivered") if not rows(s, "food_cart", diner_id=o["diner_id"], restaurant_id=o["restaurant_id"], status="open")
                and any(get(s, "menu_item", l["menu_item_id"])["available"] for l in o["items"]))

def placed_ok(s, r):
    c = get(s, "food_cart", newest(s, "food_cart"))
    assert c["status"] == "checked_out" and c["order_id"] == r.content["order_id"]
    o = get(s, "food_order", r.content["order_id"])
    assert o["status"] == "placed" and o["subtotal"] == round(sum(l["unit_price"] * l["quantity"] for l in c["items"]), 2)
    assert o["total"] == round(o["subtotal"] + o["delivery_fee"] + o["tip"], 2) and o["tip"] == 3.0

def wallet_paid(s, r):
    d = get(s, "diner", r.content["diner_id"])
    assert d["wallet_balance"] == round(srv.seed_state(0).get("diner", d["diner_id"])["wallet_balance"] - r.content["total"], 2)

def cancelled_refund(s, r):
    o = get(s, "food_order", r.content["order_id"])
    assert o["status"] == "cancelled"
    if o["payment_method"] == "wallet":
        assert get(s, "diner", o["diner_id"])["wallet_balance"] == round(srv.seed_state(0).get("diner", o["diner_id"])["wallet_balance"] + o["total"], 2)

def rated_ok(s, r):
    o = get(s, "food_order", r.content["order_id"])
    before, after = srv.seed_state(0).get("restaurant", o["restaurant_id"]), get(s, "restaurant", o["restaurant_id"])
    assert o["rating"] == 2 and after["rating_count"] == before["rating_count"] + 1
    assert after["rating"] == round((before["rating"] * before["rating_count"] + 2) / (before["rating_count"] + 1), 2)

def deliverable_ok(s, r):
    a = get(s, "delivery_address", "adr_0001")
    every = [x for x in s.state.rows("restaurant") if reaches(x, a)]
    assert r.content and sorted(x["restaurant_id"] for x in r.content) == sorted(x["restaurant_id"] for x in every)

CASES = [
    Case("search_restaurants", {"address_id": "adr_0001"}, check=deliverable_ok),
    Case("search_restaurants", {"city": "London", "cuisine": "thai", "open_now": True},
         check=lambda s, r: all(x["city"] == "London" and x["cuisine"] == "thai" and open_now(get(s, "restaurant", x["restaurant_id"])) for x in r.content)),
    Case("search_restaurants", {"address_id": "adr_9999"}, ok=False, error="no delivery address"),
    Case("get_restaurant_menu", {"restaurant_id": "rst_0001"}, check=lambda s, r: len(r.content["menu"]) == 10 and r.content["cuisine"] == "italian"),
    Case("get_restaurant_menu", {"restaurant_id": "rst_0001", "dietary": "vegan"},
         check=lambda s, r: r.content["menu"] and all("vegan" in m["dietary"] for m in r.content["menu"])),
    Case("get_restaurant_menu", {"restaurant_id": "rst_0001", "category": "soup"}, ok=False, error="must be one of"),
    Case("find_diners", {"name": ""}, check=lambda s, r: len(r.content) == s.state.count("diner")),
    Case("find_diners", {"name": 3}, ok=False, error="must be string"),
    Case("list_delivery_addresses", {"diner_id": "dnr_0001"}, check=lambda s, r: [a["address_id"] for a in r.content] == ["adr_0001", "adr_0002"]),
    Case("list_delivery_addresses", {"diner_id": "dnr_9999"}, ok=False, error="no diner"),
    Case("list_food_carts", {"diner_id": "dnr_0001"},
         check=lambda s, r: r.content[0]["cart_id"] == "crt_0001" and r.content[0]["subtotal"] == round(sum(l["unit_price"] * l["quantity"] for l in r.content[0]["items"]), 2)),
    Case("list_food_carts", {"diner_id": "nobody"}, ok=False, error="no diner"),
    Case("list_food_orders", lambda s: {"diner_id": order(s)["diner_id"]},
         check=lambda s, r: r.content and [o["placed_at"] for o in r.content] == sorted((o["placed_at"] for o in r.content), reverse=True)),
    Case("list_food_orders", {"diner_id": "dnr_0001", "status": "shipped"}, ok=False, error="must be one of"),
    Case("get_food_order", {"order_id": "fdo_0001"}, check=lambda s, r: r.content["items"] and r.content["deliver_to"]),
    Case("get_food_order", {"order_id": "fdo_9999"}, ok=False, error="no order"),
    Case("create_food_cart", lambda s: dict(zip(("diner_id", "restaurant_id"), orderable(s)[:2])),
         check=lambda s, r: get(s, "food_cart", r.content["cart_id"])["status"] == "open" and r.content["items"] == []),
    Case("create_food_cart", lambda s: {"diner_id": "dnr_0001", "restaurant_id": cart_rst(s)}, ok=False, error="already has open cart"),
    Case("add_dish_to_cart", lambda s: {"cart_id": "crt_0001", "menu_item_id": main_dish(s, cart_rst(s)), "quantity": 2, "notes": "extra spicy"},
         check=lambda s, r: next(l for l in get(s, "food_cart", "crt_0001")["items"] if l["menu_item_id"] == main_dish(s, cart_rst(s)))["notes"] == "extra spicy"
         and len(get(s, "food_cart", "crt_0001")["items"]) == len(srv.seed_state(0).get("food_cart", "crt_0001")["items"]) + 1),
    Case("add_dish_to_cart", lambda s: {"cart_id": "crt_0001", "menu_item_id": other_restaurant_item(s, "crt_0001")}, ok=False,
         error="use a cart of that restaurant"),
    Case("add_dish_to_cart", lambda s: {"cart_id": "crt_0001", "menu_item_id": sold_out_item(s, "crt_0001")}, ok=False, error="sold out"),
    Case("update_cart_item_quantity", lambda s: {"cart_id": "crt_0001", "menu_item_id": first_line(s), "quantity": 0},
         check=lambda s, r: first_line(srv.session(0)) not in [l["menu_item_id"] for l in get(s, "food_cart", "crt_0001")["items"]]),
    Case("update_cart_item_quantity", {"cart_id": "crt_0001", "menu_item_id": "itm_0001", "quantity": 1}, ok=False, error="not in cart"),
    Case("apply_food_promo_code", {"cart_id": "crt_0001", "code": "welcome10"},
         check=lambda s, r: r.content["promo_code"] == "WELCOME10" and r.content["discount"] == round(r.content["subtotal"] * 0.1, 2)
         and r.content["total"] == round(r.content["subtotal"] - r.content["discount"] + r.content["delivery_fee"], 2)),
    Case("apply_food_promo_code", lambda s: {"cart_id": "crt_0001", "code": next(p["code"] for p in s.state.rows("promo_code") if p["restaurant_id"]
                                                                          not in (None, cart_rst(s)) and p["expires"] > "2026-06-15")},
         ok=False, error="only valid at restaurant"),
    Case("apply_food_promo_code", {"cart_id": "crt_0001", "code": "FREEPIZZA"}, ok=False, error="does not exist"),
    Case("place_food_order", lambda s: {"cart_id": newest(s, "food_cart"), "address_id": cart_address(s), "tip": 3}, setup=cart_setup(), check=placed_ok),
    Case("place_food_order", lambda s: {"cart_id": newest(s, "food_cart"), "address_id": cart_address(s), "payment_method": "wallet"},
         setup=cart_setup(min_wallet=80), check=wallet_paid),
    Case("place_food_order", lambda s: {"cart_id": newest(s, "food_cart"), "address_id": cart_address(s)}, setup=cart_setup(want_open=False),
         ok=False, error="closed now"),
    Case("place_food_order", lambda s: {"cart_id": newest(s, "food_cart"), "address_id": "adr_0003" if new_cart(s)["diner_id"] != "dnr_0002" else "adr_0001"},
         setup=cart_setup(), ok=False, error="another diner"),
    Case("cancel_food_order", lambda s: {"order_id": order(s, status="placed", payment_method="wallet")["order_id"]}, check=cancelled_refund),
    Case("cancel_food_order", lambda s: {"order_id": order(s, status="preparing")["order_id"]}, ok=False, error="only placed orders"),
    Case("advance_food_order", lambda s: {"order_id": order(s, status="out_for_delivery")["order_id"]},
         check=lambda s, r: get(s, "food_order", r.content["order_id"])["status"] == "delivered"),
    Case("advance_food_order", lambda s: {"order_id": order(s, status="cancelled")["order_id"]}, ok=False, error="cannot move further"),
    Case("rate_food_order", lambda s: {"order_id": order(s, status="delivered", rating=None)["order_id"], "stars": 2, "comment": "cold fries"}, check=rated_ok),
    Case("rate_food_order", lambda s: {"order_id": order(s, status="placed")["order_id"], "stars": 4}, ok=False, error="only delivered"),
    Case("rate_food_order", lambda s: {"order_id": next(o for o in s.state.rows("food_order") if o["rating"])["order_id"], "stars": 4},
         ok=False, error="already rated"),
    Case("add_delivery_address", {"diner_id": "dnr_0001", "label": "other", "street": "500  market st", "city": "San Francisco"},
         check=lambda s, r: (r.content["lat"], r.content["lon"]) == street_point("San Francisco", "Market St", 500) and r.content["street"] == "500 Market St"),
    Case("add_delivery_address", {"diner_id": "dnr_0001", "label": "other", "street": "9 Elm Court", "city": "San Francisco", "lat": 37.78, "lon": -122.41},
         check=lambda s, r: get(s, "delivery_address", r.content["address_id"])["lat"] == 37.78),
    Case("add_delivery_address", {"diner_id": "dnr_0001", "label": "home", "street": "1 Market St", "city": "San Francisco"}, ok=False, error="already has a home"),
    Case("add_delivery_address", {"diner_id": "dnr_0001", "label": "other", "street": "9 Elm Court", "city": "San Francisco"}, ok=False, error="pass lat and lon"),
    Case("reorder_food_order", lambda s: {"order_id": reorderable(s)},
         check=lambda s, r: get(s, "food_cart", r.content["cart_id"])["status"] == "open" and r.content["items"]),
    Case("reorder_food_order", lambda s: {"order_id": order(s, status="preparing")["order_id"]}, ok=False, error="still preparing"),
]

globals().update(server_suite(srv, CASES, n_tools=17, seeds=[(0, "small"), (2, "small"), (1, "tiny"), (3, "medium"), (0, "large")]))

def test_seed_layout_is_coherent():
    "Menus match their restaurant's cuisine; carts, orders and addresses stay within one city."
    st = srv.seed_state(1, "small")
    for o in st.rows("food_order"):
        r, a = st.get("restaurant", o["restaurant_id"]), st.get("delivery_address", o["address_id"])
        assert a["diner_id"] == o["diner_id"] and a["city"] == r["city"]
        assert all(st.get("menu_item", l["menu_item_id"])["restaurant_id"] == r["restaurant_id"] for l in o["items"])

def test_order_lifecycle():
    "An order moves placed -> delivered, is rated once, and cannot be cancelled after it leaves the placed state."
    s = srv.session(0)
    for tool, args in cart_setup(): assert s.call(tool, args(s)).ok
    o = s.call("place_food_order", {"cart_id": newest(s, "food_cart"), "address_id": cart_address(s)}).content["order_id"]
    assert [s.call("advance_food_order", {"order_id": o}).content["status"] for _ in range(3)] == ["preparing", "out_for_delivery", "delivered"]
    assert "only placed" in s.call("cancel_food_order", {"order_id": o}).error
    assert s.call("rate_food_order", {"order_id": o, "stars": 5}).ok and not s.call("rate_food_order", {"order_id": o, "stars": 5}).ok

def test_promo_once_per_diner():
    "A diner who ordered with a code cannot apply it again."
    s = srv.session(0)
    for tool, args in cart_setup(): assert s.call(tool, args(s)).ok
    cart = newest(s, "food_cart")
    assert s.call("apply_food_promo_code", {"cart_id": cart, "code": "WELCOME10"}).ok
    assert s.call("place_food_order", {"cart_id": cart, "address_id": cart_address(s)}).ok
    again = s.call("create_food_cart", {"diner_id": get(s, "food_cart", cart)["diner_id"], "restaurant_id": get(s, "food_cart", cart)["restaurant_id"]}).content["cart_id"]
    s.call("add_dish_to_cart", {"cart_id": again, "menu_item_id": get(s, "food_cart", cart)["items"][0]["menu_item_id"]})
    assert "already used" in s.call("apply_food_promo_code", {"cart_id": again, "code": "WELCOME10"}).error
