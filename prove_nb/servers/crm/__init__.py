"""CRM: sales reps, companies, contacts, deals through a pipeline, and activities (16 tools).

Rules: a deal moves only forward through lead -> qualified -> proposal -> negotiation -> closed_won (skipping is
allowed), or to closed_lost from any open stage with a reason; closed deals do not move, except that a lost deal can
be reopened at an open stage; a deal needs a positive amount from the proposal stage on; owners must be active reps;
won deals keep their owner; company names and contact emails are unique; archived contacts get no new deals or
activities; calls, meetings and tasks are planned for a future time, and an owner's meetings (one hour each) may not
overlap; emails and notes are logged as done.
"""
import re
from datetime import date, datetime, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.crm.phrasing import PHRASES
from prove_nb.servers._common import NOW_DT, need
from prove_nb.state import TableSpec

STAGES = ["lead", "qualified", "proposal", "negotiation", "closed_won", "closed_lost"]
OPEN_STAGES = STAGES[:4]
STAGE = Literal["lead", "qualified", "proposal", "negotiation", "closed_won", "closed_lost"]
OPEN_STAGE = Literal["lead", "qualified", "proposal", "negotiation"]
INDUSTRY = Literal["software", "manufacturing", "healthcare", "retail", "finance", "logistics", "education", "energy"]
LOST_REASON = Literal["price", "competitor", "no_budget", "no_decision", "timing", "other"]
FIRST = ["Alicia", "Bernard", "Chidi", "Dana", "Eitan", "Freya", "Goran", "Helena", "Ishaan", "Julia", "Kenji", "Leila",
         "Mateo", "Nadia", "Owen", "Petra", "Rosa", "Samir", "Tessa", "Viktor"]
LAST = ["Achterberg", "Bianchi", "Carvalho", "Delacroix", "Engel", "Fitzgerald", "Gomez", "Horvat", "Ibsen", "Jablonski",
        "Kaur", "Lindgren", "Mbeki", "Novotny", "O'Brien", "Pereira"]
CO_A = ["Northwind", "Bluepeak", "Ironclad", "Silverline", "Redwood", "Brightpath", "Cobalt", "Evergreen", "Helix", "Lumen",
        "Meridian", "Nimbus", "Orion", "Pinnacle", "Quarry", "Summit"]
CO_B = ["Labs", "Logistics", "Health", "Systems", "Retail", "Capital", "Foods", "Energy", "Robotics", "Learning"]
CITIES = ["Austin", "Berlin", "Toronto", "Lisbon", "Singapore", "Denver", "Dublin", "Melbourne", "Chicago", "Oslo"]
TITLES = ["CTO", "VP Engineering", "Head of Procurement", "Operations Manager", "CFO", "IT Director", "Office Manager",
          "Product Lead", "CEO", "Buyer"]
DEAL_WHAT = ["Platform license", "Annual support", "Pilot project", "Fleet upgrade", "Data migration", "Training package",
             "Expansion seats", "Consulting retainer", "Hardware refresh", "Renewal"]
SUBJECTS = {"call": ["Discovery call", "Pricing follow-up", "Check-in call"],
            "email": ["Sent proposal", "Shared case study", "Intro email"],
            "meeting": ["Demo", "On-site workshop", "Contract review"],
            "note": ["Budget approved next quarter", "Champion left the company", "Prefers monthly billing"],
            "task": ["Prepare quote", "Send contract draft", "Update forecast"]}
MEETING = timedelta(hours=1)

def _when(rng, lo_days, hi_days) -> str:
    "An ISO date-time on a working hour `lo_days` to `hi_days` days from now (negative: before)."
    d = NOW_DT.date() + timedelta(days=rng.randint(lo_days, hi_days))
    return f"{d.isoformat()}T{rng.randint(8, 17):02d}:{rng.choice([0, 30]):02d}:00"

def _rep(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"name": f"{first} {last}", "email": f"{first.lower()}.{re.sub(r'[^a-z]', '', last.lower())}{i}@ourcrm.example",
            "role": "manager" if i % 5 == 0 else "rep", "team": rng.choice(["Enterprise", "Mid-Market", "SMB"]),
            "status": rng.choice(["active"] * 6 + ["inactive"])}

