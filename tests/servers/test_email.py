import pytest
from prove_nb.server import load_server
from prove_nb.state import integrity_errors
from tests.servers.harness import Case, server_suite

srv = load_server("email")
A, B = "mbx_0001", "mbx_0002"

def addr(s, box): return s.state.get("mailbox", box)["address"]
def msg(s, **eq):
    "The first message matching `eq`."
    return next(m for m in s.state.rows("message") if all(m[k] == v for k, v in eq.items()))
def received(s, cc=False):
    "The first message of mailbox A's inbox from someone else (or, with `cc`, of any inbox, with cc recipients)."
    return next(m for m in s.state.rows("message") if m["folder"] == "inbox" and m["from_address"] != addr(s, m["mailbox_id"])
                and (m["cc"] if cc else m["mailbox_id"] == A))
def with_files(s): return next(m for m in s.state.rows("message") if m["attachment_ids"] and m["folder"] != "drafts")
def file_of(s, box=A, k=0): return [f for f in s.state.rows("file") if f["mailbox_id"] == box][k]["file_id"]
def label_of(s, box=A, k=0): return [lb for lb in s.state.rows("label") if lb["mailbox_id"] == box][k]
def newest(s, table): return max(r[s.state.specs[table].key] for r in s.state.rows(table))
def m(s, mid): return s.state.get("message", mid)
def inbox_of(s, box): return [x for x in s.state.rows("message") if x["mailbox_id"] == box and x["folder"] == "inbox"]

def draft_args(s, **kw):
    return {"mailbox_id": A, "to": [addr(s, B), "pat.lee@acme.example"], "subject": "Q3 budget", "body": "Numbers attached.",
            "attachment_ids": [file_of(s)], **kw}
DRAFT = ("create_email_draft", draft_args)
BLOCK_A_IN_B = ("save_email_contact", lambda s: {"mailbox_id": B, "email": addr(s, A), "name": "Ex colleague", "blocked": True})

def check_draft(s, r):
    d = m(s, r.content["message_id"])
    assert d["folder"] == "drafts" and d["from_address"] == addr(s, A) and d["attachment_ids"] == (file_of(s),)
    assert s.state.get("thread", d["thread_id"])["subject"] == "Q3 budget"

def check_sent(s, r, folder="inbox"):
    "The draft is in sent; B got an unread copy (in `folder`) with its own copy of the attachment; the outside address is listed."
    assert m(s, r.content["message_id"])["folder"] == "sent" and r.content["date"] == s.state.meta["now"]
    assert r.content["external"] == ["pat.lee@acme.example"] and [d["mailbox_id"] for d in r.content["delivered"]] == [B]
    copy = m(s, r.content["delivered"][0]["message_id"])
    assert (copy["mailbox_id"], copy["folder"], copy["is_read"], copy["subject"]) == (B, folder, False, "Q3 budget")
    f = s.state.get("file", copy["attachment_ids"][0])
    assert f["mailbox_id"] == B and f["name"] == s.state.get("file", file_of(s))["name"]

def check_search(s, r):
    assert r.content and all(x["mailbox_id"] == A and x["folder"] == "inbox" and not x["is_read"] for x in r.content)
    assert [x["date"] for x in r.content] == sorted((x["date"] for x in r.content), reverse=True)
    assert len(r.content) == sum(1 for x in inbox_of(s, A) if not x["is_read"])

def check_reply(s, r, cc=False):
    orig = received(s, cc=cc)
    d = m(s, r.content["message_id"])
    assert d["folder"] == "drafts" and d["thread_id"] == orig["thread_id"] and d["to"] == (orig["from_address"],)
    assert d["subject"] in (orig["subject"], "Re: " + orig["subject"]) and d["subject"].startswith("Re:")
    if cc: assert d["cc"] == orig["cc"] != ()

