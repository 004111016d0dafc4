"""Trading: investors, portfolios, tax lots, a deterministic quote table, market and limit orders, watchlists (13 tools).

Rules: quotes never move (each symbol has one fixed price); halted securities refuse new orders; frozen portfolios
refuse orders and deposits; a buy needs the cash, a sell needs shares not already promised to open sell orders;
a limit order fills at once at the quote when the limit allows, otherwise it stays open (an open buy reserves
quantity x limit of cash until it is cancelled); sells consume lots first-in first-out; only open orders can be
cancelled; IRA portfolios take at most 7,000.00 of deposits a year.
"""
from datetime import timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.trading.phrasing import PHRASES
from prove_nb.servers._common import TODAY, need
from prove_nb.state import TableSpec

# symbol: (company, sector, exchange, price, status) -- the fixed quote table
SECURITIES = {
    "AAPL": ("Apple Inc.", "technology", "NASDAQ", 212.40, "trading"),
    "MSFT": ("Microsoft Corp.", "technology", "NASDAQ", 468.15, "trading"),
    "NVDA": ("NVIDIA Corp.", "technology", "NASDAQ", 131.60, "trading"),
    "GOOGL": ("Alphabet Inc. Class A", "communication", "NASDAQ", 176.25, "trading"),
    "META": ("Meta Platforms Inc.", "communication", "NASDAQ", 512.80, "trading"),
    "AMZN": ("Amazon.com Inc.", "consumer", "NASDAQ", 189.05, "trading"),
    "TSLA": ("Tesla Inc.", "consumer", "NASDAQ", 182.30, "trading"),
    "NFLX": ("Netflix Inc.", "communication", "NASDAQ", 655.90, "trading"),
    "JPM": ("JPMorgan Chase & Co.", "financials", "NYSE", 201.45, "trading"),
    "BAC": ("Bank of America Corp.", "financials", "NYSE", 39.85, "trading"),
    "GS": ("Goldman Sachs Group Inc.", "financials", "NYSE", 462.10, "trading"),
    "V": ("Visa Inc.", "financials", "NYSE", 274.60, "trading"),
    "JNJ": ("Johnson & Johnson", "healthcare", "NYSE", 151.20, "trading"),
    "PFE": ("Pfizer Inc.", "healthcare", "NYSE", 28.45, "trading"),
    "UNH": ("UnitedHealth Group Inc.", "healthcare", "NYSE", 495.70, "trading"),
    "MRNA": ("Moderna Inc.", "healthcare", "NASDAQ", 118.35, "halted"),
    "XOM": ("Exxon Mobil Corp.", "energy", "NYSE", 113.90, "trading"),
    "CVX": ("Chevron Corp.", "energy", "NYSE", 157.25, "trading"),
    "NEE": ("NextEra Energy Inc.", "utilities", "NYSE", 71.40, "trading"),
    "DUK": ("Duke Energy Corp.", "utilities", "NYSE", 101.65, "trading"),
    "KO": ("Coca-Cola Co.", "consumer", "NYSE", 62.75, "trading"),
    "PEP": ("PepsiCo Inc.", "consumer", "NASDAQ", 166.30, "trading"),
    "WMT": ("Walmart Inc.", "consumer", "NYSE", 68.20, "trading"),
    "COST": ("Costco Wholesale Corp.", "consumer", "NASDAQ", 842.55, "trading"),
    "BA": ("Boeing Co.", "industrials", "NYSE", 178.40, "trading"),
    "CAT": ("Caterpillar Inc.", "industrials", "NYSE", 334.15, "trading"),
    "GE": ("GE Aerospace", "industrials", "NYSE", 160.90, "trading"),
    "PLTR": ("Palantir Technologies Inc.", "technology", "NASDAQ", 23.60, "trading"),
    "RIVN": ("Rivian Automotive Inc.", "consumer", "NASDAQ", 11.85, "halted"),
    "SPY": ("SPDR S&P 500 ETF Trust", "fund", "NYSE", 541.35, "trading"),
    "QQQ": ("Invesco QQQ Trust", "fund", "NASDAQ", 468.90, "trading"),
    "VTI": ("Vanguard Total Stock Market ETF", "fund", "NYSE", 266.10, "trading"),
}
SYMBOLS = list(SECURITIES)
SECTORS = Literal["technology", "communication", "consumer", "financials", "healthcare", "energy", "utilities",
                  "industrials", "fund"]
