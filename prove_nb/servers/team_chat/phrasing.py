"How a chat user asks for each team chat tool. Slots are parameter names; [parts] are said only when their slots have values."
PHRASES = {
    "list_chat_channels": ("show me the channels[ in {workspace_id}][ named {name}][ of kind {kind}]", "check which channels I can see[ in {workspace_id}][ like {name}]"),
    "list_workspace_members": ("look up people[ in {workspace_id}][ matching {query}][ in {channel_id}]", "find who's around[ in {workspace_id}][ called {query}][ in {channel_id}]"),
    "get_channel_history": ("catch me up on {channel_id}[ from {from_user}]", "show me the latest in {channel_id}[ by {from_user}]", "scroll back through {channel_id}"),
    "get_message_thread": ("show me the replies to {message_id}", "open the thread under {message_id}"),
    "search_chat_messages": ("search the chat for {query}[ in {channel_id}][ from {from_user}]", "find where someone said {query}[ in {channel_id}][ - by {from_user}]"),
    "create_chat_channel": ("make a channel {name} in {workspace_id}[ about {topic}][ and bring in {invite_user_ids}]", "set up {name} as a new channel in {workspace_id}[ with the topic {topic}]"),
    "invite_to_chat_channel": ("add[ {user_id} to] {channel_id}", "bring[ {user_id}] into {channel_id}"),
    "post_chat_message": ("say {text} in {channel_id}[ in the thread {thread_id}]", "drop {text} into {channel_id}[ as a reply to {thread_id}]", "post {text} to {channel_id}"),
    "send_chat_direct_message": ("DM {user_id} {text}", "message {user_id} privately: {text}", "ping {user_id} with {text}"),
    "add_message_reaction": ("react to {message_id} with {emoji}", "put a {emoji} on {message_id}"),
    "pin_chat_message": ("pin {message_id}[ (unpin: {unpin})]", "stick {message_id} to the top of its channel"),
}
