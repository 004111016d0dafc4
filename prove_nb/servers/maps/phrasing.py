"How a traveller asks for each maps tool. Slots are parameter names; [parts] are said only when their slots have values."
PHRASES = {
    "search_places": ("find me a place[ like {query}][ - {category}][ in {city}][ rated at least {min_rating}]", "look for spots[ matching {query}][ ({category})][ around {city}][ with {min_rating}+ stars]"),
    "get_place_details": ("tell me about {place_id}", "pull up the details of {place_id}", "give me the info on {place_id}"),
    "geocode_address": ("get the coordinates of {address}", "find {address} on the map", "where exactly is {address}"),
    "reverse_geocode": ("tell me what's at {lat}, {lon}", "name the address at latitude {lat}, longitude {lon}"),
    "compute_distance": ("tell me how far {from_place_id} is from {to_place_id}", "check the distance between {from_place_id} and {to_place_id}"),
    "get_directions": ("get me from {from_place_id} to {to_place_id}[ by {mode}]", "show me the route from {from_place_id} to {to_place_id}[ ({mode})]", "how do I get from {from_place_id} to {to_place_id}[ on {mode}]"),
    "find_nearby_places": ("find what's around {place_id}[ within {radius_km} km][ - {category}]", "show me places near {place_id}[ ({category})][ in a {radius_km} km radius]"),
    "check_opening_hours": ("check if {place_id} is open[ on {day}][ at {time}]", "see whether {place_id} will be open[ {day}][ at {time}]"),
    "find_map_users": ("look up the user[ {name}][ with the email {email}]", "find the profile[ of {name}][ for {email}]"),
    "list_saved_places": ("show me the places {user_id} saved[ as {label}]", "check {user_id}'s saved spots"),
    "list_place_lists": ("show me {user_id}'s lists of places", "check which place lists {user_id} has"),
    "save_place": ("save {place_id} for {user_id}[ as {label}][ with the note {note}]", "bookmark {place_id} in {user_id}'s places[ under {label}]"),
    "remove_saved_place": ("take {saved_id} off {user_id}'s saved places", "unsave {saved_id} for {user_id}"),
    "create_place_list": ("start a list called {name} for {user_id}[ ({visibility})][ shared with {collaborator_ids}]", "make {user_id} a new place list {name}[, {visibility}]"),
    "add_place_to_list": ("put {place_id} on {list_id} for {user_id}", "add {place_id} to {user_id}'s list {list_id}"),
    "write_place_review": ("give {place_id} {rating} stars from {user_id}[ saying {text}]", "post a {rating}-star review of {place_id} as {user_id}[: {text}]"),
}