def _company(rng, i, pick):
    n = len(CO_A) * len(CO_B)
    name = f"{CO_A[i % len(CO_A)]} {CO_B[(i // len(CO_A) + i) % len(CO_B)]}" + (f" {i // n + 1}" if i >= n else "")
    return {"name": name, "industry": rng.choice(list(INDUSTRY.__args__)), "city": rng.choice(CITIES),
            "employees": rng.choice([12, 45, 120, 380, 900, 2500, 8000]), "owner_id": pick("sales_rep")}

def _contact(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"company_id": pick("company"), "first_name": first, "last_name": last,
            "email": f"{first.lower()}.{re.sub(r'[^a-z]', '', last.lower())}{i}@client.example",
            "phone": f"+1-555-{rng.randrange(10000):04d}", "title": rng.choice(TITLES), "status": rng.choice(["active"] * 9 + ["archived"])}

def _deal(rng, i, pick):
    stage = rng.choice(["lead", "qualified", "qualified", "proposal", "negotiation", "closed_won", "closed_lost"])
    closed = stage.startswith("closed")
    amount = 0.0 if stage == "lead" and rng.random() < 0.5 else float(rng.randrange(2000, 250000, 500))
    return {"contact_id": pick("crm_contact"), "owner_id": pick("sales_rep"), "name": rng.choice(DEAL_WHAT), "amount": amount,
            "stage": stage, "close_date": _when(rng, -90, -1)[:10] if closed else _when(rng, 10, 180)[:10],
            "lost_reason": rng.choice(list(LOST_REASON.__args__)) if stage == "closed_lost" else None,
            "reopened": 0, "created": _when(rng, -300, -100)[:10]}

def _activity(rng, i, pick):
    kind = rng.choice(["call", "email", "meeting", "note", "task"])
    planned = kind in ("call", "meeting", "task") and rng.random() < 0.5
    on_deal = rng.random() < 0.65
    return {"deal_id": pick("deal") if on_deal else None, "contact_id": None if on_deal else pick("crm_contact"),
            "owner_id": pick("sales_rep"), "kind": kind, "subject": rng.choice(SUBJECTS[kind]),
            "due": _when(rng, 1, 30) if planned else _when(rng, -60, -1), "status": "planned" if planned else "done", "outcome": ""}

server = ToolServer(
    "crm", "Sales CRM: companies, contacts, deals moving through a pipeline, activities and the reps who own them.",
    [TableSpec("sales_rep", "rep_id", "rep_"),
     TableSpec("company", "company_id", "co_", {"owner_id": "sales_rep"}),
     TableSpec("crm_contact", "contact_id", "ctc_", {"company_id": "company"}),
     TableSpec("deal", "deal_id", "deal_", {"contact_id": "crm_contact", "owner_id": "sales_rep"}),
     TableSpec("crm_activity", "activity_id", "actv_", {"deal_id": "deal", "contact_id": "crm_contact", "owner_id": "sales_rep"})],
    {"sales_rep": _rep, "company": _company, "crm_contact": _contact, "deal": _deal, "crm_activity": _activity},
    {"sales_rep": 10, "company": 16, "crm_contact": 36, "deal": 40, "crm_activity": 60}, phrases=PHRASES)

RepId = Annotated[str, Entity("sales_rep")]
CompanyId = Annotated[str, Entity("company")]
ContactId = Annotated[str, Entity("crm_contact")]
DealId = Annotated[str, Entity("deal")]
ActivityId = Annotated[str, Entity("crm_activity")]

def _active_rep(st, rep_id):
    rep = need(st, "sales_rep", rep_id, "sales rep")
    if rep["status"] != "active": raise ToolError(f"sales rep {rep_id} ({rep['name']}) is inactive and cannot own records")
    return rep

def _active_contact(st, contact_id):
    c = need(st, "crm_contact", contact_id, "contact")
    if c["status"] != "active": raise ToolError(f"contact {contact_id} is archived")
    return c

