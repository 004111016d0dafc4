"""Digests of every server's seed data and of its answers (errors included) to a fixed sweep of calls, recorded before the
restructuring of issue 17: moving the servers or sharing their helpers must not change a row or a message."""
import hashlib, json

from prove_nb.server import example_arguments, load_server, server_names

def _digest(x) -> str:
    return hashlib.sha256(json.dumps(x, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode()).hexdigest()

def test_seed_data_digest():
    hashes = {n: [load_server(n).seed_state(s, z).hash() for s, z in ((0, "small"), (1, "small"), (3, "large"), (2, "tiny"))]
              for n in server_names()}
    assert len(hashes) == 20
    assert _digest(hashes) == "ab59c0022143cc83346b8910ad9cfb486a3cc649d5e51e21f18fb3911fb0a83c"

def test_call_sweep_digest():
    "Each tool on its example arguments, then with each entity id replaced by one that does not exist (the 'no ... with id' errors)."
    out = {}
    for n in server_names():
        srv = load_server(n)
        for name, spec in srv.tools.items():
            base = example_arguments(srv, name)
            rows = [srv.session(0).call(name, base).text]
            rows += [srv.session(0).call(name, {**base, p: "zz_9999"}).text
                     for p, s in spec.params.items() if s.get("x-entity") and s.get("type") == "string"]
            out[f"{n}.{name}"] = rows
    assert sum(map(len, out.values())) == 752
    assert sum(r.endswith("with id 'zz_9999'") for rows in out.values() for r in rows) == 341
    assert _digest(out) == "78b67cf9df201d7051c16d9ca119c79a305c68775d4113ee89e916105ae4f88c"
