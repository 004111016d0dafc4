"""Marketplace: members sell second-hand items; buyers make offers or buy outright; every item sells once (13 tools).

Rules: suspended members can neither list nor buy; a seller cannot buy or bid on their own listing; offers are below
the asking price but at least half of it, one pending offer per buyer and listing, and only on listings that take
offers; a buyer's wallet must cover the price when the offer is made and again when it is accepted; only the seller
accepts or declines, and only pending offers on active listings; a sale moves the price from the buyer's wallet to
the seller's (less a 5% fee), marks the listing sold and declines every other pending offer on it.
"""
from datetime import date, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.marketplace.phrasing import PHRASES
from prove_nb.servers._common import NOW, need
from prove_nb.state import TableSpec

FEE = 0.05
MAX_ACTIVE = 25
Category = Literal["electronics", "furniture", "bikes", "clothing", "books", "music", "sports", "collectibles"]
Condition = Literal["new", "like_new", "good", "fair"]
ITEMS = {
    "electronics": (["iPhone 13 128GB", "Nintendo Switch OLED", "Kindle Paperwhite", "Sony WH-1000XM4 Headphones", "GoPro Hero 9", "iPad Air 4"], (60, 650)),
    "furniture": (["Oak Dining Table", "IKEA Billy Bookcase", "Mid-Century Armchair", "Standing Desk", "Velvet Sofa", "Bedside Table Pair"], (25, 700)),
    "bikes": (["Trek Road Bike 54cm", "Kids Balance Bike", "Brompton Folding Bike", "Gravel Bike Frame", "Electric Cargo Bike"], (40, 2400)),
    "clothing": (["Barbour Wax Jacket", "Levi's 501 Jeans", "Patagonia Fleece", "Wedding Dress Size 10", "Leather Chelsea Boots"], (15, 300)),
    "books": (["Harry Potter Box Set", "Vintage Atlas 1962", "Cookbook Bundle", "Tolkien Hardcovers", "Comic Collection Lot"], (5, 120)),
    "music": (["Yamaha Acoustic Guitar", "Roland Digital Piano", "Vinyl Record Lot", "Fender Bass Amp", "Ukulele Starter Kit"], (30, 900)),
    "sports": (["Ski Boots Size 42", "Rowing Machine", "Camping Tent 4-Person", "Golf Club Set", "Paddle Board"], (25, 600)),
    "collectibles": (["Pokemon Card Binder", "Lego Millennium Falcon", "Signed Football Shirt", "Vintage Film Camera", "Coin Collection"], (20, 1500)),
}
CATEGORIES = tuple(ITEMS)
CONDITIONS = ("new", "like_new", "good", "fair")
FIRST = ["Aiko", "Bastien", "Cora", "Diego", "Effie", "Florin", "Greta", "Hugo", "Ilse", "Jasper", "Kofi", "Lena", "Marek", "Nadia", "Otto", "Rosa"]
LAST = ["Abbott", "Bianchi", "Costa", "Novak", "Ortega", "Pohl", "Quinn", "Reyes", "Sato", "Turner", "Varga", "Weiss"]
CITIES = ["Lisbon", "Madrid", "Utrecht", "Ghent", "Lyon", "Turin", "Krakow", "Vienna"]
MESSAGES = ["Would you take this?", "Can pick up this weekend.", "Cash on collection.", "Is it still available?", ""]

def _day(days_ago: int) -> str: return (date.fromisoformat(NOW[:10]) - timedelta(days=days_ago)).isoformat()

def _days_ago(day: str) -> int: return (date.fromisoformat(NOW[:10]) - date.fromisoformat(day)).days

def _member(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"name": f"{first} {last}", "handle": f"{first.lower()}_{last.lower()[:3]}{i + 1}", "city": rng.choice(CITIES),
            "wallet": round(rng.choice([0, 40, 150, 400, 900, 2500]) + rng.uniform(0, 100), 2),
            "status": "suspended" if i % 9 == 4 else "active", "joined": _day(rng.randint(30, 1500))}

