"""Payments: wallets, merchants, invoices, payments, refunds and wallet-to-wallet payment requests (10 tools).

Rules: all amounts are USD; a payment needs an active wallet with the funds; basic (unverified) wallets send at most
500.00 a payment, verified ones 10,000.00; inactive merchants take no payments; an invoice is paid once, from the
wallet it is billed to, with a 2% late fee once past due, and a void invoice cannot be paid; only settled payments
are refunded, within the merchant's refund window, and never more than was paid minus earlier refunds; a payment
request is answered once, by the payer, and accepting it moves the money.
"""
from datetime import date, timedelta
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.payments.phrasing import PHRASES
from prove_nb.servers._common import TODAY, need
from prove_nb.state import TableSpec

FIRST = ["Aiko", "Bilal", "Clara", "Diego", "Emeka", "Fatima", "Gustav", "Hana", "Ivan", "Jade", "Kofi", "Lena", "Marco",
         "Nora", "Oscar", "Pia", "Ravi", "Sofia", "Theo", "Yara"]
LAST = ["Andersen", "Bakr", "Castillo", "Dimitriou", "Eze", "Fontaine", "Gupta", "Hoffmann", "Ito", "Jensen", "Kaya",
        "Lopez", "Mensah", "Novak", "Oliveira", "Park"]
MERCHANTS = [("FreshMart", "groceries"), ("Corner Bakery", "restaurants"), ("Voltline Energy", "utilities"),
             ("AquaCity Water", "utilities"), ("Pixel Palace", "electronics"), ("SkyHop Airlines", "travel"),
             ("StayWell Hotels", "travel"), ("TuneBox", "subscriptions"), ("CloudDrive Plus", "subscriptions"),
             ("Urban Threads", "clothing"), ("Green Leaf Pharmacy", "health"), ("Spice Route", "restaurants"),
             ("PageTurner Books", "shopping"), ("FitForge Gym", "health"), ("HomeNest Furniture", "shopping"),
             ("QuickCab", "transport")]
CATEGORY = Literal["groceries", "restaurants", "utilities", "electronics", "travel", "subscriptions", "clothing", "health",
                   "shopping", "transport"]
INVOICE_ITEMS = ["Monthly service", "Annual membership", "Order #{n}", "Consultation", "Repair work", "Booking deposit",
                 "Electricity bill", "Water bill", "Subscription renewal"]
KYC_LIMIT = {"basic": 500.0, "verified": 10000.0}
LATE_FEE = 0.02

def _day(rng, lo, hi) -> str:
    "An ISO date `lo` to `hi` days after the server's today (negative: before)."
    return (TODAY + timedelta(days=rng.randint(lo, hi))).isoformat()

def _wallet(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"owner": f"{first} {last}", "email": f"{first.lower()}{i}@{last.lower()}.example",
            "balance": round(rng.uniform(15, 4000), 2), "status": rng.choice(["active"] * 8 + ["suspended"]),
            "kyc": rng.choice(["verified", "verified", "basic"])}

def _merchant(rng, i, pick):
    name, cat = MERCHANTS[i % len(MERCHANTS)]
    return {"name": name if i < len(MERCHANTS) else f"{name} #{i // len(MERCHANTS) + 1}", "category": cat,
            "status": rng.choice(["active"] * 7 + ["inactive"]), "refund_window_days": rng.choice([14, 30, 30, 60, 90])}

def _invoice(rng, i, pick):
    issued = _day(rng, -45, -2)
    return {"merchant_id": pick("merchant"), "wallet_id": pick("wallet"), "amount": round(rng.uniform(12, 900), 2),
            "description": rng.choice(INVOICE_ITEMS).format(n=rng.randint(1000, 9999)), "issued": issued,
            "due": (date.fromisoformat(issued) + timedelta(days=rng.choice([14, 21, 30]))).isoformat(),
            "status": rng.choice(["open"] * 5 + ["void"]), "payment_id": None, "paid_at": None}

def _payment(rng, i, pick):
    created = _day(rng, -120, -1)
    return {"wallet_id": pick("wallet"), "merchant_id": pick("merchant"), "invoice_id": None,
            "amount": round(rng.uniform(40, 650), 2), "late_fee": 0.0, "status": rng.choice(["settled"] * 6 + ["pending", "failed"]),
            "memo": rng.choice(["", "", "thanks!", "order", "monthly"]),
            "created": f"{created}T{rng.randint(7, 22):02d}:{rng.randint(0, 59):02d}:00"}

