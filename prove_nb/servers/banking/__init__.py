"""Banking: customers, accounts, payees, cards, transactions and scheduled payments (17 tools).

Rules: balances of checking and savings accounts never go negative; credit accounts stay within their limit;
frozen or closed accounts refuse money movements; transfers need two different open accounts in the same currency;
payees belong to one customer; a locked card cannot be locked again.
"""
from typing import Annotated, Literal

from prove_nb.server import Entity, ToolError, ToolServer
from prove_nb.servers.banking.phrasing import PHRASES
from prove_nb.servers._common import FIRST_NAMES, LAST_NAMES, need
from prove_nb.state import TableSpec

FIRST = FIRST_NAMES[:16]
LAST = LAST_NAMES[:12]
SHOPS = ["Green Grocer", "City Power", "Metro Transit", "Book Nook", "Cafe Luna", "Fit Gym", "Streamly", "Pharma Plus"]

def _customer(rng, i, pick):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {"name": f"{first} {last}", "email": f"{first.lower()}.{last.lower()}{i}@example.com",
            "tier": rng.choice(["standard", "standard", "premium"])}

def _account(rng, i, pick):
    kind = rng.choice(["checking", "checking", "savings", "credit"])
    return {"customer_id": pick("customer"), "type": kind, "currency": rng.choice(["USD", "USD", "EUR"]),
            "balance": round(rng.uniform(50, 5000), 2) if kind != "credit" else -round(rng.uniform(0, 800), 2),
            "credit_limit": 2000.0 if kind == "credit" else 0.0, "status": rng.choice(["open"] * 9 + ["frozen"]),
            "nickname": f"{kind.title()} {i + 1}"}

def _payee(rng, i, pick):
    return {"customer_id": pick("customer"), "name": rng.choice(SHOPS + [f"{rng.choice(FIRST)} {rng.choice(LAST)}"]),
            "iban": f"DE{rng.randrange(10**15, 10**16)}"}

def _transaction(rng, i, pick):
    return {"account_id": pick("account"), "amount": round(rng.uniform(-300, 300), 2), "counterparty": rng.choice(SHOPS),
            "kind": rng.choice(["card", "transfer", "deposit", "withdrawal"]), "memo": "",
            "date": f"2026-0{rng.randint(1, 5)}-{rng.randint(10, 28)}"}

def _card(rng, i, pick):
    return {"account_id": pick("account"), "last4": f"{rng.randrange(10000):04d}", "status": rng.choice(["active"] * 4 + ["locked"]),
            "daily_limit": float(rng.choice([500, 1000, 2500]))}

def _scheduled(rng, i, pick):
    return {"account_id": pick("account"), "payee_id": pick("payee"), "amount": round(rng.uniform(10, 400), 2),
            "date": f"2026-0{rng.randint(6, 9)}-{rng.randint(10, 28)}", "status": "scheduled"}

server = ToolServer(
    "banking", "Retail banking: accounts, balances, transfers, payees, cards and scheduled payments.",
    [TableSpec("customer", "customer_id", "cus_"),
     TableSpec("account", "account_id", "acc_", {"customer_id": "customer"}),
     TableSpec("payee", "payee_id", "pay_", {"customer_id": "customer"}),
     TableSpec("transaction", "transaction_id", "txn_", {"account_id": "account"}),
     TableSpec("card", "card_id", "card_", {"account_id": "account"}),
     TableSpec("scheduled_payment", "payment_id", "sch_", {"account_id": "account", "payee_id": "payee"})],
    {"customer": _customer, "account": _account, "payee": _payee, "transaction": _transaction, "card": _card,
     "scheduled_payment": _scheduled},
    {"customer": 6, "account": 12, "payee": 10, "transaction": 40, "card": 8, "scheduled_payment": 5}, phrases=PHRASES)

CustomerId = Annotated[str, Entity("customer")]
AccountId = Annotated[str, Entity("account")]
PayeeId = Annotated[str, Entity("payee")]
CardId = Annotated[str, Entity("card")]
PaymentId = Annotated[str, Entity("scheduled_payment")]

def _open_account(st, account_id):
    acc = need(st, "account", account_id)
    if acc["status"] != "open": raise ToolError(f"account {account_id} is {acc['status']}")
    return acc

def _positive(amount):
    if amount <= 0: raise ToolError(f"amount must be positive, got {amount}")

def _post(st, acc, amount, kind, counterparty, memo=""):
    "Apply `amount` to an account (enforcing its floor) and record the transaction."
    new = round(acc["balance"] + amount, 2)
    floor = -acc["credit_limit"] if acc["type"] == "credit" else 0.0
    if new < floor:
        raise ToolError(f"insufficient funds in {acc['account_id']}: balance {acc['balance']:.2f}, needs {-amount:.2f}")
    st.update("account", acc["account_id"], balance=new)
    return st.insert("transaction", {"account_id": acc["account_id"], "amount": round(amount, 2), "counterparty": counterparty,
                                     "kind": kind, "memo": memo, "date": st.meta["now"][:10]})

