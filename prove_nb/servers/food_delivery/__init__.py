"""Food delivery: restaurants with menus, diners with delivery addresses and wallets, carts, promo codes, orders that move
through their states, and ratings (17 tools).

Rules: a cart holds dishes of one restaurant and a diner has at most one open cart per restaurant; only available
dishes can be added or ordered; an order needs an open restaurant that accepts orders, a subtotal of at least the
restaurant's minimum and an address of the diner within its delivery radius; wallet payments need funds and cash is
limited to 100. Orders go placed -> preparing -> out_for_delivery -> delivered and can be cancelled only while placed;
only delivered orders can be rated, once. A promo code must be live, meet its minimum and restaurant, and each diner
uses it once. Addresses and restaurants share the street geometry of the maps server.
"""
import re
from datetime import datetime
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.food_delivery.phrasing import PHRASES
from prove_nb.servers._common import NOW, need
from prove_nb.state import TableSpec
from prove_nb.servers.maps import CITIES, haversine_km, street_point

FOOD_CITIES = ("San Francisco", "New York", "London")
DISHES = {  # cuisine: [(name, category, base price, dietary tags)] -- ten per cuisine, one per menu slot
    "italian": [("Margherita Pizza", "main", 14, ("vegetarian",)), ("Spaghetti Carbonara", "main", 16, ()), ("Lasagna", "main", 17, ()),
                ("Caprese Salad", "starter", 10, ("vegetarian", "gluten_free")), ("Garlic Bread", "side", 6, ("vegetarian",)),
                ("Bruschetta", "starter", 8, ("vegan",)), ("Risotto ai Funghi", "main", 18, ("vegetarian", "gluten_free")),
                ("Tiramisu", "dessert", 8, ("vegetarian",)), ("Panna Cotta", "dessert", 7, ("gluten_free",)),
                ("San Pellegrino", "drink", 4, ("vegan", "gluten_free"))],
    "japanese": [("Salmon Nigiri", "main", 12, ("gluten_free",)), ("Tonkotsu Ramen", "main", 15, ()), ("Chicken Katsu Curry", "main", 16, ()),
                 ("Edamame", "starter", 5, ("vegan", "gluten_free")), ("Gyoza", "starter", 8, ()), ("Vegetable Tempura", "side", 9, ("vegetarian",)),
                 ("Miso Soup", "side", 4, ("vegan",)), ("Mochi Ice Cream", "dessert", 6, ("vegetarian",)),
                 ("Matcha Latte", "drink", 5, ("vegetarian",)), ("Spicy Tuna Roll", "main", 13, ("spicy",))],
    "mexican": [("Carnitas Tacos", "main", 13, ("gluten_free",)), ("Chicken Burrito", "main", 14, ()), ("Veggie Quesadilla", "main", 12, ("vegetarian",)),
                ("Guacamole and Chips", "starter", 8, ("vegan", "gluten_free")), ("Elote", "side", 6, ("vegetarian", "gluten_free")),
                ("Black Bean Soup", "starter", 7, ("vegan",)), ("Churros", "dessert", 6, ("vegetarian",)), ("Horchata", "drink", 4, ("vegetarian",)),
                ("Spicy Shrimp Tacos", "main", 15, ("spicy",)), ("Mexican Rice", "side", 4, ("vegan", "gluten_free"))],
    "indian": [("Butter Chicken", "main", 17, ("gluten_free",)), ("Chana Masala", "main", 14, ("vegan", "gluten_free")),
               ("Lamb Vindaloo", "main", 18, ("spicy", "gluten_free")), ("Samosas", "starter", 7, ("vegetarian",)), ("Garlic Naan", "side", 4, ("vegetarian",)),
               ("Paneer Tikka", "starter", 10, ("vegetarian", "gluten_free")), ("Basmati Rice", "side", 4, ("vegan", "gluten_free")),
               ("Gulab Jamun", "dessert", 6, ("vegetarian",)), ("Mango Lassi", "drink", 5, ("vegetarian", "gluten_free")),
               ("Dal Tadka", "main", 13, ("vegan", "gluten_free"))],
    "american": [("Classic Cheeseburger", "main", 14, ()), ("BBQ Pulled Pork Sandwich", "main", 15, ()), ("Veggie Burger", "main", 13, ("vegetarian",)),
                 ("Buffalo Wings", "starter", 11, ("spicy", "gluten_free")), ("Fries", "side", 5, ("vegan",)), ("Onion Rings", "side", 6, ("vegetarian",)),
                 ("Caesar Salad", "starter", 10, ()), ("Brownie Sundae", "dessert", 8, ("vegetarian",)), ("Milkshake", "drink", 6, ("vegetarian",)),
                 ("Mac and Cheese", "side", 8, ("vegetarian",))],
    "thai": [("Pad Thai", "main", 14, ()), ("Green Curry", "main", 15, ("spicy", "gluten_free")), ("Massaman Curry", "main", 16, ("gluten_free",)),
             ("Tom Yum Soup", "starter", 8, ("spicy", "gluten_free")), ("Spring Rolls", "starter", 7, ("vegan",)),
             ("Papaya Salad", "starter", 9, ("vegan", "spicy", "gluten_free")), ("Sticky Rice", "side", 3, ("vegan", "gluten_free")),
             ("Mango Sticky Rice", "dessert", 7, ("vegan", "gluten_free")), ("Thai Iced Tea", "drink", 5, ("vegetarian",)),
             ("Basil Chicken", "main", 14, ("spicy",))]}
