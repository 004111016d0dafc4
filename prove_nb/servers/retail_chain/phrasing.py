"How a store manager asks for each retail chain tool. Slots are parameter names; [parts] are said only when their slots have values."
PHRASES = {
    "list_retail_stores": ("show me our shops[ in {region}][ in {city}]", "check which branches we have[ in {city}][ ({region} region)] and when they open"),
    "search_retail_skus": ("look up the product[ {query}][ in {category}]", "find the item[ called {query}][ under {category}] in our catalog"),
    "check_store_inventory": ("check what {store_id} has on the shelves[ of {sku_id}]", "see how much stock {store_id} is holding[ for {sku_id}]"),
    "list_incoming_stock": ("show me what deliveries are headed to {store_id}", "check what stock is on the way to {store_id}"),
    "list_store_staff": ("show me who works at {store_id}[ as {role}][ on {date}]", "check the team at {store_id}[ - {role}s][ for {date}]"),
    "request_stock_transfer": ("send {quantity} of {sku_id} from {from_store_id} to {to_store_id}", "ship {quantity} units of {sku_id} over from {from_store_id} to {to_store_id}"),
    "receive_stock_transfer": ("check in {transfer_id} at the receiving store", "mark {transfer_id} as arrived", "book {transfer_id} into stock"),
    "place_restock_order": ("order {quantity} more of {sku_id} for {store_id}", "restock {store_id} with {quantity} units of {sku_id}"),
    "receive_restock_order": ("check in {order_id}", "mark {order_id} as received", "book {order_id} into the store's stock"),
    "schedule_staff_shift": ("put {employee_id} on at {store_id} on {date} from {start_hour} to {end_hour}", "roster {employee_id} at {store_id} for {date}, {start_hour} till {end_hour}"),
    "cancel_staff_shift": ("cancel {shift_id}", "take {shift_id} off the rota", "scrap {shift_id}"),
}
