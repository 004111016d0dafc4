import pytest
from prove_nb.server import load_server
from tests.servers.harness import Case, server_suite

srv = load_server("social_media")

def rows(s, table, pred=lambda r: True, **eq):
    return [r for r in s.state.rows(table) if all(r.get(k) == v for k, v in eq.items()) and pred(r)]
def row(s, table, pred=lambda r: True, **eq): return rows(s, table, pred, **eq)[0]
def user(s, key): return s.state.get("social_user", key)
def blocked(s, a, b): return bool(rows(s, "social_block", lambda x: {x["blocker_id"], x["blocked_id"]} == {a, b}))
def follows(s, a, b, status="active"): return bool(rows(s, "social_follow", follower_id=a, followee_id=b, status=status))
def users(s): return [u["user_id"] for u in s.state.rows("social_user")]

def free_pair(s, pred):
    "Two different users with no block and no follow between them, satisfying pred(a, b)."
    return next((a, b) for a in users(s) for b in users(s) if a != b and not blocked(s, a, b)
                and not rows(s, "social_follow", follower_id=a, followee_id=b) and pred(a, b))
def block_row(s): return row(s, "social_block")
def busy_post(s):
    "A post with at least one comment and one like."
    return row(s, "social_post", lambda p: rows(s, "social_comment", post_id=p["post_id"]) and rows(s, "social_like", post_id=p["post_id"]))
def hidden_post(s):
    "A followers-only or private-author post and a user who may not see it."
    for p in s.state.rows("social_post"):
        if p["visibility"] == "followers" or user(s, p["author_id"])["private"]:
            v = next(u for u in users(s) if u != p["author_id"] and not follows(s, u, p["author_id"]))
            return p["post_id"], v
def blocked_post(s):
    "A public post of a public author and a user who is blocked with that author."
    b = next(b for b in s.state.rows("social_block") if rows(s, "social_post", author_id=b["blocker_id"], visibility="public")
             and not user(s, b["blocker_id"])["private"])
    return row(s, "social_post", author_id=b["blocker_id"], visibility="public")["post_id"], b["blocked_id"]
def fresh_like(s):
    "A public post of a public author and a user who has not liked it and is not blocked with the author."
    for p in s.state.rows("social_post"):
        a = p["author_id"]
        if p["visibility"] == "public" and not user(s, a)["private"]:
            for u in users(s):
                if u != a and not blocked(s, u, a) and not rows(s, "social_like", user_id=u, post_id=p["post_id"]): return u, p["post_id"]

FOLLOW_PUBLIC = lambda s: free_pair(s, lambda a, b: not user(s, b)["private"])
FOLLOW_PRIVATE = lambda s: free_pair(s, lambda a, b: user(s, b)["private"])
DM_OPEN = lambda s: free_pair(s, lambda a, b: user(s, b)["dm_policy"] == "everyone")
DM_CLOSED = lambda s: free_pair(s, lambda a, b: user(s, b)["dm_policy"] == "followers" and not follows(s, b, a))

def post_gone(s, r):
    pid = r.content["post_id"]
    assert s.state.get("social_post", pid) is None and not rows(s, "social_comment", post_id=pid) and not rows(s, "social_like", post_id=pid)
    assert r.content["comments_removed"] >= 1 and r.content["likes_removed"] >= 1

def profile_counts(s, r):
    u = r.content
    assert u["followers"] == len(rows(s, "social_follow", followee_id=u["user_id"], status="active"))
    assert u["posts"] == len(rows(s, "social_post", author_id=u["user_id"]))

