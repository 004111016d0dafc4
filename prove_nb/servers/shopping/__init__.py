"""Shopping: a web shop's catalog, carts, coupons, orders, returns, wishlists, addresses and reviews (23 tools).

Rules: only active products with enough stock go into a cart; stock is taken at checkout, which needs a non-empty
cart and one of the shopper's own addresses; a coupon has an expiry, a use budget, a minimum subtotal and may be
limited to one category or to plus members; orders move placed -> shipped -> delivered and can be cancelled only
while placed (the stock comes back); returns are for delivered items within 30 days; only delivered products can
be reviewed, once per shopper.
"""
from datetime import date, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.shopping.phrasing import PHRASES
from prove_nb.servers._common import NOW, need
from prove_nb.state import TableSpec

CATEGORIES = ("electronics", "home", "kitchen", "books", "toys", "sports", "beauty", "clothing", "garden")
Category = Literal["electronics", "home", "kitchen", "books", "toys", "sports", "beauty", "clothing", "garden"]
GOODS = {
    "electronics": (["Wireless Earbuds", "USB-C Charger", "Bluetooth Speaker", "4K Webcam", "Mechanical Keyboard", "Smart Plug"], (15, 180)),
    "home": (["Linen Duvet Cover", "Blackout Curtains", "Scented Candle", "Bath Towel Set", "Table Lamp", "Throw Blanket"], (12, 120)),
    "kitchen": (["Chef's Knife", "Cast Iron Skillet", "Pour-Over Kettle", "Bamboo Cutting Board", "Stand Mixer", "Spice Rack"], (10, 260)),
    "books": (["Field Guide to Birds", "Sourdough Handbook", "Modern Poetry Anthology", "Atlas of Rivers", "Chess Openings"], (8, 45)),
    "toys": (["Wooden Train Set", "Puzzle 1000 Pieces", "Building Blocks", "Plush Fox", "Kite"], (9, 70)),
    "sports": (["Yoga Mat", "Running Belt", "Adjustable Dumbbell", "Trail Water Bottle", "Tennis Balls 3-Pack"], (7, 150)),
    "beauty": (["Vitamin C Serum", "Clay Face Mask", "Hair Dryer", "Lip Balm Trio", "Sunscreen SPF 50"], (6, 90)),
    "clothing": (["Merino Beanie", "Rain Jacket", "Canvas Sneakers", "Wool Socks 2-Pack", "Denim Shirt"], (12, 160)),
    "garden": (["Pruning Shears", "Raised Bed Kit", "Hose Nozzle", "Seed Starter Tray", "Solar Path Lights"], (8, 140)),
}
BRANDS = ["Northwind", "Acme", "Lumen", "Oakridge", "Brightly", "Pinecrest", "Vela", "Kestrel", "Harbor & Co", "Nimbus"]
COLORS = ["", "", "Black", "White", "Sage", "Navy", "Sand", "Red"]
FIRST = ["Amara", "Bruno", "Carmen", "Dmitri", "Esme", "Felix", "Gwen", "Hamid", "Isla", "Jun", "Keira", "Luca", "Mina", "Nils", "Omar", "Petra"]
LAST = ["Alvarez", "Brooks", "Chen", "Dubois", "Eriksen", "Fischer", "Gupta", "Hughes", "Ivanova", "Johansson", "Kowalski", "Larsen"]
CITIES = {"US": [("Portland", "97205"), ("Austin", "78701"), ("Denver", "80202")], "CA": [("Toronto", "M5V 2T6"), ("Calgary", "T2P 1J9")],
          "GB": [("Leeds", "LS1 4AP"), ("Bristol", "BS1 5TR")], "DE": [("Hamburg", "20095"), ("Leipzig", "04109")],
          "FR": [("Lyon", "69002"), ("Nantes", "44000")]}
STREETS = ["Maple Avenue", "High Street", "Station Road", "Lindenweg", "Rue des Lilas", "Harbour Lane", "Cedar Court", "Mill Road"]
COUPON_WORDS = {None: ["WELCOME", "SUMMER", "FLASH", "SPRING", "BUNDLE"], "electronics": "GEEK", "home": "COZY", "kitchen": "COOK",
                "books": "READ", "toys": "PLAY", "sports": "SPORT", "beauty": "GLOW", "clothing": "STYLE", "garden": "GROW"}
REVIEW_TEXT = {5: ("Excellent", "Exactly as described and arrived quickly."), 4: ("Very good", "Works well, small quibbles with the packaging."),
               3: ("Okay", "Does the job but feels cheaper than expected."), 2: ("Disappointing", "Stopped working properly after a week."),
               1: ("Do not buy", "Broke on first use.")}
