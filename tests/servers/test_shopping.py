from prove_nb.server import load_server
from tests.servers.harness import Case, server_suite

srv = load_server("shopping")
TODAY = "2026-06-15"

def rows(s, table, **eq): return [r for r in s.state.rows(table) if all(r.get(k) == v for k, v in eq.items())]
def newest(s, table): return max(r[s.state.specs[table].key] for r in s.state.rows(table))
def get(s, table, key): return s.state.get(table, key)

SEED = srv.seed_state(0)
def buyer(s):
    "A shopper with a saved address and an empty cart in the seed."
    carts = {r["customer_id"] for r in SEED.rows("cart_item")}
    return next(a["customer_id"] for a in SEED.rows("address") if a["customer_id"] not in carts)
def addr(s, cust): return rows(s, "address", customer_id=cust)[0]["address_id"]
def stocked(s, n=2, k=0):
    "The k-th active product with at least n in stock."
    return [p["product_id"] for p in s.state.rows("product") if p["status"] == "active" and p["stock"] >= n][k]
def coupon(s):
    "A valid site-wide percent coupon that the ADD cart (2 units of `stocked`) meets."
    subtotal = 2 * get(s, "product", stocked(s))["price"]
    return next(c["code"] for c in SEED.rows("coupon") if c["expires_on"] >= TODAY and c["uses_left"] > 0 and c["kind"] == "percent"
                and not c["members_only"] and c["category"] is None and c["min_subtotal"] <= subtotal)
def expired(s): return next(c["code"] for c in s.state.rows("coupon") if c["expires_on"] < TODAY)
def cart_of(s): return next(r for r in s.state.rows("cart_item"))
def order(s, status, delivered_before="9999"):
    return next(o["order_id"] for o in SEED.rows("order") if o["status"] == status and (o["delivered_at"] or "") < delivered_before)
def other_category_coupon(s):
    cat = get(s, "product", stocked(s))["category"]
    return next(c["code"] for c in SEED.rows("coupon") if c["category"] not in (None, cat) and not c["members_only"]
                and c["min_subtotal"] == 0 and c["uses_left"] > 0 and c["expires_on"] >= TODAY)
def bad_coupon(**eq): return next(c["code"] for c in SEED.rows("coupon") if all(c[k] == v for k, v in eq.items()) and c["expires_on"] >= TODAY
                                  and (c["uses_left"] > 0) == (eq.get("uses_left") is None))
def line(s, oid): return rows(s, "order_line", order_id=oid)[0]

ADD = ("add_product_to_cart", lambda s: {"customer_id": buyer(s), "product_id": stocked(s), "quantity": 2})
CHECKOUT = ("checkout_cart", lambda s: {"customer_id": rows(s, "cart_item")[-1]["customer_id"], "address_id": addr(s, rows(s, "cart_item")[-1]["customer_id"])})
SHIP = ("ship_shop_order", lambda s: {"order_id": newest(s, "order"), "carrier": "DHL"})
DELIVER = ("mark_order_delivered", lambda s: {"order_id": newest(s, "order")})
BOUGHT = [ADD, CHECKOUT, SHIP, DELIVER]

def check_checkout(s, r):
    o = r.content
    assert o["status"] == "placed" and o["items"][0]["quantity"] == 2 and not rows(s, "cart_item", customer_id=o["customer_id"])
    p = o["items"][0]["product_id"]
    assert get(s, "product", p)["stock"] == srv.seed_state(0).get("product", p)["stock"] - 2

def check_coupon_checkout(s, r):
    o = r.content
    code = o["coupon_code"]
    assert code and o["discount"] == round(o["subtotal"] * get(s, "coupon", code)["value"] / 100, 2)
    assert get(s, "coupon", code)["uses_left"] == srv.seed_state(0).get("coupon", code)["uses_left"] - 1
    assert get(s, "customer", o["customer_id"])["cart_coupon"] is None

def check_cancel(s, r):
    p = r.content["items"][0]["product_id"]
    assert r.content["status"] == "cancelled" and get(s, "product", p)["stock"] == srv.seed_state(0).get("product", p)["stock"]