CASES = [
    Case("search_social_users", {"query": "@maya"}, check=lambda s, r: r.content and all("maya" in u["handle"] for u in r.content)),
    Case("search_social_users", {}, ok=False, error="missing required parameter 'query'"),
    Case("get_social_profile", {"user_id": "su_0002", "viewer_id": "su_0001"}, check=profile_counts),
    Case("get_social_profile", {"user_id": "su_0002", "viewer_id": "su_9999"}, ok=False, error="no user"),
    Case("search_social_posts", {"viewer_id": "su_0001", "hashtag": "#coding"},
         check=lambda s, r: r.content and all("coding" in p["hashtags"] for p in r.content)),
    Case("search_social_posts", lambda s: {"viewer_id": blocked_post(s)[1],
                                           "author_id": s.state.get("social_post", blocked_post(s)[0])["author_id"]},
         check=lambda s, r: r.content == []),
    Case("search_social_posts", {"viewer_id": "su_0001", "limit": 0}, ok=False, error="between 1 and 50"),
    Case("get_social_post", lambda s: {"post_id": busy_post(s)["post_id"], "viewer_id": busy_post(s)["author_id"]},
         check=lambda s, r: r.content["likes"] == len(rows(s, "social_like", post_id=r.content["post_id"]))
         and all(c["post_id"] == r.content["post_id"] for c in r.content["comments"])),
    Case("get_social_post", lambda s: {"post_id": hidden_post(s)[0], "viewer_id": hidden_post(s)[1]}, ok=False, error="not visible"),
    Case("get_home_feed", {"user_id": "su_0002", "limit": 50},
         check=lambda s, r: r.content and all(p["author_id"] == "su_0002" or follows(s, "su_0002", p["author_id"]) for p in r.content)),
    Case("get_home_feed", {"user_id": "su_0404"}, ok=False, error="no user"),
    Case("list_social_messages", lambda s: {"user_id": row(s, "social_message")["recipient_id"]},
         check=lambda s, r: r.content and all(r.content[0]["recipient_id"] in (m["sender_id"], m["recipient_id"]) for m in r.content)),
    Case("list_social_messages", {"user_id": "su_0001", "other_user_id": "nobody"}, ok=False, error="no user"),
    Case("create_social_post", {"user_id": "su_0003", "text": "Back from Lisbon! #Travel #travel #food"},
         check=lambda s, r: s.state.get("social_post", r.content["post_id"])["hashtags"] == ("travel", "food")),
    Case("create_social_post", {"user_id": "su_0003", "text": "x" * 281}, ok=False, error="limit is 280"),
    Case("create_social_post", {"user_id": "su_0003", "text": "hi", "visibility": "friends"}, ok=False, error="must be one of"),
    Case("delete_social_post", lambda s: {"user_id": busy_post(s)["author_id"], "post_id": busy_post(s)["post_id"]}, check=post_gone),
    Case("delete_social_post", lambda s: {"user_id": next(u for u in users(s) if u != busy_post(s)["author_id"]), "post_id": busy_post(s)["post_id"]},
         ok=False, error="only its author"),
    Case("comment_on_post", lambda s: {"user_id": fresh_like(s)[0], "post_id": fresh_like(s)[1], "text": "Nice one"},
         check=lambda s, r: s.state.get("social_comment", r.content["comment_id"])["text"] == "Nice one"),
    Case("comment_on_post", lambda s: {"user_id": blocked_post(s)[1], "post_id": blocked_post(s)[0], "text": "hi"}, ok=False, error="not visible"),
    Case("like_social_post", lambda s: {"user_id": fresh_like(s)[0], "post_id": fresh_like(s)[1]},
         check=lambda s, r: r.content["likes"] == len(rows(s, "social_like", post_id=r.content["post_id"]))),
    Case("like_social_post", lambda s: {"user_id": row(s, "social_like")["user_id"], "post_id": row(s, "social_like")["post_id"]},
         ok=False, error="already likes"),
    Case("unlike_social_post", lambda s: {"user_id": row(s, "social_like")["user_id"], "post_id": row(s, "social_like")["post_id"]},
         check=lambda s, r: not rows(s, "social_like", user_id=r.content["user_id"], post_id=r.content["post_id"])),
    Case("unlike_social_post", lambda s: {"user_id": fresh_like(s)[0], "post_id": fresh_like(s)[1]}, ok=False, error="has not liked"),
    Case("follow_social_user", lambda s: {"user_id": FOLLOW_PUBLIC(s)[0], "target_id": FOLLOW_PUBLIC(s)[1]},
         check=lambda s, r: s.state.get("social_follow", r.content["follow_id"])["status"] == "active"),
    Case("follow_social_user", lambda s: {"user_id": FOLLOW_PRIVATE(s)[0], "target_id": FOLLOW_PRIVATE(s)[1]},
         check=lambda s, r: r.content["status"] == "pending"),
    Case("follow_social_user", {"user_id": "su_0003", "target_id": "su_0003"}, ok=False, error="themself"),
    Case("follow_social_user", lambda s: {"user_id": block_row(s)["blocked_id"], "target_id": block_row(s)["blocker_id"]}, ok=False, error="block"),
    Case("unfollow_social_user", lambda s: {"user_id": row(s, "social_follow")["follower_id"], "target_id": row(s, "social_follow")["followee_id"]},
         check=lambda s, r: not rows(s, "social_follow", follower_id=r.content["user_id"], followee_id=r.content["target_id"])),
    Case("unfollow_social_user", lambda s: {"user_id": FOLLOW_PUBLIC(s)[0], "target_id": FOLLOW_PUBLIC(s)[1]}, ok=False, error="does not follow"),
    Case("block_social_user", lambda s: {"user_id": row(s, "social_follow")["followee_id"], "target_id": row(s, "social_follow")["follower_id"]},
         check=lambda s, r: r.content["follows_removed"] >= 1 and blocked(s, r.content["blocker_id"], r.content["blocked_id"])
         and not follows(s, r.content["blocked_id"], r.content["blocker_id"])),
    Case("block_social_user", lambda s: {"user_id": block_row(s)["blocker_id"], "target_id": block_row(s)["blocked_id"]}, ok=False, error="already blocked"),
    Case("send_social_message", lambda s: {"sender_id": DM_OPEN(s)[0], "recipient_id": DM_OPEN(s)[1], "text": "Hi there"},
         check=lambda s, r: s.state.get("social_message", r.content["message_id"])["read"] is False),
    Case("send_social_message", lambda s: {"sender_id": DM_CLOSED(s)[0], "recipient_id": DM_CLOSED(s)[1], "text": "Hi there"},
         ok=False, error="accepts messages only from people they follow"),
    Case("send_social_message", lambda s: {"sender_id": block_row(s)["blocked_id"], "recipient_id": block_row(s)["blocker_id"], "text": "hey"},
         ok=False, error="block between them"),
]