CASES = [
    Case("list_mailboxes", {}, check=lambda s, r: len(r.content) == s.state.count("mailbox")
         and r.content[0]["unread_inbox"] == sum(1 for x in inbox_of(s, A) if not x["is_read"])),
    Case("list_mailboxes", {"query": 5}, ok=False, error="must be string"),
    Case("search_emails", {"mailbox_id": A, "folder": "inbox", "unread_only": True, "limit": 100}, check=check_search),
    Case("search_emails", lambda s: {"mailbox_id": A, "query": received(s)["subject"][-8:]},
         check=lambda s, r: received(s)["message_id"] in {x["message_id"] for x in r.content}),
    Case("search_emails", {"mailbox_id": A, "limit": 0}, ok=False, error="limit"),
    Case("search_emails", lambda s: {"mailbox_id": A, "label_id": label_of(s, B)["label_id"]}, ok=False, error="another mailbox"),
    Case("get_email", lambda s: {"message_id": with_files(s)["message_id"]},
         check=lambda s, r: [a["name"] for a in r.content["attachments"]] == [s.state.get("file", f)["name"] for f in with_files(s)["attachment_ids"]]),
    Case("get_email", {"message_id": "msg_9999"}, ok=False, error="no message"),
    Case("get_email_thread", lambda s: {"thread_id": received(s)["thread_id"]},
         check=lambda s, r: received(s)["message_id"] in [x["message_id"] for x in r.content["messages"]]
         and [x["date"] for x in r.content["messages"]] == sorted(x["date"] for x in r.content["messages"])),
    Case("get_email_thread", {"thread_id": "thr_9999"}, ok=False, error="no thread"),
    Case("list_email_labels", {"mailbox_id": A}, check=lambda s, r: r.content and all(lb["mailbox_id"] == A for lb in r.content)
         and sum(lb["message_count"] for lb in r.content) == sum(len(x["label_ids"]) for x in s.state.rows("message") if x["mailbox_id"] == A)),
    Case("list_email_labels", {"mailbox_id": "mbx_9999"}, ok=False, error="no mailbox"),
    Case("list_email_contacts", {"mailbox_id": A}, check=lambda s, r: r.content and {c["contact_id"] for c in r.content}
         == {c["contact_id"] for c in s.state.find("contact", mailbox_id=A)}),
    Case("list_email_contacts", {"mailbox_id": A, "blocked": "yes"}, ok=False, error="must be boolean"),
    Case("list_mailbox_files", {"mailbox_id": A, "query": "PDF"}, check=lambda s, r: all(f["mailbox_id"] == A and f["name"].endswith(".pdf") for f in r.content)),
    Case("list_mailbox_files", {"mailbox_id": "mbx_9999"}, ok=False, error="no mailbox"),
    Case("create_email_draft", draft_args, check=check_draft),
    Case("create_email_draft", lambda s: draft_args(s, to=["pat.lee(at)acme"]), ok=False, error="not a valid email address"),
    Case("create_email_draft", lambda s: draft_args(s, cc=["Pat.Lee@acme.example"]), ok=False, error="more than once"),
    Case("create_email_draft", lambda s: draft_args(s, attachment_ids=[file_of(s, B)]), ok=False, error="belongs to mailbox"),
    Case("create_email_draft", lambda s: draft_args(s, to=[]), ok=False, error="at least one address"),
    Case("attach_file_to_draft", lambda s: {"message_id": newest(s, "message"), "file_id": file_of(s, k=1)}, setup=[DRAFT],
         check=lambda s, r: m(s, newest(s, "message"))["attachment_ids"] == (file_of(s), file_of(s, k=1))),
    Case("attach_file_to_draft", lambda s: {"message_id": msg(s, folder="sent")["message_id"], "file_id": file_of(s)}, ok=False, error="not a draft"),
    Case("attach_file_to_draft", lambda s: {"message_id": newest(s, "message"), "file_id": file_of(s)}, setup=[DRAFT], ok=False, error="already attached"),
    Case("send_email_draft", lambda s: {"message_id": newest(s, "message")}, setup=[DRAFT], check=check_sent),
    Case("send_email_draft", lambda s: {"message_id": newest(s, "message")}, setup=[BLOCK_A_IN_B, DRAFT],
         check=lambda s, r: check_sent(s, r, folder="spam")),
    Case("send_email_draft", lambda s: {"message_id": msg(s, folder="sent")["message_id"]}, ok=False, error="not a draft"),
    Case("send_email_draft", lambda s: {"message_id": newest(s, "message")}, setup=[("create_email_draft", lambda s: draft_args(s, subject=" "))],
         ok=False, error="no subject"),
    Case("reply_to_email", lambda s: {"message_id": received(s)["message_id"], "body": "Sounds good."}, check=check_reply),
    Case("reply_to_email", lambda s: {"message_id": received(s, cc=True)["message_id"], "body": "All: agreed.", "reply_all": True},
         check=lambda s, r: check_reply(s, r, cc=True)),
    Case("reply_to_email", lambda s: {"message_id": msg(s, folder="drafts")["message_id"], "body": "x"}, ok=False, error="is a draft"),
    Case("forward_email", lambda s: {"message_id": with_files(s)["message_id"], "to": ["auditor@initech.example"], "note": "FYI"},
         check=lambda s, r: (m(s, r.content["message_id"])["attachment_ids"], m(s, r.content["message_id"])["subject"], m(s, r.content["message_id"])["folder"])
         == (with_files(s)["attachment_ids"], "Fwd: " + with_files(s)["subject"], "drafts") and r.content["body"].startswith("FYI")),
    Case("forward_email", lambda s: {"message_id": with_files(s)["message_id"], "to": ["auditor"]}, ok=False, error="not a valid email address"),
    Case("move_email_to_folder", lambda s: {"message_id": received(s)["message_id"], "folder": "archive"},
         check=lambda s, r: m(s, r.content["message_id"])["folder"] == "archive"),
    Case("move_email_to_folder", lambda s: {"message_id": msg(s, folder="sent")["message_id"], "folder": "inbox"}, ok=False, error="cannot go to inbox"),
    Case("move_email_to_folder", lambda s: {"message_id": msg(s, folder="drafts")["message_id"], "folder": "archive"}, ok=False, error="only be moved to trash"),
    Case("move_email_to_folder", lambda s: {"message_id": received(s)["message_id"], "folder": "inbox"}, ok=False, error="already in inbox"),
    Case("move_email_to_folder", lambda s: {"message_id": received(s)["message_id"], "folder": "sent"}, ok=False, error="must be one of"),
    Case("label_email", lambda s: {"message_id": received(s)["message_id"], "label_id": label_of(s)["label_id"]},
         check=lambda s, r: label_of(s)["label_id"] in m(s, r.content["message_id"])["label_ids"]),
    Case("label_email", lambda s: {"message_id": received(s)["message_id"], "label_id": label_of(s)["label_id"], "action": "remove"},
         setup=[("label_email", lambda s: {"message_id": received(s)["message_id"], "label_id": label_of(s)["label_id"]})],
         check=lambda s, r: label_of(s)["label_id"] not in m(s, r.content["message_id"])["label_ids"]),
    Case("label_email", lambda s: {"message_id": received(s)["message_id"], "label_id": label_of(s, B)["label_id"]}, ok=False, error="belongs to mailbox"),
    Case("label_email", lambda s: {"message_id": received(s)["message_id"], "label_id": label_of(s)["label_id"], "action": "remove"},
         ok=False, error="does not have label"),
    Case("create_email_label", {"mailbox_id": A, "name": "Board", "color": "blue"},
         check=lambda s, r: s.state.get("label", r.content["label_id"])["name"] == "Board"),
    Case("create_email_label", lambda s: {"mailbox_id": A, "name": label_of(s)["name"].upper()}, ok=False, error="already has a label"),
    Case("save_email_contact", {"mailbox_id": A, "email": "New.Person@Acme.example", "name": "New Person"},
         check=lambda s, r: s.state.get("contact", r.content["contact_id"])["email"] == "new.person@acme.example"),
    Case("save_email_contact", lambda s: {"mailbox_id": A, "email": s.state.find("contact", mailbox_id=A, blocked=False)[0]["email"], "blocked": True},
         check=lambda s, r: s.state.get("contact", r.content["contact_id"])["blocked"] is True and s.state.count("contact") == srv.seed_state(0).count("contact")),
    Case("save_email_contact", {"mailbox_id": A, "email": "someone@acme.example"}, ok=False, error="give a name"),
    Case("save_email_contact", lambda s: {"mailbox_id": A, "email": addr(s, A), "name": "Me"}, ok=False, error="own address"),
    Case("mark_emails_read", lambda s: {"message_ids": [x["message_id"] for x in inbox_of(s, A) if not x["is_read"]]},
         check=lambda s, r: r.content["changed"] and all(x["is_read"] for x in inbox_of(s, A))),
    Case("mark_emails_read", lambda s: {"message_ids": [msg(s, folder="sent")["message_id"]]}, ok=False, error="already read"),
    Case("mark_emails_read", {"message_ids": ["msg_9999"]}, ok=False, error="no message"),
]