RETURN_REASONS = ("damaged", "wrong_item", "not_as_described", "changed_mind")
CANCEL_REASONS = ("changed_mind", "found_cheaper", "ordered_by_mistake", "too_slow")
FREE_SHIPPING_FROM, SHIPPING_FEE, RETURN_DAYS = 50.0, 5.99, 30

def _day(days_ago: int) -> str: return (date.fromisoformat(NOW[:10]) - timedelta(days=days_ago)).isoformat()

def _customer(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"name": f"{first} {last}", "email": f"{first.lower()}.{last.lower()}{i + 1}@mailbox.test",
            "tier": rng.choice(["standard", "standard", "plus"]), "cart_coupon": None}

def _product(rng, i, pick):
    cat = CATEGORIES[i % len(CATEGORIES)]
    nouns, (lo, hi) = GOODS[cat]
    color = rng.choice(COLORS)
    price = round(rng.randint(lo, hi) - rng.choice([0.0, 0.01, 0.05]), 2)
    return {"name": f"{rng.choice(BRANDS)} {nouns[rng.randrange(len(nouns))]}" + (f" ({color})" if color else ""),
            "category": cat, "price": price,
            "stock": rng.choice([0, 1, 2, 3, 5, 8, 12, 20, 40, 75]), "status": rng.choice(["active"] * 11 + ["discontinued"])}

def _coupon(rng, i, pick):
    kind, category = rng.choice(["percent", "percent", "fixed"]), rng.choice([None, None, None, *CATEGORIES])
    value = rng.choice([5, 10, 15, 20, 25]) if kind == "percent" else rng.choice([5, 10, 20])
    members = rng.random() < 0.2
    code = f"{'VIP' if members else COUPON_WORDS[category] if category else rng.choice(COUPON_WORDS[None])}{value}"
    codes = pick.memo.setdefault("coupon_codes", set())
    if code in codes: code = f"{code}X{i + 1}"
    codes.add(code)
    return {"code": code, "kind": kind, "value": float(value), "min_subtotal": float(rng.choice([0, 0, 25, 50, 100])),
            "category": category, "members_only": members, "expires_on": _day(rng.choice([-90, -30, -14, -7, -1, 3, 10, 20, 45])),
            "uses_left": rng.choice([0, 1, 3, 10, 50, 100, 100])}

def _address(rng, i, pick):
    cust, country = pick("customer"), rng.choice(["US", "US", "CA", "GB", "DE", "FR"])
    city, postal = rng.choice(CITIES[country])
    return {"customer_id": cust, "label": rng.choice(["home", "home", "work", "other"]),
            "street": f"{rng.randint(1, 240)} {rng.choice(STREETS)}", "city": city, "postal_code": postal, "country": country}

def _order(rng, i, pick):
    a = rng.choice(pick.rows("address"))
    age = rng.choice([rng.randint(1, 2), rng.randint(3, 6), rng.randint(7, 40), rng.randint(7, 120), rng.randint(7, 120)])
    status = "placed" if age <= 2 else "shipped" if age <= 6 else "delivered"
    if rng.random() < 0.08 and status != "shipped": status = "cancelled"
    carrier = rng.choice(["UPS", "FedEx", "DHL", "USPS"]) if status in ("shipped", "delivered") else None
    delivered = _day(age - 4) if status == "delivered" else None
    return {"customer_id": a["customer_id"], "address_id": a["address_id"], "status": status, "placed_at": _day(age),
            "shipped_at": _day(age - 2) if carrier else None, "delivered_at": delivered, "carrier": carrier,
            "tracking": f"{carrier[:2].upper()}{rng.randrange(10**9, 10**10)}" if carrier else None,
            "payment_method": rng.choice(["card", "card", "paypal", "gift_card"]), "coupon_code": None, "discount": 0.0,
            "cancel_reason": rng.choice(CANCEL_REASONS) if status == "cancelled" else None}

def _order_line(rng, i, pick):
    orders = pick.rows("order")
    o = orders[i] if i < len(orders) else rng.choice(orders)  # every order gets at least one line
    product, seen = pick("product"), pick.memo.setdefault("lines", set())
    if (o["order_id"], product) in seen: return None
    seen.add((o["order_id"], product))
    return {"order_id": o["order_id"], "product_id": product, "quantity": rng.choice([1, 1, 1, 2, 3]),
            "unit_price": pick.row("product", product)["price"]}