def _open_deal(st, deal_id):
    d = need(st, "deal", deal_id, "deal")
    if d["stage"] not in OPEN_STAGES: raise ToolError(f"deal {deal_id} is {d['stage']}; reopen it first" if d["stage"] == "closed_lost"
                                                      else f"deal {deal_id} is closed_won and cannot change")
    return d

def _check_email(email):
    email = email.strip().lower()
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]{2,}", email): raise ToolError(f"invalid email address '{email}'")
    return email

def _email_taken(st, email, but=None):
    return any(c["email"] == email and c["contact_id"] != but for c in st.rows("crm_contact"))

def _deal_view(st, d):
    c = st.get("crm_contact", d["contact_id"])
    co = st.get("company", c["company_id"])
    return {**dict(d), "contact_name": f"{c['first_name']} {c['last_name']}", "company_id": co["company_id"], "company_name": co["name"]}

def _parse_when(when):
    try: return datetime.fromisoformat(when)
    except ValueError: raise ToolError(f"due must be an ISO date-time like 2026-06-20T14:00, got '{when}'") from None

@server.read(produces="sales_rep")
def list_sales_reps(st, team: Literal["Enterprise", "Mid-Market", "SMB"] | None = None,
                    status: Literal["active", "inactive"] | None = None):
    """List the sales reps who own CRM records, with team, role and status.

    Args:
        team: Only reps of this team.
        status: Only reps in this state.
    """
    return [dict(r) for r in st.rows("sales_rep") if team in (None, r["team"]) and status in (None, r["status"])]

@server.read(produces=("company", "sales_rep"))
def search_crm_companies(st, query: str = "", industry: INDUSTRY | None = None):
    """Search companies by name or city, optionally within one industry.

    Args:
        query: Part of the company name or city (case-insensitive); empty matches all.
        industry: Only companies of this industry.
    """
    q = query.lower()
    return [dict(r) for r in st.rows("company") if (q in r["name"].lower() or q in r["city"].lower()) and industry in (None, r["industry"])]

@server.read(produces=("crm_contact", "company"))
def search_crm_contacts(st, query: str = "", company_id: CompanyId = "", include_archived: bool = False):
    """Search contacts by name, email or title, optionally at one company.

    Args:
        query: Part of the contact's name, email or title (case-insensitive); empty matches all.
        company_id: Only contacts at this company.
        include_archived: Also return archived contacts.
    """
    if company_id: need(st, "company", company_id, "company")
    q = query.lower()
    return [dict(c) for c in st.rows("crm_contact") if company_id in ("", c["company_id"]) and (include_archived or c["status"] == "active")
            and any(q in x.lower() for x in (f"{c['first_name']} {c['last_name']}", c["email"], c["title"]))]

@server.read(produces=("deal", "crm_contact", "company"))
def list_crm_deals(st, owner_id: RepId = "", stage: STAGE | None = None, company_id: CompanyId = "", min_amount: float = 0.0):
    """List deals with their contact and company, optionally by owner, stage, company or size, soonest close first.

    Args:
        owner_id: Only deals owned by this rep.
        stage: Only deals in this pipeline stage.
        company_id: Only deals with contacts at this company.
        min_amount: Only deals worth at least this amount.
    """
    if owner_id: need(st, "sales_rep", owner_id, "sales rep")
    if company_id: need(st, "company", company_id, "company")
    rows = [_deal_view(st, d) for d in st.rows("deal") if owner_id in ("", d["owner_id"]) and stage in (None, d["stage"])
            and d["amount"] >= min_amount]
    return sorted((d for d in rows if company_id in ("", d["company_id"])), key=lambda d: (d["close_date"], d["deal_id"]))

