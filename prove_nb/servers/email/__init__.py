"""Email: mailboxes with folders, threads, drafts that are sent, attachments from the mailbox's files, labels and contacts (17 tools).

Rules: only drafts are edited, given attachments and sent; a draft needs a subject and at least one valid, distinct
recipient; attachments are files of the same mailbox, each attached once, 25 MB in all; sending moves the draft to
sent and delivers a copy to every recipient that is a mailbox here (into their spam when they blocked the sender);
drafts can only be discarded to trash and sent mail never goes back to the inbox; labels belong to one mailbox and
have unique names there; contact addresses are unique within a mailbox.
"""
import re
from datetime import timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.email.phrasing import PHRASES
from prove_nb.servers._common import NOW_DT, FIRST_NAMES, LAST_NAMES, need
from prove_nb.state import TableSpec

FIRST = FIRST_NAMES
LAST = LAST_NAMES
DOMAIN = "northwind.example"
COMPANIES = ["acme.example", "globex.example", "initech.example", "umbrella.example", "hooli.example", "vandelay.example"]
LABELS = ["Finance", "Travel", "Clients", "Hiring", "Receipts", "Urgent", "Newsletters", "Legal", "Family", "Follow up"]
COLORS = ["red", "orange", "yellow", "green", "blue", "purple", "gray"]
FILES = [("Q2_report", "pdf"), ("invoice_{n}", "pdf"), ("contract_{n}", "pdf"), ("budget_2026", "xlsx"), ("headcount_plan", "xlsx"),
         ("team_photo", "jpg"), ("slides_kickoff", "pptx"), ("meeting_notes_{n}", "docx"), ("logo", "png"), ("itinerary", "pdf")]
MIME = {"pdf": "application/pdf", "xlsx": "application/vnd.ms-excel", "jpg": "image/jpeg", "png": "image/png",
        "pptx": "application/vnd.ms-powerpoint", "docx": "application/msword"}
SUBJECTS = ["Invoice {n} for May", "Contract renewal", "Offsite travel plans", "Q2 report draft", "Candidate feedback: {name}",
            "Lunch on Thursday?", "Budget approval needed", "Website launch checklist", "Your order #{n} has shipped",
            "Weekly newsletter", "Slides for the kickoff", "Quick question about the API", "Expense report", "Vendor shortlist"]
BODIES = ["Hi {name},\n\nPlease find the details below. Let me know if anything is missing.\n\nThanks",
          "Hello {name},\n\nJust following up on this. Could you confirm by Friday?\n\nBest",
          "Hi {name},\n\nThanks for the update, looks good to me.\n\nCheers",
          "Dear {name},\n\nAttached is the latest version for your review.\n\nKind regards"]
Folder = Literal["inbox", "sent", "drafts", "archive", "trash", "spam"]
MAX_KB = 25_000
ADDRESS = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")