def _delivered_line(rng, pick) -> tuple:
    "A random (line, order) of the delivered orders, or (None, None) when there are none."
    if "delivered" not in pick.memo:
        pick.memo["delivered"] = [l for l in pick.rows("order_line") if pick.row("order", l["order_id"])["status"] == "delivered"]
    if not pick.memo["delivered"]: return None, None
    line = rng.choice(pick.memo["delivered"])
    return line, pick.row("order", line["order_id"])

def _review(rng, i, pick):
    line, order = _delivered_line(rng, pick)
    if line is None: return None
    seen = pick.memo.setdefault("reviewed", set())
    if (order["customer_id"], line["product_id"]) in seen: return None
    seen.add((order["customer_id"], line["product_id"]))
    rating = rng.choice([5, 5, 4, 4, 4, 3, 2, 1])
    title, body = REVIEW_TEXT[rating]
    day = (date.fromisoformat(order["delivered_at"]) + timedelta(days=rng.randint(1, 6))).isoformat()
    return {"customer_id": order["customer_id"], "product_id": line["product_id"], "line_id": line["line_id"], "rating": rating,
            "title": title, "body": body, "date": min(NOW[:10], day)}

def _return(rng, i, pick):
    line, order = _delivered_line(rng, pick)
    if line is None: return None
    seen = pick.memo.setdefault("returned", set())
    if line["line_id"] in seen: return None
    seen.add(line["line_id"])
    return {"order_id": line["order_id"], "line_id": line["line_id"], "product_id": line["product_id"], "quantity": 1,
            "reason": rng.choice(RETURN_REASONS), "refund": line["unit_price"], "status": rng.choice(["requested", "refunded", "refunded"]),
            "created_at": order["delivered_at"]}

def _cart_item(rng, i, pick):
    cust, product, seen = pick("customer"), pick("product"), pick.memo.setdefault("carted", set())
    if (cust, product) in seen: return None
    seen.add((cust, product))
    return {"customer_id": cust, "product_id": product, "quantity": rng.choice([1, 1, 2, 3]), "added_at": _day(rng.randint(0, 20))}

def _wishlist_item(rng, i, pick):
    cust, product, seen = pick("customer"), pick("product"), pick.memo.setdefault("wished", set())
    if (cust, product) in seen: return None
    seen.add((cust, product))
    return {"customer_id": cust, "product_id": product, "added_at": _day(rng.randint(0, 120))}

server = ToolServer(
    "shopping", "An online shop: catalog search, carts, coupons, checkout, order tracking, returns, wishlists and reviews.",
    [TableSpec("customer", "customer_id", "cus_"),
     TableSpec("product", "product_id", "prod_"),
     TableSpec("coupon", "code", "CPN"),
     TableSpec("address", "address_id", "addr_", {"customer_id": "customer"}),
     TableSpec("order", "order_id", "ord_", {"customer_id": "customer", "address_id": "address", "coupon_code": "coupon"}),
     TableSpec("order_line", "line_id", "line_", {"order_id": "order", "product_id": "product"}),
     TableSpec("return_request", "return_id", "ret_", {"order_id": "order", "line_id": "order_line", "product_id": "product"}),
     TableSpec("review", "review_id", "rev_", {"customer_id": "customer", "product_id": "product", "line_id": "order_line"}),
     TableSpec("cart_item", "cart_item_id", "cart_", {"customer_id": "customer", "product_id": "product"}),
     TableSpec("wishlist_item", "wishlist_item_id", "wish_", {"customer_id": "customer", "product_id": "product"})],
    {"customer": _customer, "product": _product, "coupon": _coupon, "address": _address, "order": _order, "order_line": _order_line,
     "return_request": _return, "review": _review, "cart_item": _cart_item, "wishlist_item": _wishlist_item},
    {"customer": 20, "product": 45, "coupon": 20, "address": 28, "order": 30, "order_line": 70, "return_request": 6,
     "review": 24, "cart_item": 30, "wishlist_item": 30},
    now=NOW, phrases=PHRASES)

CustomerId = Annotated[str, Entity("customer")]
ProductId = Annotated[str, Entity("product")]
CouponCode = Annotated[str, Entity("coupon")]
AddressId = Annotated[str, Entity("address")]
OrderId = Annotated[str, Entity("order")]

def _today(st) -> str: return st.meta["now"][:10]

def _cart(st, customer_id) -> list:
    return sorted(st.find("cart_item", customer_id=customer_id), key=lambda r: r["cart_item_id"])

