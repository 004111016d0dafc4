"""Notebook-first RL of LLMs for multi-step tool use against live, stateful MCP tool servers (PROVE, TIER, TRUSTEE, E-Bench).

Modules:

- `prove_nb.servers.banking`: Banking: customers, accounts, payees, cards, transactions and scheduled payments (17 tools).
- `prove_nb.servers.budget`: Budget: households, monthly budgets per category, expenses that count against them, alerts, savings goals (12 tools).
- `prove_nb.servers.calendar`: Calendar: people with working hours, their calendars, one-off and recurring events, and invitations (17 tools).
- `prove_nb.servers.crm`: CRM: sales reps, companies, contacts, deals through a pipeline, and activities (16 tools).
- `prove_nb.servers.email`: Email: mailboxes with folders, threads, drafts that are sent, attachments from the mailbox's files, labels and contacts (17 tools).
- `prove_nb.servers.food_delivery`: Food delivery: restaurants with menus, diners with delivery addresses and wallets, carts, promo codes, orders that move through their states, and ratings (17 tools).
- `prove_nb.servers.iot_devices`: Smart home: homes, rooms, typed devices, scenes, automations, device groups, firmware and energy (25 tools).
- `prove_nb.servers.issue_tracker`: Issue tracker: projects with members, issues moving through a workflow, labels, comments, milestones and links (20 tools).
- `prove_nb.servers.maps`: Maps: places with coordinates, categories and opening hours in five cities; geocoding, distances, routes and nearby search (mostly read-only), plus users' saved places, shared lists and reviews (16 tools).
- `prove_nb.servers.marketplace`: Marketplace: members sell second-hand items; buyers make offers or buy outright; every item sells once (13 tools).
- `prove_nb.servers.payments`: Payments: wallets, merchants, invoices, payments, refunds and wallet-to-wallet payment requests (10 tools).
- `prove_nb.servers.retail_chain`: Retail chain: stores, per-store inventory, transfers between stores, supplier restock orders and staff shifts (11 tools).
- `prove_nb.servers.shopping`: Shopping: a web shop's catalog, carts, coupons, orders, returns, wishlists, addresses and reviews (23 tools).
- `prove_nb.servers.social_media`: Social network: users, posts with hashtags, comments, likes, follows, blocks and direct messages (15 tools).
- `prove_nb.servers.team_chat`: Team chat: workspaces, public and private channels, messages, threads, reactions, pins and direct messages (11 tools).
- `prove_nb.servers.trading`: Trading: investors, portfolios, tax lots, a deterministic quote table, market and limit orders, watchlists (13 tools).
- `prove_nb.servers.travel_booking`: Travel booking: flights and hotels, travellers with passports and loyalty accounts, bookings, seats, bags, changes, cancellations and itineraries (20 tools).
- `prove_nb.servers.vehicle`: Connected car: vehicles, doors and windows, engine, climate, lights, cruise control, tires, navigation, refuelling and trips (20 tools).
- `prove_nb.servers.video_meeting`: Video meetings: users with licenses, virtual rooms with a capacity, meetings, participants and recordings (10 tools)."""

__version__ = "0.0.1"
