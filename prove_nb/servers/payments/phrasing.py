"How a wallet owner asks for each payments tool. Slots are parameter names; [parts] are said only when their slots have values."
PHRASES = {
    "find_wallets": ("look up the wallet[ of {owner}][ that's {status}]", "find the wallet[ belonging to {owner}]"),
    "find_merchants": ("look up the merchant[ {query}][ in {category}]", "find shops[ called {query}][ ({category})]"),
    "list_wallet_invoices": ("show me the bills sent to {wallet_id}[ that are {status}]", "check what {wallet_id} owes[ ({status} invoices)]"),
    "list_wallet_payments": ("show me what {wallet_id} has paid[ ({status})][ to {merchant_id}]", "go through the payments from {wallet_id}[ to {merchant_id}]"),
    "list_payment_requests": ("show me the money requests for {wallet_id}[ as {role}][ that are {status}]", "check who asked {wallet_id} for money[ ({status})]"),
    "pay_wallet_invoice": ("pay off {invoice_id}", "settle {invoice_id}", "clear {invoice_id}"),
    "pay_merchant": ("pay {merchant_id} {amount} from {wallet_id}[ for {memo}]", "send {amount} to {merchant_id} out of {wallet_id}"),
    "refund_merchant_payment": ("get {amount} back on {payment_id}[ because {reason}]", "refund {amount} of {payment_id}[ - {reason}]"),
    "request_wallet_payment": ("ask {payer_wallet_id} to send {amount} to {requester_wallet_id}[ for {note}]", "request {amount} from {payer_wallet_id} for {requester_wallet_id}[ - {note}]"),
    "respond_to_payment_request": ("{action} {request_id}", "answer {request_id} with {action}"),
}
