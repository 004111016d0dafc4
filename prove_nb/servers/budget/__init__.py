"""Budget: households, monthly budgets per category, expenses that count against them, alerts, savings goals (12 tools).

Rules: one budget per household, category and month, created or changed only for the current or a later month;
an expense counts against the budget of its household, category and month; the books of months before the previous
one are closed (no expenses logged or removed there) and expenses cannot be dated in the future; a budget raises a
`warning` alert when spending first reaches its warning share of the limit and an `exceeded` alert when spending first
goes over the limit; an alert is acknowledged once; a savings goal takes contributions until its target is reached
(never beyond), then it is achieved.
"""
from datetime import date as Date, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.budget.phrasing import PHRASES
from prove_nb.servers._common import TODAY, need
from prove_nb.state import TableSpec

CATEGORY = Literal["groceries", "dining", "transport", "housing", "utilities", "entertainment", "health", "shopping",
                   "travel", "education"]
CATEGORIES = list(CATEGORY.__args__)
LIMITS = {"groceries": (350, 900), "dining": (120, 450), "transport": (80, 400), "housing": (900, 2600),
          "utilities": (120, 380), "entertainment": (50, 250), "health": (60, 300), "shopping": (100, 500),
          "travel": (200, 1500), "education": (50, 600)}
MERCHANTS = {"groceries": ["FreshMart", "Aldi", "Farmers Market", "Whole Foods"], "dining": ["Cafe Luna", "Sushi Go", "Pizza Piazza"],
             "transport": ["Metro Card", "Shell", "Uber"], "housing": ["Landlord", "HomeDepot"],
             "utilities": ["City Power", "AquaCity Water", "FiberNet"], "entertainment": ["Cinema City", "Streamly", "Bowling Alley"],
             "health": ["Green Leaf Pharmacy", "Dr. Osei", "FitForge Gym"], "shopping": ["Urban Threads", "PageTurner Books", "Amazon"],
             "travel": ["SkyHop Airlines", "StayWell Hotels", "Rail Europe"], "education": ["Coursera", "Music School", "School Supplies"]}
FIRST = ["Anya", "Ben", "Chiara", "Darius", "Elif", "Finn", "Gabriela", "Henrik", "Imani", "Joao", "Kaori", "Luca", "Maren",
         "Nikhil", "Oona", "Pedro"]
LAST = ["Almeida", "Brandt", "Chen", "Dlamini", "Evans", "Ferreira", "Grant", "Halvorsen", "Iyer", "Jovanovic", "Kruger",
        "Larsen", "Mwangi", "Nilsson", "Ortega", "Quist"]
GOALS = ["Emergency fund", "Summer trip", "New laptop", "Car repair", "Wedding", "Home deposit", "Kids' college",
         "Holiday gifts", "Bike", "Piano"]
MONTHS = ["2026-04", "2026-05", "2026-06", "2026-07"]

def _month_shift(month: str, k: int) -> str:
    y, m = divmod(int(month[:4]) * 12 + int(month[5:7]) - 1 + k, 12)
    return f"{y:04d}-{m + 1:02d}"

def _household(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"name": f"{last} household", "owner": f"{first} {last}", "email": f"{first.lower()}.{last.lower()}{i}@home.example",
            "monthly_income": float(rng.randrange(2800, 12000, 50)), "currency": "USD"}

def _budget(rng, i, pick):
    hh, cat, month = pick("household"), rng.choice(CATEGORIES), rng.choice(MONTHS)
    made = pick.memo.setdefault("budget_keys", set())
    if (hh, cat, month) in made: return None  # one budget per household, category and month
    made.add((hh, cat, month))
    lo, hi = LIMITS[cat]
    return {"household_id": hh, "category": cat, "month": month, "limit": float(rng.randrange(lo, hi, 10)),
            "warn_at": rng.choice([0.75, 0.8, 0.8, 0.9])}