def _listing(rng, i, pick):
    cat = CATEGORIES[i % len(CATEGORIES)]
    names, (lo, hi) = ITEMS[cat]
    status = rng.choice(["active"] * 6 + ["sold", "sold", "withdrawn"])
    seller = pick("member")
    price, offers, age = float(round(rng.uniform(lo, hi) / 5) * 5 or 5), rng.random() < 0.8, rng.randint(1, 90)
    return {"seller_id": seller, "title": rng.choice(names), "category": cat, "condition": rng.choice(CONDITIONS), "price": price,
            "accepts_offers": offers, "status": status, "listed_on": _day(age),
            "description": rng.choice(["Barely used, from a smoke-free home.", "Some signs of wear, see photos.", "Collection only.",
                                       "Selling because I'm moving.", "Original box and receipt included."])}

def _buyer(rng, pick, seller):
    "A member other than `seller` (or None after a few unlucky draws)."
    for _ in range(4):
        m = pick("member")
        if m != seller: return m
    return None

def _offer(rng, i, pick):
    l = rng.choice(pick.rows("listing"))
    buyer, seen = _buyer(rng, pick, l["seller_id"]), pick.memo.setdefault("offers", set())
    if l["status"] != "active" or not l["accepts_offers"] or buyer is None or (l["listing_id"], buyer) in seen: return None
    seen.add((l["listing_id"], buyer))
    return {"listing_id": l["listing_id"], "buyer_id": buyer, "amount": float(round(l["price"] * rng.uniform(0.55, 0.95))),
            "status": rng.choice(["pending", "pending", "pending", "declined"]), "message": rng.choice(MESSAGES),
            "created_at": _day(rng.randint(0, min(_days_ago(l["listed_on"]), 20)))}

def _sale(rng, i, pick):
    "The sale of the i-th sold listing."
    sold = pick.group("listing", "status").get("sold", [])
    if i >= len(sold): return None
    l = sold[i]
    buyer = _buyer(rng, pick, l["seller_id"])
    if buyer is None: return None
    return {"listing_id": l["listing_id"], "seller_id": l["seller_id"], "buyer_id": buyer, "offer_id": None, "price": l["price"],
            "fee": round(l["price"] * FEE, 2), "date": _day(rng.randint(0, _days_ago(l["listed_on"]) - 1))}

server = ToolServer(
    "marketplace", "A peer-to-peer marketplace: browse listings, make and answer offers, buy items, manage your own listings.",
    [TableSpec("member", "member_id", "mem_"),
     TableSpec("listing", "listing_id", "lst_", {"seller_id": "member"}),
     TableSpec("offer", "offer_id", "off_", {"listing_id": "listing", "buyer_id": "member"}),
     TableSpec("sale", "sale_id", "sale_", {"listing_id": "listing", "seller_id": "member", "buyer_id": "member", "offer_id": "offer"})],
    {"member": _member, "listing": _listing, "offer": _offer, "sale": _sale},
    {"member": 24, "listing": 60, "offer": 80, "sale": 60},
    now=NOW, phrases=PHRASES)

MemberId = Annotated[str, Entity("member")]
ListingId = Annotated[str, Entity("listing")]
OfferId = Annotated[str, Entity("offer")]

def _active_member(st, member_id):
    m = need(st, "member", member_id)
    if m["status"] != "active": raise ToolError(f"member {member_id} is {m['status']}")
    return m

def _active_listing(st, listing_id):
    l = need(st, "listing", listing_id)
    if l["status"] != "active": raise ToolError(f"listing {listing_id} is {l['status']}")
    return l

def _own_listing(st, listing_id, seller_id):
    l = need(st, "listing", listing_id)
    if l["seller_id"] != seller_id: raise ToolError(f"listing {listing_id} belongs to {l['seller_id']}, not {seller_id}")
    return l