def _refund(rng, i, pick):
    pid = pick("payment")
    pay, refunded = pick.row("payment", pid), pick.memo.setdefault("refunded", {})
    if pay["status"] != "settled": return None  # only settled payments were refunded
    done = refunded.get(pid, 0.0)  # refunded so far in this build
    amount = round(min((pay["amount"] - done) * 0.4, rng.uniform(5, 60)), 2)
    refunded[pid] = done + amount
    created = date.fromisoformat(pay["created"][:10]) + timedelta(days=rng.randint(1, 10))
    return {"payment_id": pid, "amount": amount, "reason": rng.choice(["damaged", "not_received", "duplicate", "other"]),
            "created": min(created, TODAY).isoformat()}

def _request(rng, i, pick):
    req, payer = pick("wallet"), pick("wallet")
    if req == payer: return None
    return {"requester_wallet_id": req, "payer_wallet_id": payer, "amount": round(rng.uniform(5, 300), 2),
            "note": rng.choice(["Dinner split", "Concert tickets", "Rent share", "Groceries", "Birthday gift", "Taxi"]),
            "status": rng.choice(["pending"] * 3 + ["paid", "declined"]), "created": _day(rng, -20, 0)}

server = ToolServer(
    "payments", "Digital wallets: merchant payments, invoices, refunds and payment requests between wallets (USD).",
    [TableSpec("wallet", "wallet_id", "wal_"),
     TableSpec("merchant", "merchant_id", "mch_"),
     TableSpec("invoice", "invoice_id", "invc_", {"merchant_id": "merchant", "wallet_id": "wallet"}),
     TableSpec("payment", "payment_id", "pmt_", {"wallet_id": "wallet", "merchant_id": "merchant", "invoice_id": "invoice"}),
     TableSpec("refund", "refund_id", "rfd_", {"payment_id": "payment"}),
     TableSpec("payment_request", "request_id", "prq_", {"requester_wallet_id": "wallet", "payer_wallet_id": "wallet"})],
    {"wallet": _wallet, "merchant": _merchant, "invoice": _invoice, "payment": _payment, "refund": _refund,
     "payment_request": _request},
    {"wallet": 12, "merchant": 16, "invoice": 30, "payment": 40, "refund": 14, "payment_request": 20}, phrases=PHRASES)

WalletId = Annotated[str, Entity("wallet")]
MerchantId = Annotated[str, Entity("merchant")]
InvoiceId = Annotated[str, Entity("invoice")]
PaymentId = Annotated[str, Entity("payment")]
RequestId = Annotated[str, Entity("payment_request")]

def _debit(st, wallet_id, amount):
    "Take `amount` from an active wallet within its KYC limit and balance; returns the new balance."
    w = need(st, "wallet", wallet_id, "wallet")
    if w["status"] != "active": raise ToolError(f"wallet {wallet_id} is {w['status']} and cannot send money")
    if amount > KYC_LIMIT[w["kyc"]]:
        raise ToolError(f"wallet {wallet_id} is {w['kyc']}: a single payment is limited to {KYC_LIMIT[w['kyc']]:.2f}")
    if w["balance"] < amount:
        raise ToolError(f"insufficient funds in {wallet_id}: balance {w['balance']:.2f}, needs {amount:.2f}")
    return st.update("wallet", wallet_id, balance=round(w["balance"] - amount, 2))["balance"]

def _credit(st, wallet_id, amount):
    w = st.get("wallet", wallet_id)
    return st.update("wallet", wallet_id, balance=round(w["balance"] + amount, 2))["balance"]

def _positive(amount):
    if amount <= 0: raise ToolError(f"amount must be positive, got {amount}")

def _refunded(st, payment_id):
    return round(sum((r["amount"] for r in st.rows("refund") if r["payment_id"] == payment_id), 0.0), 2)

def _refund_deadline(st, pay):
    days = st.get("merchant", pay["merchant_id"])["refund_window_days"]
    return (date.fromisoformat(pay["created"][:10]) + timedelta(days=days)).isoformat()

@server.read(produces="wallet")
def find_wallets(st, owner: str = "", status: Literal["active", "suspended"] | None = None):
    """Find wallets whose owner's name or email contains the given text (case-insensitive).

    Args:
        owner: Part of the owner's name or email; empty matches all.
        status: Only wallets in this state.
    """
    o = owner.lower()
    return [dict(r) for r in st.rows("wallet")
            if (o in r["owner"].lower() or o in r["email"].lower()) and status in (None, r["status"])]