def _expense(rng, i, pick):  # built after budget (same dependency level, alphabetical order)
    b = pick.row("budget", pick("budget"))
    if b["month"] <= TODAY.isoformat()[:7] and rng.random() < 0.8:  # most expenses fall in a budgeted category
        hh, cat = b["household_id"], b["category"]
        day = f"{b['month']}-{rng.randint(1, TODAY.day if b['month'] == TODAY.isoformat()[:7] else 28):02d}"
        amount = round(b["limit"] * rng.uniform(0.1, 0.55), 2)
    else:
        hh, cat = pick("household"), rng.choice(CATEGORIES)
        day = (TODAY - timedelta(days=rng.randint(0, 75))).isoformat()
        amount = round(rng.uniform(*LIMITS[cat]) * rng.uniform(0.05, 0.3), 2)
    spent, key = pick.memo.setdefault("spent", {}), (hh, cat, day[:7])
    spent[key] = spent.get(key, 0.0) + amount
    return {"household_id": hh, "category": cat, "amount": amount, "date": day, "merchant": rng.choice(MERCHANTS[cat]),
            "method": rng.choice(["card", "card", "cash", "transfer"]), "note": ""}

def _alert(rng, i, pick):
    "The seeded alert of the i-th budget, if its seeded spending called for one."
    if i >= len(pick.rows("budget")): return None
    b = pick.rows("budget")[i]
    level = _level(pick.memo.get("spent", {}).get((b["household_id"], b["category"], b["month"]), 0.0), b["limit"], b["warn_at"])
    if level is None: return None
    last = TODAY.day if b["month"] == TODAY.isoformat()[:7] else 28
    return {"budget_id": b["budget_id"], "kind": level, "message": _message(b, level), "created": f"{b['month']}-{rng.randint(2, last):02d}",
            "status": rng.choice(["new", "acknowledged"])}

def _goal(rng, i, pick):
    target = float(rng.randrange(500, 20000, 100))
    saved = round(target * rng.choice([0.0, 0.1, 0.35, 0.6, 0.9, 1.0]), 2)
    return {"household_id": pick("household"), "name": rng.choice(GOALS), "target": target, "saved": saved,
            "deadline": (TODAY + timedelta(days=rng.randint(30, 720))).isoformat(),
            "status": "achieved" if saved >= target else "active"}

server = ToolServer(
    "budget", "Household budgeting: monthly category budgets, expenses, overspending alerts and savings goals (USD).",
    [TableSpec("household", "household_id", "hh_"),
     TableSpec("budget", "budget_id", "bgt_", {"household_id": "household"}),
     TableSpec("expense", "expense_id", "exp_", {"household_id": "household"}),
     TableSpec("budget_alert", "alert_id", "alr_", {"budget_id": "budget"}),
     TableSpec("savings_goal", "goal_id", "goal_", {"household_id": "household"})],
    {"household": _household, "budget": _budget, "expense": _expense, "budget_alert": _alert, "savings_goal": _goal},
    {"household": 6, "budget": 36, "expense": 90, "budget_alert": 36, "savings_goal": 14},  # an alert row per budget at most
    phrases=PHRASES)

HouseholdId = Annotated[str, Entity("household")]
BudgetId = Annotated[str, Entity("budget")]
ExpenseId = Annotated[str, Entity("expense")]
AlertId = Annotated[str, Entity("budget_alert")]
GoalId = Annotated[str, Entity("savings_goal")]

def _level(spent, limit, warn_at):
    "The alert a spending level calls for: exceeded, warning or None."
    return "exceeded" if spent > limit else "warning" if spent >= warn_at * limit else None

def _message(b, kind):
    word = "is over" if kind == "exceeded" else f"has reached {round(b['warn_at'] * 100)}% of"
    return f"{b['category'].title()} spending for {b['month']} {word} its {b['limit']:.2f} limit"

_RANK = {None: 0, "warning": 1, "exceeded": 2}

def _this_month(st): return st.meta["now"][:7]

def _spent(st, household_id, category, month):
    return round(sum((e["amount"] for e in st.rows("expense") if e["household_id"] == household_id
                      and e["category"] == category and e["date"][:7] == month), 0.0), 2)

