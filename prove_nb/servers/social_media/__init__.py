"""Social network: users, posts with hashtags, comments, likes, follows, blocks and direct messages (15 tools).

Rules: a user cannot follow, block or message themself; following a private account makes a pending request;
posts of private accounts and followers-only posts are visible to the author's followers only; a block (either way)
hides each side's posts and comments from the other, removes follows between them and forbids likes, comments,
follows and messages between them; a post can be liked once per user; only the author deletes a post (its comments
and likes go with it); users who accept messages from followers only get messages from people they follow.
"""
import collections, re
from datetime import timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.social_media.phrasing import PHRASES
from prove_nb.servers._common import NOW_DT, FIRST_NAMES, LAST_NAMES, need
from prove_nb.state import TableSpec

FIRST = FIRST_NAMES[:16] + ("Quinn", "Rosa", "Sami", "Tara")
LAST = LAST_NAMES[:12]
BIOS = ["Coffee, code and cats.", "Trail runner and amateur photographer.", "Product designer. Opinions my own.",
        "Home cook sharing weeknight recipes.", "Reading one book a week.", "Climate scientist. Plants > people.",
        "Indie game developer.", "Jazz, vinyl and long walks.", "Startup founder, occasional poet.", ""]
POSTS = [("Just finished a {n}k run along the river", ["running", "fitness"]),
         ("New blog post on {tech} performance tips is up", ["coding", "{tech}"]),
         ("Best {food} in town at {place}, no contest", ["foodie", "{food}"]),
         ("Sunset over the bay tonight was unreal", ["photography", "sunset"]),
         ("Halfway through '{book}' and loving it", ["books", "reading"]),
         ("Our team shipped {feature} today, huge thanks to everyone", ["launch", "startup"]),
         ("Anyone going to {event} this weekend?", ["{event}", "weekend"]),
         ("Tried a new {food} recipe and it actually worked", ["cooking", "{food}"]),
         ("Morning hike with the dog, {n} miles done", ["hiking", "dogs"]),
         ("Hot take: {tech} is underrated", ["coding", "hottake"])]
FILL = {"tech": ["python", "rust", "postgres", "kubernetes", "react"], "food": ["ramen", "tacos", "pizza", "dumplings", "curry"],
        "place": ["Luna Cafe", "Harbor Grill", "Noodle Bar", "Taqueria El Sol"],
        "book": ["Project Hail Mary", "The Overstory", "Piranesi", "Dune"], "feature": ["dark mode", "offline sync", "the new API", "v2.0"],
        "event": ["jazzfest", "pycon", "farmersmarket", "marathon"]}
COMMENTS = ["Love this!", "So true.", "Where is this?", "Congrats!", "Great tip, thanks", "Adding it to my list",
            "Couldn't agree more", "This made my day", "Totally disagree, but fair", "Need the recipe!"]
MESSAGES = ["Hey, are we still on for Saturday?", "Loved your last post!", "Can you send me that link?", "Happy birthday!",
            "Running late, 10 minutes", "Did you see the news?", "Thanks for the recommendation", "Lunch next week?"]
MAX_POST, MAX_MESSAGE = 280, 1000

def _stamp(rng, days=30) -> str:
    "An ISO time in the `days` before the server clock."
    return (NOW_DT - timedelta(minutes=rng.randint(1, days * 24 * 60))).isoformat()

