"How a buyer or seller asks for each marketplace tool. Slots are parameter names; [parts] are said only when their slots have values."
PHRASES = {
    "find_market_members": ("look up the member[ {name}][ with the handle {handle}][ from {city}]", "find the seller[ called {name}][ going by {handle}][ in {city}]"),
    "search_market_listings": ("find me listings[ for {query}][ in {category}][ under {max_price}][ in {condition} condition][ from {seller_id}][ that are {status}]", "browse what's for sale[ matching {query}][ ({category})][ up to {max_price}][, {condition}][ by {seller_id}]"),
    "get_market_listing": ("show me {listing_id}", "pull up {listing_id}", "tell me about {listing_id}"),
    "list_listing_offers": ("show me the offers on {listing_id}[ that are {status}]", "check what people are offering for {listing_id}"),
    "list_buyer_offers": ("show me the offers {buyer_id} has made[ ({status})]", "check {buyer_id}'s bids"),
    "list_market_sales": ("show me {member_id}'s completed sales[ as {role}]", "check what {member_id} has sold or bought[ (as {role})]"),
    "create_market_listing": ("put {title} up for sale for {seller_id} at {price} in {category}, {condition} condition", "list {title} ({condition}, {category}) for {price} on behalf of {seller_id}[ - {description}]"),
    "update_listing_price": ("drop the price of {listing_id} to {price} for {seller_id}", "change {seller_id}'s asking price on {listing_id} to {price}"),
    "withdraw_listing": ("take {listing_id} off the market for {seller_id}", "have {seller_id} pull {listing_id}"),
    "make_listing_offer": ("offer {amount} for {listing_id} as {buyer_id}[ with the message {message}]", "bid {amount} on {listing_id} for {buyer_id}"),
    "accept_listing_offer": ("accept {offer_id} for {seller_id}", "have {seller_id} take {offer_id}", "say yes to {offer_id} on behalf of {seller_id}"),
    "decline_listing_offer": ("turn down {offer_id} for {seller_id}", "have {seller_id} reject {offer_id}"),
    "buy_listing_now": ("buy {listing_id} outright for {buyer_id}", "have {buyer_id} snap up {listing_id} at the asking price"),
}