def _budget_for(st, household_id, category, month):
    return next((b for b in st.rows("budget") if b["household_id"] == household_id and b["category"] == category
                 and b["month"] == month), None)

def _raise_alert(st, b, old_level):
    "Record an alert when budget `b` moved to a higher alert level than `old_level`; returns it or None."
    new = _level(_spent(st, b["household_id"], b["category"], b["month"]), b["limit"], b["warn_at"])
    if _RANK[new] <= _RANK[old_level]: return None
    return dict(st.insert("budget_alert", {"budget_id": b["budget_id"], "kind": new, "message": _message(b, new),
                                           "created": st.meta["now"][:10], "status": "new"}))

def _status(st, b):
    spent = _spent(st, b["household_id"], b["category"], b["month"])
    return {**dict(b), "spent": spent, "remaining": round(b["limit"] - spent, 2), "used_pct": round(100 * spent / b["limit"], 1)}

def _open_month(st, month, what):
    "Refuse months whose books are closed (before the previous month)."
    first = _month_shift(_this_month(st), -1)
    if month < first: raise ToolError(f"{what} in {month}: the books before {first} are closed")

def _check_month(month):
    if len(month) != 7 or month[4] != "-" or not (month[:4] + month[5:]).isdigit() or not 1 <= int(month[5:]) <= 12:
        raise ToolError(f"month must be YYYY-MM, got '{month}'")

@server.read(produces="household")
def find_households(st, name: str = ""):
    """Find households whose name, owner or email contains the given text (case-insensitive).

    Args:
        name: Part of the household name, owner name or email; empty matches all.
    """
    n = name.lower()
    return [dict(r) for r in st.rows("household") if n in r["name"].lower() or n in r["owner"].lower() or n in r["email"].lower()]

@server.read(produces="budget")
def list_category_budgets(st, household_id: HouseholdId, month: str = "", category: CATEGORY | None = None, over_only: bool = False):
    """List a household's budgets with amount spent, remaining and percent used.

    Args:
        household_id: The household whose budgets to list.
        month: Only budgets of this month (YYYY-MM).
        category: Only budgets of this category.
        over_only: Only budgets whose spending is over the limit.
    """
    need(st, "household", household_id, "household")
    if month: _check_month(month)
    out = [_status(st, b) for b in st.rows("budget") if b["household_id"] == household_id
           and month in ("", b["month"]) and category in (None, b["category"])]
    return sorted((b for b in out if not over_only or b["remaining"] < 0), key=lambda b: (b["month"], b["category"]))

@server.read(produces="expense")
def list_household_expenses(st, household_id: HouseholdId, month: str = "", category: CATEGORY | None = None,
                            min_amount: float = 0.0, limit: int = 20):
    """List a household's expenses, newest first, optionally by month, category or size.

    Args:
        household_id: The household whose expenses to list.
        month: Only expenses dated in this month (YYYY-MM).
        category: Only expenses of this category.
        min_amount: Only expenses of at least this amount.
        limit: Maximum number of expenses (1 to 100).
    """
    need(st, "household", household_id, "household")
    if month: _check_month(month)
    if not 1 <= limit <= 100: raise ToolError(f"limit must be between 1 and 100, got {limit}")
    rows = [dict(e) for e in st.rows("expense") if e["household_id"] == household_id and e["date"].startswith(month)
            and category in (None, e["category"]) and e["amount"] >= min_amount]
    return sorted(rows, key=lambda e: (e["date"], e["expense_id"]), reverse=True)[:limit]