def _cart_entry(st, customer_id, product_id):
    need(st, "customer", customer_id)
    for r in st.find("cart_item", customer_id=customer_id, product_id=product_id): return r
    raise ToolError(f"product {product_id} is not in the cart of {customer_id}")

def _sellable(st, product_id, quantity):
    "The product, if it is active and `quantity` (a positive number) of it is in stock."
    p = need(st, "product", product_id)
    if quantity < 1: raise ToolError(f"quantity must be at least 1, got {quantity}")
    if p["status"] != "active": raise ToolError(f"product {product_id} is {p['status']} and cannot be bought")
    if p["stock"] == 0: raise ToolError(f"product {product_id} is out of stock")
    if quantity > p["stock"]: raise ToolError(f"only {p['stock']} of product {product_id} in stock, asked for {quantity}")
    return p

def _coupon_discount(st, coupon, customer, lines) -> float:
    "The discount `coupon` gives on `lines` [(product, quantity, unit_price)], or a ToolError naming the broken rule."
    code = coupon["code"]
    if coupon["expires_on"] < _today(st): raise ToolError(f"coupon {code} expired on {coupon['expires_on']}")
    if coupon["uses_left"] <= 0: raise ToolError(f"coupon {code} has no uses left")
    if coupon["members_only"] and customer["tier"] != "plus": raise ToolError(f"coupon {code} is for plus members only")
    if not lines: raise ToolError(f"the cart of {customer['customer_id']} is empty")
    subtotal = round(sum(q * u for _, q, u in lines), 2)
    if subtotal < coupon["min_subtotal"]: raise ToolError(f"coupon {code} needs a subtotal of {coupon['min_subtotal']:.2f}, the cart has {subtotal:.2f}")
    eligible = round(sum(q * u for p, q, u in lines if coupon["category"] in (None, p["category"])), 2)
    if eligible == 0: raise ToolError(f"coupon {code} applies only to {coupon['category']} products and the cart has none")
    off = eligible * coupon["value"] / 100 if coupon["kind"] == "percent" else min(coupon["value"], eligible)
    return round(off, 2)

def _totals(subtotal, discount) -> dict:
    net = round(subtotal - discount, 2)
    shipping = 0.0 if net >= FREE_SHIPPING_FROM or net == 0 else SHIPPING_FEE
    return {"subtotal": round(subtotal, 2), "discount": discount, "shipping": shipping, "total": round(net + shipping, 2)}

def _cart_view(st, customer_id) -> dict:
    cust = need(st, "customer", customer_id)
    items, lines = [], []
    for r in _cart(st, customer_id):
        p = st.get("product", r["product_id"])
        items.append({"cart_item_id": r["cart_item_id"], "product_id": p["product_id"], "name": p["name"], "unit_price": p["price"],
                      "quantity": r["quantity"], "line_total": round(p["price"] * r["quantity"], 2), "in_stock": p["stock"], "status": p["status"]})
        lines.append((p, r["quantity"], p["price"]))
    code, discount, note = cust["cart_coupon"], 0.0, None
    if code:
        try: discount = _coupon_discount(st, st.get("coupon", code), cust, lines)
        except ToolError as e: note = str(e)
    return {"customer_id": customer_id, "items": items, "coupon": code, "coupon_problem": note,
            **_totals(sum(q * u for _, q, u in lines), discount)}

def _order_view(st, order) -> dict:
    lines = sorted(st.find("order_line", order_id=order["order_id"]), key=lambda r: r["line_id"])
    items = [{**dict(l), "name": st.get("product", l["product_id"])["name"]} for l in lines]
    returns = [dict(r) for r in st.find("return_request", order_id=order["order_id"])]
    return {**dict(order), "items": items, "returns": sorted(returns, key=lambda r: r["return_id"]),
            **_totals(sum(l["quantity"] * l["unit_price"] for l in lines), order["discount"])}

def _order(st, order_id, status=None):
    o = need(st, "order", order_id)
    if status and o["status"] != status: raise ToolError(f"order {order_id} is {o['status']}, not {status}")
    return o

def _rating(st) -> dict:
    "Average rating and review count per product id."
    acc = {}
    for r in st.rows("review"):
        s = acc.setdefault(r["product_id"], [0, 0])
        s[0] += r["rating"]; s[1] += 1
    return {p: (round(t / n, 2), n) for p, (t, n) in acc.items()}

