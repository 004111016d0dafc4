import pytest
from prove_nb.server import load_server
from prove_nb.state import integrity_errors
from tests.servers.harness import Case, server_suite

srv = load_server("team_chat")
ME = "u_0001"  # the logged-in user is always the first user, a member of the first two workspaces

def chan(s, name, ws="ws_0001"): return next(c["channel_id"] for c in s.state.rows("channel") if c["name"] == name and c["workspace_id"] == ws)
def newest(s, table): return list(s.state.rows(table))[-1][s.state.specs[table].key]
def msg(s, mid): return s.state.get("message", mid)
def members(s, cid): return s.state.get("channel", cid)["member_ids"]
def stranger(s):
    "An active user of ws_0001 with whom the logged-in user has no direct-message conversation yet."
    dms = {u for c in s.state.find("channel", kind="dm") for u in c["member_ids"]}
    return next(u["user_id"] for u in s.state.rows("chat_user")
                if "ws_0001" in u["workspace_ids"] and u["status"] == "active" and u["user_id"] not in dms | {ME})
def other_member(s, cid): return next(u for u in members(s, cid) if u != ME and s.state.get("chat_user", u)["status"] == "active")
def outsider(s, cid):
    "An active ws_0001 user who is not in channel `cid`."
    return next(u["user_id"] for u in s.state.rows("chat_user") if "ws_0001" in u["workspace_ids"] and u["status"] == "active"
                and u["user_id"] not in members(s, cid) + (ME,))

POST = ("post_chat_message", lambda s: {"channel_id": chan(s, "general"), "text": "Standup moved to 10:30 (zebra)"})
REPLY = ("post_chat_message", lambda s: {"channel_id": chan(s, "general"), "text": "Thanks!", "thread_id": newest(s, "message")})
def archive(cid_of):
    "Args posting to a channel after it was archived (a fixture: no tool archives channels)."
    def args(s):
        cid = cid_of(s)
        s.state.update("channel", cid, archived=True)
        return {"channel_id": cid, "text": "hello?"}
    return args