def _user(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    private = rng.random() < 0.2
    policy = rng.choice(["everyone", "everyone", "followers"])
    return {"handle": f"{first.lower()}_{last.lower()}{i}", "display_name": f"{first} {last}", "bio": rng.choice(BIOS),
            "private": private, "dm_policy": policy, "verified": rng.random() < 0.1,
            "joined": (NOW_DT - timedelta(days=rng.randint(30, 2000))).date().isoformat()}

def _seed_pair(pick):
    "Two users of the seed with no block between them, or None."
    a, b = pick("social_user"), pick("social_user")
    blocked = pick.memo.setdefault("blocks", set())
    return None if a == b or (a, b) in blocked or (b, a) in blocked else (a, b)

def _block(rng, i, pick):
    p = _seed_pair(pick)
    if p is None: return None
    pick.memo["blocks"].add(p)
    return {"blocker_id": p[0], "blocked_id": p[1], "created_at": _stamp(rng, 200)}

def _follow(rng, i, pick):
    p, follows = _seed_pair(pick), pick.memo.setdefault("follows", {})  # (follower, followee) -> status
    if p is None or p in follows: return None
    status = "pending" if pick.row("social_user", p[1])["private"] and rng.random() < 0.3 else "active"
    follows[p] = status
    return {"follower_id": p[0], "followee_id": p[1], "status": status, "created_at": _stamp(rng, 400)}

def _message(rng, i, pick):
    p = _seed_pair(pick)
    if p is None: return None
    if pick.row("social_user", p[1])["dm_policy"] == "followers" and pick.memo["follows"].get((p[1], p[0])) != "active": return None
    return {"sender_id": p[0], "recipient_id": p[1], "text": rng.choice(MESSAGES), "sent_at": _stamp(rng, 20), "read": rng.random() < 0.6}

def _post(rng, i, pick):
    author = pick("social_user")
    template, tags = rng.choice(POSTS)
    fill = {k: rng.choice(v) for k, v in FILL.items()} | {"n": rng.randint(3, 21)}
    tags = [t.format(**fill) for t in tags]
    return {"author_id": author, "text": template.format(**fill) + " " + " ".join(f"#{t}" for t in tags), "hashtags": tags,
            "visibility": "followers" if rng.random() < 0.15 else "public", "created_at": _stamp(rng)}

def _visible_in_seed(pick, viewer, post):
    "Whether `viewer` may see and react to `post` in the seed being built."
    p, blocks = pick.row("social_post", post), pick.memo["blocks"]
    author = p["author_id"]
    if viewer == author: return True
    if (viewer, author) in blocks or (author, viewer) in blocks: return False
    return not (pick.row("social_user", author)["private"] or p["visibility"] == "followers") \
        or pick.memo["follows"].get((viewer, author)) == "active"

def _comment(rng, i, pick):
    post, user = pick("social_post"), pick("social_user")
    if not _visible_in_seed(pick, user, post): return None
    return {"post_id": post, "author_id": user, "text": rng.choice(COMMENTS), "created_at": _stamp(rng, 10)}

def _like(rng, i, pick):
    post, user = pick("social_post"), pick("social_user")
    likes = pick.memo.setdefault("likes", set())
    if (user, post) in likes or not _visible_in_seed(pick, user, post): return None
    likes.add((user, post))
    return {"user_id": user, "post_id": post, "created_at": _stamp(rng, 10)}

server = ToolServer(
    "social_media", "A social network: profiles, posts and hashtags, comments, likes, follows, blocks and direct messages.",
    [TableSpec("social_user", "user_id", "su_"),
     TableSpec("social_block", "block_id", "sb_", {"blocker_id": "social_user", "blocked_id": "social_user"}),
     TableSpec("social_follow", "follow_id", "sf_", {"follower_id": "social_user", "followee_id": "social_user"}),
     TableSpec("social_message", "message_id", "sm_", {"sender_id": "social_user", "recipient_id": "social_user"}),
     TableSpec("social_post", "post_id", "sp_", {"author_id": "social_user"}),
     TableSpec("social_comment", "comment_id", "sc_", {"post_id": "social_post", "author_id": "social_user"}),
     TableSpec("social_like", "like_id", "sl_", {"user_id": "social_user", "post_id": "social_post"})],
    {"social_user": _user, "social_block": _block, "social_follow": _follow, "social_message": _message, "social_post": _post,
     "social_comment": _comment, "social_like": _like},
    {"social_user": 20, "social_block": 4, "social_follow": 70, "social_message": 30, "social_post": 40, "social_comment": 40,
     "social_like": 80}, phrases=PHRASES)

UserId = Annotated[str, Entity("social_user")]
PostId = Annotated[str, Entity("social_post")]

def _text(text, limit, what):
    t = text.strip()
    if not t: raise ToolError(f"{what} must not be empty")
    if len(t) > limit: raise ToolError(f"{what} is {len(t)} characters; the limit is {limit}")
    return t

def _blocked(st, user_id) -> set:
    "Users who blocked `user_id` or whom `user_id` blocked."
    return {b["blocked_id"] if b["blocker_id"] == user_id else b["blocker_id"] for b in st.rows("social_block")
            if user_id in (b["blocker_id"], b["blocked_id"])}

def _follow_row(st, follower, followee):
    return next((f for f in st.rows("social_follow") if f["follower_id"] == follower and f["followee_id"] == followee), None)

def _following(st, user_id) -> set:
    "Users `user_id` follows (accepted follows only)."
    return {f["followee_id"] for f in st.rows("social_follow") if f["follower_id"] == user_id and f["status"] == "active"}

class _Viewer:
    "What one user may see: posts of unblocked authors that are public, their own, or from authors they follow."
    def __init__(self, st, user_id):
        self.st, self.id = st, user_id
        self.blocked = _blocked(st, user_id) if user_id else set()
        self.following = _following(st, user_id) if user_id else set()
    def sees(self, post) -> bool:
        a = post["author_id"]
        if a == self.id: return True
        if a in self.blocked: return False
        return not (self.st.get("social_user", a)["private"] or post["visibility"] == "followers") or a in self.following

def _visible_post(st, user_id, post_id):
    "The post, checked to be visible to `user_id`."
    need(st, "social_user", user_id, "user")
    post = need(st, "social_post", post_id, "post")
    if not _Viewer(st, user_id).sees(post): raise ToolError(f"post {post_id} is not visible to user {user_id}")
    return post

def _pair(st, user_id, target_id, doing):
    "Both users, checked to exist and differ."
    need(st, "social_user", user_id, "user")
    target = need(st, "social_user", target_id, "user")
    if user_id == target_id: raise ToolError(f"a user cannot {doing} themself")
    return target

def _with_counts(st, posts) -> list:
    "Posts with their like and comment counts, newest first."
    ids = {p["post_id"] for p in posts}
    likes = collections.Counter(l["post_id"] for l in st.rows("social_like") if l["post_id"] in ids)
    comments = collections.Counter(c["post_id"] for c in st.rows("social_comment") if c["post_id"] in ids)
    out = [{**p, "likes": likes[p["post_id"]], "comments": comments[p["post_id"]]} for p in posts]
    return sorted(out, key=lambda p: (p["created_at"], p["post_id"]), reverse=True)

def _limit(limit):
    if not 1 <= limit <= 50: raise ToolError(f"limit must be between 1 and 50, got {limit}")

@server.read(produces="social_user")
def search_social_users(st, query: str):
    """Find users whose handle or display name contains the text (case-insensitive), with follower counts.

    Args:
        query: Part of the handle or display name.
    """
    q = query.lower().lstrip("@")
    found = [dict(u) for u in st.rows("social_user") if q in u["handle"] or q in u["display_name"].lower()]
    followers = collections.Counter(f["followee_id"] for f in st.rows("social_follow") if f["status"] == "active")
    return [{**u, "followers": followers[u["user_id"]]} for u in found]

@server.read(produces="social_user")
def get_social_profile(st, user_id: UserId, viewer_id: UserId | None = None):
    """Get a user's profile with follower, following and post counts, and how the viewer relates to them.

    Args:
        user_id: The profile to show.
        viewer_id: The user looking; adds whether they follow each other or are blocked.
    """
    u = dict(need(st, "social_user", user_id, "user"))
    follows = [f for f in st.rows("social_follow") if f["status"] == "active" and user_id in (f["follower_id"], f["followee_id"])]
    u.update(followers=sum(f["followee_id"] == user_id for f in follows), following=sum(f["follower_id"] == user_id for f in follows),
             posts=sum(p["author_id"] == user_id for p in st.rows("social_post")))
    if viewer_id is not None:
        need(st, "social_user", viewer_id, "user")
        mine, theirs = _follow_row(st, viewer_id, user_id), _follow_row(st, user_id, viewer_id)
        u.update(viewer_follows=mine["status"] if mine else "no", follows_viewer=bool(theirs and theirs["status"] == "active"),
                 blocked=user_id in _blocked(st, viewer_id))
    return u

@server.read(produces=("social_post", "social_user"))
def search_social_posts(st, viewer_id: UserId, hashtag: str = "", author_id: UserId | None = None, text: str = "", limit: int = 20):
    """Search the posts a user can see, by hashtag, author or text, newest first, with like and comment counts.

    Args:
        viewer_id: The user searching (blocked and private content is hidden from them).
        hashtag: A hashtag, with or without '#'.
        author_id: Only posts by this user.
        text: Part of the post text (case-insensitive).
        limit: Maximum number of posts (1 to 50).
    """
    need(st, "social_user", viewer_id, "user")
    if author_id is not None: need(st, "social_user", author_id, "user")
    _limit(limit)
    tag, t, v = hashtag.lower().lstrip("#"), text.lower(), _Viewer(st, viewer_id)
    posts = [p for p in st.rows("social_post") if (not tag or tag in p["hashtags"]) and author_id in (None, p["author_id"])
             and t in p["text"].lower() and v.sees(p)]
    return _with_counts(st, posts)[:limit]

@server.read(produces=("social_post", "social_user"))
def get_social_post(st, post_id: PostId, viewer_id: UserId):
    """Get one post with its likes and comments (comments by users blocked with the viewer are hidden).

    Args:
        post_id: The post to open.
        viewer_id: The user looking at it; the post must be visible to them.
    """
    post = _visible_post(st, viewer_id, post_id)
    hidden = _blocked(st, viewer_id)
    comments = sorted((dict(c) for c in st.rows("social_comment") if c["post_id"] == post_id and c["author_id"] not in hidden),
                      key=lambda c: (c["created_at"], c["comment_id"]))
    likers = [l["user_id"] for l in st.rows("social_like") if l["post_id"] == post_id]
    return {**post, "likes": len(likers), "liked_by_viewer": viewer_id in likers, "comments": comments}

@server.read(produces=("social_post", "social_user"))
def get_home_feed(st, user_id: UserId, limit: int = 20):
    """A user's home feed: the visible posts of the accounts they follow and their own, newest first.

    Args:
        user_id: Whose feed to build.
        limit: Maximum number of posts (1 to 50).
    """
    need(st, "social_user", user_id, "user")
    _limit(limit)
    v = _Viewer(st, user_id)
    posts = [p for p in st.rows("social_post") if (p["author_id"] in v.following or p["author_id"] == user_id) and v.sees(p)]
    return _with_counts(st, posts)[:limit]

@server.read(produces=("social_message", "social_user"))
def list_social_messages(st, user_id: UserId, other_user_id: UserId | None = None, unread_only: bool = False):
    """List a user's direct messages (sent and received), newest first, optionally one conversation or unread ones only.

    Args:
        user_id: Whose messages to list.
        other_user_id: Only the conversation with this user.
        unread_only: Only received messages not read yet.
    """
    need(st, "social_user", user_id, "user")
    if other_user_id is not None: need(st, "social_user", other_user_id, "user")
    msgs = [dict(m) for m in st.rows("social_message") if user_id in (m["sender_id"], m["recipient_id"])
            and other_user_id in (None, m["sender_id"], m["recipient_id"]) and (not unread_only or (m["recipient_id"] == user_id and not m["read"]))]
    return sorted(msgs, key=lambda m: (m["sent_at"], m["message_id"]), reverse=True)

@server.write(produces="social_post")
def create_social_post(st, user_id: UserId, text: str, visibility: Literal["public", "followers"] = "public"):
    """Publish a post (at most 280 characters); its #hashtags become searchable.

    Args:
        user_id: The author.
        text: The post text, hashtags written inline like #travel.
        visibility: Everyone, or the author's followers only.
    """
    need(st, "social_user", user_id, "user")
    t = _text(text, MAX_POST, "post text")
    tags = list(dict.fromkeys(x.lower() for x in re.findall(r"#(\w+)", t)))
    return dict(st.insert("social_post", {"author_id": user_id, "text": t, "hashtags": tags, "visibility": visibility,
                                          "created_at": st.meta["now"]}))

@server.write(after=("create_social_post",))
def delete_social_post(st, user_id: UserId, post_id: PostId):
    """Delete one of your own posts together with its comments and likes.

    Args:
        user_id: The user deleting; must be the author.
        post_id: The post to delete.
    """
    need(st, "social_user", user_id, "user")
    post = need(st, "social_post", post_id, "post")
    if post["author_id"] != user_id: raise ToolError(f"post {post_id} belongs to {post['author_id']}; only its author can delete it")
    comments = [c["comment_id"] for c in st.rows("social_comment") if c["post_id"] == post_id]
    likes = [l["like_id"] for l in st.rows("social_like") if l["post_id"] == post_id]
    for c in comments: st.delete("social_comment", c)
    for l in likes: st.delete("social_like", l)
    st.delete("social_post", post_id)
    return {"post_id": post_id, "deleted": True, "comments_removed": len(comments), "likes_removed": len(likes)}

@server.write(produces="social_comment")
def comment_on_post(st, user_id: UserId, post_id: PostId, text: str):
    """Comment on a post the user can see (at most 280 characters).

    Args:
        user_id: The commenter.
        post_id: The post to comment on.
        text: The comment text.
    """
    _visible_post(st, user_id, post_id)
    t = _text(text, MAX_POST, "comment text")
    return dict(st.insert("social_comment", {"post_id": post_id, "author_id": user_id, "text": t, "created_at": st.meta["now"]}))

@server.write(produces="social_like")
def like_social_post(st, user_id: UserId, post_id: PostId):
    """Like a post the user can see; each user likes a post at most once.

    Args:
        user_id: The user who likes the post.
        post_id: The post to like.
    """
    _visible_post(st, user_id, post_id)
    if any(l["user_id"] == user_id for l in st.rows("social_like") if l["post_id"] == post_id):
        raise ToolError(f"user {user_id} already likes post {post_id}")
    like = st.insert("social_like", {"user_id": user_id, "post_id": post_id, "created_at": st.meta["now"]})
    return {**like, "likes": sum(l["post_id"] == post_id for l in st.rows("social_like"))}

@server.write(after=("like_social_post",))
def unlike_social_post(st, user_id: UserId, post_id: PostId):
    """Take back a like.

    Args:
        user_id: The user who liked the post.
        post_id: The post to unlike.
    """
    need(st, "social_user", user_id, "user")
    need(st, "social_post", post_id, "post")
    like = next((l for l in st.rows("social_like") if l["user_id"] == user_id and l["post_id"] == post_id), None)
    if like is None: raise ToolError(f"user {user_id} has not liked post {post_id}")
    st.delete("social_like", like["like_id"])
    return {"post_id": post_id, "user_id": user_id, "liked": False}

@server.write(produces="social_follow")
def follow_social_user(st, user_id: UserId, target_id: UserId):
    """Follow another user; following a private account creates a pending follow request instead.

    Args:
        user_id: The follower.
        target_id: The user to follow.
    """
    target = _pair(st, user_id, target_id, "follow")
    if target_id in _blocked(st, user_id): raise ToolError(f"users {user_id} and {target_id} have a block between them")
    f = _follow_row(st, user_id, target_id)
    if f: raise ToolError(f"user {user_id} already {'follows' if f['status'] == 'active' else 'has a pending request to'} {target_id}")
    status = "pending" if target["private"] else "active"
    return dict(st.insert("social_follow", {"follower_id": user_id, "followee_id": target_id, "status": status, "created_at": st.meta["now"]}))

@server.write(after=("follow_social_user",))
def unfollow_social_user(st, user_id: UserId, target_id: UserId):
    """Stop following a user, or withdraw a pending follow request.

    Args:
        user_id: The follower.
        target_id: The user to stop following.
    """
    _pair(st, user_id, target_id, "unfollow")
    f = _follow_row(st, user_id, target_id)
    if f is None: raise ToolError(f"user {user_id} does not follow {target_id}")
    st.delete("social_follow", f["follow_id"])
    return {"user_id": user_id, "target_id": target_id, "removed": f["status"]}

@server.write(produces="social_block")
def block_social_user(st, user_id: UserId, target_id: UserId):
    """Block a user: removes follows both ways and hides each side's content from the other.

    Args:
        user_id: The user who blocks.
        target_id: The user to block.
    """
    _pair(st, user_id, target_id, "block")
    if any(b["blocker_id"] == user_id and b["blocked_id"] == target_id for b in st.rows("social_block")):
        raise ToolError(f"user {user_id} has already blocked {target_id}")
    gone = [f["follow_id"] for f in st.rows("social_follow") if {f["follower_id"], f["followee_id"]} == {user_id, target_id}]
    for f in gone: st.delete("social_follow", f)
    b = st.insert("social_block", {"blocker_id": user_id, "blocked_id": target_id, "created_at": st.meta["now"]})
    return {**b, "follows_removed": len(gone)}

@server.write(produces="social_message")
def send_social_message(st, sender_id: UserId, recipient_id: UserId, text: str):
    """Send a direct message; refused across a block, or when the recipient takes messages only from people they follow.

    Args:
        sender_id: The user sending.
        recipient_id: The user receiving.
        text: The message (at most 1000 characters).
    """
    r = _pair(st, sender_id, recipient_id, "message")
    if recipient_id in _blocked(st, sender_id): raise ToolError(f"users {sender_id} and {recipient_id} have a block between them")
    if r["dm_policy"] == "followers" and sender_id not in _following(st, recipient_id):
        raise ToolError(f"user {recipient_id} accepts messages only from people they follow, and does not follow {sender_id}")
    t = _text(text, MAX_MESSAGE, "message text")
    return dict(st.insert("social_message", {"sender_id": sender_id, "recipient_id": recipient_id, "text": t,
                                             "sent_at": st.meta["now"], "read": False}))