@server.read(produces="customer")
def find_shoppers(st, name: str = "", email: str = ""):
    """Find shop customers whose name or email contains the given text (case-insensitive).

    Args:
        name: Part of the shopper's name.
        email: Part of the shopper's email address.
    """
    n, e = name.lower(), email.lower()
    return [dict(r) for r in st.rows("customer") if n in r["name"].lower() and e in r["email"].lower()]

@server.read(produces="product")
def search_products(st, query: str = "", category: Category | None = None, max_price: float | None = None, in_stock_only: bool = False,
                    sort: Literal["relevance", "price_asc", "price_desc", "rating"] = "relevance", limit: int = 10):
    """Search the catalog by words in the product name, with filters; each hit carries its average rating.

    Args:
        query: Words that must all appear in the product name (case-insensitive); empty matches everything.
        category: Only products of this category.
        max_price: Only products costing at most this much.
        in_stock_only: Only active products with stock left.
        sort: Order of the results.
        limit: Maximum number of products (1 to 50).
    """
    if not 1 <= limit <= 50: raise ToolError(f"limit must be between 1 and 50, got {limit}")
    words, rating = query.lower().split(), _rating(st)
    hits = [{**dict(p), "rating": rating.get(p["product_id"], (None, 0))[0], "reviews": rating.get(p["product_id"], (None, 0))[1]}
            for p in st.rows("product") if all(w in p["name"].lower() for w in words) and category in (None, p["category"])
            and (max_price is None or p["price"] <= max_price) and (not in_stock_only or (p["stock"] > 0 and p["status"] == "active"))]
    key = {"relevance": lambda p: p["product_id"], "price_asc": lambda p: (p["price"], p["product_id"]),
           "price_desc": lambda p: (-p["price"], p["product_id"]), "rating": lambda p: (-(p["rating"] or 0), p["product_id"])}[sort]
    return sorted(hits, key=key)[:limit]

@server.read(produces=("product", "review"))
def get_product(st, product_id: ProductId):
    """Get one product: price, stock, status, category, average rating and its three newest reviews.

    Args:
        product_id: The product to look up.
    """
    p = need(st, "product", product_id)
    reviews = sorted(st.find("review", product_id=product_id), key=lambda r: (r["date"], r["review_id"]), reverse=True)
    avg = round(sum(r["rating"] for r in reviews) / len(reviews), 2) if reviews else None
    return {**dict(p), "rating": avg, "reviews": len(reviews), "latest_reviews": [dict(r) for r in reviews[:3]]}

@server.read(produces=("review", "customer"))
def list_product_reviews(st, product_id: ProductId, min_rating: int = 1):
    """List a product's reviews, newest first.

    Args:
        product_id: The product whose reviews to list.
        min_rating: Only reviews with at least this many stars (1 to 5).
    """
    need(st, "product", product_id)
    if not 1 <= min_rating <= 5: raise ToolError(f"min_rating must be between 1 and 5, got {min_rating}")
    rows = [dict(r) for r in st.find("review", product_id=product_id) if r["rating"] >= min_rating]
    return sorted(rows, key=lambda r: (r["date"], r["review_id"]), reverse=True)

@server.read(produces=("cart_item", "product", "coupon"))
def view_shopping_cart(st, customer_id: CustomerId):
    """Show a shopper's cart: items, applied coupon (and why it no longer applies, if so), subtotal, discount, shipping and total.

    Args:
        customer_id: The shopper whose cart to show.
    """
    return _cart_view(st, customer_id)

@server.read(produces="coupon")
def list_shop_coupons(st, category: Category | None = None, include_expired: bool = False):
    """List coupon codes with their rules: percent or fixed value, minimum subtotal, category, members-only, expiry and uses left.

    Args:
        category: Only coupons limited to this category (site-wide coupons are always listed).
        include_expired: Also list expired or used-up coupons.
    """
    today = _today(st)
    rows = [dict(c) for c in st.rows("coupon") if c["category"] in (None, category or c["category"])
            and (include_expired or (c["expires_on"] >= today and c["uses_left"] > 0))]
    return sorted(rows, key=lambda c: c["code"])

@server.read(produces="address")
def list_shipping_addresses(st, customer_id: CustomerId):
    """List the shipping addresses a shopper has saved.

    Args:
        customer_id: The shopper whose addresses to list.
    """
    need(st, "customer", customer_id)
    return [dict(r) for r in st.find("address", customer_id=customer_id)]

