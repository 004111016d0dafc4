from prove_nb.server import load_server
from tests.servers.harness import Case, server_suite

srv = load_server("payments")
SEED = srv.seed_state(0)
TODAY = "2026-06-15"

def rows(s, table, **eq): return [r for r in s.state.rows(table) if all(r.get(k) == v for k, v in eq.items())]
def bal(s, w): return s.state.get("wallet", w)["balance"]
def seed_bal(w): return SEED.get("wallet", w)["balance"]
def newest(s, table): return list(s.state.rows(table))[-1][s.state.specs[table].key]
def wallet(s, kyc="verified", status="active"): return rows(s, "wallet", kyc=kyc, status=status)[0]["wallet_id"]
def merchant(s, status="active"): return rows(s, "merchant", status=status)[0]["merchant_id"]

def payable_invoice(s, overdue):
    "An open invoice of an active merchant whose wallet can pay it (overdue or not)."
    for inv in rows(s, "invoice", status="open"):
        w, m = s.state.get("wallet", inv["wallet_id"]), s.state.get("merchant", inv["merchant_id"])
        if (inv["due"] < TODAY) == overdue and w["status"] == "active" and m["status"] == "active" \
                and w["balance"] >= inv["amount"] * 1.02 and inv["amount"] * 1.02 <= (500 if w["kyc"] == "basic" else 10000):
            return inv

def refundable(s):
    "A settled payment still inside its merchant's refund window."
    for p in rows(s, "payment", status="settled"):
        r = [x for x in s.call("list_wallet_payments", {"wallet_id": p["wallet_id"]}).content if x["payment_id"] == p["payment_id"]][0]
        if r["refund_deadline"] >= TODAY and r["refunded"] == 0: return p

def expired(s):
    for p in rows(s, "payment", status="settled"):
        r = [x for x in s.call("list_wallet_payments", {"wallet_id": p["wallet_id"]}).content if x["payment_id"] == p["payment_id"]][0]
        if r["refund_deadline"] < TODAY: return p

def pending_request(s):
    "A pending request whose payer can pay it."
    for r in rows(s, "payment_request", status="pending"):
        w = s.state.get("wallet", r["payer_wallet_id"])
        if w["status"] == "active" and w["balance"] >= r["amount"]: return r

def paid_invoice(s, r):
    inv = s.state.get("invoice", r.content["invoice_id"])
    assert inv["status"] == "paid" and inv["payment_id"] == r.content["payment_id"]
    assert r.content["late_fee"] == 0.0 and r.content["amount"] == inv["amount"]
    assert bal(s, inv["wallet_id"]) == r.content["balance"] == round(seed_bal(inv["wallet_id"]) - inv["amount"], 2)

def paid_late(s, r):
    inv = s.state.get("invoice", r.content["invoice_id"])
    assert r.content["late_fee"] == round(inv["amount"] * 0.02, 2) > 0
    assert bal(s, inv["wallet_id"]) == round(seed_bal(inv["wallet_id"]) - inv["amount"] - r.content["late_fee"], 2)

def refunded(s, r):
    p = s.state.get("payment", r.content["payment_id"])
    assert s.state.get("refund", r.content["refund_id"])["amount"] == 10.0
    assert bal(s, p["wallet_id"]) == round(seed_bal(p["wallet_id"]) + 10.0, 2) and p["status"] == "settled"

def accepted(s, r):
    req = s.state.get("payment_request", r.content["request_id"])
    assert req["status"] == "paid"
    assert bal(s, req["payer_wallet_id"]) == round(seed_bal(req["payer_wallet_id"]) - req["amount"], 2)
    assert bal(s, req["requester_wallet_id"]) == round(seed_bal(req["requester_wallet_id"]) + req["amount"], 2)

PAY = lambda s, **kw: {"wallet_id": wallet(s), "merchant_id": merchant(s), "amount": 25.0, **kw}
REQ = lambda s, **kw: {"requester_wallet_id": wallet(s), "payer_wallet_id": wallet(s, "basic"), "amount": 40.0, "note": "Pizza", **kw}