CUISINES = tuple(DISHES)
MENU_SIZE = 10
NAMES = {"italian": ["Trattoria {w}", "{w} Pizzeria"], "japanese": ["{w} Sushi Bar", "Ramen {w}"], "mexican": ["{w} Taqueria", "Casa {w}"],
         "indian": ["{w} Tandoor", "Spice of {w}"], "american": ["{w} Burger Joint", "{w} Diner"], "thai": ["{w} Thai Kitchen", "Bangkok {w}"]}
WORDS = ["Golden", "Lucky", "Little", "Blue Door", "Corner", "Old Town", "Sunny", "Red Lantern", "Green Leaf", "Copper Pot", "Harbor", "Midnight"]
HOURS = [("07:00", "22:00"), ("08:00", "23:00"), ("06:30", "15:00"), ("11:00", "23:00"), ("08:30", "21:30")]
FIRST = ["Ava", "Ben", "Cleo", "Dmitri", "Esme", "Finn", "Gia", "Hugo", "Iris", "Jules", "Kai", "Lola", "Milo", "Nina", "Omar", "Pia"]
LAST = ["Archer", "Baptiste", "Cole", "Dunn", "Ellis", "Ford", "Grant", "Holm", "Ivers", "Joshi", "Kaur", "Lowe"]
PROMOS = [("WELCOME10", "percent", 10.0, 0.0), ("LUNCH15", "percent", 15.0, 25.0), ("SAVE5", "fixed", 5.0, 20.0), ("FREESHIP", "free_delivery", 0.0, 15.0),
          ("FEAST20", "percent", 20.0, 40.0), ("TREAT8", "fixed", 8.0, 30.0), ("SUMMER25", "percent", 25.0, 50.0), ("NIGHTOWL", "fixed", 10.0, 35.0)]
NEXT_STATUS = {"placed": "preparing", "preparing": "out_for_delivery", "out_for_delivery": "delivered"}
MAX_PERCENT_DISCOUNT, CASH_LIMIT, MAX_ADDRESSES = 15.0, 100.0, 5

# Seed layout: restaurant r serves cuisine CUISINES[(r // 3) % 6] in city FOOD_CITIES[r % 3] and offers its cuisine's ten
# dishes as menu items 10r..10r+9, one per dish slot (carts are made before menu items, so cart lines name dishes by this
# layout); diner d lives in FOOD_CITIES[d % 3] and has a home and a work address; every third diner has an open cart.