IRA_LIMIT = 7000.0
MAX_DEPOSIT = 100000.0
MAX_WATCHLIST = 25

FIRST = ["Amara", "Bruno", "Carmen", "Dmitri", "Esther", "Felix", "Gwen", "Hassan", "Isla", "Jamal", "Keiko", "Lars",
         "Mei", "Nadia", "Omar", "Paula", "Quinn", "Rafael", "Sana", "Tobias"]
LAST = ["Abara", "Brennan", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Huang", "Ivanova", "Johansson",
        "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Osei", "Petrov"]
PORTFOLIO_NAMES = ["Growth", "Retirement", "Dividend Income", "College Fund", "Tech Bets", "Core Index", "Rainy Day",
                   "Value Picks", "House Deposit", "Play Money"]
WATCH_NAMES = ["Earnings this month", "Dividend ideas", "Maybe later", "AI plays", "Defensive", "Energy watch",
               "Big tech", "Bargains"]

def _day(rng, lo, hi) -> str:
    "An ISO date between `lo` and `hi` days before the server's today."
    return (TODAY - timedelta(days=rng.randint(lo, hi))).isoformat()

def _investor(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"name": f"{first} {last}", "email": f"{first.lower()}.{last.lower()}{i}@mail.example",
            "risk_profile": rng.choice(["conservative", "balanced", "balanced", "aggressive"])}

def _portfolio(rng, i, pick):
    kind = rng.choice(["taxable", "taxable", "ira"])
    return {"investor_id": pick("investor"), "name": rng.choice(PORTFOLIO_NAMES), "kind": kind,
            "cash": round(rng.uniform(300, 60000), 2), "currency": "USD", "status": rng.choice(["active"] * 9 + ["frozen"]),
            "contributions_ytd": round(rng.uniform(0, 6500), 2) if kind == "ira" else 0.0, "opened": _day(rng, 200, 3000)}

def _security(rng, i, pick):
    if i >= len(SYMBOLS): return None  # the quote table is the same at every size
    s = SYMBOLS[i]
    name, sector, exchange, price, status = SECURITIES[s]
    return {"symbol": s, "name": name, "sector": sector, "exchange": exchange, "price": price, "status": status}

def _lot(rng, i, pick):
    sym = pick("security")
    return {"portfolio_id": pick("portfolio"), "symbol": sym, "quantity": rng.choice([1, 2, 5, 10, 10, 20, 25, 50, 100, 150]),
            "cost_basis": round(SECURITIES[sym][3] * rng.uniform(0.55, 1.3), 2), "acquired": _day(rng, 3, 1500)}

def _order(rng, i, pick):
    sym, price = pick("security"), None
    status = rng.choice(["filled"] * 3 + ["cancelled", "open", "open"])
    side = "buy" if status == "open" else rng.choice(["buy", "sell"])  # seeded open orders are buys: their cash is reserved
    otype = "market" if status == "filled" and rng.random() < 0.5 else "limit"  # only limit orders wait (or get cancelled)
    qty = rng.choice([1, 3, 5, 10, 20, 40])
    quote = SECURITIES[sym][3]
    limit = round(quote * rng.uniform(0.8, 0.97), 2) if otype == "limit" else None
    if status == "filled": price = limit if otype == "limit" else round(quote * rng.uniform(0.85, 1.1), 2)
    created = _day(rng, 1, 120)
    return {"portfolio_id": pick("portfolio"), "symbol": sym, "side": side, "order_type": otype, "quantity": qty,
            "limit_price": limit, "status": status, "fill_price": price,
            "reserved_cash": round(qty * limit, 2) if status == "open" else 0.0,
            "realized_pnl": None, "created": f"{created}T{rng.randint(9, 15):02d}:{rng.randint(0, 59):02d}:00",
            "filled_at": f"{created}T16:00:00" if status == "filled" else None}