@server.read(produces="order")
def list_shop_orders(st, customer_id: CustomerId, status: Literal["placed", "shipped", "delivered", "cancelled"] | None = None):
    """List a shopper's orders, newest first, with status, dates and total.

    Args:
        customer_id: The shopper whose orders to list.
        status: Only orders in this state.
    """
    need(st, "customer", customer_id)
    rows = [_order_view(st, o) for o in st.find("order", customer_id=customer_id) if status in (None, o["status"])]
    return sorted(rows, key=lambda o: (o["placed_at"], o["order_id"]), reverse=True)

@server.read(produces=("order", "order_line", "product", "return_request", "address"))
def get_shop_order(st, order_id: OrderId):
    """Get one order: its items (with line ids), status, carrier and tracking, returns, and totals.

    Args:
        order_id: The order to look up.
    """
    return _order_view(st, need(st, "order", order_id))

@server.read(produces=("wishlist_item", "product"))
def list_wishlist(st, customer_id: CustomerId):
    """List the products on a shopper's wishlist with their current price and stock.

    Args:
        customer_id: The shopper whose wishlist to list.
    """
    need(st, "customer", customer_id)
    out = []
    for w in sorted(st.find("wishlist_item", customer_id=customer_id), key=lambda r: r["wishlist_item_id"]):
        p = st.get("product", w["product_id"])
        out.append({**dict(w), "name": p["name"], "price": p["price"], "stock": p["stock"], "status": p["status"]})
    return out

@server.write(produces="cart_item")
def add_product_to_cart(st, customer_id: CustomerId, product_id: ProductId, quantity: int = 1):
    """Put an active product into a shopper's cart (adds to the quantity already there; the total cannot exceed the stock).

    Args:
        customer_id: The shopper whose cart to fill.
        product_id: The product to add.
        quantity: How many to add (at least 1).
    """
    need(st, "customer", customer_id)
    have = st.find("cart_item", customer_id=customer_id, product_id=product_id)
    total = quantity + (have[0]["quantity"] if have else 0)
    if quantity < 1: raise ToolError(f"quantity must be at least 1, got {quantity}")
    _sellable(st, product_id, total)
    if have: row = st.update("cart_item", have[0]["cart_item_id"], quantity=total)
    else: row = st.insert("cart_item", {"customer_id": customer_id, "product_id": product_id, "quantity": total, "added_at": _today(st)})
    return dict(row)

@server.write(after=("add_product_to_cart",))
def update_cart_item(st, customer_id: CustomerId, product_id: ProductId, quantity: int):
    """Set the quantity of a product already in a shopper's cart (within the stock; remove it with remove_cart_item).

    Args:
        customer_id: The shopper whose cart to change.
        product_id: The product in the cart.
        quantity: The new quantity (at least 1).
    """
    item = _cart_entry(st, customer_id, product_id)
    _sellable(st, product_id, quantity)
    return dict(st.update("cart_item", item["cart_item_id"], quantity=quantity))

@server.write(after=("add_product_to_cart",))
def remove_cart_item(st, customer_id: CustomerId, product_id: ProductId):
    """Take a product out of a shopper's cart.

    Args:
        customer_id: The shopper whose cart to change.
        product_id: The product to remove.
    """
    item = _cart_entry(st, customer_id, product_id)
    st.delete("cart_item", item["cart_item_id"])
    return _cart_view(st, customer_id)

@server.write(after=("add_product_to_cart",))
def apply_cart_coupon(st, customer_id: CustomerId, code: CouponCode):
    """Apply a coupon code to a shopper's cart (one coupon per cart; it replaces any other) if the cart meets its rules.

    Args:
        customer_id: The shopper whose cart gets the coupon.
        code: The coupon code, e.g. SUMMER10.
    """
    cust = need(st, "customer", customer_id)
    coupon = need(st, "coupon", code.strip().upper(), "coupon")
    if cust["cart_coupon"] == coupon["code"]: raise ToolError(f"coupon {coupon['code']} is already applied to this cart")
    lines = [(st.get("product", r["product_id"]), r["quantity"], st.get("product", r["product_id"])["price"]) for r in _cart(st, customer_id)]
    _coupon_discount(st, coupon, cust, lines)
    st.update("customer", customer_id, cart_coupon=coupon["code"])
    return _cart_view(st, customer_id)

