"How a social network user asks for each social tool. Slots are parameter names; [parts] are said only when their slots have values."
PHRASES = {
    "search_social_users": ("look for people called {query}", "find the account {query}"),
    "get_social_profile": ("show me {user_id}'s profile[ as {viewer_id} sees it]", "check out {user_id}[ from {viewer_id}'s side]"),
    "search_social_posts": ("look through the posts {viewer_id} can see[ tagged {hashtag}][ by {author_id}][ about {text}]", "find posts for {viewer_id}[ with {hashtag}][ from {author_id}][ mentioning {text}]"),
    "get_social_post": ("open {post_id} for {viewer_id}", "show {viewer_id} {post_id} with its comments"),
    "get_home_feed": ("show me {user_id}'s feed", "check what's new for {user_id}", "scroll {user_id}'s timeline"),
    "list_social_messages": ("show me {user_id}'s DMs[ with {other_user_id}]", "check {user_id}'s inbox[ for messages from {other_user_id}]"),
    "create_social_post": ("post {text} as {user_id}[ ({visibility})]", "share {text} from {user_id}'s account", "have {user_id} post {text}"),
    "delete_social_post": ("delete {post_id} from {user_id}'s account", "take down {post_id} from {user_id}'s account"),
    "comment_on_post": ("reply {text} under {post_id} as {user_id}", "have {user_id} comment {text} on {post_id}"),
    "like_social_post": ("like {post_id} as {user_id}", "have {user_id} heart {post_id}"),
    "unlike_social_post": ("unlike {post_id} for {user_id}", "remove {user_id}'s like from {post_id}"),
    "follow_social_user": ("have {user_id} follow {target_id}", "follow {target_id} from {user_id}'s account"),
    "unfollow_social_user": ("have {user_id} unfollow {target_id}", "unfollow {target_id} on {user_id}'s account"),
    "block_social_user": ("block {target_id} for {user_id}", "have {user_id} block {target_id}"),
    "send_social_message": ("DM {recipient_id} {text} from {sender_id}", "have {sender_id} message {recipient_id}: {text}"),
}