def _pending_offer(st, offer_id, seller_id):
    "A pending offer on an active listing of `seller_id`."
    o = need(st, "offer", offer_id)
    _own_listing(st, o["listing_id"], seller_id)
    if o["status"] != "pending": raise ToolError(f"offer {offer_id} is {o['status']}, not pending")
    _active_listing(st, o["listing_id"])
    return o

def _sell(st, listing, buyer_id, price, offer_id=None):
    "Move the money, mark the listing sold, decline the other pending offers; returns the sale row."
    buyer = _active_member(st, buyer_id)
    if buyer["wallet"] < price: raise ToolError(f"member {buyer_id} has {buyer['wallet']:.2f} in their wallet and cannot pay {price:.2f}")
    seller = st.get("member", listing["seller_id"])
    fee = round(price * FEE, 2)
    st.update("member", buyer_id, wallet=round(buyer["wallet"] - price, 2))
    st.update("member", seller["member_id"], wallet=round(seller["wallet"] + price - fee, 2))
    st.update("listing", listing["listing_id"], status="sold")
    for o in st.find("offer", listing_id=listing["listing_id"], status="pending"):
        if o["offer_id"] != offer_id: st.update("offer", o["offer_id"], status="declined")
    return st.insert("sale", {"listing_id": listing["listing_id"], "seller_id": seller["member_id"], "buyer_id": buyer_id,
                              "offer_id": offer_id, "price": price, "fee": fee, "date": st.meta["now"][:10]})

@server.read(produces="member")
def find_market_members(st, name: str = "", handle: str = "", city: str = ""):
    """Find marketplace members by part of their name, handle or city; shows wallet balance and status.

    Args:
        name: Part of the member's name (case-insensitive).
        handle: Part of the member's handle.
        city: The member's city (case-insensitive).
    """
    n, h, c = name.lower(), handle.lower(), city.lower()
    return [dict(m) for m in st.rows("member") if n in m["name"].lower() and h in m["handle"].lower() and c in m["city"].lower()]

@server.read(produces=("listing", "member"))
def search_market_listings(st, query: str = "", category: Category | None = None, max_price: float | None = None,
                           condition: Condition | None = None, seller_id: MemberId | None = None,
                           status: Literal["active", "sold", "withdrawn"] = "active", limit: int = 20):
    """Search listings by words in the title and filters, cheapest first.

    Args:
        query: Words that must all appear in the title (case-insensitive).
        category: Only this category.
        max_price: Only listings asking at most this much.
        condition: Only items in this condition.
        seller_id: Only listings of this seller.
        status: Listing state to search.
        limit: Maximum number of listings (1 to 50).
    """
    if not 1 <= limit <= 50: raise ToolError(f"limit must be between 1 and 50, got {limit}")
    if seller_id is not None: need(st, "member", seller_id)
    words = query.lower().split()
    hits = [dict(l) for l in st.rows("listing") if l["status"] == status and all(w in l["title"].lower() for w in words)
            and category in (None, l["category"]) and condition in (None, l["condition"]) and seller_id in (None, l["seller_id"])
            and (max_price is None or l["price"] <= max_price)]
    return sorted(hits, key=lambda l: (l["price"], l["listing_id"]))[:limit]

@server.read(produces=("listing", "member"))
def get_market_listing(st, listing_id: ListingId):
    """Get one listing with its seller's name and city, the number of pending offers and the best pending offer.

    Args:
        listing_id: The listing to look up.
    """
    l = need(st, "listing", listing_id)
    seller = st.get("member", l["seller_id"])
    pending = [o["amount"] for o in st.find("offer", listing_id=listing_id, status="pending")]
    return {**dict(l), "seller_name": seller["name"], "seller_city": seller["city"], "pending_offers": len(pending),
            "best_offer": max(pending) if pending else None}