CASES = [
    Case("list_chat_channels", {}, check=lambda s, r: "leadership" not in [c["name"] for c in r.content]
         and {"general", "random"} <= {c["name"] for c in r.content}),
    Case("list_chat_channels", {"member_only": True, "kind": "public"}, check=lambda s, r: r.content and all(c["is_member"] and c["kind"] == "public" for c in r.content)),
    Case("list_chat_channels", {"workspace_id": "ws_9999"}, ok=False, error="not in workspace"),
    Case("list_workspace_members", lambda s: {"channel_id": chan(s, "general")},
         check=lambda s, r: sorted(u["user_id"] for u in r.content) == sorted(members(s, chan(s, "general")))),
    Case("list_workspace_members", lambda s: {"channel_id": chan(s, "leadership")}, ok=False, error="is private"),
    Case("get_channel_history", lambda s: {"channel_id": chan(s, "general"), "limit": 3}, setup=[POST],
         check=lambda s, r: len(r.content) == 3 and r.content[0]["message_id"] == newest(s, "message") and r.content[0]["author"] == "Ada Lovelace"),
    Case("get_channel_history", lambda s: {"channel_id": chan(s, "general"), "limit": 0}, ok=False, error="limit"),
    Case("get_channel_history", lambda s: {"channel_id": chan(s, "leadership")}, ok=False, error="is private"),
    Case("get_message_thread", lambda s: {"message_id": newest(s, "message")}, setup=[POST, REPLY],
         check=lambda s, r: r.content["parent"]["reply_count"] == 1 and [m["message_id"] for m in r.content["replies"]] == [newest(s, "message")]),
    Case("get_message_thread", {"message_id": "msg_9999"}, ok=False, error="no message"),
    Case("search_chat_messages", {"query": "ZEBRA"}, setup=[POST],
         check=lambda s, r: [m["message_id"] for m in r.content] == [newest(s, "message")] and r.content[0]["channel_name"] == "general"),
    Case("search_chat_messages", {"query": " "}, ok=False, error="must not be empty"),
    Case("create_chat_channel", lambda s: {"workspace_id": "ws_0001", "name": "#launch-plan", "private": True, "invite_user_ids": [stranger(s)]},
         check=lambda s, r: r.content["name"] == "launch-plan" and set(members(s, r.content["channel_id"])) == {ME, stranger(s)}
         and s.state.get("channel", r.content["channel_id"])["kind"] == "private"),
    Case("create_chat_channel", {"workspace_id": "ws_0001", "name": "general"}, ok=False, error="already exists"),
    Case("create_chat_channel", {"workspace_id": "ws_0001", "name": "Launch Plan"}, ok=False, error="invalid channel name"),
    Case("invite_to_chat_channel", lambda s: {"channel_id": chan(s, "random")}, check=lambda s, r: ME in members(s, chan(s, "random"))),
    Case("invite_to_chat_channel", lambda s: {"channel_id": chan(s, "random"), "user_id": outsider(s, chan(s, "random"))},
         setup=[("invite_to_chat_channel", lambda s: {"channel_id": chan(s, "random")})],
         check=lambda s, r: len(members(s, chan(s, "random"))) == r.content["member_count"]),
    Case("invite_to_chat_channel", lambda s: {"channel_id": chan(s, "leadership")}, ok=False, error="is private"),
    Case("invite_to_chat_channel", lambda s: {"channel_id": chan(s, "random"), "user_id": outsider(s, chan(s, "random"))},
         ok=False, error="only members"),
    Case("post_chat_message", lambda s: {"channel_id": chan(s, "general"), "text": "  Ship it  "},
         check=lambda s, r: msg(s, r.content["message_id"])["text"] == "Ship it" and msg(s, r.content["message_id"])["user_id"] == ME),
    Case("post_chat_message", lambda s: {"channel_id": chan(s, "random"), "text": "hi"}, ok=False, error="must be a member"),
    Case("post_chat_message", lambda s: {"channel_id": chan(s, "general"), "text": "x", "thread_id": newest(s, "message")},
         setup=[POST, REPLY], ok=False, error="itself a reply"),
    Case("post_chat_message", archive(lambda s: chan(s, "general")), ok=False, error="archived"),
    Case("send_chat_direct_message", lambda s: {"user_id": stranger(s), "text": "Got a minute?"},
         check=lambda s, r: set(members(s, r.content["channel_id"])) == {ME, r.content["to"]} and msg(s, r.content["message_id"])["text"] == "Got a minute?"),
    Case("send_chat_direct_message", lambda s: {"user_id": stranger(s), "text": "again"}, setup=[("send_chat_direct_message", lambda s: {"user_id": stranger(s), "text": "hi"})],
         check=lambda s, r: len([c for c in s.state.find("channel", kind="dm") if ME in c["member_ids"] and r.content["to"] in c["member_ids"]]) == 1),
    Case("send_chat_direct_message", {"user_id": ME, "text": "note to self"}, ok=False, error="yourself"),
    Case("add_message_reaction", lambda s: {"message_id": newest(s, "message"), "emoji": "tada"}, setup=[POST],
         check=lambda s, r: s.call("get_message_thread", {"message_id": newest(s, "message")}).content["parent"]["reactions"]
         == [{"emoji": "tada", "count": 1, "user_ids": [ME]}]),
    Case("add_message_reaction", lambda s: {"message_id": newest(s, "message"), "emoji": "tada"},
         setup=[POST, ("add_message_reaction", lambda s: {"message_id": newest(s, "message"), "emoji": "tada"})], ok=False, error="already reacted"),
    Case("add_message_reaction", lambda s: {"message_id": newest(s, "message"), "emoji": "party"}, setup=[POST], ok=False, error="must be one of"),
    Case("pin_chat_message", lambda s: {"message_id": newest(s, "message")}, setup=[POST],
         check=lambda s, r: msg(s, newest(s, "message"))["pinned_by"] == ME),
    Case("pin_chat_message", lambda s: {"message_id": newest(s, "message"), "unpin": True}, setup=[POST], ok=False, error="not pinned"),
]

globals().update(server_suite(srv, CASES, n_tools=11, seeds=None))

@pytest.mark.parametrize("seed,size", [(0, "small"), (1, "small"), (0, "large"), (2, "large")])
def test_seed_integrity(seed, size):
    st = srv.seed_state(seed, size)
    assert integrity_errors(st) == []
    for m in st.rows("message"):  # authors belong to their channel; replies answer a top-level message of the same channel
        assert m["user_id"] in st.get("channel", m["channel_id"])["member_ids"]
        if m["thread_id"]:
            p = st.get("message", m["thread_id"])
            assert p["thread_id"] is None and p["channel_id"] == m["channel_id"] and p["ts"] < m["ts"]
