from prove_nb.server import load_server
from tests.servers.harness import Case, server_suite

srv = load_server("marketplace")
SEED = srv.seed_state(0)

def rows(table, **eq): return [r for r in SEED.rows(table) if all(r.get(k) == v for k, v in eq.items())]
def get(s, table, key): return s.state.get(table, key)
def newest(s, table): return max(r[s.state.specs[table].key] for r in s.state.rows(table))
def active(m): return SEED.get("member", m)["status"] == "active"

def open_listing(min_price=150):
    "An active listing that takes offers, with an active seller."
    return next(l for l in rows("listing", status="active", accepts_offers=True) if active(l["seller_id"]) and l["price"] >= min_price)
def rich_buyer(listing, price=None):
    "An active member other than the seller who can pay `price` (default the asking price) and has no pending offer on it."
    bidders = {o["buyer_id"] for o in rows("offer", listing_id=listing["listing_id"], status="pending")}
    return next(m["member_id"] for m in rows("member", status="active") if m["member_id"] != listing["seller_id"]
                and m["wallet"] >= (price or listing["price"]) and m["member_id"] not in bidders)
def poor_buyer(listing):
    return next(m["member_id"] for m in rows("member", status="active") if m["member_id"] != listing["seller_id"] and m["wallet"] < listing["price"] * 0.6)
def pending(payable=True):
    "A pending offer on an active listing; its buyer can (or cannot) pay it."
    return next(o for o in rows("offer", status="pending") if SEED.get("listing", o["listing_id"])["status"] == "active"
                and active(o["buyer_id"]) and (SEED.get("member", o["buyer_id"])["wallet"] >= o["amount"]) == payable)
def seller_of(o): return SEED.get("listing", o["listing_id"])["seller_id"]
def busy_listing(): return next(l for l in rows("listing", status="active") if rows("offer", listing_id=l["listing_id"], status="pending"))

L = open_listing()
OFFER = {"listing_id": L["listing_id"], "buyer_id": rich_buyer(L), "amount": round(L["price"] * 0.8, 2)}
P = pending()

def check_accept(s, r):
    sale = r.content
    assert get(s, "listing", P["listing_id"])["status"] == "sold" and get(s, "offer", P["offer_id"])["status"] == "accepted"
    assert get(s, "member", P["buyer_id"])["wallet"] == round(SEED.get("member", P["buyer_id"])["wallet"] - P["amount"], 2)
    seller = seller_of(P)
    assert sale["seller_wallet"] == round(SEED.get("member", seller)["wallet"] + P["amount"] - round(P["amount"] * 0.05, 2), 2)
    assert not s.state.find("offer", listing_id=P["listing_id"], status="pending")

def check_buy(s, r):
    assert get(s, "listing", L["listing_id"])["status"] == "sold" and r.content["price"] == L["price"]
    assert r.content["buyer_wallet"] == round(SEED.get("member", OFFER["buyer_id"])["wallet"] - L["price"], 2)