@server.read(produces=("offer", "member"))
def list_listing_offers(st, listing_id: ListingId, status: Literal["pending", "accepted", "declined"] | None = None):
    """List the offers made on a listing, highest first.

    Args:
        listing_id: The listing whose offers to list.
        status: Only offers in this state.
    """
    need(st, "listing", listing_id)
    rows = [dict(o) for o in st.find("offer", listing_id=listing_id) if status in (None, o["status"])]
    return sorted(rows, key=lambda o: (-o["amount"], o["offer_id"]))

@server.read(produces=("offer", "listing"))
def list_buyer_offers(st, buyer_id: MemberId, status: Literal["pending", "accepted", "declined"] | None = None):
    """List the offers a member has made as a buyer, newest first, with each listing's title and asking price.

    Args:
        buyer_id: The member who made the offers.
        status: Only offers in this state.
    """
    need(st, "member", buyer_id)
    rows = []
    for o in st.find("offer", buyer_id=buyer_id):
        if status in (None, o["status"]):
            l = st.get("listing", o["listing_id"])
            rows.append({**dict(o), "title": l["title"], "asking_price": l["price"], "listing_status": l["status"]})
    return sorted(rows, key=lambda o: (o["created_at"], o["offer_id"]), reverse=True)

@server.read(produces=("sale", "listing"))
def list_market_sales(st, member_id: MemberId, role: Literal["seller", "buyer"] = "seller"):
    """List the completed sales of a member as seller or as buyer, newest first.

    Args:
        member_id: The member.
        role: Whether to list what the member sold or what they bought.
    """
    need(st, "member", member_id)
    rows = [{**dict(s), "title": st.get("listing", s["listing_id"])["title"]} for s in st.rows("sale") if s[f"{role}_id"] == member_id]
    return sorted(rows, key=lambda s: (s["date"], s["sale_id"]), reverse=True)

@server.write(produces="listing")
def create_market_listing(st, seller_id: MemberId, title: str, category: Category, condition: Condition, price: float,
                          accepts_offers: bool = True, description: str = ""):
    """List an item for sale (an active member may have at most 25 active listings).

    Args:
        seller_id: The member selling the item.
        title: What is sold, e.g. "Trek Road Bike 54cm".
        category: The item's category.
        condition: The item's condition.
        price: Asking price, above 0 and at most 100000.
        accepts_offers: Whether buyers may make offers below the asking price.
        description: Optional details for buyers.
    """
    _active_member(st, seller_id)
    if not title.strip(): raise ToolError("title must not be empty")
    if not 0 < price <= 100000: raise ToolError(f"price must be above 0 and at most 100000, got {price}")
    if len(st.find("listing", seller_id=seller_id, status="active")) >= MAX_ACTIVE:
        raise ToolError(f"member {seller_id} already has {MAX_ACTIVE} active listings")
    return dict(st.insert("listing", {"seller_id": seller_id, "title": title.strip(), "category": category, "condition": condition,
                                      "price": round(float(price), 2), "accepts_offers": accepts_offers, "status": "active",
                                      "listed_on": st.meta["now"][:10], "description": description.strip()}))

@server.write(after=("create_market_listing",))
def update_listing_price(st, listing_id: ListingId, seller_id: MemberId, price: float):
    """Change the asking price of one of the seller's active listings.

    Args:
        listing_id: The listing to reprice.
        seller_id: The member who owns the listing.
        price: The new asking price, above 0 and different from the current one.
    """
    l = _own_listing(st, listing_id, seller_id)
    _active_listing(st, listing_id)
    if not 0 < price <= 100000: raise ToolError(f"price must be above 0 and at most 100000, got {price}")
    if round(price, 2) == l["price"]: raise ToolError(f"listing {listing_id} already asks {l['price']:.2f}")
    return dict(st.update("listing", listing_id, price=round(float(price), 2)))

