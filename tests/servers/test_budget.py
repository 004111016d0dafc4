from prove_nb.server import load_server
from prove_nb.servers.budget import _level, _spent
from tests.servers.harness import Case, server_suite

srv = load_server("budget")

def rows(s, table, **eq): return [r for r in s.state.rows(table) if all(r.get(k) == v for k, v in eq.items())]
def newest(s, table): return list(s.state.rows(table))[-1][s.state.specs[table].key]
def spent(s, b): return _spent(s.state, b["household_id"], b["category"], b["month"])
def quiet_budget(s):
    "A June budget that has raised no alert yet (spending below its warning share)."
    return next(b for b in rows(s, "budget", month="2026-06") if _level(spent(s, b), b["limit"], b["warn_at"]) is None)
def spent_budget(s):
    "A June budget with some spending."
    return next(b for b in rows(s, "budget", month="2026-06") if spent(s, b) > 0)
def unbudgeted(s):
    "(household, category) with June spending but no June budget."
    for e in rows(s, "expense"):
        if e["date"][:7] == "2026-06" and not rows(s, "budget", household_id=e["household_id"], category=e["category"], month="2026-06"):
            return e["household_id"], e["category"]
def alerts(s, bid): return rows(s, "budget_alert", budget_id=bid)

def warn_amount(s):
    "An expense that lifts the quiet budget past its warning share but not over its limit."
    b = quiet_budget(s)
    return round(b["warn_at"] * b["limit"] - spent(s, b) + 0.01, 2)

def LOG(s, **kw):
    b = quiet_budget(s)
    return {"household_id": b["household_id"], "category": b["category"], "amount": warn_amount(s), "date": "2026-06-14",
            "merchant": "Test shop", **kw}

def warned(s, r):
    b = quiet_budget(srv.session())
    assert r.content["alert"]["kind"] == "warning" and r.content["alert"]["budget_id"] == b["budget_id"]
    assert [a["kind"] for a in alerts(s, b["budget_id"])] == ["warning"] and r.content["budget"]["spent"] == spent(s, b)

def exceeded(s, r):
    b = quiet_budget(srv.session())
    assert r.content["alert"]["kind"] == "exceeded" and r.content["budget"]["remaining"] < 0
    assert [a["kind"] for a in alerts(s, b["budget_id"])] == ["exceeded"]

GOAL = ("create_savings_goal", {"household_id": "hh_0002", "name": "Canoe", "target": 800.0, "deadline": "2027-01-31"})