globals().update(server_suite(srv, CASES, n_tools=17, seeds=None))

@pytest.mark.parametrize("seed,size", [(0, "small"), (1, "small"), (0, "large"), (2, "large"), (3, "tiny")])
def test_seed_integrity(seed, size):
    st = srv.seed_state(seed, size)
    assert integrity_errors(st) == []
    for x in st.rows("message"):  # threads, labels and attachments stay inside the message's mailbox
        assert st.get("thread", x["thread_id"])["mailbox_id"] == x["mailbox_id"]
        assert all(st.get(t, k)["mailbox_id"] == x["mailbox_id"] for t, ks in (("label", x["label_ids"]), ("file", x["attachment_ids"])) for k in ks)
    assert {t["thread_id"] for t in st.rows("thread")} == {x["thread_id"] for x in st.rows("message")}  # no empty thread

def test_reply_then_send_threads_for_both():
    "A reply sent to a colleague joins the sender's thread and the colleague's thread of the same subject."
    s = srv.session()
    r = s.call("create_email_draft", {"mailbox_id": A, "to": [addr(s, B)], "subject": "Offsite"}).content
    sent = s.call("send_email_draft", {"message_id": r["message_id"]}).content
    copy = m(s, sent["delivered"][0]["message_id"])
    reply = s.call("reply_to_email", {"message_id": copy["message_id"], "body": "Count me in"}).content
    assert reply["to"] == [addr(s, A)] and reply["thread_id"] == copy["thread_id"]
    back = s.call("send_email_draft", {"message_id": reply["message_id"]}).content
    assert m(s, back["delivered"][0]["message_id"])["thread_id"] == r["thread_id"]