@server.read(produces=("budget_alert", "budget"))
def list_budget_alerts(st, household_id: HouseholdId, status: Literal["new", "acknowledged"] | None = None):
    """List the alerts raised on a household's budgets, newest first, with each budget's category and month.

    Args:
        household_id: The household whose alerts to list.
        status: Only alerts in this state.
    """
    need(st, "household", household_id, "household")
    budgets = {b["budget_id"]: b for b in st.rows("budget") if b["household_id"] == household_id}
    rows = [{**a, "category": budgets[a["budget_id"]]["category"], "month": budgets[a["budget_id"]]["month"]}
            for a in st.rows("budget_alert") if a["budget_id"] in budgets and status in (None, a["status"])]
    return sorted(rows, key=lambda a: (a["created"], a["alert_id"]), reverse=True)

@server.read(produces="savings_goal")
def list_savings_goals(st, household_id: HouseholdId, status: Literal["active", "achieved"] | None = None):
    """List a household's savings goals with the amount still to save.

    Args:
        household_id: The household whose goals to list.
        status: Only goals in this state.
    """
    need(st, "household", household_id, "household")
    return [{**g, "to_save": round(g["target"] - g["saved"], 2)} for g in st.rows("savings_goal")
            if g["household_id"] == household_id and status in (None, g["status"])]

@server.write(produces=("budget", "budget_alert"))
def create_category_budget(st, household_id: HouseholdId, category: CATEGORY, month: str, limit: float, warn_at: float = 0.8):
    """Create a household's budget for one category and month (the current month or later; one per category and month).

    Args:
        household_id: The household the budget belongs to.
        category: The spending category.
        month: The month it covers, YYYY-MM.
        limit: Most the household means to spend, a positive amount.
        warn_at: Share of the limit (between 0.5 and 1) at which a warning alert is raised.
    """
    need(st, "household", household_id, "household")
    _check_month(month)
    if month < _this_month(st): raise ToolError(f"month {month} is past; budgets start from {_this_month(st)}")
    if limit <= 0: raise ToolError(f"limit must be positive, got {limit}")
    if not 0.5 <= warn_at <= 1: raise ToolError(f"warn_at must be between 0.5 and 1, got {warn_at}")
    if _budget_for(st, household_id, category, month):
        raise ToolError(f"household {household_id} already has a {category} budget for {month}")
    b = st.insert("budget", {"household_id": household_id, "category": category, "month": month, "limit": round(limit, 2),
                             "warn_at": warn_at})
    return {**_status(st, b), "alert": _raise_alert(st, b, None)}

@server.write(produces="budget_alert", after=("create_category_budget",))
def update_budget_limit(st, budget_id: BudgetId, limit: float):
    """Change the limit of a budget of the current or a later month; lowering it may raise an alert.

    Args:
        budget_id: The budget to change.
        limit: The new limit, a positive amount.
    """
    b = need(st, "budget", budget_id, "budget")
    if b["month"] < _this_month(st): raise ToolError(f"budget {budget_id} is for {b['month']}, a past month, and cannot change")
    if limit <= 0: raise ToolError(f"limit must be positive, got {limit}")
    if round(limit, 2) == b["limit"]: raise ToolError(f"budget {budget_id} already has limit {b['limit']:.2f}")
    old = _level(_spent(st, b["household_id"], b["category"], b["month"]), b["limit"], b["warn_at"])
    b = st.update("budget", budget_id, limit=round(limit, 2))
    return {**_status(st, b), "alert": _raise_alert(st, b, old)}

@server.write(produces=("expense", "budget_alert"))
def log_household_expense(st, household_id: HouseholdId, category: CATEGORY, amount: float, date: str, merchant: str,
                          method: Literal["card", "cash", "transfer"] = "card", note: str = ""):
    """Record an expense; it counts against the category's budget for its month and may raise an alert.

    Args:
        household_id: The household that spent the money.
        category: The spending category.
        amount: Positive amount in USD.
        date: Day of the expense, YYYY-MM-DD, not in the future and not in a closed month.
        merchant: Where the money was spent.
        method: How it was paid.
        note: Optional note.
    """
    need(st, "household", household_id, "household")
    if amount <= 0: raise ToolError(f"amount must be positive, got {amount}")
    try: day = Date.fromisoformat(date).isoformat()
    except ValueError: raise ToolError(f"date must be YYYY-MM-DD, got '{date}'") from None
    if day > st.meta["now"][:10]: raise ToolError(f"date {day} is in the future (today is {st.meta['now'][:10]})")
    _open_month(st, day[:7], "cannot log an expense")
    b = _budget_for(st, household_id, category, day[:7])
    old = b and _level(_spent(st, household_id, category, day[:7]), b["limit"], b["warn_at"])
    e = st.insert("expense", {"household_id": household_id, "category": category, "amount": round(amount, 2), "date": day,
                              "merchant": merchant.strip() or "Unknown", "method": method, "note": note})
    return {**dict(e), "budget": _status(st, b) if b else None, "alert": _raise_alert(st, b, old) if b else None}