@server.read(produces="merchant")
def find_merchants(st, query: str = "", category: CATEGORY | None = None):
    """Find merchants by name and category, with their status and refund window.

    Args:
        query: Part of the merchant's name (case-insensitive); empty matches all.
        category: Only merchants of this category.
    """
    q = query.lower()
    return [dict(r) for r in st.rows("merchant") if q in r["name"].lower() and category in (None, r["category"])]

@server.read(produces=("invoice", "merchant"))
def list_wallet_invoices(st, wallet_id: WalletId, status: Literal["open", "paid", "void"] | None = None):
    """List the invoices billed to a wallet, soonest due first; open invoices past due are marked overdue.

    Args:
        wallet_id: The wallet the invoices are billed to.
        status: Only invoices in this state.
    """
    need(st, "wallet", wallet_id, "wallet")
    today = st.meta["now"][:10]
    rows = [{**r, "overdue": r["status"] == "open" and r["due"] < today} for r in st.rows("invoice")
            if r["wallet_id"] == wallet_id and status in (None, r["status"])]
    return sorted(rows, key=lambda r: (r["due"], r["invoice_id"]))

@server.read(produces=("payment", "merchant"))
def list_wallet_payments(st, wallet_id: WalletId, status: Literal["settled", "pending", "failed", "refunded"] | None = None,
                         merchant_id: MerchantId = ""):
    """List a wallet's payments, newest first, with the amount refunded so far and the refund deadline.

    Args:
        wallet_id: The wallet that paid.
        status: Only payments in this state.
        merchant_id: Only payments to this merchant.
    """
    need(st, "wallet", wallet_id, "wallet")
    rows = [{**r, "refunded": _refunded(st, r["payment_id"]), "refund_deadline": _refund_deadline(st, r)}
            for r in st.rows("payment") if r["wallet_id"] == wallet_id and status in (None, r["status"])
            and merchant_id in ("", r["merchant_id"])]
    return sorted(rows, key=lambda r: (r["created"], r["payment_id"]), reverse=True)

@server.read(produces="payment_request")
def list_payment_requests(st, wallet_id: WalletId, role: Literal["payer", "requester"] | None = None,
                          status: Literal["pending", "paid", "declined"] | None = None):
    """List payment requests a wallet sent (requester) or received (payer).

    Args:
        wallet_id: The wallet whose requests to list.
        role: Only requests where the wallet has this role; both when omitted.
        status: Only requests in this state.
    """
    need(st, "wallet", wallet_id, "wallet")
    asked = lambda r: role != "requester" and r["payer_wallet_id"] == wallet_id
    sent = lambda r: role != "payer" and r["requester_wallet_id"] == wallet_id
    return [dict(r) for r in st.rows("payment_request") if status in (None, r["status"]) and (sent(r) or asked(r))]

@server.write(produces="payment")
def pay_wallet_invoice(st, invoice_id: InvoiceId):
    """Pay an open invoice from the wallet it is billed to; past its due date a 2% late fee is added.

    Args:
        invoice_id: The invoice to pay.
    """
    inv = need(st, "invoice", invoice_id, "invoice")
    if inv["status"] != "open": raise ToolError(f"invoice {invoice_id} is {inv['status']} and cannot be paid")
    merchant = st.get("merchant", inv["merchant_id"])
    if merchant["status"] != "active": raise ToolError(f"merchant {merchant['merchant_id']} is {merchant['status']} and takes no payments")
    now = st.meta["now"]
    fee = round(inv["amount"] * LATE_FEE, 2) if inv["due"] < now[:10] else 0.0
    balance = _debit(st, inv["wallet_id"], round(inv["amount"] + fee, 2))
    pay = st.insert("payment", {"wallet_id": inv["wallet_id"], "merchant_id": inv["merchant_id"], "invoice_id": invoice_id,
                                "amount": round(inv["amount"] + fee, 2), "late_fee": fee, "status": "settled",
                                "memo": inv["description"], "created": now})
    st.update("invoice", invoice_id, status="paid", payment_id=pay["payment_id"], paid_at=now)
    return {**dict(pay), "balance": balance}

