from prove_nb.server import load_server
from tests.servers.harness import Case, server_suite

srv = load_server("trading")

def rows(s, table, **eq): return [r for r in s.state.rows(table) if all(r.get(k) == v for k, v in eq.items())]
def newest(s, table): return list(s.state.rows(table))[-1][s.state.specs[table].key]
def cash(s, p): return s.state.get("portfolio", p)["cash"]
def held(s, p, sym): return sum(r["quantity"] for r in rows(s, "lot", portfolio_id=p, symbol=sym))
def active(s, kind="taxable"): return rows(s, "portfolio", status="active", kind=kind)[0]["portfolio_id"]
def frozen(s): return rows(s, "portfolio", status="frozen")[0]["portfolio_id"]
def holding(s):
    "(portfolio, symbol, shares) of the first trading lot in an active portfolio."
    for lot in s.state.rows("lot"):
        if s.state.get("portfolio", lot["portfolio_id"])["status"] == "active" and s.state.get("security", lot["symbol"])["status"] == "trading":
            return lot["portfolio_id"], lot["symbol"], held(s, lot["portfolio_id"], lot["symbol"])
def investor_with_portfolios(s): return rows(s, "portfolio")[0]["investor_id"]
def open_order(s): return rows(s, "trade_order", status="open")[0]
def watchlist(s): return rows(s, "watchlist")[0]

def bought(s, r):
    p, o = r.content["portfolio_id"], r.content
    assert o["status"] == "filled" and o["fill_price"] == 212.4
    assert s.state.get("portfolio", p)["cash"] == o["cash_after"] == round(s.server.seed_state().get("portfolio", p)["cash"] - 2 * 212.4, 2)
    assert any(l["symbol"] == "AAPL" and l["quantity"] == 2 and l["acquired"] == "2026-06-15" for l in rows(s, "lot", portfolio_id=p))

def sold_all(s, r):
    p, sym = r.content["portfolio_id"], r.content["symbol"]
    assert held(s, p, sym) == 0 and r.content["realized_pnl"] is not None
    seed = s.server.seed_state().get("portfolio", p)["cash"]
    assert cash(s, p) == round(seed + r.content["quantity"] * s.state.get("security", sym)["price"], 2)

def opened_buy(s, r):
    o = r.content
    assert o["status"] == "open" and o["reserved_cash"] == 100.0
    assert cash(s, o["portfolio_id"]) == round(s.server.seed_state().get("portfolio", o["portfolio_id"])["cash"] - 100.0, 2)

def cancelled(s, r):
    o = r.content
    seeded = s.server.seed_state().get("trade_order", o["order_id"])
    assert o["status"] == "cancelled" and o["reserved_cash"] == 0.0
    assert cash(s, o["portfolio_id"]) == round(s.server.seed_state().get("portfolio", o["portfolio_id"])["cash"] + seeded["reserved_cash"], 2)

HOLD = lambda s: {"portfolio_id": holding(s)[0], "symbol": holding(s)[1]}
SELL_OPEN = ("place_limit_order", lambda s: {**HOLD(s), "side": "sell", "quantity": holding(s)[2], "limit_price": 99999.0})