@server.read(produces="crm_activity")
def list_crm_activities(st, deal_id: DealId = "", contact_id: ContactId = "", owner_id: RepId = "",
                        status: Literal["planned", "done"] | None = None):
    """List activities (calls, emails, meetings, notes, tasks) of a deal, a contact or an owner, by due time.

    Args:
        deal_id: Only activities on this deal.
        contact_id: Only activities logged directly on this contact.
        owner_id: Only activities owned by this rep.
        status: Only planned or only done activities.
    """
    if not (deal_id or contact_id or owner_id): raise ToolError("give a deal_id, a contact_id or an owner_id")
    for key, table, what in ((deal_id, "deal", "deal"), (contact_id, "crm_contact", "contact"), (owner_id, "sales_rep", "sales rep")):
        if key: need(st, table, key, what)
    rows = [dict(a) for a in st.rows("crm_activity") if deal_id in ("", a["deal_id"]) and contact_id in ("", a["contact_id"])
            and owner_id in ("", a["owner_id"]) and status in (None, a["status"])]
    return sorted(rows, key=lambda a: (a["due"], a["activity_id"]))

@server.write(produces="company")
def create_crm_company(st, name: str, industry: INDUSTRY, city: str, owner_id: RepId, employees: int = 0):
    """Add a company (names are unique, case-insensitive) owned by an active rep.

    Args:
        name: Company name.
        industry: The company's industry.
        city: City of the head office.
        owner_id: The rep who owns the account.
        employees: Head count, if known.
    """
    name = name.strip()
    if not name: raise ToolError("company name must not be empty")
    if employees < 0: raise ToolError(f"employees cannot be negative, got {employees}")
    if any(c["name"].lower() == name.lower() for c in st.rows("company")): raise ToolError(f"a company named '{name}' already exists")
    _active_rep(st, owner_id)
    return dict(st.insert("company", {"name": name, "industry": industry, "city": city.strip(), "employees": employees,
                                      "owner_id": owner_id}))

@server.write(produces="crm_contact", after=("create_crm_company",))
def create_crm_contact(st, company_id: CompanyId, first_name: str, last_name: str, email: str, title: str = "", phone: str = ""):
    """Add a contact at a company; the email must be valid and not used by another contact.

    Args:
        company_id: The company the contact works at.
        first_name: Given name.
        last_name: Family name.
        email: Work email address.
        title: Job title.
        phone: Phone number.
    """
    need(st, "company", company_id, "company")
    if not first_name.strip() or not last_name.strip(): raise ToolError("first_name and last_name must not be empty")
    email = _check_email(email)
    if _email_taken(st, email): raise ToolError(f"a contact with email {email} already exists")
    return dict(st.insert("crm_contact", {"company_id": company_id, "first_name": first_name.strip(), "last_name": last_name.strip(),
                                      "email": email, "phone": phone.strip(), "title": title.strip(), "status": "active"}))

@server.write(after=("create_crm_contact",))
def update_crm_contact(st, contact_id: ContactId, title: str | None = None, phone: str | None = None, email: str | None = None,
                       status: Literal["active", "archived"] | None = None):
    """Change a contact's title, phone, email or status (archive or restore); give at least one field.

    Args:
        contact_id: The contact to change.
        title: New job title.
        phone: New phone number.
        email: New email address (valid and unused).
        status: archived to archive the contact, active to restore it.
    """
    c = need(st, "crm_contact", contact_id, "contact")
    changes = {k: v.strip() for k, v in (("title", title), ("phone", phone)) if v is not None}
    if email is not None:
        changes["email"] = _check_email(email)
        if _email_taken(st, changes["email"], but=contact_id): raise ToolError(f"a contact with email {changes['email']} already exists")
    if status is not None: changes["status"] = status
    changes = {k: v for k, v in changes.items() if v != c[k]}
    if not changes: raise ToolError(f"nothing to change on contact {contact_id}")
    return dict(st.update("crm_contact", contact_id, **changes))

