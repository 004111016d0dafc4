"""Sessions never leak into each other; a failing call never leaves a partial write; hashes are canonical."""
from hypothesis import given, settings, strategies as st
from prove_nb.server import load_server
from prove_nb.state import integrity_errors

bank = load_server("banking")
ACC = [f"acc_{i:04d}" for i in range(1, 13)] + ["acc_9999"]
call = st.one_of(
    st.builds(lambda a, x: ("deposit", {"account_id": a, "amount": x}), st.sampled_from(ACC), st.floats(-50, 500)),
    st.builds(lambda a, x: ("withdraw", {"account_id": a, "amount": x}), st.sampled_from(ACC), st.floats(-50, 9000)),
    st.builds(lambda a, b, x: ("transfer", {"from_account": a, "to_account": b, "amount": x}), st.sampled_from(ACC), st.sampled_from(ACC), st.floats(0, 3000)),
    st.builds(lambda c: ("open_account", {"customer_id": c, "type": "savings"}), st.sampled_from(["cus_0001", "cus_0002", "cus_0042"])),
    st.builds(lambda a: ("get_account", {"account_id": a}), st.sampled_from(ACC)),
)

@settings(max_examples=40, deadline=None, database=None)
@given(st.lists(st.tuples(st.integers(0, 31), call), min_size=1, max_size=120))
def test_32_sessions_never_leak(program):
    """Interleave calls over 32 sessions; each must equal a lone session that ran only its own calls."""
    sessions = [bank.session(sid=f"s{i}") for i in range(32)]
    for i, (name, args) in program: sessions[i].call(name, args)
    for i, s in enumerate(sessions):
        alone = bank.session()
        for j, (name, args) in program:
            if j == i: alone.call(name, args)
        assert s.hash() == alone.hash() and s.diff() == alone.diff()
        assert integrity_errors(s.state) == []

@settings(max_examples=200, deadline=None, database=None)
@given(st.lists(call, max_size=15), call)
def test_failing_call_leaves_no_trace(prefix, last):
    s = bank.session()
    for name, args in prefix: s.call(name, args)
    before, rows = s.hash(), s.state.to_rows()
    seq = dict(s.state.meta["seq"])
    r = s.call(*last)
    if not r.ok:
        assert s.hash() == before and s.state.to_rows() == rows and s.state.meta["seq"] == seq

def test_fork_isolation_and_reset():
    a = bank.session()
    a.call("deposit", {"account_id": "acc_0001", "amount": 10})
    b = a.fork()
    b.call("deposit", {"account_id": "acc_0001", "amount": 10})
    assert a.state.get("account", "acc_0001")["balance"] + 10 == b.state.get("account", "acc_0001")["balance"]
    b.reset()
    assert b.hash() == bank.session().hash() and b.diff() == {}

def test_seed_determinism():
    assert bank.seed_state(3).to_rows() == load_server("banking")._build_seed(3, "small").to_rows()
    assert bank.seed_state(3).hash() != bank.seed_state(4).hash()

def reference_hash(state) -> str:
    "The hash written out directly from the definition: every row of every table, sorted by key, canonical JSON."
    import hashlib
    from prove_nb.state import _canon
    h = hashlib.sha256()
    for t in sorted(state.base):
        h.update(f"\x00{t}\x00".encode())
        for r in sorted(state.rows(t), key=lambda r: str(r[state.specs[t].key])): h.update(_canon(r).encode() + b"\n")
    return h.hexdigest()[:32]

@settings(max_examples=60, deadline=None, database=None)
@given(st.lists(call, max_size=25))
def test_cached_hash_matches_definition(program):
    """The hash caches the seed's canonical rows; after any calls it must equal the hash written from the definition."""
    s = bank.session()
    for name, args in program: s.call(name, args)
    assert s.hash() == reference_hash(s.state)
    s.state.delete("payee", next(s.state.rows("payee"))["payee_id"])  # a tombstone in the delta
    assert s.hash() == reference_hash(s.state) != bank.session().hash()