def _mailbox(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    taken = pick.memo.setdefault("addresses", set())
    address = f"{first.lower()}.{last.lower()}@{DOMAIN}"
    if address in taken: address = f"{first.lower()}.{last.lower()}{len(taken)}@{DOMAIN}"
    taken.add(address)
    return {"owner_name": f"{first} {last}", "address": address, "signature": f"{first} {last}\nNorthwind Traders"}

def _contact(rng, i, pick):
    seen, mbx = pick.memo.setdefault("contact_pairs", set()), pick("mailbox")
    if rng.random() < 0.3:
        other = pick.row("mailbox", pick("mailbox"))
        name, email, company = other["owner_name"], other["address"], "Northwind Traders"
    else:
        first, last, dom = rng.choice(FIRST), rng.choice(LAST), rng.choice(COMPANIES)
        name, email, company = f"{first} {last}", f"{first.lower()}.{last.lower()}@{dom}", dom.split(".")[0].title()
    if (mbx, email) in seen or email == pick.row("mailbox", mbx)["address"]: return None
    seen.add((mbx, email))
    return {"mailbox_id": mbx, "name": name, "email": email, "company": company, "blocked": rng.random() < 0.06}

def _label(rng, i, pick):
    mbx, name = pick("mailbox"), rng.choice(LABELS)
    seen = pick.memo.setdefault("label_pairs", set())
    if (mbx, name) in seen: return None
    seen.add((mbx, name))
    return {"mailbox_id": mbx, "name": name, "color": rng.choice(COLORS)}

def _file(rng, i, pick):
    stem, ext = rng.choice(FILES)
    return {"mailbox_id": pick("mailbox"), "name": f"{stem.format(n=rng.randint(1000, 9999))}.{ext}",
            "size_kb": rng.choice([48, 120, 350, 900, 2400, 6000, 14000]) + rng.randint(0, 40), "mime_type": MIME[ext]}

def _thread(rng, i, pick):
    subject = rng.choice(SUBJECTS).format(n=rng.randint(1000, 9999), name=rng.choice(FIRST))
    return {"mailbox_id": pick("mailbox"), "subject": subject}

def _message(rng, i, pick):
    threads = pick.rows("thread")
    t = threads[i] if i < len(threads) else pick.row("thread", pick("thread"))  # every thread gets a first message
    thr, mbx = t["thread_id"], t["mailbox_id"]
    me, contacts = pick.row("mailbox", mbx), pick.group("contact", "mailbox_id").get(mbx, [])
    other = rng.choice(contacts) if contacts else {"name": "Sam Rivera", "email": "sam.rivera@acme.example"}
    so_far = pick.memo.setdefault("thread_messages", {})  # thread -> (messages made, when it started)
    if thr not in so_far: so_far[thr] = (0, NOW_DT - timedelta(minutes=rng.randint(120, 60 * 24 * 45)))
    n, start = so_far[thr][0] + 1, so_far[thr][1]
    so_far[thr] = (n, start)
    kind = rng.choices(["received", "sent", "draft"], [70, 22, 8])[0]
    when = min(start + timedelta(minutes=(n - 1) * rng.randint(30, 900)), NOW_DT - timedelta(minutes=n))
    third = rng.choice(contacts)["email"] if contacts and rng.random() < 0.3 else None
    cc = (third,) if third not in (None, other["email"]) else ()
    if kind == "received":
        folder = rng.choices(["inbox", "archive", "trash", "spam"], [70, 20, 6, 4])[0]
        frm, to = other["email"], (me["address"],)
    else:
        folder, frm, to = ("sent" if kind == "sent" else "drafts"), me["address"], (other["email"],)
    labels = [l["label_id"] for l in pick.group("label", "mailbox_id").get(mbx, [])]
    files = [f["file_id"] for f in pick.group("file", "mailbox_id").get(mbx, [])]
    return {"mailbox_id": mbx, "thread_id": thr, "folder": folder, "from_address": frm, "to": to, "cc": cc,
            "subject": ("Re: " if n > 1 else "") + t["subject"], "body": rng.choice(BODIES).format(name=(me["owner_name"] if kind == "received" else other["name"]).split()[0]),
            "date": when.isoformat(timespec="seconds"), "is_read": kind != "received" or rng.random() < 0.6,
            "label_ids": tuple(sorted(rng.sample(labels, 1))) if labels and rng.random() < 0.3 else (),
            "attachment_ids": tuple(sorted(rng.sample(files, 1))) if files and rng.random() < 0.2 else ()}

server = ToolServer(
    "email", "Email: mailboxes with folders and threads, drafts and sending, attachments, labels and contacts.",
    [TableSpec("mailbox", "mailbox_id", "mbx_"),
     TableSpec("contact", "contact_id", "con_", {"mailbox_id": "mailbox"}),
     TableSpec("label", "label_id", "lbl_", {"mailbox_id": "mailbox"}),
     TableSpec("file", "file_id", "fil_", {"mailbox_id": "mailbox"}),
     TableSpec("thread", "thread_id", "thr_", {"mailbox_id": "mailbox"}),
     TableSpec("message", "message_id", "msg_", {"mailbox_id": "mailbox", "thread_id": "thread", "label_ids": "label",
                                                  "attachment_ids": "file"})],
    {"mailbox": _mailbox, "contact": _contact, "label": _label, "file": _file, "thread": _thread, "message": _message},
    {"mailbox": 8, "contact": 48, "label": 24, "file": 32, "thread": 60, "message": 160}, phrases=PHRASES)

MailboxId = Annotated[str, Entity("mailbox")]
MessageId = Annotated[str, Entity("message")]
MessageIds = Annotated[list[str], Entity("message")]
ThreadId = Annotated[str, Entity("thread")]
LabelId = Annotated[str, Entity("label")]
FileId = Annotated[str, Entity("file")]

# ---- helpers -------------------------------------------------------------------------------------------------------
def _addresses(values, what) -> tuple:
    "Valid, lower-cased addresses."
    out = tuple(v.strip().lower() for v in values or [])
    for a in out:
        if not ADDRESS.match(a): raise ToolError(f"'{a}' in {what} is not a valid email address")
    return out

def _recipients(to, cc) -> tuple:
    to, cc = _addresses(to, "to"), _addresses(cc, "cc")
    if not to: raise ToolError("a message needs at least one address in to")
    both = to + cc
    dup = sorted({a for a in both if both.count(a) > 1})
    if dup: raise ToolError(f"{dup[0]} is listed more than once among the recipients")
    if len(both) > 50: raise ToolError("a message can have at most 50 recipients")
    return to, cc

def _draft(st, message_id):
    m = need(st, "message", message_id)
    if m["folder"] != "drafts": raise ToolError(f"message {message_id} is in {m['folder']}, not a draft")
    return m

def _files(st, mailbox_id, file_ids) -> tuple:
    "Files of the mailbox, each once, 25 MB in all."
    ids = tuple(file_ids or ())
    if len(set(ids)) != len(ids): raise ToolError("a file is attached twice")
    files = [need(st, "file", f) for f in ids]
    for f in files:
        if f["mailbox_id"] != mailbox_id: raise ToolError(f"file {f['file_id']} belongs to mailbox {f['mailbox_id']}, not {mailbox_id}")
    total = sum(f["size_kb"] for f in files)
    if total > MAX_KB: raise ToolError(f"attachments total {total} KB, over the {MAX_KB} KB (25 MB) limit")
    return ids

def _now(st) -> str: return st.meta["now"]

def _summary(m) -> dict:
    return {"message_id": m["message_id"], "thread_id": m["thread_id"], "mailbox_id": m["mailbox_id"], "folder": m["folder"],
            "from_address": m["from_address"], "to": m["to"], "subject": m["subject"], "date": m["date"], "is_read": m["is_read"],
            "label_ids": m["label_ids"], "attachment_ids": m["attachment_ids"]}

def _full(st, m) -> dict:
    "A message with its attachments' names and sizes and its labels' names."
    out = dict(m)
    out["attachments"] = [{k: st.get("file", f)[k] for k in ("file_id", "name", "size_kb")} for f in m["attachment_ids"]]
    out["labels"] = [{"label_id": lb, "name": st.get("label", lb)["name"]} for lb in m["label_ids"]]
    return out

def _new_draft(st, mailbox_id, thread_id, to, cc, subject, body, attachment_ids) -> dict:
    box = need(st, "mailbox", mailbox_id)
    if thread_id is None: thread_id = st.insert("thread", {"mailbox_id": mailbox_id, "subject": subject})["thread_id"]
    m = st.insert("message", {"mailbox_id": mailbox_id, "thread_id": thread_id, "folder": "drafts", "from_address": box["address"],
                              "to": to, "cc": cc, "subject": subject, "body": body, "date": _now(st), "is_read": True,
                              "label_ids": (), "attachment_ids": attachment_ids})
    return _full(st, m)

def _plain(subject) -> str: return re.sub(r"^((re|fwd?):\s*)+", "", subject.strip(), flags=re.I).lower()

def _deliver(st, sent, box, address) -> dict:
    "A copy of a sent message in the inbox (or spam) of the mailbox at `address`, with copies of its attachments."
    target = next(b for b in st.rows("mailbox") if b["address"] == address)
    rid = target["mailbox_id"]
    blocked = any(c["email"] == box["address"] and c["blocked"] for c in st.find("contact", mailbox_id=rid))
    thread = next((t["thread_id"] for t in sorted(st.find("thread", mailbox_id=rid), key=lambda t: t["thread_id"])
                   if _plain(t["subject"]) == _plain(sent["subject"])), None)
    if thread is None: thread = st.insert("thread", {"mailbox_id": rid, "subject": sent["subject"]})["thread_id"]
    files = tuple(st.insert("file", {**{k: v for k, v in st.get("file", f).items() if k != "file_id"}, "mailbox_id": rid})["file_id"]
                  for f in sent["attachment_ids"])
    m = st.insert("message", {**{k: v for k, v in sent.items() if k != "message_id"}, "mailbox_id": rid, "thread_id": thread,
                              "folder": "spam" if blocked else "inbox", "is_read": False, "label_ids": (), "attachment_ids": files})
    return {"address": address, "mailbox_id": rid, "message_id": m["message_id"], "folder": m["folder"]}

# ---- read tools ----------------------------------------------------------------------------------------------------
@server.read(produces="mailbox")
def list_mailboxes(st, query: str = ""):
    """List mailboxes whose owner name or address contains some text, with their unread inbox counts.

    Args:
        query: Text contained in the owner's name or the address (case-insensitive); empty lists all.
    """
    q = (query or "").lower()
    boxes = [b for b in st.rows("mailbox") if q in b["owner_name"].lower() or q in b["address"]]
    ids = {b["mailbox_id"] for b in boxes}
    unread = {}
    for m in st.rows("message"):
        if m["mailbox_id"] in ids and m["folder"] == "inbox" and not m["is_read"]: unread[m["mailbox_id"]] = unread.get(m["mailbox_id"], 0) + 1
    return [{**b, "unread_inbox": unread.get(b["mailbox_id"], 0)} for b in boxes]

@server.read(produces=("message", "thread"))
def search_emails(st, mailbox_id: MailboxId, query: str = "", folder: Folder | None = None, from_address: str = "",
                  label_id: LabelId | None = None, unread_only: bool = False, has_attachment: bool | None = None, limit: int = 20):
    """Search one mailbox's messages, newest first.

    Args:
        mailbox_id: The mailbox to search.
        query: Text contained in the subject or body (case-insensitive).
        folder: Only messages in this folder (default: every folder except trash and spam).
        from_address: Text contained in the sender's address.
        label_id: Only messages with this label.
        unread_only: Only unread messages.
        has_attachment: Only messages with (true) or without (false) attachments.
        limit: Maximum number of messages (1 to 100).
    """
    need(st, "mailbox", mailbox_id)
    if label_id is not None and need(st, "label", label_id)["mailbox_id"] != mailbox_id:
        raise ToolError(f"label {label_id} belongs to another mailbox")
    limit = 20 if limit is None else limit
    if not 1 <= limit <= 100: raise ToolError(f"limit must be between 1 and 100, got {limit}")
    q, frm = (query or "").lower(), (from_address or "").lower()
    out = [_summary(m) for m in st.rows("message") if m["mailbox_id"] == mailbox_id
           and (m["folder"] == folder if folder else m["folder"] not in ("trash", "spam"))
           and (q in m["subject"].lower() or q in m["body"].lower()) and frm in m["from_address"]
           and label_id in (None, *m["label_ids"]) and (m["is_read"] is False or not unread_only)
           and has_attachment in (None, bool(m["attachment_ids"]))]
    return sorted(out, key=lambda m: (m["date"], m["message_id"]), reverse=True)[:limit]

@server.read(produces=("message", "thread", "file", "label"))
def get_email(st, message_id: MessageId):
    """Get one message in full: recipients, body, attachments (file ids, names, sizes) and labels.

    Args:
        message_id: The message to read.
    """
    return _full(st, need(st, "message", message_id))

@server.read(produces="message")
def get_email_thread(st, thread_id: ThreadId):
    """Get a conversation: its subject and every message in it, oldest first, with bodies.

    Args:
        thread_id: The thread to read.
    """
    t = need(st, "thread", thread_id)
    msgs = sorted(st.find("message", thread_id=thread_id), key=lambda m: (m["date"], m["message_id"]))
    return {**t, "messages": [{**_summary(m), "cc": m["cc"], "body": m["body"]} for m in msgs]}

@server.read(produces="label")
def list_email_labels(st, mailbox_id: MailboxId):
    """List a mailbox's labels with how many messages carry each.

    Args:
        mailbox_id: The mailbox whose labels to list.
    """
    need(st, "mailbox", mailbox_id)
    labels = {lb["label_id"]: {**lb, "message_count": 0} for lb in st.rows("label") if lb["mailbox_id"] == mailbox_id}
    for m in st.rows("message"):
        for lb in m["label_ids"]:
            if lb in labels: labels[lb]["message_count"] += 1
    return list(labels.values())

@server.read(produces="contact")
def list_email_contacts(st, mailbox_id: MailboxId, query: str = "", blocked: bool | None = None):
    """List the contacts saved in a mailbox, optionally matching a name, address or company.

    Args:
        mailbox_id: The mailbox whose contacts to list.
        query: Text contained in the contact's name, address or company (case-insensitive).
        blocked: Only blocked (true) or only unblocked (false) contacts.
    """
    need(st, "mailbox", mailbox_id)
    q = (query or "").lower()
    return [dict(c) for c in st.rows("contact") if c["mailbox_id"] == mailbox_id and blocked in (None, c["blocked"])
            and (q in c["name"].lower() or q in c["email"] or q in c["company"].lower())]

@server.read(produces="file")
def list_mailbox_files(st, mailbox_id: MailboxId, query: str = ""):
    """List the files of a mailbox that can be attached to its drafts.

    Args:
        mailbox_id: The mailbox whose files to list.
        query: Text contained in the file name (case-insensitive).
    """
    need(st, "mailbox", mailbox_id)
    q = (query or "").lower()
    return [dict(f) for f in st.rows("file") if f["mailbox_id"] == mailbox_id and q in f["name"].lower()]

# ---- write tools ---------------------------------------------------------------------------------------------------
@server.write(produces=("message", "thread"))
def create_email_draft(st, mailbox_id: MailboxId, to: list[str], subject: str, body: str = "", cc: list[str] | None = None,
                       attachment_ids: Annotated[list[str], Entity("file")] | None = None):
    """Write a new draft (starting a new thread) in a mailbox; send it with send_email_draft.

    Args:
        mailbox_id: The mailbox to write from.
        to: Recipient addresses.
        subject: Subject line.
        body: Text of the message.
        cc: Addresses to copy.
        attachment_ids: Files of this mailbox to attach (25 MB in all).
    """
    need(st, "mailbox", mailbox_id)
    to, cc = _recipients(to, cc)
    return _new_draft(st, mailbox_id, None, to, cc, (subject or "").strip(), body or "", _files(st, mailbox_id, attachment_ids))

@server.write(after=("create_email_draft", "forward_email", "reply_to_email"))
def attach_file_to_draft(st, message_id: MessageId, file_id: FileId):
    """Attach one of the mailbox's files to a draft (25 MB in all per message).

    Args:
        message_id: The draft.
        file_id: The file to attach; it must belong to the draft's mailbox.
    """
    d = _draft(st, message_id)
    if file_id in d["attachment_ids"]: raise ToolError(f"file {file_id} is already attached to {message_id}")
    ids = _files(st, d["mailbox_id"], d["attachment_ids"] + (file_id,))
    return _full(st, st.update("message", message_id, attachment_ids=ids))

@server.write(produces="message", after=("create_email_draft", "reply_to_email", "forward_email"))
def send_email_draft(st, message_id: MessageId):
    """Send a draft: it moves to sent, and recipients that are mailboxes here receive a copy (in spam if they blocked the sender).

    Args:
        message_id: The draft to send.
    """
    d = _draft(st, message_id)
    if not d["subject"]: raise ToolError(f"draft {message_id} has no subject")
    _recipients(d["to"], d["cc"])
    box = st.get("mailbox", d["mailbox_id"])
    sent = st.update("message", message_id, folder="sent", date=_now(st))
    here = {b["address"] for b in st.rows("mailbox")}
    rcpts = list(dict.fromkeys(d["to"] + d["cc"]))
    return {"message_id": message_id, "folder": "sent", "date": sent["date"],
            "delivered": [_deliver(st, sent, box, a) for a in rcpts if a in here], "external": [a for a in rcpts if a not in here]}

@server.write(produces="message")
def reply_to_email(st, message_id: MessageId, body: str, reply_all: bool = False):
    """Write a reply draft in the same thread, addressed to the sender (and, with reply_all, everyone else on the message).

    Args:
        message_id: The message to answer (not a draft).
        body: Text of the reply.
        reply_all: Also copy the other recipients.
    """
    m = need(st, "message", message_id)
    if m["folder"] == "drafts": raise ToolError(f"message {message_id} is a draft; edit or send it instead")
    me = st.get("mailbox", m["mailbox_id"])["address"]
    if m["from_address"] == me: to, cc = m["to"], m["cc"] if reply_all else ()
    else:
        to = (m["from_address"],)
        cc = tuple(a for a in m["to"] + m["cc"] if a not in (me, m["from_address"])) if reply_all else ()
    subject = m["subject"] if m["subject"].lower().startswith("re:") else f"Re: {m['subject']}"
    return _new_draft(st, m["mailbox_id"], m["thread_id"], to, cc, subject, body or "", ())

@server.write(produces="message")
def forward_email(st, message_id: MessageId, to: list[str], note: str = ""):
    """Write a draft forwarding a message (with its attachments) to new recipients.

    Args:
        message_id: The message to forward (not a draft).
        to: Addresses to forward to.
        note: Text to put above the forwarded message.
    """
    m = need(st, "message", message_id)
    if m["folder"] == "drafts": raise ToolError(f"message {message_id} is a draft; send it instead of forwarding it")
    to, _ = _recipients(to, None)
    body = f"{note or ''}\n\n---------- Forwarded message ----------\nFrom: {m['from_address']}\nDate: {m['date']}\n" \
           f"Subject: {m['subject']}\n\n{m['body']}".lstrip()
    return _new_draft(st, m["mailbox_id"], m["thread_id"], to, (), f"Fwd: {m['subject']}", body, m["attachment_ids"])

@server.write
def move_email_to_folder(st, message_id: MessageId, folder: Literal["inbox", "archive", "trash", "spam"]):
    """Move a message to another folder (drafts can only be discarded to trash; sent mail never goes to inbox or spam).

    Args:
        message_id: The message to move.
        folder: The destination folder.
    """
    m = need(st, "message", message_id)
    if m["folder"] == folder: raise ToolError(f"message {message_id} is already in {folder}")
    if m["folder"] == "drafts" and folder != "trash": raise ToolError(f"message {message_id} is a draft; it can only be moved to trash")
    if m["from_address"] == st.get("mailbox", m["mailbox_id"])["address"] and m["folder"] != "drafts" and folder in ("inbox", "spam"):
        raise ToolError(f"message {message_id} was sent from this mailbox and cannot go to {folder}")
    return _summary(st.update("message", message_id, folder=folder))

@server.write(after=("create_email_label",))
def label_email(st, message_id: MessageId, label_id: LabelId, action: Literal["add", "remove"] = "add"):
    """Add a label to a message or remove it.

    Args:
        message_id: The message.
        label_id: A label of the message's mailbox.
        action: Whether to add or remove the label.
    """
    m, lb = need(st, "message", message_id), need(st, "label", label_id)
    if lb["mailbox_id"] != m["mailbox_id"]: raise ToolError(f"label {label_id} belongs to mailbox {lb['mailbox_id']}, not {m['mailbox_id']}")
    has, action = label_id in m["label_ids"], action or "add"
    if action == "add" and has: raise ToolError(f"message {message_id} already has label '{lb['name']}'")
    if action == "remove" and not has: raise ToolError(f"message {message_id} does not have label '{lb['name']}'")
    ids = tuple(sorted(set(m["label_ids"]) ^ {label_id}))
    return _full(st, st.update("message", message_id, label_ids=ids))

@server.write(produces="label")
def create_email_label(st, mailbox_id: MailboxId, name: str,
                       color: Literal["red", "orange", "yellow", "green", "blue", "purple", "gray"] = "gray"):
    """Create a label in a mailbox; names are unique within a mailbox (ignoring case).

    Args:
        mailbox_id: The mailbox.
        name: The label's name (1 to 40 characters).
        color: The label's color.
    """
    need(st, "mailbox", mailbox_id)
    name = (name or "").strip()
    if not 1 <= len(name) <= 40: raise ToolError("a label name has 1 to 40 characters")
    if any(lb["name"].lower() == name.lower() for lb in st.find("label", mailbox_id=mailbox_id)):
        raise ToolError(f"mailbox {mailbox_id} already has a label named '{name}'")
    return dict(st.insert("label", {"mailbox_id": mailbox_id, "name": name, "color": color or "gray"}))

@server.write(produces="contact")
def save_email_contact(st, mailbox_id: MailboxId, email: str, name: str | None = None, company: str | None = None,
                       blocked: bool | None = None):
    """Add a contact to a mailbox, or change the name, company or blocked flag of the contact with that address.

    Args:
        mailbox_id: The mailbox.
        email: The contact's address.
        name: Display name (required for a new contact).
        company: Company name.
        blocked: Whether mail from this address goes to spam.
    """
    box = need(st, "mailbox", mailbox_id)
    email = _addresses([email], "email")[0]
    if email == box["address"]: raise ToolError(f"{email} is the mailbox's own address")
    old = st.find("contact", mailbox_id=mailbox_id, email=email)
    changes = {k: v.strip() if isinstance(v, str) else v for k, v in {"name": name, "company": company, "blocked": blocked}.items() if v is not None}
    if "name" in changes and not changes["name"]: raise ToolError("name must not be empty")
    if not old:
        if "name" not in changes: raise ToolError(f"{email} is not a contact yet; give a name to add it")
        return dict(st.insert("contact", {"mailbox_id": mailbox_id, "email": email, "company": "", "blocked": False, **changes}))
    changes = {k: v for k, v in changes.items() if old[0][k] != v}
    if not changes: raise ToolError(f"contact {old[0]['contact_id']} ({email}) already has these details")
    return dict(st.update("contact", old[0]["contact_id"], **changes))

@server.write
def mark_emails_read(st, message_ids: MessageIds, is_read: bool = True):
    """Mark messages as read (or unread).

    Args:
        message_ids: The messages (1 to 100).
        is_read: True to mark read, false to mark unread.
    """
    if not 1 <= len(message_ids) <= 100: raise ToolError("give between 1 and 100 message_ids")
    is_read = is_read is not False
    msgs = [need(st, "message", m) for m in dict.fromkeys(message_ids)]
    todo = [m["message_id"] for m in msgs if m["is_read"] != is_read]
    if not todo: raise ToolError(f"every message is already {'read' if is_read else 'unread'}")
    for m in todo: st.update("message", m, is_read=is_read)
    return {"changed": todo, "is_read": is_read}