CASES = [
    Case("find_households", {"name": ""}, check=lambda s, r: len(r.content) == s.state.count("household")),
    Case("find_households", {"name": 3}, ok=False, error="must be string"),
    Case("list_category_budgets", {"household_id": "hh_0001", "month": "2026-06"},
         check=lambda s, r: r.content and all(b["month"] == "2026-06" and b["spent"] == spent(s, b) for b in r.content)),
    Case("list_category_budgets", lambda s: {"household_id": alerts_exceeded(s)["household_id"], "over_only": True},
         check=lambda s, r: alerts_exceeded(s)["budget_id"] in [b["budget_id"] for b in r.content] and all(b["remaining"] < 0 for b in r.content)),
    Case("list_category_budgets", {"household_id": "hh_0001", "month": "June"}, ok=False, error="YYYY-MM"),
    Case("list_household_expenses", {"household_id": "hh_0001", "category": "dining", "limit": 3},
         check=lambda s, r: len(r.content) <= 3 and all(e["category"] == "dining" and e["household_id"] == "hh_0001" for e in r.content)),
    Case("list_household_expenses", {"household_id": "hh_0001", "limit": 0}, ok=False, error="limit"),
    Case("list_budget_alerts", lambda s: {"household_id": alerts_exceeded(s)["household_id"]},
         check=lambda s, r: any(a["budget_id"] == alerts_exceeded(s)["budget_id"] and a["kind"] == "exceeded" for a in r.content)),
    Case("list_budget_alerts", {"household_id": "hh_0001", "status": "dismissed"}, ok=False, error="must be one of"),
    Case("list_savings_goals", {"household_id": "hh_0001"},
         check=lambda s, r: all(g["to_save"] == round(g["target"] - g["saved"], 2) for g in r.content)),
    Case("list_savings_goals", {"household_id": "hh_9999"}, ok=False, error="no household"),
    Case("create_category_budget", lambda s: {"household_id": unbudgeted(s)[0], "category": unbudgeted(s)[1], "month": "2026-06", "limit": 5000},
         check=lambda s, r: r.content["spent"] > 0 and r.content["alert"] is None),
    Case("create_category_budget", lambda s: {"household_id": unbudgeted(s)[0], "category": unbudgeted(s)[1], "month": "2026-06", "limit": 1},
         check=lambda s, r: r.content["alert"]["kind"] == "exceeded" and s.state.get("budget_alert", r.content["alert"]["alert_id"])["status"] == "new"),
    Case("create_category_budget", {"household_id": "hh_0001", "category": "travel", "month": "2026-05", "limit": 100}, ok=False, error="is past"),
    Case("create_category_budget", lambda s: {**{k: spent_budget(s)[k] for k in ("household_id", "category", "month")}, "limit": 100},
         ok=False, error="already has"),
    Case("create_category_budget", {"household_id": "hh_0001", "category": "travel", "month": "2026-09", "limit": 100, "warn_at": 1.5},
         ok=False, error="warn_at"),
    Case("update_budget_limit", lambda s: {"budget_id": spent_budget(s)["budget_id"], "limit": 1.0},
         check=lambda s, r: r.content["limit"] == 1.0 and r.content["alert"]["kind"] == "exceeded"),
    Case("update_budget_limit", lambda s: {"budget_id": rows(s, "budget", month="2026-04")[0]["budget_id"], "limit": 500}, ok=False, error="past month"),
    Case("update_budget_limit", lambda s: {"budget_id": spent_budget(s)["budget_id"], "limit": 0}, ok=False, error="positive"),
    Case("log_household_expense", LOG, check=warned),
    Case("log_household_expense", lambda s: LOG(s, amount=quiet_budget(s)["limit"]), check=exceeded),
    Case("log_household_expense", lambda s: {"household_id": "hh_0001", "category": "education", "amount": 12.5, "date": "2026-05-20",
                                             "merchant": "Coursera", "method": "transfer"},
         check=lambda s, r: s.state.get("expense", r.content["expense_id"])["date"] == "2026-05-20" and r.content["alert"] is None),
    Case("log_household_expense", lambda s: LOG(s, date="2026-06-16"), ok=False, error="in the future"),
    Case("log_household_expense", lambda s: LOG(s, date="2026-04-30"), ok=False, error="closed"),
    Case("log_household_expense", lambda s: LOG(s, date="yesterday"), ok=False, error="YYYY-MM-DD"),
    Case("log_household_expense", lambda s: LOG(s, amount=-3), ok=False, error="positive"),
    Case("remove_household_expense", lambda s: {"expense_id": next(e["expense_id"] for e in rows(s, "expense") if e["date"] >= "2026-06")},
         check=lambda s, r: s.state.get("expense", r.content["removed"]["expense_id"]) is None),
    Case("remove_household_expense", lambda s: {"expense_id": next(e["expense_id"] for e in rows(s, "expense") if e["date"] < "2026-05")},
         ok=False, error="closed"),
    Case("acknowledge_budget_alert", lambda s: {"alert_id": rows(s, "budget_alert", status="new")[0]["alert_id"]},
         check=lambda s, r: s.state.get("budget_alert", r.content["alert_id"])["status"] == "acknowledged"),
    Case("acknowledge_budget_alert", lambda s: {"alert_id": rows(s, "budget_alert", status="acknowledged")[0]["alert_id"]},
         ok=False, error="already acknowledged"),
    Case("create_savings_goal", GOAL[1], check=lambda s, r: (r.content["saved"], r.content["status"]) == (0.0, "active")),
    Case("create_savings_goal", {**GOAL[1], "deadline": "2026-06-15"}, ok=False, error="not in the future"),
    Case("create_savings_goal", {**GOAL[1], "name": "canoe "}, setup=[GOAL], ok=False, error="already has an active goal"),
    Case("contribute_to_savings_goal", lambda s: {"goal_id": newest(s, "savings_goal"), "amount": 300}, setup=[GOAL],
         check=lambda s, r: (r.content["saved"], r.content["to_save"], r.content["status"]) == (300.0, 500.0, "active")),
    Case("contribute_to_savings_goal", lambda s: {"goal_id": newest(s, "savings_goal"), "amount": 800}, setup=[GOAL],
         check=lambda s, r: s.state.get("savings_goal", r.content["goal_id"])["status"] == "achieved"),
    Case("contribute_to_savings_goal", lambda s: {"goal_id": newest(s, "savings_goal"), "amount": 800.01}, setup=[GOAL],
         ok=False, error="exceeds the 800.00 left"),
    Case("contribute_to_savings_goal", lambda s: {"goal_id": rows(s, "savings_goal", status="achieved")[0]["goal_id"], "amount": 1},
         ok=False, error="already achieved"),
]

def alerts_exceeded(s):
    "The budget of the first seeded `exceeded` alert."
    return s.state.get("budget", rows(s, "budget_alert", kind="exceeded")[0]["budget_id"])

globals().update(server_suite(srv, CASES, n_tools=12))

def test_seed_is_consistent():
    st = srv.seed_state(1)
    keys = [(b["household_id"], b["category"], b["month"]) for b in st.rows("budget")]
    assert len(keys) == len(set(keys))
    seeded = {a["budget_id"]: a["kind"] for a in st.rows("budget_alert")}
    assert seeded and all(seeded.get(b["budget_id"]) == _level(_spent(st, b["household_id"], b["category"], b["month"]), b["limit"], b["warn_at"])
                          for b in st.rows("budget"))
    assert max(e["date"] for e in st.rows("expense")) <= "2026-06-15"

def test_warning_then_exceeded_alert_once_each():
    s = srv.session()
    b = quiet_budget(s)
    args = LOG(s)
    assert s.call("log_household_expense", args).content["alert"]["kind"] == "warning"
    assert s.call("log_household_expense", {**args, "amount": 0.01}).content["alert"] is None
    assert s.call("log_household_expense", {**args, "amount": b["limit"]}).content["alert"]["kind"] == "exceeded"
    assert s.call("log_household_expense", {**args, "amount": 5}).content["alert"] is None
    assert [a["kind"] for a in alerts(s, b["budget_id"])] == ["warning", "exceeded"]