@server.write(produces="deal", after=("create_crm_contact",))
def create_crm_deal(st, contact_id: ContactId, name: str, owner_id: RepId, close_date: str, amount: float = 0.0):
    """Open a new deal at the lead stage with an active contact, owned by an active rep.

    Args:
        contact_id: The deal's main contact (its company is the customer).
        name: What is being sold.
        owner_id: The rep who owns the deal.
        close_date: Expected close day, YYYY-MM-DD, after today.
        amount: Expected value in USD (0 if not yet known).
    """
    c = _active_contact(st, contact_id)
    _active_rep(st, owner_id)
    name = name.strip()
    if not name: raise ToolError("deal name must not be empty")
    if amount < 0: raise ToolError(f"amount cannot be negative, got {amount}")
    try: day = date.fromisoformat(close_date).isoformat()
    except ValueError: raise ToolError(f"close_date must be YYYY-MM-DD, got '{close_date}'") from None
    if day <= st.meta["now"][:10]: raise ToolError(f"close_date {day} is not in the future (today is {st.meta['now'][:10]})")
    company = c["company_id"]
    for d in st.rows("deal"):
        if d["stage"] in OPEN_STAGES and d["name"].lower() == name.lower() \
                and st.get("crm_contact", d["contact_id"])["company_id"] == company:
            raise ToolError(f"company {company} already has an open deal named '{d['name']}' ({d['deal_id']})")
    d = st.insert("deal", {"contact_id": contact_id, "owner_id": owner_id, "name": name, "amount": round(amount, 2), "stage": "lead",
                           "close_date": day, "lost_reason": None, "reopened": 0, "created": st.meta["now"][:10]})
    return _deal_view(st, d)

@server.write(after=("create_crm_deal",))
def advance_deal_stage(st, deal_id: DealId, stage: Literal["qualified", "proposal", "negotiation", "closed_won"]):
    """Move an open deal forward to a later stage (skipping is allowed); from proposal on it needs a positive amount.

    Args:
        deal_id: The deal to move.
        stage: The later stage to move it to; closed_won books the deal today.
    """
    d = _open_deal(st, deal_id)
    if STAGES.index(stage) <= STAGES.index(d["stage"]):
        raise ToolError(f"deal {deal_id} is at {d['stage']}; deals only move forward, not to {stage}")
    if STAGES.index(stage) >= STAGES.index("proposal") and d["amount"] <= 0:
        raise ToolError(f"deal {deal_id} has no amount; set one before moving it to {stage}")
    changes = {"stage": stage, **({"close_date": st.meta["now"][:10]} if stage == "closed_won" else {})}
    return _deal_view(st, st.update("deal", deal_id, **changes))

@server.write(after=("create_crm_deal",))
def mark_deal_lost(st, deal_id: DealId, reason: LOST_REASON):
    """Close an open deal as lost, with the reason.

    Args:
        deal_id: The deal that was lost.
        reason: Why it was lost.
    """
    _open_deal(st, deal_id)
    return _deal_view(st, st.update("deal", deal_id, stage="closed_lost", lost_reason=reason, close_date=st.meta["now"][:10]))

@server.write(after=("mark_deal_lost",))
def reopen_deal(st, deal_id: DealId, stage: OPEN_STAGE, close_date: str):
    """Reopen a lost deal at an open stage with a new expected close day (won deals cannot be reopened).

    Args:
        deal_id: The closed_lost deal to reopen.
        stage: The open stage to resume at.
        close_date: New expected close day, YYYY-MM-DD, after today.
    """
    d = need(st, "deal", deal_id, "deal")
    if d["stage"] != "closed_lost": raise ToolError(f"deal {deal_id} is {d['stage']}; only closed_lost deals can be reopened")
    if STAGES.index(stage) >= STAGES.index("proposal") and d["amount"] <= 0:
        raise ToolError(f"deal {deal_id} has no amount; reopen it at lead or qualified")
    try: day = date.fromisoformat(close_date).isoformat()
    except ValueError: raise ToolError(f"close_date must be YYYY-MM-DD, got '{close_date}'") from None
    if day <= st.meta["now"][:10]: raise ToolError(f"close_date {day} is not in the future (today is {st.meta['now'][:10]})")
    return _deal_view(st, st.update("deal", deal_id, stage=stage, lost_reason=None, close_date=day, reopened=d["reopened"] + 1))

