"How an investor asks for each trading tool. Slots are parameter names; [parts] are said only when their slots have values."
PHRASES = {
    "find_investors": ("look up the investor[ {name}][ with a {risk_profile} profile]", "find the client[ called {name}][ ({risk_profile})]"),
    "list_portfolios": ("show me {investor_id}'s portfolios", "check what portfolios {investor_id} has"),
    "search_securities": ("look up the ticker[ for {query}][ in {sector}]", "find stocks[ matching {query}][ in the {sector} sector]"),
    "get_stock_quote": ("check the price of {symbol}", "get me a quote on {symbol}", "see where {symbol} is trading"),
    "list_holdings": ("show me what's in {portfolio_id}", "check the positions in {portfolio_id}"),
    "list_trade_orders": ("show me the orders on {portfolio_id}[ that are {status}][ for {symbol}]", "check {portfolio_id}'s trades[ ({status})][ in {symbol}]"),
    "list_stock_watchlists": ("show me {investor_id}'s watchlists", "check what {investor_id} is keeping an eye on"),
    "place_market_order": ("{side} {quantity} shares of {symbol} in {portfolio_id} at market", "put in a market {side} for {quantity} {symbol} from {portfolio_id}"),
    "place_limit_order": ("{side} {quantity} {symbol} in {portfolio_id} with a limit of {limit_price}", "put in a {side} limit at {limit_price} for {quantity} shares of {symbol} in {portfolio_id}"),
    "cancel_trade_order": ("cancel {order_id}", "pull {order_id}", "kill {order_id} before it fills"),
    "fund_portfolio": ("top up {portfolio_id} with {amount}", "put {amount} of cash into {portfolio_id}", "deposit {amount} to {portfolio_id}"),
    "create_stock_watchlist": ("start a watchlist {name} for {investor_id}[ with {symbols}]", "make {investor_id} a new watchlist called {name}[ tracking {symbols}]"),
    "add_symbol_to_watchlist": ("add {symbol} to {watchlist_id}", "start watching {symbol} on {watchlist_id}"),
}
