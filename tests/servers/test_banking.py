from prove_nb.server import load_server
from tests.servers.harness import Case, server_suite

srv = load_server("banking")

def first(s, table, **eq):
    "Key of the first row of `table` matching `eq` (seed data is deterministic)."
    rows = [r for r in s.state.rows(table) if all(r.get(k) == v for k, v in eq.items())]
    return rows[0][s.state.specs[table].key]

def open_acc(s, **eq): return first(s, "account", status="open", **eq)
def two_same_ccy(s):
    accs = [r for r in s.state.rows("account") if r["status"] == "open" and r["type"] != "credit"]
    for a in accs:
        for b in accs:
            if a is not b and a["currency"] == b["currency"]: return a, b
def bal(s, a): return s.state.get("account", a)["balance"]
def newest(s, table): return list(s.state.rows(table))[-1][s.state.specs[table].key]
def checking(s): return s.state.get("account", open_acc(s, type="checking"))
ADD_PAYEE = ("add_payee", lambda s: {"customer_id": checking(s)["customer_id"], "name": "Rent Co", "iban": "DE00112233445566"})
PAY_ARGS = lambda s, **kw: {"account_id": checking(s)["account_id"], "payee_id": newest(s, "payee"), **kw}

CASES = [
    Case("find_customers", {"name": ""}, check=lambda s, r: len(r.content) == s.state.count("customer")),
    Case("find_customers", {"name": 5}, ok=False, error="must be string"),
    Case("list_accounts", lambda s: {"customer_id": "cus_0001"}, check=lambda s, r: all(a["customer_id"] == "cus_0001" for a in r.content)),
    Case("list_accounts", {"customer_id": "cus_9999"}, ok=False, error="no customer"),
    Case("get_account", lambda s: {"account_id": "acc_0001"}, check=lambda s, r: r.content["account_id"] == "acc_0001"),
    Case("get_account", {"account_id": "acc_9999"}, ok=False, error="no account"),
    Case("list_transactions", {"account_id": "acc_0001", "limit": 3}, check=lambda s, r: len(r.content) <= 3),
    Case("list_transactions", {"account_id": "acc_0001", "limit": 0}, ok=False, error="limit"),
    Case("list_payees", {"customer_id": "cus_0001"}),
    Case("list_payees", {}, ok=False, error="missing required parameter 'customer_id'"),
    Case("list_cards", {"account_id": "acc_0001"}),
    Case("list_cards", {"account_id": "nope"}, ok=False, error="no account"),
    Case("list_scheduled_payments", {"account_id": "acc_0001"}),
    Case("list_scheduled_payments", {"account_id": 3}, ok=False, error="must be string"),
    Case("deposit", lambda s: {"account_id": open_acc(s), "amount": 25.5},
         check=lambda s, r: r.content["balance"] == bal(s, r.content["account_id"])),
    Case("deposit", lambda s: {"account_id": open_acc(s), "amount": -5}, ok=False, error="positive"),
    Case("withdraw", lambda s: {"account_id": open_acc(s, type="checking"), "amount": 1}),
    Case("withdraw", lambda s: {"account_id": open_acc(s, type="checking"), "amount": 1e9}, ok=False, error="insufficient funds"),
    Case("transfer", lambda s: {"from_account": two_same_ccy(s)[0]["account_id"], "to_account": two_same_ccy(s)[1]["account_id"], "amount": 10},
         check=lambda s, r: r.content["from_balance"] == round(two_same_ccy(s)[0]["balance"], 2)),
    Case("transfer", lambda s: {"from_account": two_same_ccy(s)[0]["account_id"], "to_account": two_same_ccy(s)[1]["account_id"], "amount": 1e9},
         ok=False, error="insufficient funds"),
    Case("add_payee", {"customer_id": "cus_0001", "name": "Landlord", "iban": "DE12 3456 7890 1234"},
         check=lambda s, r: s.state.get("payee", r.content["payee_id"])["iban"] == "DE1234567890 1234".replace(" ", "")),
    Case("add_payee", {"customer_id": "cus_0001", "name": "X", "iban": "123"}, ok=False, error="invalid IBAN"),
    Case("pay_payee", lambda s: PAY_ARGS(s, amount=1), setup=[ADD_PAYEE]),
    Case("pay_payee", lambda s: {"account_id": open_acc(s), "payee_id": "pay_9999", "amount": 1}, ok=False, error="no payee"),
    Case("lock_card", lambda s: {"card_id": first(s, "card", status="active"), "reason": "lost"},
         check=lambda s, r: s.state.get("card", r.content["card_id"])["status"] == "locked"),
    Case("lock_card", lambda s: {"card_id": first(s, "card", status="active"), "reason": "misplaced"}, ok=False, error="must be one of"),
    Case("unlock_card", lambda s: {"card_id": first(s, "card", status="locked")}, setup=[("lock_card", lambda s: {"card_id": first(s, "card", status="active")})]),
    Case("unlock_card", lambda s: {"card_id": first(s, "card", status="active")}, ok=False, error="not locked"),
    Case("schedule_payment", lambda s: PAY_ARGS(s, amount=20, date="2026-07-01"), setup=[ADD_PAYEE]),
    Case("schedule_payment", lambda s: PAY_ARGS(s, amount=20, date="2020-01-01"), setup=[ADD_PAYEE], ok=False, error="not in the future"),
    Case("cancel_scheduled_payment", {"payment_id": "sch_0001"}, check=lambda s, r: s.state.get("scheduled_payment", "sch_0001")["status"] == "cancelled"),
    Case("cancel_scheduled_payment", {"payment_id": "sch_0001"}, setup=[("cancel_scheduled_payment", {"payment_id": "sch_0001"})], ok=False, error="already cancelled"),
    Case("open_account", {"customer_id": "cus_0002", "type": "savings"}, check=lambda s, r: r.content["balance"] == 0.0),
    Case("open_account", {"customer_id": "cus_0002", "type": "brokerage"}, ok=False, error="must be one of"),
]

globals().update(server_suite(srv, CASES))