def _watchlist(rng, i, pick):
    return {"investor_id": pick("investor"), "name": rng.choice(WATCH_NAMES),
            "symbols": sorted({pick("security") for _ in range(rng.randint(2, 7))})}

server = ToolServer(
    "trading", "Brokerage: investors, portfolios, holdings, stock quotes, market and limit orders, watchlists.",
    [TableSpec("investor", "investor_id", "ivs_"),
     TableSpec("portfolio", "portfolio_id", "pf_", {"investor_id": "investor"}),
     TableSpec("security", "symbol", "sec_"),
     TableSpec("lot", "lot_id", "lot_", {"portfolio_id": "portfolio", "symbol": "security"}),
     TableSpec("trade_order", "order_id", "tord_", {"portfolio_id": "portfolio", "symbol": "security"}),
     TableSpec("watchlist", "watchlist_id", "wl_", {"investor_id": "investor", "symbols": "security"})],
    {"investor": _investor, "portfolio": _portfolio, "security": _security, "lot": _lot, "trade_order": _order,
     "watchlist": _watchlist},
    {"investor": 8, "portfolio": 14, "security": len(SYMBOLS), "lot": 60, "trade_order": 36, "watchlist": 9}, phrases=PHRASES)

InvestorId = Annotated[str, Entity("investor")]
PortfolioId = Annotated[str, Entity("portfolio")]
Symbol = Annotated[str, Entity("security")]
OrderId = Annotated[str, Entity("trade_order")]
WatchlistId = Annotated[str, Entity("watchlist")]

def _security_row(st, symbol):
    row = st.get("security", symbol.strip().upper())
    if row is None: raise ToolError(f"no security with symbol '{symbol}'")
    return row

def _price(st, symbol): return st.get("security", symbol)["price"]

def _tradable(st, portfolio_id, symbol, quantity):
    "The active portfolio and the trading security of an order, after checking the quantity."
    if quantity < 1: raise ToolError(f"quantity must be at least 1 share, got {quantity}")
    pf = need(st, "portfolio", portfolio_id, "portfolio")
    if pf["status"] != "active": raise ToolError(f"portfolio {portfolio_id} is {pf['status']} and cannot trade")
    sec = _security_row(st, symbol)
    if sec["status"] != "trading": raise ToolError(f"trading in {sec['symbol']} is {sec['status']}")
    return pf, sec

def _lots(st, portfolio_id, symbol):
    "The portfolio's lots of `symbol`, oldest first."
    return sorted((r for r in st.rows("lot") if r["portfolio_id"] == portfolio_id and r["symbol"] == symbol),
                  key=lambda r: (r["acquired"], r["lot_id"]))

def _available_shares(st, portfolio_id, symbol):
    "Shares held minus shares promised to open sell orders."
    held = sum(r["quantity"] for r in _lots(st, portfolio_id, symbol))
    promised = sum(o["quantity"] for o in st.rows("trade_order") if o["portfolio_id"] == portfolio_id
                   and o["symbol"] == symbol and o["side"] == "sell" and o["status"] == "open")
    return held - promised

def _fill(st, pf, sec, side, quantity, order):
    "Execute `quantity` shares at the quote: move cash and lots; returns the filled order row."
    price, now = sec["price"], st.meta["now"]
    amount = round(quantity * price, 2)
    pnl = None
    if side == "buy":
        if pf["cash"] < amount:
            raise ToolError(f"insufficient cash in {pf['portfolio_id']}: {pf['cash']:.2f} available, {amount:.2f} needed")
        st.update("portfolio", pf["portfolio_id"], cash=round(pf["cash"] - amount, 2))
        st.insert("lot", {"portfolio_id": pf["portfolio_id"], "symbol": sec["symbol"], "quantity": quantity,
                          "cost_basis": price, "acquired": now[:10]})
    else:
        left, cost = quantity, 0.0
        for lot in _lots(st, pf["portfolio_id"], sec["symbol"]):
            take = min(left, lot["quantity"])
            cost += take * lot["cost_basis"]
            if take == lot["quantity"]: st.delete("lot", lot["lot_id"])
            else: st.update("lot", lot["lot_id"], quantity=lot["quantity"] - take)
            left -= take
            if not left: break
        pnl = round(amount - cost, 2)
        st.update("portfolio", pf["portfolio_id"], cash=round(pf["cash"] + amount, 2))
    return st.insert("trade_order", {**order, "status": "filled", "fill_price": price, "reserved_cash": 0.0,
                                     "realized_pnl": pnl, "created": now, "filled_at": now})

