from prove_nb.server import load_server
from tests.servers.harness import Case, server_suite

srv = load_server("crm")

def rows(s, table, **eq): return [r for r in s.state.rows(table) if all(r.get(k) == v for k, v in eq.items())]
def first(s, table, **eq): return rows(s, table, **eq)[0][s.state.specs[table].key]
def newest(s, table): return list(s.state.rows(table))[-1][s.state.specs[table].key]
def rep(s, status="active"): return first(s, "sales_rep", status=status)
def contact(s, status="active"): return first(s, "crm_contact", status=status)
def deal(s, stage, priced=True): return next(d for d in rows(s, "deal", stage=stage) if (d["amount"] > 0) == priced)["deal_id"]
def stage(s, d): return s.state.get("deal", d)["stage"]
def other_rep(s, d): return next(r["rep_id"] for r in rows(s, "sales_rep", status="active") if r["rep_id"] != s.state.get("deal", d)["owner_id"])

NEW_DEAL = ("create_crm_deal", lambda s: {"contact_id": contact(s), "name": "Test rollout", "owner_id": rep(s), "close_date": "2026-09-30"})
MEET = lambda s, **kw: {"kind": "meeting", "subject": "Demo", "owner_id": rep(s), "deal_id": deal(s, "qualified"), "due": "2026-06-20T14:00", **kw}