@server.write(after=("create_market_listing",))
def withdraw_listing(st, listing_id: ListingId, seller_id: MemberId):
    """Take one of the seller's active listings off the market; its pending offers are declined.

    Args:
        listing_id: The listing to withdraw.
        seller_id: The member who owns the listing.
    """
    _own_listing(st, listing_id, seller_id)
    _active_listing(st, listing_id)
    declined = sorted(o["offer_id"] for o in st.find("offer", listing_id=listing_id, status="pending"))
    for o in declined: st.update("offer", o, status="declined")
    return {**dict(st.update("listing", listing_id, status="withdrawn")), "declined_offers": declined}

@server.write(produces="offer")
def make_listing_offer(st, listing_id: ListingId, buyer_id: MemberId, amount: float, message: str = ""):
    """Offer a price below the asking price (at least half of it) on an active listing that accepts offers.

    Args:
        listing_id: The listing to bid on.
        buyer_id: The member making the offer; their wallet must cover the amount.
        amount: The offered price.
        message: Optional note to the seller.
    """
    l = _active_listing(st, listing_id)
    buyer = _active_member(st, buyer_id)
    if l["seller_id"] == buyer_id: raise ToolError(f"member {buyer_id} is the seller of listing {listing_id}")
    if not l["accepts_offers"]: raise ToolError(f"listing {listing_id} does not accept offers; buy it at {l['price']:.2f} instead")
    if amount >= l["price"]: raise ToolError(f"offer {amount:.2f} is not below the asking price {l['price']:.2f}; buy it outright instead")
    if amount < l["price"] / 2: raise ToolError(f"offer {amount:.2f} is below half the asking price {l['price']:.2f}")
    if buyer["wallet"] < amount: raise ToolError(f"member {buyer_id} has only {buyer['wallet']:.2f} in their wallet")
    if st.find("offer", listing_id=listing_id, buyer_id=buyer_id, status="pending"):
        raise ToolError(f"member {buyer_id} already has a pending offer on listing {listing_id}")
    return dict(st.insert("offer", {"listing_id": listing_id, "buyer_id": buyer_id, "amount": round(float(amount), 2), "status": "pending",
                                    "message": message.strip(), "created_at": st.meta["now"][:10]}))

@server.write(produces="sale", after=("make_listing_offer",))
def accept_listing_offer(st, offer_id: OfferId, seller_id: MemberId):
    """Accept a pending offer on your listing: the buyer pays, the listing is sold, other pending offers are declined.

    Args:
        offer_id: The offer to accept.
        seller_id: The member who owns the listing.
    """
    o = _pending_offer(st, offer_id, seller_id)
    st.update("offer", offer_id, status="accepted")
    sale = _sell(st, st.get("listing", o["listing_id"]), o["buyer_id"], o["amount"], offer_id)
    return {**dict(sale), "seller_wallet": st.get("member", seller_id)["wallet"]}

@server.write(after=("make_listing_offer",))
def decline_listing_offer(st, offer_id: OfferId, seller_id: MemberId):
    """Decline a pending offer on your listing.

    Args:
        offer_id: The offer to decline.
        seller_id: The member who owns the listing.
    """
    _pending_offer(st, offer_id, seller_id)
    return dict(st.update("offer", offer_id, status="declined"))

@server.write(produces="sale")
def buy_listing_now(st, listing_id: ListingId, buyer_id: MemberId):
    """Buy an active listing at its asking price: the buyer pays, the listing is sold, pending offers are declined.

    Args:
        listing_id: The listing to buy.
        buyer_id: The member buying; their wallet must cover the price.
    """
    l = _active_listing(st, listing_id)
    if l["seller_id"] == buyer_id: raise ToolError(f"member {buyer_id} is the seller of listing {listing_id}")
    sale = _sell(st, l, buyer_id, l["price"])
    return {**dict(sale), "buyer_wallet": st.get("member", buyer_id)["wallet"]}