@server.write(after=("log_household_expense",))
def remove_household_expense(st, expense_id: ExpenseId):
    """Delete an expense logged by mistake (not in a closed month); alerts already raised stay.

    Args:
        expense_id: The expense to delete.
    """
    e = need(st, "expense", expense_id, "expense")
    _open_month(st, e["date"][:7], f"cannot remove expense {expense_id}")
    st.delete("expense", expense_id)
    b = _budget_for(st, e["household_id"], e["category"], e["date"][:7])
    return {"removed": dict(e), "budget": _status(st, b) if b else None}

@server.write(after=("log_household_expense",))
def acknowledge_budget_alert(st, alert_id: AlertId):
    """Mark a new budget alert as acknowledged.

    Args:
        alert_id: The alert to acknowledge.
    """
    a = need(st, "budget_alert", alert_id, "alert")
    if a["status"] != "new": raise ToolError(f"alert {alert_id} is already {a['status']}")
    return dict(st.update("budget_alert", alert_id, status="acknowledged"))

@server.write(produces="savings_goal")
def create_savings_goal(st, household_id: HouseholdId, name: str, target: float, deadline: str):
    """Start a savings goal for a household (active goal names are unique per household).

    Args:
        household_id: The household that saves.
        name: What the savings are for.
        target: Amount to save, positive.
        deadline: Day to reach it by, YYYY-MM-DD, after today.
    """
    need(st, "household", household_id, "household")
    name = name.strip()
    if not name: raise ToolError("goal name must not be empty")
    if target <= 0: raise ToolError(f"target must be positive, got {target}")
    try: day = Date.fromisoformat(deadline).isoformat()
    except ValueError: raise ToolError(f"deadline must be YYYY-MM-DD, got '{deadline}'") from None
    if day <= st.meta["now"][:10]: raise ToolError(f"deadline {day} is not in the future (today is {st.meta['now'][:10]})")
    if any(g["name"].lower() == name.lower() and g["status"] == "active" for g in st.find("savings_goal", household_id=household_id)):
        raise ToolError(f"household {household_id} already has an active goal named '{name}'")
    return dict(st.insert("savings_goal", {"household_id": household_id, "name": name, "target": round(target, 2), "saved": 0.0,
                                           "deadline": day, "status": "active"}))

@server.write(after=("create_savings_goal",))
def contribute_to_savings_goal(st, goal_id: GoalId, amount: float):
    """Put money toward an active savings goal, up to what is left to save; reaching the target marks it achieved.

    Args:
        goal_id: The goal to contribute to.
        amount: Positive amount, at most the amount still to save.
    """
    g = need(st, "savings_goal", goal_id, "savings goal")
    if g["status"] != "active": raise ToolError(f"savings goal {goal_id} is already {g['status']}")
    if amount <= 0: raise ToolError(f"amount must be positive, got {amount}")
    left = round(g["target"] - g["saved"], 2)
    if amount > left: raise ToolError(f"contribution of {amount:.2f} exceeds the {left:.2f} left to save for goal {goal_id}")
    saved = round(g["saved"] + amount, 2)
    g = st.update("savings_goal", goal_id, saved=saved, status="achieved" if saved >= g["target"] else "active")
    return {**dict(g), "to_save": round(g["target"] - saved, 2)}