globals().update(server_suite(srv, CASES, n_tools=15, seeds=[(0, "small"), (1, "small"), (2, "tiny"), (3, "medium"), (0, "large"), (4, "large")]))

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seed_respects_rules(seed):
    "No self-follows, double likes, follows or likes across a block, or likes of posts the liker cannot see."
    s = srv.session(seed)
    for f in s.state.rows("social_follow"): assert f["follower_id"] != f["followee_id"] and not blocked(s, f["follower_id"], f["followee_id"])
    likes = [(l["user_id"], l["post_id"]) for l in s.state.rows("social_like")]
    assert len(likes) == len(set(likes))
    for u, p in likes: assert s.call("get_social_post", {"post_id": p, "viewer_id": u}).ok

def test_private_posts_need_an_accepted_follow():
    "A pending request does not reveal a private account's posts; unfollowing withdraws it."
    s = srv.session(0)
    a, b = FOLLOW_PRIVATE(s)
    s.call("create_social_post", {"user_id": b, "text": "secret #diary"})
    assert s.call("follow_social_user", {"user_id": a, "target_id": b}).content["status"] == "pending"
    assert s.call("search_social_posts", {"viewer_id": a, "hashtag": "diary"}).content == []
    assert s.call("unfollow_social_user", {"user_id": a, "target_id": b}).content["removed"] == "pending"
