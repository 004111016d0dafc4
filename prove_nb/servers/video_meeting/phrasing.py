"How a meeting organizer asks for each video meeting tool. Slots are parameter names; [parts] are said only when their slots have values."
PHRASES = {
    "search_meeting_users": ("look up the user[ {query}][ on the {license} plan]", "find the person[ called {query}][ with a {license} license]"),
    "list_meeting_rooms": ("show me the meeting rooms[ of {owner_id}][ of kind {kind}][ for at least {min_capacity} people]", "check which virtual rooms we have[ owned by {owner_id}][ ({kind})][ holding {min_capacity}+]"),
    "list_video_meetings": ("show me the meetings[ {host_id} is hosting][ with {participant_id}][ in {room_id}][ that are {status}][ on {date}]", "check what calls are on[ for {host_id}][ with {participant_id}][ in {room_id}][ ({status})][ on {date}]"),
    "get_video_meeting": ("tell me about {meeting_id}", "pull up the details of {meeting_id}", "check on {meeting_id}"),
    "schedule_video_meeting": ("set up a call {topic} hosted by {host_id} in {room_id} at {start} for {duration_minutes} minutes[ with {invitee_ids}]", "book {room_id} for {host_id}'s meeting {topic} at {start}, {duration_minutes} minutes long"),
    "add_meeting_participant": ("add {user_id} to {meeting_id}[ as {role}]", "bring {user_id} into {meeting_id}[ as a {role}]"),
    "start_video_meeting": ("have {user_id} kick off {meeting_id}[ (recording: {record})]", "start {meeting_id} as {user_id}"),
    "end_video_meeting": ("have {user_id} wrap up {meeting_id}", "end {meeting_id} for everyone as {user_id}"),
    "cancel_video_meeting": ("have {user_id} call off {meeting_id}", "cancel {meeting_id} on behalf of {user_id}"),
    "delete_meeting_recording": ("have {user_id} delete {recording_id}", "get rid of {recording_id} as {user_id}"),
}