CASES = [
    Case("find_market_members", {"city": "lisbon"}, check=lambda s, r: r.content and all(m["city"] == "Lisbon" for m in r.content)),
    Case("find_market_members", {"name": 5}, ok=False, error="must be string"),
    Case("search_market_listings", {"category": "bikes", "limit": 50},
         check=lambda s, r: r.content and all(l["category"] == "bikes" and l["status"] == "active" for l in r.content)
         and [l["price"] for l in r.content] == sorted(l["price"] for l in r.content)),
    Case("search_market_listings", {"limit": 99}, ok=False, error="limit"),
    Case("search_market_listings", {"seller_id": "mem_9999"}, ok=False, error="no member"),
    Case("get_market_listing", {"listing_id": busy_listing()["listing_id"]},
         check=lambda s, r: r.content["pending_offers"] == len(rows("offer", listing_id=busy_listing()["listing_id"], status="pending")) > 0),
    Case("get_market_listing", {"listing_id": "lst_9999"}, ok=False, error="no listing"),
    Case("list_listing_offers", {"listing_id": busy_listing()["listing_id"], "status": "pending"},
         check=lambda s, r: r.content and [o["amount"] for o in r.content] == sorted((o["amount"] for o in r.content), reverse=True)),
    Case("list_listing_offers", {"listing_id": "lst_0001", "status": "open"}, ok=False, error="must be one of"),
    Case("list_buyer_offers", {"buyer_id": P["buyer_id"]}, check=lambda s, r: any(o["offer_id"] == P["offer_id"] for o in r.content)),
    Case("list_buyer_offers", {"buyer_id": "mem_9999"}, ok=False, error="no member"),
    Case("list_market_sales", {"member_id": rows("sale")[0]["buyer_id"], "role": "buyer"},
         check=lambda s, r: r.content and all(x["buyer_id"] == rows("sale")[0]["buyer_id"] for x in r.content)),
    Case("list_market_sales", {"member_id": "mem_0001", "role": "owner"}, ok=False, error="must be one of"),
    Case("create_market_listing", {"seller_id": L["seller_id"], "title": "Road Bike Helmet", "category": "bikes", "condition": "good", "price": 35},
         check=lambda s, r: get(s, "listing", r.content["listing_id"])["status"] == "active" and r.content["price"] == 35.0),
    Case("create_market_listing", {"seller_id": rows("member", status="suspended")[0]["member_id"], "title": "Lamp", "category": "furniture",
                                   "condition": "good", "price": 10}, ok=False, error="suspended"),
    Case("create_market_listing", {"seller_id": L["seller_id"], "title": "Lamp", "category": "furniture", "condition": "good", "price": 0},
         ok=False, error="price must be above 0"),
    Case("update_listing_price", {"listing_id": L["listing_id"], "seller_id": L["seller_id"], "price": L["price"] - 5},
         check=lambda s, r: get(s, "listing", L["listing_id"])["price"] == L["price"] - 5),
    Case("update_listing_price", {"listing_id": L["listing_id"], "seller_id": OFFER["buyer_id"], "price": 1}, ok=False, error="belongs to"),
    Case("update_listing_price", lambda s: {"listing_id": rows("sale")[0]["listing_id"], "seller_id": rows("sale")[0]["seller_id"], "price": 1},
         ok=False, error="is sold"),
    Case("withdraw_listing", {"listing_id": busy_listing()["listing_id"], "seller_id": busy_listing()["seller_id"]},
         check=lambda s, r: r.content["status"] == "withdrawn" and r.content["declined_offers"]
         and all(get(s, "offer", o)["status"] == "declined" for o in r.content["declined_offers"])),
    Case("withdraw_listing", {"listing_id": rows("sale")[0]["listing_id"], "seller_id": rows("sale")[0]["seller_id"]}, ok=False, error="is sold"),
    Case("make_listing_offer", OFFER, check=lambda s, r: get(s, "offer", r.content["offer_id"])["status"] == "pending"),
    Case("make_listing_offer", {**OFFER, "buyer_id": L["seller_id"]}, ok=False, error="is the seller"),
    Case("make_listing_offer", {**OFFER, "amount": L["price"] * 0.3}, ok=False, error="below half"),
    Case("make_listing_offer", {**OFFER, "amount": L["price"]}, ok=False, error="not below the asking price"),
    Case("make_listing_offer", {**OFFER, "buyer_id": poor_buyer(L)}, ok=False, error="only"),
    Case("make_listing_offer", OFFER, setup=[("make_listing_offer", OFFER)], ok=False, error="already has a pending offer"),
    Case("make_listing_offer", lambda s: {**OFFER, "listing_id": next(l["listing_id"] for l in rows("listing", status="active", accepts_offers=False)
                                                                       if l["seller_id"] != OFFER["buyer_id"])}, ok=False, error="does not accept offers"),
    Case("accept_listing_offer", {"offer_id": P["offer_id"], "seller_id": seller_of(P)}, check=check_accept),
    Case("accept_listing_offer", {"offer_id": P["offer_id"], "seller_id": P["buyer_id"]}, ok=False, error="belongs to"),
    Case("accept_listing_offer", {"offer_id": pending(False)["offer_id"], "seller_id": seller_of(pending(False))}, ok=False, error="cannot pay"),
    Case("accept_listing_offer", lambda s: {"offer_id": newest(s, "offer"), "seller_id": L["seller_id"]},
         setup=[("make_listing_offer", OFFER), ("buy_listing_now", {"listing_id": L["listing_id"], "buyer_id": OFFER["buyer_id"]})],
         ok=False, error="declined"),
    Case("decline_listing_offer", {"offer_id": P["offer_id"], "seller_id": seller_of(P)},
         check=lambda s, r: get(s, "offer", P["offer_id"])["status"] == "declined"),
    Case("decline_listing_offer", {"offer_id": rows("offer", status="declined")[0]["offer_id"], "seller_id": seller_of(rows("offer", status="declined")[0])},
         ok=False, error="not pending"),
    Case("buy_listing_now", {"listing_id": L["listing_id"], "buyer_id": OFFER["buyer_id"]}, check=check_buy),
    Case("buy_listing_now", {"listing_id": L["listing_id"], "buyer_id": poor_buyer(L)}, ok=False, error="cannot pay"),
    Case("buy_listing_now", {"listing_id": L["listing_id"], "buyer_id": OFFER["buyer_id"]},
         setup=[("buy_listing_now", {"listing_id": L["listing_id"], "buyer_id": OFFER["buyer_id"]})], ok=False, error="is sold"),
]

globals().update(server_suite(srv, CASES, n_tools=13, seeds=[(0, "small"), (1, "small"), (0, "large"), (2, "tiny")]))

def test_seed_is_coherent():
    "Offers sit on active listings that take offers and never come from the seller; every sale is of a sold listing."
    st = srv.seed_state(0, "small")
    for o in st.rows("offer"):
        l = st.get("listing", o["listing_id"])
        assert l["status"] == "active" and l["accepts_offers"] and o["buyer_id"] != l["seller_id"] and l["price"] / 2 <= o["amount"] < l["price"]
    for x in st.rows("sale"):
        l = st.get("listing", x["listing_id"])
        assert l["status"] == "sold" and x["seller_id"] == l["seller_id"] != x["buyer_id"] and x["date"] >= l["listed_on"]