@server.write(produces=("order", "order_line"), after=("add_product_to_cart", "add_shipping_address"))
def checkout_cart(st, customer_id: CustomerId, address_id: AddressId, payment_method: Literal["card", "paypal", "gift_card"] = "card"):
    """Turn a shopper's cart into an order shipped to one of their addresses: takes the stock, uses the coupon, empties the cart.

    Args:
        customer_id: The shopper checking out.
        address_id: One of the shopper's saved addresses to ship to.
        payment_method: How the order is paid.
    """
    cust = need(st, "customer", customer_id)
    addr = need(st, "address", address_id)
    if addr["customer_id"] != customer_id: raise ToolError(f"address {address_id} does not belong to {customer_id}")
    cart = _cart(st, customer_id)
    if not cart: raise ToolError(f"the cart of {customer_id} is empty")
    lines = [(_sellable(st, r["product_id"], r["quantity"]), r["quantity"]) for r in cart]
    code = cust["cart_coupon"]
    coupon = st.get("coupon", code) if code else None
    discount = _coupon_discount(st, coupon, cust, [(p, q, p["price"]) for p, q in lines]) if coupon else 0.0
    order = st.insert("order", {"customer_id": customer_id, "address_id": address_id, "status": "placed", "placed_at": _today(st),
                                "shipped_at": None, "delivered_at": None, "carrier": None, "tracking": None,
                                "payment_method": payment_method, "coupon_code": code, "discount": discount, "cancel_reason": None})
    for (p, q), r in zip(lines, cart):
        st.insert("order_line", {"order_id": order["order_id"], "product_id": p["product_id"], "quantity": q, "unit_price": p["price"]})
        st.update("product", p["product_id"], stock=p["stock"] - q)
        st.delete("cart_item", r["cart_item_id"])
    if coupon: st.update("coupon", code, uses_left=coupon["uses_left"] - 1)
    st.update("customer", customer_id, cart_coupon=None)
    return _order_view(st, order)

@server.write(after=("checkout_cart",))
def cancel_shop_order(st, order_id: OrderId, reason: Literal["changed_mind", "found_cheaper", "ordered_by_mistake", "too_slow"] = "changed_mind"):
    """Cancel an order that has not shipped yet; its stock goes back and a used coupon gets its use back.

    Args:
        order_id: The order to cancel.
        reason: Why the shopper cancels.
    """
    o = _order(st, order_id)
    if o["status"] != "placed": raise ToolError(f"order {order_id} is {o['status']} and can only be cancelled while placed")
    for l in st.find("order_line", order_id=order_id):
        st.update("product", l["product_id"], stock=st.get("product", l["product_id"])["stock"] + l["quantity"])
    if o["coupon_code"]: st.update("coupon", o["coupon_code"], uses_left=st.get("coupon", o["coupon_code"])["uses_left"] + 1)
    return _order_view(st, st.update("order", order_id, status="cancelled", cancel_reason=reason))

@server.write(after=("checkout_cart",))
def ship_shop_order(st, order_id: OrderId, carrier: Literal["UPS", "FedEx", "DHL", "USPS"]):
    """Hand a placed order to a carrier: it becomes shipped and gets a tracking number.

    Args:
        order_id: The order to ship.
        carrier: The shipping company.
    """
    _order(st, order_id, "placed")
    tracking = f"{carrier[:2].upper()}{int(order_id.split('_')[1]):010d}"
    return _order_view(st, st.update("order", order_id, status="shipped", shipped_at=_today(st), carrier=carrier, tracking=tracking))

@server.write(after=("ship_shop_order",))
def mark_order_delivered(st, order_id: OrderId):
    """Record that a shipped order reached the shopper (starts the 30-day return window).

    Args:
        order_id: The shipped order.
    """
    _order(st, order_id, "shipped")
    return _order_view(st, st.update("order", order_id, status="delivered", delivered_at=_today(st)))

@server.write(produces="return_request", after=("mark_order_delivered",))
def request_return(st, order_id: OrderId, product_id: ProductId, quantity: int = 1,
                   reason: Literal["damaged", "wrong_item", "not_as_described", "changed_mind"] = "changed_mind"):
    """Ask to return units of a product from a delivered order, within 30 days of delivery; the refund is the price paid.

    Args:
        order_id: The delivered order.
        product_id: The product to send back.
        quantity: How many units (no more than bought and not yet returned).
        reason: Why the item goes back.
    """
    o = _order(st, order_id, "delivered")
    last = (date.fromisoformat(o["delivered_at"]) + timedelta(days=RETURN_DAYS)).isoformat()
    if _today(st) > last: raise ToolError(f"the return window of order {order_id} closed on {last}")
    line = next(iter(st.find("order_line", order_id=order_id, product_id=product_id)), None)
    if line is None: raise ToolError(f"order {order_id} does not contain product {product_id}")
    left = line["quantity"] - sum(r["quantity"] for r in st.find("return_request", line_id=line["line_id"]))
    if not 1 <= quantity <= left: raise ToolError(f"can return between 1 and {left} of product {product_id} from order {order_id}, asked for {quantity}")
    lines = st.find("order_line", order_id=order_id)
    share = 1 - o["discount"] / sum(l["quantity"] * l["unit_price"] for l in lines)
    return dict(st.insert("return_request", {"order_id": order_id, "line_id": line["line_id"], "product_id": product_id, "quantity": quantity,
                                             "reason": reason, "refund": round(quantity * line["unit_price"] * share, 2),
                                             "status": "requested", "created_at": _today(st)}))