@server.write(produces="payment")
def pay_merchant(st, wallet_id: WalletId, merchant_id: MerchantId, amount: float, memo: str = ""):
    """Pay an active merchant from a wallet; the payment settles at once.

    Args:
        wallet_id: The wallet to pay from.
        merchant_id: The merchant to pay.
        amount: Positive amount in USD.
        memo: Optional note for the merchant.
    """
    _positive(amount)
    merchant = need(st, "merchant", merchant_id, "merchant")
    if merchant["status"] != "active": raise ToolError(f"merchant {merchant_id} is {merchant['status']} and takes no payments")
    balance = _debit(st, wallet_id, round(amount, 2))
    pay = st.insert("payment", {"wallet_id": wallet_id, "merchant_id": merchant_id, "invoice_id": None, "amount": round(amount, 2),
                                "late_fee": 0.0, "status": "settled", "memo": memo, "created": st.meta["now"]})
    return {**dict(pay), "balance": balance}

@server.write(produces="refund", after=("pay_merchant", "pay_wallet_invoice"))
def refund_merchant_payment(st, payment_id: PaymentId, amount: float,
                            reason: Literal["damaged", "not_received", "duplicate", "other"] = "other"):
    """Refund part or all of a settled payment to its wallet, within the merchant's refund window.

    Args:
        payment_id: The payment to refund.
        amount: Positive amount, at most what was paid minus earlier refunds.
        reason: Why the money is returned.
    """
    _positive(amount)
    pay = need(st, "payment", payment_id, "payment")
    if pay["status"] != "settled": raise ToolError(f"payment {payment_id} is {pay['status']}; only settled payments can be refunded")
    deadline = _refund_deadline(st, pay)
    if st.meta["now"][:10] > deadline: raise ToolError(f"the refund window of payment {payment_id} closed on {deadline}")
    left = round(pay["amount"] - _refunded(st, payment_id), 2)
    if amount > left: raise ToolError(f"refund of {amount:.2f} exceeds the {left:.2f} still refundable on {payment_id}")
    r = st.insert("refund", {"payment_id": payment_id, "amount": round(amount, 2), "reason": reason, "created": st.meta["now"][:10]})
    if round(left - amount, 2) == 0: st.update("payment", payment_id, status="refunded")
    return {**dict(r), "wallet_id": pay["wallet_id"], "balance": _credit(st, pay["wallet_id"], round(amount, 2)),
            "refundable_left": round(left - amount, 2)}

@server.write(produces="payment_request")
def request_wallet_payment(st, requester_wallet_id: WalletId, payer_wallet_id: WalletId, amount: float, note: str = ""):
    """Ask another wallet for money; the request stays pending until the payer accepts or declines it.

    Args:
        requester_wallet_id: The active wallet that will receive the money.
        payer_wallet_id: The wallet asked to pay.
        amount: Positive amount in USD, at most 10,000.00.
        note: What the money is for.
    """
    _positive(amount)
    if amount > KYC_LIMIT["verified"]: raise ToolError(f"a request is limited to {KYC_LIMIT['verified']:.2f}, got {amount:.2f}")
    if requester_wallet_id == payer_wallet_id: raise ToolError("a wallet cannot request money from itself")
    req = need(st, "wallet", requester_wallet_id, "wallet")
    need(st, "wallet", payer_wallet_id, "wallet")
    if req["status"] != "active": raise ToolError(f"wallet {requester_wallet_id} is {req['status']} and cannot request money")
    return dict(st.insert("payment_request", {"requester_wallet_id": requester_wallet_id, "payer_wallet_id": payer_wallet_id,
                                              "amount": round(amount, 2), "note": note, "status": "pending",
                                              "created": st.meta["now"][:10]}))

@server.write(after=("request_wallet_payment",))
def respond_to_payment_request(st, request_id: RequestId, action: Literal["accept", "decline"]):
    """Accept (pay from the payer's wallet to the requester's) or decline a pending payment request.

    Args:
        request_id: The pending request to answer.
        action: accept to pay it, decline to refuse it.
    """
    r = need(st, "payment_request", request_id, "payment request")
    if r["status"] != "pending": raise ToolError(f"payment request {request_id} is already {r['status']}")
    out = {"request_id": request_id}
    if action == "accept":
        out["payer_balance"] = _debit(st, r["payer_wallet_id"], r["amount"])
        out["requester_balance"] = _credit(st, r["requester_wallet_id"], r["amount"])
    st.update("payment_request", request_id, status="paid" if action == "accept" else "declined")
    return {**out, "status": "paid" if action == "accept" else "declined"}