CASES = [
    Case("find_investors", {"name": ""}, check=lambda s, r: len(r.content) == s.state.count("investor")),
    Case("find_investors", {"risk_profile": "reckless"}, ok=False, error="must be one of"),
    Case("list_portfolios", lambda s: {"investor_id": investor_with_portfolios(s)},
         check=lambda s, r: r.content and all(p["investor_id"] == investor_with_portfolios(s) and p["holdings_value"] >= 0 for p in r.content)),
    Case("list_portfolios", {"investor_id": "ivs_9999"}, ok=False, error="no investor"),
    Case("search_securities", {"query": "bank"}, check=lambda s, r: [x["symbol"] for x in r.content] == ["BAC"]),
    Case("search_securities", {"sector": "energy"}, check=lambda s, r: {x["symbol"] for x in r.content} == {"XOM", "CVX"}),
    Case("search_securities", {"sector": "crypto"}, ok=False, error="must be one of"),
    Case("get_stock_quote", {"symbol": "aapl"}, check=lambda s, r: (r.content["symbol"], r.content["price"]) == ("AAPL", 212.4)),
    Case("get_stock_quote", {"symbol": "ZZZZ"}, ok=False, error="no security"),
    Case("list_holdings", lambda s: {"portfolio_id": holding(s)[0]},
         check=lambda s, r: sum(h["quantity"] for h in r.content) == sum(l["quantity"] for l in rows(s, "lot", portfolio_id=holding(s)[0]))),
    Case("list_holdings", {"portfolio_id": "pf_9999"}, ok=False, error="no portfolio"),
    Case("list_trade_orders", lambda s: {"portfolio_id": open_order(s)["portfolio_id"], "status": "open"},
         check=lambda s, r: open_order(s)["order_id"] in [o["order_id"] for o in r.content] and all(o["status"] == "open" for o in r.content)),
    Case("list_trade_orders", lambda s: {"portfolio_id": open_order(s)["portfolio_id"], "status": "pending"}, ok=False, error="must be one of"),
    Case("list_stock_watchlists", lambda s: {"investor_id": watchlist(s)["investor_id"]},
         check=lambda s, r: watchlist(s)["watchlist_id"] in [w["watchlist_id"] for w in r.content]),
    Case("list_stock_watchlists", {"investor_id": "nobody"}, ok=False, error="no investor"),
    Case("place_market_order", lambda s: {"portfolio_id": active(s), "symbol": "AAPL", "side": "buy", "quantity": 2}, check=bought),
    Case("place_market_order", lambda s: {**HOLD(s), "side": "sell", "quantity": holding(s)[2]}, check=sold_all),
    Case("place_market_order", lambda s: {"portfolio_id": active(s), "symbol": "COST", "side": "buy", "quantity": 10000},
         ok=False, error="insufficient cash"),
    Case("place_market_order", lambda s: {"portfolio_id": active(s), "symbol": "MRNA", "side": "buy", "quantity": 1}, ok=False, error="halted"),
    Case("place_market_order", lambda s: {"portfolio_id": frozen(s), "symbol": "KO", "side": "buy", "quantity": 1}, ok=False, error="frozen"),
    Case("place_market_order", lambda s: {**HOLD(s), "side": "sell", "quantity": holding(s)[2] + 1}, ok=False, error="insufficient shares"),
    Case("place_market_order", lambda s: {"portfolio_id": active(s), "symbol": "KO", "side": "buy", "quantity": 0}, ok=False, error="at least 1"),
    Case("place_limit_order", lambda s: {"portfolio_id": active(s), "symbol": "AAPL", "side": "buy", "quantity": 2, "limit_price": 250.0}, check=bought),
    Case("place_limit_order", lambda s: {"portfolio_id": active(s), "symbol": "KO", "side": "buy", "quantity": 2, "limit_price": 50.0}, check=opened_buy),
    Case("place_limit_order", SELL_OPEN[1], check=lambda s, r: r.content["status"] == "open" and holding(s)[2] == r.content["quantity"]
         and [h["available"] for h in s.call("list_holdings", {"portfolio_id": r.content["portfolio_id"]}).content if h["symbol"] == r.content["symbol"]] == [0]),
    Case("place_limit_order", lambda s: {**HOLD(s), "side": "sell", "quantity": 1, "limit_price": 1.0}, setup=[SELL_OPEN], ok=False, error="can sell 0"),
    Case("place_limit_order", lambda s: {"portfolio_id": active(s), "symbol": "KO", "side": "buy", "quantity": 1, "limit_price": 0}, ok=False, error="positive"),
    Case("place_limit_order", lambda s: {"portfolio_id": active(s), "symbol": "KO", "side": "buy", "quantity": 10**6, "limit_price": 60.0},
         ok=False, error="to reserve"),
    Case("cancel_trade_order", lambda s: {"order_id": open_order(s)["order_id"]}, check=cancelled),
    Case("cancel_trade_order", lambda s: {"order_id": rows(s, "trade_order", status="filled")[0]["order_id"]}, ok=False, error="already filled"),
    Case("cancel_trade_order", {"order_id": "tord_9999"}, ok=False, error="no order"),
    Case("fund_portfolio", lambda s: {"portfolio_id": active(s), "amount": 1500.0},
         check=lambda s, r: r.content["cash"] == round(s.server.seed_state().get("portfolio", active(s))["cash"] + 1500, 2)),
    Case("fund_portfolio", lambda s: {"portfolio_id": active(s, "ira"), "amount": 7000.0}, ok=False, error="IRA contribution limit"),
    Case("fund_portfolio", lambda s: {"portfolio_id": frozen(s), "amount": 10.0}, ok=False, error="cannot take deposits"),
    Case("fund_portfolio", lambda s: {"portfolio_id": active(s), "amount": 250000.0}, ok=False, error="limited to"),
    Case("create_stock_watchlist", lambda s: {"investor_id": "ivs_0001", "name": "Chips", "symbols": ["nvda", "AAPL", "NVDA"]},
         check=lambda s, r: s.state.get("watchlist", r.content["watchlist_id"])["symbols"] == ("AAPL", "NVDA")),
    Case("create_stock_watchlist", lambda s: {"investor_id": watchlist(s)["investor_id"], "name": watchlist(s)["name"].upper()},
         ok=False, error="already has a watchlist"),
    Case("create_stock_watchlist", {"investor_id": "ivs_0001", "name": "Chips", "symbols": ["NOPE"]}, ok=False, error="no security"),
    Case("add_symbol_to_watchlist", lambda s: {"watchlist_id": newest(s, "watchlist"), "symbol": "GE"},
         setup=[("create_stock_watchlist", {"investor_id": "ivs_0001", "name": "Industry", "symbols": ["CAT"]})],
         check=lambda s, r: r.content["symbols"] == ["CAT", "GE"]),
    Case("add_symbol_to_watchlist", lambda s: {"watchlist_id": watchlist(s)["watchlist_id"], "symbol": watchlist(s)["symbols"][0]},
         ok=False, error="already on watchlist"),
]

globals().update(server_suite(srv, CASES, n_tools=13))

def test_fifo_sell_and_cancel_round_trip():
    s = srv.session()
    p = active(s)
    sym = next(x for x in ("KO", "PEP", "WMT", "BAC") if held(s, p, x) == 0)
    start, price = cash(s, p), s.state.get("security", sym)["price"]
    assert s.call("place_market_order", {"portfolio_id": p, "symbol": sym, "side": "buy", "quantity": 10}).ok
    assert s.call("place_market_order", {"portfolio_id": p, "symbol": sym, "side": "buy", "quantity": 5}).ok
    r = s.call("place_market_order", {"portfolio_id": p, "symbol": sym, "side": "sell", "quantity": 12})
    assert r.ok and r.content["realized_pnl"] == 0.0 and [l["quantity"] for l in rows(s, "lot", portfolio_id=p, symbol=sym)] == [3]
    o = s.call("place_limit_order", {"portfolio_id": p, "symbol": "PFE", "side": "buy", "quantity": 4, "limit_price": 20.0}).content
    assert s.call("cancel_trade_order", {"order_id": o["order_id"]}).ok
    assert cash(s, p) == round(start - 3 * price, 2)
    assert not s.call("cancel_trade_order", {"order_id": o["order_id"]}).ok