@server.write(produces="wishlist_item")
def add_to_wishlist(st, customer_id: CustomerId, product_id: ProductId):
    """Save a product to a shopper's wishlist (once).

    Args:
        customer_id: The shopper.
        product_id: The product to save.
    """
    need(st, "customer", customer_id); need(st, "product", product_id)
    if st.find("wishlist_item", customer_id=customer_id, product_id=product_id):
        raise ToolError(f"product {product_id} is already on the wishlist of {customer_id}")
    return dict(st.insert("wishlist_item", {"customer_id": customer_id, "product_id": product_id, "added_at": _today(st)}))

@server.write(after=("add_to_wishlist",))
def remove_from_wishlist(st, customer_id: CustomerId, product_id: ProductId):
    """Remove a product from a shopper's wishlist.

    Args:
        customer_id: The shopper.
        product_id: The product to remove.
    """
    need(st, "customer", customer_id)
    rows = st.find("wishlist_item", customer_id=customer_id, product_id=product_id)
    if not rows: raise ToolError(f"product {product_id} is not on the wishlist of {customer_id}")
    return dict(st.delete("wishlist_item", rows[0]["wishlist_item_id"]))

@server.write(produces="address")
def add_shipping_address(st, customer_id: CustomerId, street: str, city: str, postal_code: str,
                         country: Literal["US", "CA", "GB", "DE", "FR"], label: Literal["home", "work", "other"] = "home"):
    """Save a new shipping address for a shopper (the shop ships to US, CA, GB, DE and FR; at most 5 addresses each).

    Args:
        customer_id: The shopper.
        street: Street and house number.
        city: City.
        postal_code: Postal or ZIP code.
        country: Two-letter country code.
        label: What kind of address it is.
    """
    need(st, "customer", customer_id)
    if not street.strip() or not city.strip() or not postal_code.strip(): raise ToolError("street, city and postal_code must not be empty")
    mine = st.find("address", customer_id=customer_id)
    if len(mine) >= 5: raise ToolError(f"customer {customer_id} already has 5 addresses")
    if any(a["street"].lower() == street.strip().lower() and a["postal_code"] == postal_code.strip() for a in mine):
        raise ToolError(f"customer {customer_id} already has an address at {street.strip()}, {postal_code.strip()}")
    return dict(st.insert("address", {"customer_id": customer_id, "label": label, "street": street.strip(), "city": city.strip(),
                                      "postal_code": postal_code.strip(), "country": country}))

@server.write(produces="review", after=("mark_order_delivered",))
def write_product_review(st, customer_id: CustomerId, product_id: ProductId, rating: int, title: str, body: str = ""):
    """Review a product the shopper received in a delivered order (one review per shopper and product).

    Args:
        customer_id: The reviewing shopper.
        product_id: The product reviewed.
        rating: Stars from 1 to 5.
        title: A short headline.
        body: The review text.
    """
    need(st, "customer", customer_id); need(st, "product", product_id)
    if not 1 <= rating <= 5: raise ToolError(f"rating must be between 1 and 5, got {rating}")
    if not title.strip(): raise ToolError("title must not be empty")
    if st.find("review", customer_id=customer_id, product_id=product_id): raise ToolError(f"{customer_id} has already reviewed product {product_id}")
    delivered = {o["order_id"] for o in st.find("order", customer_id=customer_id, status="delivered")}
    lines = sorted(l["line_id"] for l in st.find("order_line", product_id=product_id) if l["order_id"] in delivered)
    if not lines: raise ToolError(f"{customer_id} has no delivered order containing product {product_id}")
    return dict(st.insert("review", {"customer_id": customer_id, "product_id": product_id, "line_id": lines[-1], "rating": rating,
                                     "title": title.strip(), "body": body.strip(), "date": _today(st)}))