@server.read(produces="customer")
def find_customers(st, name: str = "", email: str = ""):
    """Find customers whose name or email contains the given text (case-insensitive).

    Args:
        name: Part of the customer's name.
        email: Part of the customer's email address.
    """
    n, e = name.lower(), email.lower()
    return [dict(r) for r in st.rows("customer") if n in r["name"].lower() and e in r["email"].lower()]

@server.read(produces="account")
def list_accounts(st, customer_id: CustomerId, type: Literal["checking", "savings", "credit"] | None = None):
    """List a customer's accounts with balances, optionally of one type.

    Args:
        customer_id: The customer whose accounts to list.
        type: Only accounts of this type.
    """
    need(st, "customer", customer_id)
    return [dict(r) for r in st.rows("account") if r["customer_id"] == customer_id and type in (None, r["type"])]

@server.read(produces="account")
def get_account(st, account_id: AccountId):
    """Get one account: type, currency, balance, status and credit limit.

    Args:
        account_id: The account to look up.
    """
    return dict(need(st, "account", account_id))

@server.read(produces="transaction")
def list_transactions(st, account_id: AccountId, kind: Literal["card", "transfer", "deposit", "withdrawal", "payment"] | None = None,
                      counterparty: str = "", limit: int = 10):
    """List an account's most recent transactions, optionally filtered.

    Args:
        account_id: The account whose transactions to list.
        kind: Only transactions of this kind.
        counterparty: Only transactions whose counterparty contains this text.
        limit: Maximum number of transactions (1 to 50).
    """
    need(st, "account", account_id)
    if not 1 <= limit <= 50: raise ToolError(f"limit must be between 1 and 50, got {limit}")
    rows = [dict(r) for r in st.rows("transaction") if r["account_id"] == account_id and kind in (None, r["kind"])
            and counterparty.lower() in r["counterparty"].lower()]
    return sorted(rows, key=lambda r: (r["date"], r["transaction_id"]), reverse=True)[:limit]

@server.read(produces="payee")
def list_payees(st, customer_id: CustomerId):
    """List the payees a customer has saved.

    Args:
        customer_id: The customer whose payees to list.
    """
    need(st, "customer", customer_id)
    return [dict(r) for r in st.rows("payee") if r["customer_id"] == customer_id]

@server.read(produces="card")
def list_cards(st, account_id: AccountId):
    """List the cards linked to an account with their status and daily limit.

    Args:
        account_id: The account whose cards to list.
    """
    need(st, "account", account_id)
    return [dict(r) for r in st.rows("card") if r["account_id"] == account_id]

@server.read(produces="scheduled_payment")
def list_scheduled_payments(st, account_id: AccountId):
    """List the payments scheduled from an account.

    Args:
        account_id: The account whose scheduled payments to list.
    """
    need(st, "account", account_id)
    return [dict(r) for r in st.rows("scheduled_payment") if r["account_id"] == account_id]

@server.write(produces="transaction")
def deposit(st, account_id: AccountId, amount: float, memo: str = ""):
    """Deposit money into an open account.

    Args:
        account_id: The account to credit.
        amount: Positive amount in the account's currency.
        memo: Optional note stored with the transaction.
    """
    _positive(amount)
    acc = _open_account(st, account_id)
    txn = _post(st, acc, amount, "deposit", "cash deposit", memo)
    return {"transaction_id": txn["transaction_id"], "account_id": account_id, "balance": st.get("account", account_id)["balance"]}

@server.write(produces="transaction")
def withdraw(st, account_id: AccountId, amount: float, memo: str = ""):
    """Withdraw money from an open account; the balance cannot go below zero (or the credit limit).

    Args:
        account_id: The account to debit.
        amount: Positive amount in the account's currency.
        memo: Optional note stored with the transaction.
    """
    _positive(amount)
    acc = _open_account(st, account_id)
    txn = _post(st, acc, -amount, "withdrawal", "cash withdrawal", memo)
    return {"transaction_id": txn["transaction_id"], "account_id": account_id, "balance": st.get("account", account_id)["balance"]}

@server.write(produces="transaction")
def transfer(st, from_account: AccountId, to_account: AccountId, amount: float, memo: str = ""):
    """Move money between two open accounts in the same currency.

    Args:
        from_account: The account to debit.
        to_account: The account to credit.
        amount: Positive amount in the accounts' currency.
        memo: Optional note stored with both transactions.
    """
    _positive(amount)
    if from_account == to_account: raise ToolError("from_account and to_account must differ")
    src, dst = _open_account(st, from_account), _open_account(st, to_account)
    if src["currency"] != dst["currency"]:
        raise ToolError(f"currency mismatch: {from_account} is {src['currency']}, {to_account} is {dst['currency']}")
    out = _post(st, src, -amount, "transfer", f"to {to_account}", memo)
    _post(st, dst, amount, "transfer", f"from {from_account}", memo)
    return {"transaction_id": out["transaction_id"], "from_balance": st.get("account", from_account)["balance"],
            "to_balance": st.get("account", to_account)["balance"]}