def _check_sellable(st, pf, sec, quantity):
    avail = _available_shares(st, pf["portfolio_id"], sec["symbol"])
    if avail < quantity:
        raise ToolError(f"insufficient shares: portfolio {pf['portfolio_id']} can sell {avail} {sec['symbol']}, not {quantity}")

def _order_out(st, order):
    return {**dict(order), "cash_after": st.get("portfolio", order["portfolio_id"])["cash"]}

@server.read(produces="investor")
def find_investors(st, name: str = "", risk_profile: Literal["conservative", "balanced", "aggressive"] | None = None):
    """Find brokerage investors whose name contains the given text (case-insensitive).

    Args:
        name: Part of the investor's name; empty matches everyone.
        risk_profile: Only investors with this risk profile.
    """
    n = name.lower()
    return [dict(r) for r in st.rows("investor") if n in r["name"].lower() and risk_profile in (None, r["risk_profile"])]

@server.read(produces="portfolio")
def list_portfolios(st, investor_id: InvestorId):
    """List an investor's portfolios with free cash, status and the market value of their holdings.

    Args:
        investor_id: The investor whose portfolios to list.
    """
    need(st, "investor", investor_id, "investor")
    pfs = [dict(r) for r in st.rows("portfolio") if r["investor_id"] == investor_id]
    ids = {p["portfolio_id"] for p in pfs}
    value = dict.fromkeys(ids, 0.0)
    for lot in st.rows("lot"):
        if lot["portfolio_id"] in ids: value[lot["portfolio_id"]] += lot["quantity"] * _price(st, lot["symbol"])
    return [{**p, "holdings_value": round(value[p["portfolio_id"]], 2)} for p in pfs]

@server.read(produces="security")
def search_securities(st, query: str = "", sector: SECTORS | None = None):
    """Search the quote table by symbol or company name, optionally within one sector.

    Args:
        query: Part of the symbol or the company name (case-insensitive); empty matches all.
        sector: Only securities of this sector.
    """
    q = query.strip().lower()
    return [dict(r) for r in st.rows("security")
            if (q in r["symbol"].lower() or q in r["name"].lower()) and sector in (None, r["sector"])]

@server.read(produces="security")
def get_stock_quote(st, symbol: Symbol):
    """Get the current quote of one security: price, sector, exchange and whether it is trading or halted.

    Args:
        symbol: Ticker symbol, e.g. AAPL.
    """
    return dict(_security_row(st, symbol))

@server.read(produces=("lot", "security"))
def list_holdings(st, portfolio_id: PortfolioId):
    """List a portfolio's holdings per symbol: shares, shares free to sell, average cost, market value, gain and lot ids.

    Args:
        portfolio_id: The portfolio whose holdings to list.
    """
    need(st, "portfolio", portfolio_id, "portfolio")
    by = {}
    for lot in st.rows("lot"):
        if lot["portfolio_id"] == portfolio_id: by.setdefault(lot["symbol"], []).append(lot)
    out = []
    for sym in sorted(by):
        qty = sum(l["quantity"] for l in by[sym])
        cost = sum(l["quantity"] * l["cost_basis"] for l in by[sym])
        price = _price(st, sym)
        value = qty * price
        out.append({"symbol": sym, "quantity": qty, "available": _available_shares(st, portfolio_id, sym),
                    "avg_cost": round(cost / qty, 2), "price": price, "market_value": round(value, 2),
                    "unrealized_pnl": round(value - cost, 2), "lot_ids": sorted(l["lot_id"] for l in by[sym])})
    return out