def _cuisine(r: int) -> str: return CUISINES[(r // 3) % len(CUISINES)]
def _price(r: int, slot: int) -> float: return round(round(DISHES[_cuisine(r)][slot][2] * (0.9 + (r % 5) * 0.1), 1) - 0.01, 2)

def _same_city_restaurant(rng, pick, city: str) -> int:
    "The position of a random restaurant in `city` (rejection sampling)."
    restaurants = pick.rows("restaurant")
    while True:
        r = rng.randrange(len(restaurants))
        if restaurants[r]["city"] == city: return r

def _line(rng, r: int) -> dict:
    slot = rng.randrange(MENU_SIZE)
    return {"menu_item_id": f"itm_{MENU_SIZE * r + slot + 1:04d}", "name": DISHES[_cuisine(r)][slot][0], "quantity": rng.randint(1, 3),
            "unit_price": _price(r, slot), "notes": ""}

def _lines(rng, r: int, n: int) -> tuple:
    out = {}
    for _ in range(n):
        l = _line(rng, r)
        out.setdefault(l["menu_item_id"], l)
    return tuple(out.values())

def _restaurant(rng, i, pick):
    city, cuisine = FOOD_CITIES[i % 3], _cuisine(i)
    street, num = rng.choice(CITIES[city][3]), rng.randint(1, 399)
    lat, lon = street_point(city, street, num)
    opens, closes = rng.choice(HOURS)
    return {"name": rng.choice(NAMES[cuisine]).format(w=rng.choice(WORDS)), "cuisine": cuisine, "city": city,
            "address": f"{num} {street}, {city}", "lat": lat, "lon": lon, "delivery_radius_km": float(rng.choice([3, 4, 5, 6, 8])),
            "min_order": float(rng.choice([10, 15, 20])), "delivery_fee": rng.choice([0.99, 1.99, 2.99, 3.99]),
            "opens": opens, "closes": closes, "rating": round(rng.uniform(3.4, 4.9), 1), "rating_count": rng.randint(5, 900),
            "accepting_orders": rng.random() < 0.9}

def _menu_item(rng, i, pick):
    restaurants, (r, slot) = pick.rows("restaurant"), divmod(i, MENU_SIZE)
    if r >= len(restaurants): return None
    name, cat, _, tags = DISHES[restaurants[r]["cuisine"]][slot]
    return {"restaurant_id": restaurants[r]["restaurant_id"], "name": name, "category": cat, "price": _price(r, slot), "dietary": tags,
            "available": rng.random() < 0.88}

def _diner(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"name": f"{first} {last}", "email": f"{first.lower()}.{last.lower()}{i}@eats.example", "city": FOOD_CITIES[i % 3],
            "phone": f"+1 555 {rng.randrange(1000, 9999)}", "wallet_balance": float(rng.choice([0, 5, 12.5, 25, 40, 80, 150]))}

def _address(rng, i, pick):
    "The home (even `i`) or work (odd `i`) address of the `i // 2`-th diner, in the diner's city."
    diners = pick.rows("diner")
    if i // 2 >= len(diners): return None
    d = diners[i // 2]
    street, num = rng.choice(CITIES[d["city"]][3]), rng.randint(1, 399)
    lat, lon = street_point(d["city"], street, num)
    return {"diner_id": d["diner_id"], "label": ("home", "work")[i % 2], "street": f"{num} {street}", "city": d["city"],
            "lat": lat, "lon": lon, "instructions": rng.choice(["", "", "ring twice", "leave at the door", "call on arrival"])}

def _cart(rng, i, pick):
    diners = pick.rows("diner")
    if 3 * i >= len(diners): return None
    d = diners[3 * i]
    r = _same_city_restaurant(rng, pick, d["city"])
    return {"diner_id": d["diner_id"], "restaurant_id": pick.rows("restaurant")[r]["restaurant_id"],
            "items": _lines(rng, r, rng.randint(1, 3)), "promo_code": None, "status": "open", "order_id": None, "updated_at": "2026-06-14T19:30:00"}

def _promo(rng, i, pick):
    code, kind, value, minimum = PROMOS[i % len(PROMOS)]
    return {"code": code if i < len(PROMOS) else f"{code}{i // len(PROMOS)}", "kind": kind, "value": value, "min_subtotal": minimum,
            "restaurant_id": pick("restaurant") if rng.random() < 0.3 else None,
            "expires": rng.choice(["2026-06-01", "2026-06-30", "2026-08-31", "2026-12-31"])}

def _order(rng, i, pick):
    d = pick.row("diner", pick("diner"))
    r = _same_city_restaurant(rng, pick, d["city"])
    items = _lines(rng, r, rng.randint(1, 4))
    sub = round(sum(l["unit_price"] * l["quantity"] for l in items), 2)
    fee, tip = rng.choice([0.99, 1.99, 2.99, 3.99]), float(rng.choice([0, 0, 2, 3, 5]))
    status = rng.choice(["delivered"] * 7 + ["cancelled", "placed", "preparing", "out_for_delivery"])
    day = NOW[:10] if status in NEXT_STATUS else f"2026-{rng.randint(4, 6):02d}-{rng.randint(1, 14):02d}"
    placed = f"{day}T{rng.randint(7, 8) if status in NEXT_STATUS else rng.randint(11, 21):02d}:{rng.randrange(0, 60, 5):02d}:00"
    return {"diner_id": d["diner_id"], "restaurant_id": pick.rows("restaurant")[r]["restaurant_id"],
            "address_id": rng.choice(pick.group("delivery_address", "diner_id")[d["diner_id"]])["address_id"], "items": items,
            "subtotal": sub, "discount": 0.0, "delivery_fee": fee, "tip": tip, "total": round(sub + fee + tip, 2), "promo_code": None,
            "payment_method": rng.choice(["card", "card", "wallet", "cash"]), "status": status, "placed_at": placed, "updated_at": placed,
            "rating": rng.choice([None, None, 3, 4, 5, 5]) if status == "delivered" else None, "rating_comment": ""}

server = ToolServer(
    "food_delivery", "Food delivery: restaurants and menus, carts, promo codes, orders through to delivery, and ratings.",
    [TableSpec("restaurant", "restaurant_id", "rst_"),
     TableSpec("menu_item", "menu_item_id", "itm_", {"restaurant_id": "restaurant"}),
     TableSpec("diner", "diner_id", "dnr_"),
     TableSpec("delivery_address", "address_id", "adr_", {"diner_id": "diner"}),
     TableSpec("food_cart", "cart_id", "crt_", {"diner_id": "diner", "restaurant_id": "restaurant"}),
     TableSpec("promo_code", "promo_id", "prm_", {"restaurant_id": "restaurant"}),
     TableSpec("food_order", "order_id", "fdo_", {"diner_id": "diner", "restaurant_id": "restaurant", "address_id": "delivery_address"})],
    {"restaurant": _restaurant, "menu_item": _menu_item, "diner": _diner, "delivery_address": _address, "food_cart": _cart,
     "promo_code": _promo, "food_order": _order},
    {"restaurant": 24, "menu_item": 240, "diner": 24, "delivery_address": 48, "food_cart": 6, "promo_code": 8, "food_order": 60},
    phrases=PHRASES)

RestaurantId = Annotated[str, Entity("restaurant")]
MenuItemId = Annotated[str, Entity("menu_item")]
DinerId = Annotated[str, Entity("diner")]
AddressId = Annotated[str, Entity("delivery_address")]
CartId = Annotated[str, Entity("food_cart")]
OrderId = Annotated[str, Entity("food_order")]
Cuisine = Literal["italian", "japanese", "mexican", "indian", "american", "thai"]
FoodCity = Literal["San Francisco", "New York", "London"]

def _open_now(st, r) -> bool: return r["opens"] <= st.meta["now"][11:16] < r["closes"]

def _open_cart(st, cart_id):
    c = need(st, "food_cart", cart_id, "cart")
    if c["status"] != "open": raise ToolError(f"cart {cart_id} was already checked out as order {c['order_id']}")
    return c

def _find_promo(st, code: str):
    code = code.strip().upper()
    p = next(iter(st.find("promo_code", code=code)), None)
    if p is None: raise ToolError(f"promo code '{code}' does not exist")
    return p

def _check_promo(st, p, cart, subtotal):
    "Raise unless promo `p` can apply to `cart` with `subtotal`."
    if p["expires"] < st.meta["now"][:10]: raise ToolError(f"promo code {p['code']} expired on {p['expires']}")
    if p["restaurant_id"] not in (None, cart["restaurant_id"]):
        raise ToolError(f"promo code {p['code']} is only valid at restaurant {p['restaurant_id']}")
    if subtotal < p["min_subtotal"]: raise ToolError(f"promo code {p['code']} needs a subtotal of at least {p['min_subtotal']:.2f}, cart has {subtotal:.2f}")
    if any(o["promo_code"] == p["code"] and o["status"] != "cancelled" for o in st.find("food_order", diner_id=cart["diner_id"])):
        raise ToolError(f"diner {cart['diner_id']} has already used promo code {p['code']}")

def _totals(st, cart, tip: float = 0.0) -> dict:
    "Subtotal, discount, delivery fee, tip and total of a cart (its promo code re-checked)."
    r = st.get("restaurant", cart["restaurant_id"])
    sub, fee, disc = round(sum(l["unit_price"] * l["quantity"] for l in cart["items"]), 2), r["delivery_fee"], 0.0
    if cart["promo_code"]:
        p = _find_promo(st, cart["promo_code"])
        _check_promo(st, p, cart, sub)
        if p["kind"] == "percent": disc = round(min(sub * p["value"] / 100, MAX_PERCENT_DISCOUNT), 2)
        elif p["kind"] == "fixed": disc = min(p["value"], sub)
        else: fee = 0.0
    return {"subtotal": sub, "discount": disc, "delivery_fee": fee, "tip": tip, "total": round(sub - disc + fee + tip, 2)}

def _cart_view(st, cart) -> dict:
    out = {**dict(cart), "restaurant_name": st.get("restaurant", cart["restaurant_id"])["name"]}
    try: return {**out, **_totals(st, cart)}
    except ToolError as e: return {**out, **_totals(st, {**cart, "promo_code": None}), "promo_problem": str(e)}

def _has_open_cart(st, diner_id, restaurant_id):
    return next((c for c in st.find("food_cart", diner_id=diner_id, restaurant_id=restaurant_id) if c["status"] == "open"), None)

# ---------------------------------------------------------------- reads

@server.read(produces="restaurant")
def search_restaurants(st, city: FoodCity | None = None, cuisine: Cuisine | None = None, query: str = "",
                       address_id: AddressId | None = None, open_now: bool = False):
    """Search restaurants, best rated first; with an address, only those that deliver there (with the distance).

    Args:
        city: Only restaurants in this city.
        cuisine: Only restaurants of this cuisine.
        query: Text in the restaurant's name (case-insensitive).
        address_id: A delivery address; keeps restaurants whose delivery radius reaches it.
        open_now: Only restaurants open and accepting orders now.
    """
    addr = need(st, "delivery_address", address_id, "delivery address") if address_id else None
    out = []
    for r in st.rows("restaurant"):
        if city not in (None, r["city"]) or cuisine not in (None, r["cuisine"]) or query.lower() not in r["name"].lower(): continue
        if open_now and not (r["accepting_orders"] and _open_now(st, r)): continue
        row = {k: r[k] for k in ("restaurant_id", "name", "cuisine", "city", "address", "rating", "min_order", "delivery_fee", "opens", "closes")}
        if addr:
            d = round(haversine_km(addr["lat"], addr["lon"], r["lat"], r["lon"]), 2)
            if d > r["delivery_radius_km"]: continue
            row["distance_km"] = d
        out.append(row)
    return sorted(out, key=lambda r: (-r["rating"], r["restaurant_id"]))

@server.read(produces=("restaurant", "menu_item"))
def get_restaurant_menu(st, restaurant_id: RestaurantId, category: Literal["starter", "main", "side", "dessert", "drink"] | None = None,
                        dietary: Literal["vegetarian", "vegan", "gluten_free", "spicy"] | None = None, available_only: bool = False):
    """A restaurant's details (hours, minimum order, delivery radius and fee) and its menu items with prices and availability.

    Args:
        restaurant_id: The restaurant whose menu to show.
        category: Only dishes of this course.
        dietary: Only dishes with this dietary tag.
        available_only: Hide dishes that are sold out.
    """
    r = need(st, "restaurant", restaurant_id, "restaurant")
    items = [dict(m) for m in st.find("menu_item", restaurant_id=restaurant_id) if category in (None, m["category"])
             and (dietary is None or dietary in m["dietary"]) and (m["available"] or not available_only)]
    return {**dict(r), "open_now": r["accepting_orders"] and _open_now(st, r), "menu": items}

@server.read(produces="diner")
def find_diners(st, name: str = "", email: str = ""):
    """Find diners whose name and email contain the given text (case-insensitive), with their wallet balance.

    Args:
        name: Part of the diner's name.
        email: Part of the diner's email.
    """
    n, e = name.lower(), email.lower()
    return [dict(d) for d in st.rows("diner") if n in d["name"].lower() and e in d["email"].lower()]

@server.read(produces="delivery_address")
def list_delivery_addresses(st, diner_id: DinerId):
    """List a diner's saved delivery addresses.

    Args:
        diner_id: The diner whose addresses to list.
    """
    need(st, "diner", diner_id, "diner")
    return [dict(a) for a in st.find("delivery_address", diner_id=diner_id)]

@server.read(produces=("food_cart", "menu_item"))
def list_food_carts(st, diner_id: DinerId):
    """List a diner's open carts (one per restaurant) with items and totals.

    Args:
        diner_id: The diner whose carts to list.
    """
    need(st, "diner", diner_id, "diner")
    return [_cart_view(st, c) for c in st.find("food_cart", diner_id=diner_id) if c["status"] == "open"]

@server.read(produces="food_order")
def list_food_orders(st, diner_id: DinerId, status: Literal["placed", "preparing", "out_for_delivery", "delivered", "cancelled"] | None = None):
    """List a diner's orders, newest first.

    Args:
        diner_id: The diner whose orders to list.
        status: Only orders in this state.
    """
    need(st, "diner", diner_id, "diner")
    rows = [{"order_id": o["order_id"], "restaurant_id": o["restaurant_id"], "restaurant_name": st.get("restaurant", o["restaurant_id"])["name"],
             "status": o["status"], "total": o["total"], "placed_at": o["placed_at"], "rating": o["rating"]}
            for o in st.find("food_order", diner_id=diner_id) if status in (None, o["status"])]
    return sorted(rows, key=lambda r: (r["placed_at"], r["order_id"]), reverse=True)

@server.read(produces=("food_order", "menu_item"))
def get_food_order(st, order_id: OrderId):
    """Get an order: items, amounts, payment, delivery address, state and rating.

    Args:
        order_id: The order to look up.
    """
    o = need(st, "food_order", order_id, "order")
    return {**dict(o), "restaurant_name": st.get("restaurant", o["restaurant_id"])["name"],
            "deliver_to": st.get("delivery_address", o["address_id"])["street"]}

# ---------------------------------------------------------------- writes

@server.write(produces="food_cart")
def create_food_cart(st, diner_id: DinerId, restaurant_id: RestaurantId):
    """Start an empty cart for a diner at a restaurant (one open cart per restaurant).

    Args:
        diner_id: The diner ordering.
        restaurant_id: The restaurant to order from.
    """
    need(st, "diner", diner_id, "diner")
    need(st, "restaurant", restaurant_id, "restaurant")
    c = _has_open_cart(st, diner_id, restaurant_id)
    if c: raise ToolError(f"diner {diner_id} already has open cart {c['cart_id']} at restaurant {restaurant_id}")
    return dict(st.insert("food_cart", {"diner_id": diner_id, "restaurant_id": restaurant_id, "items": [], "promo_code": None,
                                        "status": "open", "order_id": None, "updated_at": st.meta["now"]}))

@server.write(after=("create_food_cart",))
def add_dish_to_cart(st, cart_id: CartId, menu_item_id: MenuItemId, quantity: int = 1, notes: str = ""):
    """Add an available dish of the cart's restaurant to a cart (adding a dish already there raises its quantity, at most 20).

    Args:
        cart_id: The open cart.
        menu_item_id: The dish to add; it must belong to the cart's restaurant.
        quantity: How many (1 to 20).
        notes: Optional instructions for the kitchen, such as "no onions".
    """
    c = _open_cart(st, cart_id)
    m = need(st, "menu_item", menu_item_id, "menu item")
    if m["restaurant_id"] != c["restaurant_id"]:
        raise ToolError(f"menu item {menu_item_id} is from restaurant {m['restaurant_id']}, but cart {cart_id} is for {c['restaurant_id']}; "
                        "use a cart of that restaurant")
    if not m["available"]: raise ToolError(f"menu item {menu_item_id} ({m['name']}) is sold out")
    if not 1 <= quantity <= 20: raise ToolError(f"quantity must be between 1 and 20, got {quantity}")
    items, found = [dict(l) for l in c["items"]], False
    for l in items:
        if l["menu_item_id"] == menu_item_id:
            if l["quantity"] + quantity > 20: raise ToolError(f"cart {cart_id} would hold {l['quantity'] + quantity} of {m['name']}; at most 20")
            l["quantity"] += quantity
            l["notes"] = notes or l["notes"]
            found = True
    if not found: items.append({"menu_item_id": menu_item_id, "name": m["name"], "quantity": quantity, "unit_price": m["price"], "notes": notes})
    st.update("food_cart", cart_id, items=items, updated_at=st.meta["now"])
    return _cart_view(st, st.get("food_cart", cart_id))

@server.write(after=("add_dish_to_cart",))
def update_cart_item_quantity(st, cart_id: CartId, menu_item_id: MenuItemId, quantity: int):
    """Set how many of a dish a cart holds; 0 removes the dish.

    Args:
        cart_id: The open cart.
        menu_item_id: A dish already in the cart.
        quantity: New quantity (0 to 20).
    """
    c = _open_cart(st, cart_id)
    if not 0 <= quantity <= 20: raise ToolError(f"quantity must be between 0 and 20, got {quantity}")
    if not any(l["menu_item_id"] == menu_item_id for l in c["items"]): raise ToolError(f"menu item {menu_item_id} is not in cart {cart_id}")
    items = [{**dict(l), "quantity": quantity} if l["menu_item_id"] == menu_item_id else dict(l) for l in c["items"]]
    st.update("food_cart", cart_id, items=[l for l in items if l["quantity"] > 0], updated_at=st.meta["now"])
    return _cart_view(st, st.get("food_cart", cart_id))

@server.write(after=("add_dish_to_cart",))
def apply_food_promo_code(st, cart_id: CartId, code: str):
    """Apply a promo code to a cart (percent off up to 15, a fixed amount, or free delivery), replacing any code there.

    Args:
        cart_id: The open cart.
        code: The promo code, such as WELCOME10 (case-insensitive).
    """
    c = _open_cart(st, cart_id)
    if not c["items"]: raise ToolError(f"cart {cart_id} is empty")
    p = _find_promo(st, code)
    if c["promo_code"] == p["code"]: raise ToolError(f"promo code {p['code']} is already applied to cart {cart_id}")
    _check_promo(st, p, c, _totals(st, {**c, "promo_code": None})["subtotal"])
    st.update("food_cart", cart_id, promo_code=p["code"], updated_at=st.meta["now"])
    return _cart_view(st, st.get("food_cart", cart_id))

@server.write(produces="food_order", after=("add_dish_to_cart",))
def place_food_order(st, cart_id: CartId, address_id: AddressId, payment_method: Literal["card", "wallet", "cash"] = "card", tip: float = 0.0):
    """Check out a cart as an order to one of the diner's addresses.

    The restaurant must be open and accepting orders, the subtotal at least its minimum, the address within its
    delivery radius and every dish available; wallet payments need funds and cash is limited to 100.

    Args:
        cart_id: The open cart to order.
        address_id: One of the diner's delivery addresses.
        payment_method: How the diner pays.
        tip: Tip for the courier (0 to 50).
    """
    c = _open_cart(st, cart_id)
    if not c["items"]: raise ToolError(f"cart {cart_id} is empty")
    a = need(st, "delivery_address", address_id, "delivery address")
    if a["diner_id"] != c["diner_id"]: raise ToolError(f"address {address_id} belongs to another diner")
    r, d = st.get("restaurant", c["restaurant_id"]), st.get("diner", c["diner_id"])
    if not r["accepting_orders"]: raise ToolError(f"restaurant {r['restaurant_id']} is not accepting orders right now")
    if not _open_now(st, r): raise ToolError(f"restaurant {r['restaurant_id']} is closed now (open {r['opens']}-{r['closes']})")
    for l in c["items"]:
        if not st.get("menu_item", l["menu_item_id"])["available"]: raise ToolError(f"menu item {l['menu_item_id']} ({l['name']}) is sold out; remove it first")
    if not 0 <= tip <= 50: raise ToolError(f"tip must be between 0 and 50, got {tip}")
    t = _totals(st, c, round(tip, 2))
    if t["subtotal"] < r["min_order"]: raise ToolError(f"subtotal {t['subtotal']:.2f} is below the minimum order of {r['min_order']:.2f} at {r['restaurant_id']}")
    dist = haversine_km(a["lat"], a["lon"], r["lat"], r["lon"])
    if dist > r["delivery_radius_km"]:
        raise ToolError(f"address {address_id} is {dist:.1f} km away, outside the {r['delivery_radius_km']:.0f} km delivery radius of {r['restaurant_id']}")
    if payment_method == "cash" and t["total"] > CASH_LIMIT: raise ToolError(f"cash orders are limited to {CASH_LIMIT:.2f}; total is {t['total']:.2f}")
    if payment_method == "wallet":
        if d["wallet_balance"] < t["total"]: raise ToolError(f"wallet balance {d['wallet_balance']:.2f} is less than the total {t['total']:.2f}")
        st.update("diner", d["diner_id"], wallet_balance=round(d["wallet_balance"] - t["total"], 2))
    o = st.insert("food_order", {"diner_id": c["diner_id"], "restaurant_id": r["restaurant_id"], "address_id": address_id,
                                 "items": [dict(l) for l in c["items"]], **t, "promo_code": c["promo_code"], "payment_method": payment_method,
                                 "status": "placed", "placed_at": st.meta["now"], "updated_at": st.meta["now"], "rating": None, "rating_comment": ""})
    st.update("food_cart", cart_id, status="checked_out", order_id=o["order_id"], updated_at=st.meta["now"])
    return {**dict(o), "eta_minutes": round(15 + 4 * dist)}

@server.write(after=("place_food_order",))
def cancel_food_order(st, order_id: OrderId):
    """Cancel an order the restaurant has not started preparing; wallet payments go back to the wallet.

    Args:
        order_id: The order to cancel.
    """
    o = need(st, "food_order", order_id, "order")
    if o["status"] != "placed": raise ToolError(f"order {order_id} is {o['status']}; only placed orders can be cancelled")
    if o["payment_method"] == "wallet":
        d = st.get("diner", o["diner_id"])
        st.update("diner", d["diner_id"], wallet_balance=round(d["wallet_balance"] + o["total"], 2))
    st.update("food_order", order_id, status="cancelled", updated_at=st.meta["now"])
    return {"order_id": order_id, "status": "cancelled", "refund": o["total"] if o["payment_method"] != "cash" else 0.0,
            "refunded_to": {"wallet": "wallet", "card": "card", "cash": None}[o["payment_method"]]}

@server.write(after=("place_food_order",))
def advance_food_order(st, order_id: OrderId):
    """Move an order to its next state: placed -> preparing -> out_for_delivery -> delivered.

    Args:
        order_id: The order to advance.
    """
    o = need(st, "food_order", order_id, "order")
    nxt = NEXT_STATUS.get(o["status"])
    if nxt is None: raise ToolError(f"order {order_id} is {o['status']} and cannot move further")
    st.update("food_order", order_id, status=nxt, updated_at=st.meta["now"])
    return {"order_id": order_id, "previous_status": o["status"], "status": nxt}

@server.write(after=("advance_food_order",))
def rate_food_order(st, order_id: OrderId, stars: int, comment: str = ""):
    """Rate a delivered order once (1 to 5 stars); the restaurant's average rating is updated.

    Args:
        order_id: The delivered order.
        stars: Stars from 1 to 5.
        comment: Optional comment, at most 300 characters.
    """
    o = need(st, "food_order", order_id, "order")
    if o["status"] != "delivered": raise ToolError(f"order {order_id} is {o['status']}; only delivered orders can be rated")
    if o["rating"] is not None: raise ToolError(f"order {order_id} was already rated {o['rating']} stars")
    if not 1 <= stars <= 5: raise ToolError(f"stars must be between 1 and 5, got {stars}")
    if len(comment) > 300: raise ToolError("comment must be at most 300 characters")
    r = st.get("restaurant", o["restaurant_id"])
    n = r["rating_count"]
    st.update("restaurant", r["restaurant_id"], rating=round((r["rating"] * n + stars) / (n + 1), 2), rating_count=n + 1)
    st.update("food_order", order_id, rating=stars, rating_comment=comment.strip())
    return {"order_id": order_id, "rating": stars, "restaurant_rating": st.get("restaurant", r["restaurant_id"])["rating"]}

@server.write(produces="delivery_address")
def add_delivery_address(st, diner_id: DinerId, label: Literal["home", "work", "other"], street: str, city: FoodCity,
                         lat: float | None = None, lon: float | None = None, instructions: str = ""):
    """Save a delivery address for a diner (at most 5; one home and one work).

    Coordinates may be omitted for a house number on a known street; otherwise give them, for example from a geocoder.

    Args:
        diner_id: The diner who gets the address.
        label: Kind of address.
        street: House number and street, such as "120 Market St".
        city: The city.
        lat: Latitude; optional for known streets.
        lon: Longitude; optional for known streets.
        instructions: Optional note for the courier.
    """
    need(st, "diner", diner_id, "diner")
    mine = st.find("delivery_address", diner_id=diner_id)
    if len(mine) >= MAX_ADDRESSES: raise ToolError(f"diner {diner_id} already has {MAX_ADDRESSES} addresses")
    if label in ("home", "work") and any(a["label"] == label for a in mine): raise ToolError(f"diner {diner_id} already has a {label} address")
    street = " ".join(street.split())
    m = re.fullmatch(r"(\d+)\s+(.+)", street)
    if not m: raise ToolError(f"street must start with a house number, got '{street}'")
    if (lat is None) != (lon is None): raise ToolError("give both lat and lon, or neither")
    if lat is None:
        known = next((s for s in CITIES[city][3] if s.lower() == m.group(2).lower()), None)
        if known is None: raise ToolError(f"cannot locate '{street}' in {city}; pass lat and lon")
        lat, lon = street_point(city, known, int(m.group(1)))
        street = f"{m.group(1)} {known}"
    elif haversine_km(lat, lon, CITIES[city][0], CITIES[city][1]) > 30: raise ToolError(f"({lat}, {lon}) is more than 30 km from {city}")
    if any(a["street"].lower() == street.lower() and a["city"] == city for a in mine): raise ToolError(f"diner {diner_id} already saved {street}, {city}")
    return dict(st.insert("delivery_address", {"diner_id": diner_id, "label": label, "street": street, "city": city, "lat": lat, "lon": lon,
                                               "instructions": instructions}))

@server.write(produces="food_cart")
def reorder_food_order(st, order_id: OrderId):
    """Start a new cart with the dishes of a past (delivered or cancelled) order that are still available.

    Args:
        order_id: The order to repeat.
    """
    o = need(st, "food_order", order_id, "order")
    if o["status"] not in ("delivered", "cancelled"): raise ToolError(f"order {order_id} is still {o['status']}")
    c = _has_open_cart(st, o["diner_id"], o["restaurant_id"])
    if c: raise ToolError(f"diner {o['diner_id']} already has open cart {c['cart_id']} at restaurant {o['restaurant_id']}")
    items, skipped = [], []
    for l in o["items"]:
        m = st.get("menu_item", l["menu_item_id"])
        if m["available"]: items.append({**dict(l), "unit_price": m["price"]})
        else: skipped.append(l["menu_item_id"])
    if not items: raise ToolError(f"none of the dishes of order {order_id} is available now")
    cart = st.insert("food_cart", {"diner_id": o["diner_id"], "restaurant_id": o["restaurant_id"], "items": items, "promo_code": None,
                                   "status": "open", "order_id": None, "updated_at": st.meta["now"]})
    return {**_cart_view(st, cart), "skipped_unavailable": skipped}