@server.write(produces="payee")
def add_payee(st, customer_id: CustomerId, name: str, iban: str):
    """Save a new payee for a customer; the IBAN must be new for that customer.

    Args:
        customer_id: The customer who will pay this payee.
        name: Display name of the payee.
        iban: The payee's IBAN (2 letters then 10 to 30 digits or letters).
    """
    need(st, "customer", customer_id)
    iban = iban.replace(" ", "").upper()
    if not (iban[:2].isalpha() and 12 <= len(iban) <= 32 and iban.isalnum()): raise ToolError(f"invalid IBAN '{iban}'")
    if any(p["iban"] == iban for p in st.find("payee", customer_id=customer_id)):
        raise ToolError(f"customer {customer_id} already has a payee with IBAN {iban}")
    p = st.insert("payee", {"customer_id": customer_id, "name": name.strip() or "Unnamed", "iban": iban})
    return dict(p)

@server.write(produces="transaction", after=("add_payee",))
def pay_payee(st, account_id: AccountId, payee_id: PayeeId, amount: float, memo: str = ""):
    """Pay a saved payee now from an account of the same customer.

    Args:
        account_id: The account to pay from.
        payee_id: The payee to pay.
        amount: Positive amount.
        memo: Optional reference for the payee.
    """
    _positive(amount)
    acc, payee = _open_account(st, account_id), need(st, "payee", payee_id)
    if payee["customer_id"] != acc["customer_id"]: raise ToolError(f"payee {payee_id} does not belong to the owner of {account_id}")
    txn = _post(st, acc, -amount, "payment", payee["name"], memo)
    return {"transaction_id": txn["transaction_id"], "balance": st.get("account", account_id)["balance"]}

@server.write
def lock_card(st, card_id: CardId, reason: Literal["lost", "stolen", "suspicious_activity", "temporary"] = "temporary"):
    """Lock a card so that it declines payments.

    Args:
        card_id: The card to lock.
        reason: Why the card is locked.
    """
    card = need(st, "card", card_id)
    if card["status"] != "active": raise ToolError(f"card {card_id} is already {card['status']}")
    st.update("card", card_id, status="locked", lock_reason=reason)
    return {"card_id": card_id, "status": "locked", "reason": reason}

@server.write(after=("lock_card",))
def unlock_card(st, card_id: CardId):
    """Unlock a locked card (cards locked as lost or stolen cannot be unlocked).

    Args:
        card_id: The card to unlock.
    """
    card = need(st, "card", card_id)
    if card["status"] != "locked": raise ToolError(f"card {card_id} is not locked (status {card['status']})")
    if card.get("lock_reason") in ("lost", "stolen"): raise ToolError(f"card {card_id} was reported {card['lock_reason']}; order a new card")
    st.update("card", card_id, status="active", lock_reason=None)
    return {"card_id": card_id, "status": "active"}

@server.write(produces="scheduled_payment")
def schedule_payment(st, account_id: AccountId, payee_id: PayeeId, amount: float, date: str):
    """Schedule a future payment to a saved payee.

    Args:
        account_id: The account to pay from.
        payee_id: The payee to pay.
        amount: Positive amount.
        date: Day of payment, YYYY-MM-DD, after today.
    """
    _positive(amount)
    acc, payee = _open_account(st, account_id), need(st, "payee", payee_id)
    if payee["customer_id"] != acc["customer_id"]: raise ToolError(f"payee {payee_id} does not belong to the owner of {account_id}")
    if len(date) != 10 or date[4] != "-" or date[7] != "-": raise ToolError(f"date must be YYYY-MM-DD, got '{date}'")
    if date <= st.meta["now"][:10]: raise ToolError(f"date {date} is not in the future (today is {st.meta['now'][:10]})")
    return dict(st.insert("scheduled_payment", {"account_id": account_id, "payee_id": payee_id, "amount": round(amount, 2),
                                                "date": date, "status": "scheduled"}))

@server.write(after=("schedule_payment",))
def cancel_scheduled_payment(st, payment_id: PaymentId):
    """Cancel a scheduled payment that has not been made yet.

    Args:
        payment_id: The scheduled payment to cancel.
    """
    p = need(st, "scheduled_payment", payment_id, "scheduled payment")
    if p["status"] != "scheduled": raise ToolError(f"payment {payment_id} is already {p['status']}")
    st.update("scheduled_payment", payment_id, status="cancelled")
    return {"payment_id": payment_id, "status": "cancelled"}

@server.write(produces="account")
def open_account(st, customer_id: CustomerId, type: Literal["checking", "savings"], currency: Literal["USD", "EUR"] = "USD",
                 nickname: str = ""):
    """Open a new empty checking or savings account for a customer (at most 5 open accounts each).

    Args:
        customer_id: The customer who owns the new account.
        type: Kind of account.
        currency: Currency of the account.
        nickname: Optional display name.
    """
    need(st, "customer", customer_id)
    if len([a for a in st.find("account", customer_id=customer_id) if a["status"] == "open"]) >= 5:
        raise ToolError(f"customer {customer_id} already has 5 open accounts")
    return dict(st.insert("account", {"customer_id": customer_id, "type": type, "currency": currency, "balance": 0.0,
                                      "credit_limit": 0.0, "status": "open", "nickname": nickname or f"New {type}"}))