CASES = [
    Case("list_sales_reps", {"status": "inactive"}, check=lambda s, r: r.content and all(x["status"] == "inactive" for x in r.content)),
    Case("list_sales_reps", {"team": "Galaxy"}, ok=False, error="must be one of"),
    Case("search_crm_companies", {"query": "northwind"}, check=lambda s, r: [c["name"] for c in r.content] == ["Northwind Labs"]),
    Case("search_crm_companies", {"industry": "mining"}, ok=False, error="must be one of"),
    Case("search_crm_contacts", lambda s: {"company_id": s.state.get("crm_contact", contact(s))["company_id"]},
         check=lambda s, r: contact(s) in [c["contact_id"] for c in r.content] and all(c["status"] == "active" for c in r.content)),
    Case("search_crm_contacts", lambda s: {"query": s.state.get("crm_contact", contact(s, "archived"))["email"], "include_archived": True},
         check=lambda s, r: [c["contact_id"] for c in r.content] == [contact(s, "archived")]),
    Case("search_crm_contacts", {"company_id": "co_9999"}, ok=False, error="no company"),
    Case("list_crm_deals", {"stage": "negotiation", "min_amount": 1000},
         check=lambda s, r: r.content and all(d["stage"] == "negotiation" and d["amount"] >= 1000 and d["company_name"] for d in r.content)),
    Case("list_crm_deals", lambda s: {"company_id": s.state.get("crm_contact", s.state.get("deal", "deal_0001")["contact_id"])["company_id"]},
         check=lambda s, r: "deal_0001" in [d["deal_id"] for d in r.content]),
    Case("list_crm_deals", {"owner_id": "rep_9999"}, ok=False, error="no sales rep"),
    Case("list_crm_activities", {"deal_id": "deal_0001"}, check=lambda s, r: [a["activity_id"] for a in r.content]
         == sorted((a["activity_id"] for a in rows(s, "crm_activity", deal_id="deal_0001")), key=lambda k: (s.state.get("crm_activity", k)["due"], k))),
    Case("list_crm_activities", {"status": "planned"}, ok=False, error="give a deal_id"),
    Case("create_crm_company", lambda s: {"name": "Zephyr Motors", "industry": "manufacturing", "city": "Turin", "owner_id": rep(s)},
         check=lambda s, r: s.state.get("company", r.content["company_id"])["name"] == "Zephyr Motors"),
    Case("create_crm_company", lambda s: {"name": "northwind labs ", "industry": "software", "city": "Oslo", "owner_id": rep(s)},
         ok=False, error="already exists"),
    Case("create_crm_company", lambda s: {"name": "Zephyr Motors", "industry": "software", "city": "Oslo", "owner_id": rep(s, "inactive")},
         ok=False, error="inactive"),
    Case("create_crm_contact", {"company_id": "co_0001", "first_name": "Ana", "last_name": "Lima", "email": "Ana.Lima@zephyr.example"},
         check=lambda s, r: s.state.get("crm_contact", r.content["contact_id"])["email"] == "ana.lima@zephyr.example"),
    Case("create_crm_contact", lambda s: {"company_id": "co_0001", "first_name": "Ana", "last_name": "Lima",
                                          "email": s.state.get("crm_contact", contact(s))["email"]}, ok=False, error="already exists"),
    Case("create_crm_contact", {"company_id": "co_0001", "first_name": "Ana", "last_name": "Lima", "email": "ana-at-zephyr"},
         ok=False, error="invalid email"),
    Case("update_crm_contact", lambda s: {"contact_id": contact(s), "title": "Chief Data Officer", "status": "archived"},
         check=lambda s, r: (r.content["title"], r.content["status"]) == ("Chief Data Officer", "archived")),
    Case("update_crm_contact", lambda s: {"contact_id": contact(s)}, ok=False, error="nothing to change"),
    Case("update_crm_contact", lambda s: {"contact_id": contact(s), "email": rows(s, "crm_contact")[1]["email"]}, ok=False, error="already exists"),
    Case("create_crm_deal", NEW_DEAL[1], check=lambda s, r: (r.content["stage"], r.content["amount"], r.content["company_id"])
         == ("lead", 0.0, s.state.get("crm_contact", contact(s))["company_id"])),
    Case("create_crm_deal", lambda s: {**NEW_DEAL[1](s), "contact_id": contact(s, "archived")}, ok=False, error="archived"),
    Case("create_crm_deal", lambda s: {**NEW_DEAL[1](s), "close_date": "2026-06-01"}, ok=False, error="not in the future"),
    Case("create_crm_deal", lambda s: {**NEW_DEAL[1](s), "name": "test ROLLOUT"}, setup=[NEW_DEAL], ok=False, error="already has an open deal"),
    Case("advance_deal_stage", lambda s: {"deal_id": deal(s, "qualified"), "stage": "negotiation"},
         check=lambda s, r: stage(s, r.content["deal_id"]) == "negotiation"),
    Case("advance_deal_stage", lambda s: {"deal_id": deal(s, "negotiation"), "stage": "closed_won"},
         check=lambda s, r: (r.content["stage"], r.content["close_date"]) == ("closed_won", "2026-06-15")),
    Case("advance_deal_stage", lambda s: {"deal_id": deal(s, "negotiation"), "stage": "qualified"}, ok=False, error="only move forward"),
    Case("advance_deal_stage", lambda s: {"deal_id": deal(s, "lead", priced=False), "stage": "proposal"}, ok=False, error="no amount"),
    Case("advance_deal_stage", lambda s: {"deal_id": deal(s, "closed_lost"), "stage": "closed_won"}, ok=False, error="reopen it first"),
    Case("advance_deal_stage", lambda s: {"deal_id": deal(s, "closed_won"), "stage": "closed_won"}, ok=False, error="cannot change"),
    Case("mark_deal_lost", lambda s: {"deal_id": deal(s, "proposal"), "reason": "competitor"},
         check=lambda s, r: s.state.get("deal", r.content["deal_id"])["lost_reason"] == "competitor" and r.content["stage"] == "closed_lost"),
    Case("mark_deal_lost", lambda s: {"deal_id": deal(s, "closed_won"), "reason": "price"}, ok=False, error="closed_won"),
    Case("reopen_deal", lambda s: {"deal_id": deal(s, "closed_lost"), "stage": "negotiation", "close_date": "2026-08-01"},
         check=lambda s, r: (r.content["stage"], r.content["reopened"], r.content["lost_reason"]) == ("negotiation", 1, None)),
    Case("reopen_deal", lambda s: {"deal_id": deal(s, "closed_won"), "stage": "lead", "close_date": "2026-08-01"}, ok=False, error="only closed_lost"),
    Case("reopen_deal", lambda s: {"deal_id": deal(s, "closed_lost"), "stage": "closed_won", "close_date": "2026-08-01"}, ok=False, error="must be one of"),
    Case("update_deal_amount", lambda s: {"deal_id": deal(s, "lead", priced=False), "amount": 12000},
         check=lambda s, r: s.state.get("deal", r.content["deal_id"])["amount"] == 12000.0),
    Case("update_deal_amount", lambda s: {"deal_id": deal(s, "proposal"), "amount": 0}, ok=False, error="must be positive"),
    Case("reassign_deal_owner", lambda s: {"deal_id": deal(s, "qualified"), "owner_id": other_rep(s, deal(s, "qualified"))},
         check=lambda s, r: s.state.get("deal", r.content["deal_id"])["owner_id"] == other_rep(srv.session(), r.content["deal_id"])),
    Case("reassign_deal_owner", lambda s: {"deal_id": deal(s, "qualified"), "owner_id": rep(s, "inactive")}, ok=False, error="inactive"),
    Case("reassign_deal_owner", lambda s: {"deal_id": deal(s, "closed_won"), "owner_id": other_rep(s, deal(s, "closed_won"))}, ok=False, error="keeps it"),
    Case("log_crm_activity", MEET, check=lambda s, r: (r.content["status"], r.content["due"]) == ("planned", "2026-06-20T14:00:00")),
    Case("log_crm_activity", lambda s: {"kind": "note", "subject": "Lost to incumbent", "owner_id": rep(s), "deal_id": deal(s, "closed_lost")},
         check=lambda s, r: (r.content["status"], r.content["due"]) == ("done", "2026-06-15T09:00:00")),
    Case("log_crm_activity", lambda s: MEET(s, due="2026-06-20T14:30"), setup=[("log_crm_activity", MEET)], ok=False, error="already has meeting"),
    Case("log_crm_activity", lambda s: MEET(s, due="2026-06-01T10:00"), ok=False, error="not in the future"),
    Case("log_crm_activity", lambda s: MEET(s, contact_id=contact(s)), ok=False, error="exactly one"),
    Case("log_crm_activity", lambda s: MEET(s, deal_id=deal(s, "closed_won")), ok=False, error="only notes"),
    Case("complete_crm_activity", lambda s: {"activity_id": first(s, "crm_activity", status="planned"), "outcome": "Signed NDA"},
         check=lambda s, r: (r.content["status"], r.content["outcome"]) == ("done", "Signed NDA")),
    Case("complete_crm_activity", lambda s: {"activity_id": first(s, "crm_activity", status="done")}, ok=False, error="already done"),
]

