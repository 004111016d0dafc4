"How a household asks for each budget tool. Slots are parameter names; [parts] are said only when their slots have values."
PHRASES = {
    "find_households": ("look up the household[ {name}]", "find our household record[ for {name}]"),
    "list_category_budgets": ("show me how {household_id} is doing against its budgets[ for {month}][ on {category}]", "check what's left in each of {household_id}'s budgets[ in {month}]", "see which budgets {household_id} has set[ for {category}]"),
    "list_household_expenses": ("go through what {household_id} has been spending[ in {month}][ on {category}]", "show me {household_id}'s latest spending[ on {category}]", "pull up the expenses logged for {household_id}[ in {month}]"),
    "list_budget_alerts": ("check whether any budget warnings came up for {household_id}[ ({status} ones)]", "show me the overspending alerts for {household_id}", "see what budget alerts {household_id} got"),
    "list_savings_goals": ("check how {household_id}'s savings goals are coming along", "show me what {household_id} is saving up for[ ({status} goals)]", "see how far {household_id} is from each savings target"),
    "create_category_budget": ("set a {limit} cap on {category} for {household_id} in {month}", "give {household_id} a {category} budget of {limit} for {month}[, warning at {warn_at}]", "budget {limit} for {category} in {month} for {household_id}"),
    "update_budget_limit": ("change {budget_id} so the cap is {limit}", "make {budget_id} {limit} instead", "adjust {budget_id} to allow {limit}"),
    "log_household_expense": ("note that {household_id} spent {amount} on {category} at {merchant} on {date}", "record {amount} paid to {merchant} for {category} on {date} for {household_id}[, paid by {method}]", "add a {category} purchase of {amount} from {merchant} on {date} to {household_id}'s books[ - {note}]"),
    "remove_household_expense": ("take {expense_id} off the books, it was a mistake", "delete {expense_id}, I logged it by accident", "get rid of {expense_id}"),
    "acknowledge_budget_alert": ("mark {alert_id} as seen", "dismiss {alert_id}, I've read it", "let the system know I've seen {alert_id}"),
    "create_savings_goal": ("start saving toward {name} for {household_id}: {target} by {deadline}", "set up a savings target {name} of {target} for {household_id}, due {deadline}", "open a goal called {name} for {household_id} - {target} by {deadline}"),
    "contribute_to_savings_goal": ("put {amount} toward {goal_id}", "add {amount} to {goal_id}", "chip in {amount} for {goal_id}"),
}