CASES = [
    Case("find_shoppers", {"name": "a"}, check=lambda s, r: r.content and all("a" in c["name"].lower() for c in r.content)),
    Case("find_shoppers", {"email": 7}, ok=False, error="must be string"),
    Case("search_products", {"category": "books", "sort": "price_asc", "limit": 50},
         check=lambda s, r: r.content and all(p["category"] == "books" for p in r.content) and [p["price"] for p in r.content] == sorted(p["price"] for p in r.content)),
    Case("search_products", {"query": "kettle", "limit": 0}, ok=False, error="limit"),
    Case("get_product", lambda s: {"product_id": rows(s, "review")[0]["product_id"]}, check=lambda s, r: r.content["reviews"] >= 1 and r.content["rating"]),
    Case("get_product", {"product_id": "prod_9999"}, ok=False, error="no product"),
    Case("list_product_reviews", lambda s: {"product_id": rows(s, "review")[0]["product_id"]},
         check=lambda s, r: r.content[0]["product_id"] == rows(s, "review")[0]["product_id"]),
    Case("list_product_reviews", {"product_id": "prod_0001", "min_rating": 6}, ok=False, error="min_rating"),
    Case("view_shopping_cart", lambda s: {"customer_id": cart_of(s)["customer_id"]},
         check=lambda s, r: r.content["items"] and r.content["subtotal"] == round(sum(i["line_total"] for i in r.content["items"]), 2)),
    Case("view_shopping_cart", {"customer_id": "cus_9999"}, ok=False, error="no customer"),
    Case("list_shop_coupons", {}, check=lambda s, r: r.content and all(c["expires_on"] >= TODAY and c["uses_left"] > 0 for c in r.content)),
    Case("list_shop_coupons", {"category": "cars"}, ok=False, error="must be one of"),
    Case("list_shipping_addresses", lambda s: {"customer_id": buyer(s)}, check=lambda s, r: r.content and r.content[0]["customer_id"] == buyer(s)),
    Case("list_shipping_addresses", {}, ok=False, error="missing required parameter 'customer_id'"),
    Case("list_shop_orders", lambda s: {"customer_id": rows(s, "order")[0]["customer_id"], "status": "delivered"},
         check=lambda s, r: all(o["status"] == "delivered" for o in r.content)),
    Case("list_shop_orders", {"customer_id": "cus_0001", "status": "lost"}, ok=False, error="must be one of"),
    Case("get_shop_order", {"order_id": "ord_0001"}, check=lambda s, r: r.content["items"] and r.content["total"] > 0),
    Case("get_shop_order", {"order_id": "ord_9999"}, ok=False, error="no order"),
    Case("list_wishlist", lambda s: {"customer_id": rows(s, "wishlist_item")[0]["customer_id"]}, check=lambda s, r: r.content[0]["name"]),
    Case("list_wishlist", {"customer_id": "cus_9999"}, ok=False, error="no customer"),
    Case(*ADD, check=lambda s, r: r.content["quantity"] == 2),
    Case("add_product_to_cart", lambda s: {"customer_id": buyer(s), "product_id": stocked(s)}, setup=[ADD],
         check=lambda s, r: r.content["quantity"] == 3 and len(rows(s, "cart_item", customer_id=buyer(s))) == 1),
    Case("add_product_to_cart", lambda s: {"customer_id": buyer(s), "product_id": rows(s, "product", status="discontinued")[0]["product_id"]},
         ok=False, error="discontinued"),
    Case("add_product_to_cart", lambda s: {"customer_id": buyer(s), "product_id": stocked(s), "quantity": 10_000}, ok=False, error="in stock"),
    Case("update_cart_item", lambda s: {"customer_id": buyer(s), "product_id": stocked(s), "quantity": 1}, setup=[ADD],
         check=lambda s, r: r.content["quantity"] == 1),
    Case("update_cart_item", lambda s: {"customer_id": buyer(s), "product_id": stocked(s), "quantity": 1}, ok=False, error="not in the cart"),
    Case("remove_cart_item", lambda s: {"customer_id": cart_of(s)["customer_id"], "product_id": cart_of(s)["product_id"]},
         check=lambda s, r: all(i["product_id"] != srv.seed_state(0).get("cart_item", "cart_0001")["product_id"] for i in r.content["items"])),
    Case("remove_cart_item", lambda s: {"customer_id": buyer(s), "product_id": "prod_0001"}, ok=False, error="not in the cart"),
    Case("apply_cart_coupon", lambda s: {"customer_id": buyer(s), "code": coupon(s).lower()}, setup=[ADD],
         check=lambda s, r: r.content["coupon"] == coupon(s) and r.content["discount"] > 0),
    Case("apply_cart_coupon", lambda s: {"customer_id": buyer(s), "code": expired(s)}, setup=[ADD], ok=False, error="expired"),
    Case("apply_cart_coupon", lambda s: {"customer_id": buyer(s), "code": coupon(s)}, ok=False, error="empty"),
    Case("apply_cart_coupon", lambda s: {"customer_id": buyer(s), "code": bad_coupon(uses_left=0)}, setup=[ADD], ok=False, error="no uses left"),
    Case("apply_cart_coupon", lambda s: {"customer_id": buyer(s), "code": bad_coupon(members_only=True)}, setup=[ADD], ok=False, error="plus members"),
    Case("apply_cart_coupon", lambda s: {"customer_id": buyer(s), "code": other_category_coupon(s)}, setup=[ADD], ok=False, error="applies only to"),
    Case("apply_cart_coupon", {"customer_id": "cus_0001", "code": "FREESTUFF"}, ok=False, error="no coupon"),
    Case(*CHECKOUT, setup=[ADD], check=check_checkout),
    Case(*CHECKOUT, setup=[ADD, ("apply_cart_coupon", lambda s: {"customer_id": buyer(s), "code": coupon(s)})],
         check=check_coupon_checkout),
    Case("checkout_cart", lambda s: {"customer_id": buyer(s), "address_id": addr(s, buyer(s))}, ok=False, error="empty"),
    Case("checkout_cart", lambda s: {"customer_id": buyer(s), "address_id": next(a["address_id"] for a in s.state.rows("address") if a["customer_id"] != buyer(s))},
         setup=[ADD], ok=False, error="does not belong"),
    Case("cancel_shop_order", lambda s: {"order_id": newest(s, "order"), "reason": "found_cheaper"}, setup=[ADD, CHECKOUT], check=check_cancel),
    Case("cancel_shop_order", lambda s: {"order_id": order(s, "shipped")}, ok=False, error="only be cancelled while placed"),
    Case("ship_shop_order", lambda s: {"order_id": order(s, "placed"), "carrier": "UPS"},
         check=lambda s, r: r.content["status"] == "shipped" and r.content["tracking"].startswith("UP") and r.content["shipped_at"] == TODAY),
    Case("ship_shop_order", lambda s: {"order_id": order(s, "delivered"), "carrier": "UPS"}, ok=False, error="not placed"),
    Case("mark_order_delivered", lambda s: {"order_id": order(s, "shipped")}, check=lambda s, r: r.content["delivered_at"] == TODAY),
    Case("mark_order_delivered", lambda s: {"order_id": order(s, "placed")}, ok=False, error="not shipped"),
    Case("request_return", lambda s: {"order_id": newest(s, "order"), "product_id": stocked(s), "quantity": 2, "reason": "damaged"}, setup=BOUGHT,
         check=lambda s, r: r.content["refund"] == round(2 * get(s, "product", stocked(s))["price"], 2) and r.content["status"] == "requested"),
    Case("request_return", lambda s: {"order_id": newest(s, "order"), "product_id": stocked(s), "quantity": 3}, setup=BOUGHT, ok=False, error="between 1 and 2"),
    Case("request_return", lambda s: {"order_id": order(s, "delivered", "2026-05-15"), "product_id": line(s, order(s, "delivered", "2026-05-15"))["product_id"]},
         ok=False, error="return window"),
    Case("request_return", lambda s: {"order_id": order(s, "placed"), "product_id": "prod_0001"}, ok=False, error="not delivered"),
    Case("add_to_wishlist", lambda s: {"customer_id": buyer(s), "product_id": stocked(s)},
         check=lambda s, r: rows(s, "wishlist_item", customer_id=buyer(s), product_id=stocked(s))[0]["added_at"] == TODAY),
    Case("add_to_wishlist", lambda s: {"customer_id": rows(s, "wishlist_item")[0]["customer_id"], "product_id": rows(s, "wishlist_item")[0]["product_id"]},
         ok=False, error="already on the wishlist"),
    Case("remove_from_wishlist", lambda s: {"customer_id": rows(s, "wishlist_item")[0]["customer_id"], "product_id": rows(s, "wishlist_item")[0]["product_id"]},
         check=lambda s, r: get(s, "wishlist_item", r.content["wishlist_item_id"]) is None),
    Case("remove_from_wishlist", {"customer_id": "cus_0001", "product_id": "prod_9999"}, ok=False, error="not on the wishlist"),
    Case("add_shipping_address", {"customer_id": "cus_0001", "street": "12 Elm Street", "city": "Boston", "postal_code": "02110", "country": "US"},
         check=lambda s, r: get(s, "address", r.content["address_id"])["customer_id"] == "cus_0001"),
    Case("add_shipping_address", {"customer_id": "cus_0001", "street": "1 Main", "city": "Rome", "postal_code": "00100", "country": "IT"},
         ok=False, error="must be one of"),
    Case("write_product_review", lambda s: {"customer_id": buyer(s), "product_id": stocked(s), "rating": 4, "title": "Solid"}, setup=BOUGHT,
         check=lambda s, r: get(s, "order_line", r.content["line_id"])["order_id"] == newest(s, "order")),
    Case("write_product_review", lambda s: {"customer_id": buyer(s), "product_id": stocked(s), "rating": 4, "title": "Solid"}, setup=BOUGHT[:2],
         ok=False, error="no delivered order"),
    Case("write_product_review", lambda s: {**{k: rows(s, "review")[0][k] for k in ("customer_id", "product_id")}, "rating": 5, "title": "Again"},
         ok=False, error="already reviewed"),
]

globals().update(server_suite(srv, CASES, n_tools=23, seeds=[(0, "small"), (1, "small"), (0, "large"), (2, "tiny")]))

def test_seed_is_coherent():
    "Every order has lines; reviews and returns point at delivered lines of the same shopper and product."
    st = srv.seed_state(0, "small")
    with_lines = {l["order_id"] for l in st.rows("order_line")}
    assert all(o["order_id"] in with_lines for o in st.rows("order"))
    for r in list(st.rows("review")) + list(st.rows("return_request")):
        l = st.get("order_line", r["line_id"])
        o = st.get("order", l["order_id"])
        assert o["status"] == "delivered" and l["product_id"] == r["product_id"] and r.get("customer_id", o["customer_id"]) == o["customer_id"]