globals().update(server_suite(srv, CASES, n_tools=16))

def test_seed_is_consistent():
    a = srv.seed_state(5, "large")
    for table, field in (("company", "name"), ("crm_contact", "email")):
        vals = [r[field] for r in a.rows(table)]
        assert len(vals) == len(set(vals))
    assert all((d["lost_reason"] is not None) == (d["stage"] == "closed_lost") for d in a.rows("deal"))
    assert all((a_["deal_id"] is None) != (a_["contact_id"] is None) for a_ in a.rows("crm_activity"))

def test_pipeline_lost_reopen_won():
    s = srv.session()
    d = s.call(NEW_DEAL[0], NEW_DEAL[1](s)).content["deal_id"]
    assert "no amount" in s.call("advance_deal_stage", {"deal_id": d, "stage": "proposal"}).error
    assert s.call("update_deal_amount", {"deal_id": d, "amount": 5000}).ok
    assert s.call("advance_deal_stage", {"deal_id": d, "stage": "proposal"}).ok
    assert s.call("mark_deal_lost", {"deal_id": d, "reason": "timing"}).ok
    assert "reopen it first" in s.call("advance_deal_stage", {"deal_id": d, "stage": "negotiation"}).error
    assert s.call("reopen_deal", {"deal_id": d, "stage": "qualified", "close_date": "2026-12-01"}).ok
    assert s.call("advance_deal_stage", {"deal_id": d, "stage": "closed_won"}).content["stage"] == "closed_won"
    assert "only closed_lost" in s.call("reopen_deal", {"deal_id": d, "stage": "lead", "close_date": "2026-12-01"}).error