@server.write(after=("create_crm_deal",))
def update_deal_amount(st, deal_id: DealId, amount: float):
    """Set the expected value of an open deal.

    Args:
        deal_id: The open deal to change.
        amount: New expected value in USD; positive from the proposal stage on.
    """
    d = _open_deal(st, deal_id)
    if amount < 0 or (amount == 0 and STAGES.index(d["stage"]) >= STAGES.index("proposal")):
        raise ToolError(f"amount must be positive for a deal at {d['stage']}, got {amount}")
    if round(amount, 2) == d["amount"]: raise ToolError(f"deal {deal_id} already has amount {d['amount']:.2f}")
    return _deal_view(st, st.update("deal", deal_id, amount=round(amount, 2)))

@server.write
def reassign_deal_owner(st, deal_id: DealId, owner_id: RepId):
    """Give a deal to another active rep (won deals keep their owner).

    Args:
        deal_id: The deal to reassign.
        owner_id: The active rep who takes it over.
    """
    d = need(st, "deal", deal_id, "deal")
    if d["stage"] == "closed_won": raise ToolError(f"deal {deal_id} is closed_won; its owner keeps it")
    if d["owner_id"] == owner_id: raise ToolError(f"deal {deal_id} is already owned by {owner_id}")
    _active_rep(st, owner_id)
    return _deal_view(st, st.update("deal", deal_id, owner_id=owner_id))

@server.write(produces="crm_activity")
def log_crm_activity(st, kind: Literal["call", "email", "meeting", "note", "task"], subject: str, owner_id: RepId,
                     deal_id: DealId = "", contact_id: ContactId = "", due: str = ""):
    """Log an activity on a deal or a contact: emails and notes are recorded as done now; calls, meetings and tasks are planned at `due`.

    Args:
        kind: What sort of activity.
        subject: Short description.
        owner_id: The active rep who does it.
        deal_id: The deal it belongs to (give this or contact_id, not both).
        contact_id: The contact it belongs to (give this or deal_id, not both).
        due: For calls, meetings and tasks: when, as an ISO date-time in the future, e.g. 2026-06-20T14:00.
    """
    if bool(deal_id) == bool(contact_id): raise ToolError("give exactly one of deal_id or contact_id")
    if deal_id:
        d = need(st, "deal", deal_id, "deal")
        if kind != "note" and d["stage"] not in OPEN_STAGES: raise ToolError(f"deal {deal_id} is {d['stage']}; only notes can be added")
    else: _active_contact(st, contact_id)
    _active_rep(st, owner_id)
    if not subject.strip(): raise ToolError("subject must not be empty")
    now = st.meta["now"]
    if kind in ("email", "note"):
        when, status = now, "done"
    else:
        if not due: raise ToolError(f"a {kind} needs a due date-time")
        start = _parse_when(due)
        if start.isoformat() <= now: raise ToolError(f"due {start.isoformat()} is not in the future (now is {now})")
        when, status = start.isoformat(), "planned"
        if kind == "meeting":
            for a in st.rows("crm_activity"):
                if a["owner_id"] == owner_id and a["kind"] == "meeting" and a["status"] == "planned" \
                        and abs(datetime.fromisoformat(a["due"]) - start) < MEETING:
                    raise ToolError(f"{owner_id} already has meeting {a['activity_id']} at {a['due']}")
    return dict(st.insert("crm_activity", {"deal_id": deal_id or None, "contact_id": contact_id or None, "owner_id": owner_id, "kind": kind,
                                       "subject": subject.strip(), "due": when, "status": status, "outcome": ""}))

@server.write(after=("log_crm_activity",))
def complete_crm_activity(st, activity_id: ActivityId, outcome: str = ""):
    """Mark a planned call, meeting or task as done, with its outcome.

    Args:
        activity_id: The planned activity.
        outcome: What came of it.
    """
    a = need(st, "crm_activity", activity_id, "activity")
    if a["status"] != "planned": raise ToolError(f"activity {activity_id} is already {a['status']}")
    return dict(st.update("crm_activity", activity_id, status="done", outcome=outcome.strip()))