@server.read(produces="trade_order")
def list_trade_orders(st, portfolio_id: PortfolioId, status: Literal["open", "filled", "cancelled"] | None = None,
                      symbol: Symbol = ""):
    """List a portfolio's orders, newest first, optionally by status or symbol.

    Args:
        portfolio_id: The portfolio whose orders to list.
        status: Only orders in this state.
        symbol: Only orders for this ticker symbol.
    """
    need(st, "portfolio", portfolio_id, "portfolio")
    sym = symbol.strip().upper()
    rows = [dict(r) for r in st.rows("trade_order") if r["portfolio_id"] == portfolio_id
            and status in (None, r["status"]) and sym in ("", r["symbol"])]
    return sorted(rows, key=lambda r: (r["created"], r["order_id"]), reverse=True)

@server.read(produces="watchlist")
def list_stock_watchlists(st, investor_id: InvestorId):
    """List an investor's stock watchlists and the symbols on each.

    Args:
        investor_id: The investor whose watchlists to list.
    """
    need(st, "investor", investor_id, "investor")
    return [dict(r) for r in st.rows("watchlist") if r["investor_id"] == investor_id]

@server.write(produces="trade_order")
def place_market_order(st, portfolio_id: PortfolioId, symbol: Symbol, side: Literal["buy", "sell"], quantity: int):
    """Buy or sell whole shares at the current quote; the order fills immediately (a buy needs the cash, a sell the shares).

    Args:
        portfolio_id: The portfolio that trades.
        symbol: Ticker symbol of the security.
        side: buy or sell.
        quantity: Number of whole shares (at least 1).
    """
    pf, sec = _tradable(st, portfolio_id, symbol, quantity)
    if side == "sell": _check_sellable(st, pf, sec, quantity)
    order = {"portfolio_id": portfolio_id, "symbol": sec["symbol"], "side": side, "order_type": "market",
             "quantity": quantity, "limit_price": None}
    return _order_out(st, _fill(st, pf, sec, side, quantity, order))

@server.write(produces="trade_order")
def place_limit_order(st, portfolio_id: PortfolioId, symbol: Symbol, side: Literal["buy", "sell"], quantity: int,
                      limit_price: float):
    """Place a limit order: it fills now at the quote if the limit allows, else stays open (an open buy reserves quantity x limit cash).

    Args:
        portfolio_id: The portfolio that trades.
        symbol: Ticker symbol of the security.
        side: buy or sell.
        quantity: Number of whole shares (at least 1).
        limit_price: Highest price to pay (buy) or lowest price to accept (sell), per share.
    """
    if limit_price <= 0: raise ToolError(f"limit_price must be positive, got {limit_price}")
    pf, sec = _tradable(st, portfolio_id, symbol, quantity)
    if side == "sell": _check_sellable(st, pf, sec, quantity)
    order = {"portfolio_id": portfolio_id, "symbol": sec["symbol"], "side": side, "order_type": "limit",
             "quantity": quantity, "limit_price": round(limit_price, 2)}
    if (sec["price"] <= limit_price) if side == "buy" else (sec["price"] >= limit_price):
        return _order_out(st, _fill(st, pf, sec, side, quantity, order))
    reserve = round(quantity * limit_price, 2) if side == "buy" else 0.0
    if reserve > pf["cash"]:
        raise ToolError(f"insufficient cash in {portfolio_id}: {pf['cash']:.2f} available, {reserve:.2f} to reserve")
    st.update("portfolio", portfolio_id, cash=round(pf["cash"] - reserve, 2))
    o = st.insert("trade_order", {**order, "status": "open", "fill_price": None, "reserved_cash": reserve,
                                  "realized_pnl": None, "created": st.meta["now"], "filled_at": None})
    return _order_out(st, o)