CASES = [
    Case("find_wallets", {"owner": ""}, check=lambda s, r: len(r.content) == s.state.count("wallet")),
    Case("find_wallets", {"status": "suspended"}, check=lambda s, r: r.content and all(w["status"] == "suspended" for w in r.content)),
    Case("find_wallets", {"status": "closed"}, ok=False, error="must be one of"),
    Case("find_merchants", {"query": "fresh"}, check=lambda s, r: [m["name"] for m in r.content] == ["FreshMart"]),
    Case("find_merchants", {"category": "casino"}, ok=False, error="must be one of"),
    Case("list_wallet_invoices", lambda s: {"wallet_id": payable_invoice(s, True)["wallet_id"], "status": "open"},
         check=lambda s, r: payable_invoice(s, True)["invoice_id"] in [i["invoice_id"] for i in r.content if i["overdue"]]),
    Case("list_wallet_invoices", {"wallet_id": "wal_9999"}, ok=False, error="no wallet"),
    Case("list_wallet_payments", lambda s: {"wallet_id": refundable(s)["wallet_id"], "status": "settled"},
         check=lambda s, r: refundable(s)["payment_id"] in [p["payment_id"] for p in r.content] and all(p["status"] == "settled" for p in r.content)),
    Case("list_wallet_payments", {"wallet_id": "wal_0001", "status": "bounced"}, ok=False, error="must be one of"),
    Case("list_payment_requests", lambda s: {"wallet_id": pending_request(s)["payer_wallet_id"], "role": "payer", "status": "pending"},
         check=lambda s, r: pending_request(s)["request_id"] in [x["request_id"] for x in r.content]
         and all(x["payer_wallet_id"] == pending_request(s)["payer_wallet_id"] for x in r.content)),
    Case("list_payment_requests", {"wallet_id": "nope"}, ok=False, error="no wallet"),
    Case("pay_wallet_invoice", lambda s: {"invoice_id": payable_invoice(s, False)["invoice_id"]}, check=paid_invoice),
    Case("pay_wallet_invoice", lambda s: {"invoice_id": payable_invoice(s, True)["invoice_id"]}, check=paid_late),
    Case("pay_wallet_invoice", lambda s: {"invoice_id": rows(s, "invoice", status="void")[0]["invoice_id"]}, ok=False, error="is void"),
    Case("pay_wallet_invoice", lambda s: {"invoice_id": payable_invoice(srv.session(), False)["invoice_id"]},
         setup=[("pay_wallet_invoice", lambda s: {"invoice_id": payable_invoice(s, False)["invoice_id"]})], ok=False, error="is paid"),
    Case("pay_merchant", PAY, check=lambda s, r: r.content["status"] == "settled" and bal(s, wallet(s)) == round(seed_bal(wallet(s)) - 25, 2)),
    Case("pay_merchant", lambda s: PAY(s, amount=1e6), ok=False, error="limited to 10000.00"),
    Case("pay_merchant", lambda s: PAY(s, wallet_id=wallet(s, "basic"), amount=600.0), ok=False, error="basic"),
    Case("pay_merchant", lambda s: PAY(s, amount=bal(s, wallet(s)) + 1), ok=False, error="insufficient funds"),
    Case("pay_merchant", lambda s: PAY(s, merchant_id=merchant(s, "inactive")), ok=False, error="takes no payments"),
    Case("pay_merchant", lambda s: PAY(s, wallet_id=wallet(s, status="suspended")), ok=False, error="suspended"),
    Case("refund_merchant_payment", lambda s: {"payment_id": refundable(s)["payment_id"], "amount": 10.0, "reason": "damaged"}, check=refunded),
    Case("refund_merchant_payment", lambda s: {"payment_id": newest(s, "payment"), "amount": 25.0}, setup=[("pay_merchant", PAY)],
         check=lambda s, r: s.state.get("payment", r.content["payment_id"])["status"] == "refunded" and r.content["refundable_left"] == 0),
    Case("refund_merchant_payment", lambda s: {"payment_id": newest(s, "payment"), "amount": 25.01}, setup=[("pay_merchant", PAY)],
         ok=False, error="exceeds the 25.00 still refundable"),
    Case("refund_merchant_payment", lambda s: {"payment_id": newest(s, "payment"), "amount": 1.0},
         setup=[("pay_merchant", PAY), ("refund_merchant_payment", lambda s: {"payment_id": newest(s, "payment"), "amount": 25.0})],
         ok=False, error="only settled payments"),
    Case("refund_merchant_payment", lambda s: {"payment_id": rows(s, "payment", status="pending")[0]["payment_id"], "amount": 1.0},
         ok=False, error="is pending"),
    Case("refund_merchant_payment", lambda s: {"payment_id": expired(s)["payment_id"], "amount": 1.0}, ok=False, error="refund window"),
    Case("request_wallet_payment", REQ, check=lambda s, r: s.state.get("payment_request", r.content["request_id"])["status"] == "pending"),
    Case("request_wallet_payment", lambda s: REQ(s, payer_wallet_id=wallet(s)), ok=False, error="from itself"),
    Case("request_wallet_payment", lambda s: REQ(s, requester_wallet_id=wallet(s, status="suspended")), ok=False, error="cannot request"),
    Case("respond_to_payment_request", lambda s: {"request_id": pending_request(s)["request_id"], "action": "accept"}, check=accepted),
    Case("respond_to_payment_request", lambda s: {"request_id": newest(s, "payment_request"), "action": "decline"}, setup=[("request_wallet_payment", REQ)],
         check=lambda s, r: s.state.get("payment_request", r.content["request_id"])["status"] == "declined" and bal(s, wallet(s)) == seed_bal(wallet(s))),
    Case("respond_to_payment_request", lambda s: {"request_id": newest(s, "payment_request"), "action": "accept"},
         setup=[("request_wallet_payment", lambda s: {"requester_wallet_id": wallet(s, "basic"), "payer_wallet_id": wallet(s),
                                                      "amount": bal(s, wallet(s)) + 1})], ok=False, error="insufficient funds"),
    Case("respond_to_payment_request", lambda s: {"request_id": rows(s, "payment_request", status="declined")[0]["request_id"], "action": "accept"},
         ok=False, error="already declined"),
]

globals().update(server_suite(srv, CASES, n_tools=10))

def test_seed_is_consistent():
    a = srv.seed_state(5, "large")
    refunded = {}
    for r in a.rows("refund"): refunded[r["payment_id"]] = refunded.get(r["payment_id"], 0) + r["amount"]
    for pid, amount in refunded.items():
        p = a.get("payment", pid)
        assert p["status"] == "settled" and amount < p["amount"]
    assert all(i["issued"] < i["due"] for i in a.rows("invoice"))
    assert all(r["requester_wallet_id"] != r["payer_wallet_id"] for r in a.rows("payment_request"))

def test_partial_refunds_add_up():
    s = srv.session()
    assert s.call("pay_merchant", PAY(s, amount=100.0)).ok
    pid = newest(s, "payment")
    assert s.call("refund_merchant_payment", {"payment_id": pid, "amount": 60.0}).ok
    r = s.call("refund_merchant_payment", {"payment_id": pid, "amount": 50.0})
    assert not r.ok and "40.00" in r.error
    assert s.call("refund_merchant_payment", {"payment_id": pid, "amount": 40.0}).content["refundable_left"] == 0
    assert bal(s, wallet(s)) == seed_bal(wallet(s))
