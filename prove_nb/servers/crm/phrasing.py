"How a salesperson asks for each CRM tool. Slots are parameter names; [parts] are said only when their slots have values."
PHRASES = {
    "list_sales_reps": ("show me our reps[ on the {team} team][ who are {status}]", "check who's on the sales team[ {team}][ ({status})]"),
    "search_crm_companies": ("look up the company[ {query}][ in {industry}]", "find accounts[ matching {query}][ in the {industry} space]"),
    "search_crm_contacts": ("look up the contact[ {query}][ at {company_id}]", "find our people[ matching {query}][ at {company_id}]"),
    "list_crm_deals": ("show me the deals[ {owner_id} owns][ in {stage}][ with {company_id}][ worth at least {min_amount}]", "go through the pipeline[ for {owner_id}][ at the {stage} stage][ for {company_id}][ above {min_amount}]"),
    "list_crm_activities": ("show me the activity log[ on {deal_id}][ with {contact_id}][ for {owner_id}][ that's {status}]", "check what's been done[ on {deal_id}][ with {contact_id}][ by {owner_id}][ ({status})]"),
    "create_crm_company": ("add {name} as a new {industry} company in {city} owned by {owner_id}", "set up an account for {name} ({industry}, {city}) under {owner_id}[ with {employees} staff]"),
    "create_crm_contact": ("add {first_name} {last_name} ({email}) as a contact at {company_id}", "save {first_name} {last_name} from {company_id}, email {email}[, title {title}]"),
    "update_crm_contact": ("update {contact_id}[: title {title}][, phone {phone}][, email {email}][, status {status}]", "change {contact_id}'s details[ - title {title}][, phone {phone}][, email {email}][, status {status}]"),
    "create_crm_deal": ("open a deal {name} with {contact_id} for {owner_id}, closing {close_date}", "start tracking {name} with {contact_id}, owned by {owner_id}, expected to close {close_date}[, worth {amount}]"),
    "advance_deal_stage": ("move {deal_id} up to {stage}", "push {deal_id} forward to {stage}", "bump {deal_id} to the {stage} stage"),
    "mark_deal_lost": ("close out {deal_id} as lost - {reason}", "mark {deal_id} dead because {reason}", "record that we lost {deal_id}: {reason}"),
    "reopen_deal": ("bring {deal_id} back at {stage}, now closing {close_date}", "revive {deal_id} at the {stage} stage with a close date of {close_date}"),
    "update_deal_amount": ("set {deal_id}'s value to {amount}", "change {deal_id} to be worth {amount}", "update the size of {deal_id} to {amount}"),
    "reassign_deal_owner": ("hand {deal_id} over to {owner_id}", "give {deal_id} to {owner_id}", "make {owner_id} the owner of {deal_id}"),
    "log_crm_activity": ("log a {kind} for {owner_id} titled {subject}[ on {deal_id}][ with {contact_id}][ due {due}]", "record a {kind} by {owner_id}: {subject}[ for {deal_id}][ with {contact_id}][, due {due}]"),
    "complete_crm_activity": ("tick off {activity_id} as done[ - outcome: {outcome}]", "close {activity_id}[ with the result {outcome}]", "mark {activity_id} finished"),
}