@server.write(after=("place_limit_order",))
def cancel_trade_order(st, order_id: OrderId):
    """Cancel an open order; a buy order's reserved cash returns to the portfolio.

    Args:
        order_id: The open order to cancel.
    """
    o = need(st, "trade_order", order_id, "order")
    if o["status"] != "open": raise ToolError(f"order {order_id} is already {o['status']} and cannot be cancelled")
    pf = st.get("portfolio", o["portfolio_id"])
    st.update("portfolio", pf["portfolio_id"], cash=round(pf["cash"] + o["reserved_cash"], 2))
    return _order_out(st, st.update("trade_order", order_id, status="cancelled", reserved_cash=0.0))

@server.write
def fund_portfolio(st, portfolio_id: PortfolioId, amount: float):
    """Add cash to an active portfolio from the investor's linked bank (at most 100,000.00 a deposit; IRAs 7,000.00 a year).

    Args:
        portfolio_id: The portfolio to fund.
        amount: Positive amount in USD.
    """
    if amount <= 0: raise ToolError(f"amount must be positive, got {amount}")
    if amount > MAX_DEPOSIT: raise ToolError(f"a single deposit is limited to {MAX_DEPOSIT:.2f}, got {amount:.2f}")
    pf = need(st, "portfolio", portfolio_id, "portfolio")
    if pf["status"] != "active": raise ToolError(f"portfolio {portfolio_id} is {pf['status']} and cannot take deposits")
    ytd = pf["contributions_ytd"]
    if pf["kind"] == "ira" and ytd + amount > IRA_LIMIT:
        raise ToolError(f"IRA contribution limit: {portfolio_id} has {ytd:.2f} of {IRA_LIMIT:.2f} this year, "
                        f"at most {IRA_LIMIT - ytd:.2f} more")
    pf = st.update("portfolio", portfolio_id, cash=round(pf["cash"] + amount, 2),
                   contributions_ytd=round(ytd + amount, 2) if pf["kind"] == "ira" else ytd)
    return {"portfolio_id": portfolio_id, "cash": pf["cash"], "contributions_ytd": pf["contributions_ytd"]}

@server.write(produces="watchlist")
def create_stock_watchlist(st, investor_id: InvestorId, name: str, symbols: list[Symbol] | None = None):
    """Create a named watchlist for an investor (names are unique per investor), optionally with first symbols.

    Args:
        investor_id: The investor who owns the watchlist.
        name: Name of the new watchlist.
        symbols: Ticker symbols to start with (at most 25).
    """
    need(st, "investor", investor_id, "investor")
    name = name.strip()
    if not name: raise ToolError("watchlist name must not be empty")
    if any(w["name"].lower() == name.lower() for w in st.find("watchlist", investor_id=investor_id)):
        raise ToolError(f"investor {investor_id} already has a watchlist named '{name}'")
    syms = sorted({_security_row(st, s)["symbol"] for s in symbols or []})
    if len(syms) > MAX_WATCHLIST: raise ToolError(f"a watchlist holds at most {MAX_WATCHLIST} symbols, got {len(syms)}")
    return dict(st.insert("watchlist", {"investor_id": investor_id, "name": name, "symbols": syms}))

@server.write(after=("create_stock_watchlist",))
def add_symbol_to_watchlist(st, watchlist_id: WatchlistId, symbol: Symbol):
    """Add a security to a watchlist (no duplicates, at most 25 symbols).

    Args:
        watchlist_id: The watchlist to extend.
        symbol: Ticker symbol to add.
    """
    wl = need(st, "watchlist", watchlist_id, "watchlist")
    sym = _security_row(st, symbol)["symbol"]
    if sym in wl["symbols"]: raise ToolError(f"{sym} is already on watchlist {watchlist_id}")
    if len(wl["symbols"]) >= MAX_WATCHLIST: raise ToolError(f"watchlist {watchlist_id} is full ({MAX_WATCHLIST} symbols)")
    return dict(st.update("watchlist", watchlist_id, symbols=sorted(wl["symbols"] + (sym,))))
