"""MCP conformance with the official client (in memory, over a real stdio subprocess, over streamable HTTP), and the
hardening of issue 15: one validator on every path, finite numbers, admin tools off the model's surface, tokens,
per-call time limits, session limits, stdio signals and malformed JSON-RPC."""
import json, math, os, signal, socket, subprocess, sys, threading, time
import anyio, httpx, pytest
from mcp import Client, StdioServerParameters
from prove_nb.server import example_arguments, load_server, server_names, working_read_call
from prove_nb.transport import ADMIN_KEY, SESSION_KEY, MCPToolClient, ServeLimits, to_mcp

SERVE = [sys.executable, "-c", "from prove_nb.cli import main; main()", "serve"]

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]

def stdio(name, *flags): return StdioServerParameters(command=SERVE[0], args=SERVE[1:] + [name, *flags])

class http_server:
    "`prove serve NAME --transport http` in a subprocess for the duration of a `with` block; its URL."
    def __init__(self, name="banking", *flags, env=None): self.name, self.flags, self.env, self.port = name, flags, env, free_port()
    def __enter__(self):
        self.proc = subprocess.Popen(SERVE + [self.name, "--transport", "http", "--port", str(self.port), *self.flags],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **(self.env or {})})
        for _ in range(200):
            try: socket.create_connection(("127.0.0.1", self.port), 0.1).close(); break
            except OSError: time.sleep(0.1)
        return f"http://127.0.0.1:{self.port}/mcp"
    def __exit__(self, *exc):
        self.proc.terminate(); self.stderr = self.proc.communicate(timeout=10)[1].decode()

async def conformance(target, server="banking"):
    "Tools listed with schemas; a call succeeds; bad arguments give an error naming the problem; the server keeps serving; sessions stay apart."
    srv = load_server(server)
    async with MCPToolClient(target, session="a") as a, MCPToolClient(target, session="b") as b:
        tools = await a.tools()
        assert sorted(t["function"]["name"] for t in tools) == sorted(srv.tools)
        assert all(t["function"]["parameters"]["type"] == "object" for t in tools)
        assert (await a.call("get_account", {"account_id": "acc_0001"})).ok
        bad = await a.call("deposit", {"account_id": "acc_0001", "amount": "lots"})
        assert not bad.ok and "amount" in bad.error
        bad = await a.call("deposit", {"account_id": "acc_0404", "amount": 5})
        assert not bad.ok and "acc_0404" in bad.error
        before = (await b.call("get_account", {"account_id": "acc_0001"})).content["balance"]
        ok = await a.call("deposit", {"account_id": "acc_0001", "amount": 5})
        assert ok.ok and ok.content["balance"] == round(before + 5, 2)
        assert (await b.call("get_account", {"account_id": "acc_0001"})).content["balance"] == before
        assert (await a.admin("hash"))["hash"] != (await b.admin("hash"))["hash"]
        assert list(await a.admin("diff")) == ["account", "transaction"] and await b.admin("diff") == {}
        await a.admin("fork", target="c")
        await a.admin("reset")
        assert await a.admin("diff") == {}

def test_in_memory(): anyio.run(conformance, to_mcp(load_server("banking"), admin=True))

def test_stdio_subprocess(): anyio.run(conformance, stdio("banking", "--admin"))

def test_streamable_http():
    with http_server("banking", "--admin") as url: anyio.run(conformance, url)

# ------------------------------------------------------------------ one validator on every path (15.2), finite numbers (15.1)

def probe_arguments(server, spec) -> list:
    "Argument sets for one tool: valid, unknown, missing, mistyped and coercible (numeric strings, booleans, 'yes', 1.0), NaN."
    good = example_arguments(server, spec.name)
    out = [good, {**good, "no_such_param": 1}, {**good, spec.name[:4] + "_x": "a"}, {}]
    for p, s in spec.params.items():
        t = s.get("type")
        wrong = {"string": [3, True], "integer": ["3", 1.5, True, 1.0], "number": ["3.5", True, "1e3"],
                 "boolean": ["yes", "true", 1, 0], "array": ["a,b", {"a": 1}], "object": [[1], "{}"]}.get(t, ["x", 1])
        out += [{**good, p: w} for w in wrong] + [{**good, p: None}]
        if "enum" in s: out.append({**good, p: str(s["enum"][0]).upper() + "_"})
    return out

def outcome(r): return (r.ok, r.content if r.ok else r.error)

async def compare_both_ways(name, target):
    "Every probe of every tool, in order, on one MCP session and on one in-process session: the same outcome and text."
    server, diffs, n = load_server(name), [], 0
    local = server.session()
    async with MCPToolClient(target) as c:
        for tool, spec in server.tools.items():
            for args in probe_arguments(server, spec):
                want, got = outcome(local.call(tool, args)), outcome(await c.call(tool, args))
                n += 1
                if want != got: diffs.append((tool, args, want, got))
    assert diffs == [], diffs[:5]
    return n

@pytest.mark.parametrize("name", server_names())
def test_every_server_over_stdio(name):
    """Each server answers tools/list and a call over a real stdio subprocess, with the in-process result and error text."""
    srv = load_server(name)
    tool, args = working_read_call(srv)
    async def go():
        async with MCPToolClient(stdio(name)) as c:
            assert sorted(t["function"]["name"] for t in await c.tools()) == sorted(srv.tools)
            r = await c.call(tool, args)
            assert r.ok and r.content == srv.session().call(tool, args).content
            assert (await c.call("no_such_tool", {})).error == srv.session().call("no_such_tool", {}).error
    anyio.run(go)

@pytest.mark.parametrize("name", server_names())
def test_every_tool_over_mcp_like_in_process(name):
    """Over one MCP connection per server: every tool with unknown, mistyped, coercible and missing arguments is
    accepted or refused exactly as in-process, with the same text."""
    assert anyio.run(compare_both_ways, name, to_mcp(load_server(name))) > 4 * len(load_server(name).tools)

@pytest.mark.parametrize("name", ["banking", "filesystem"])
def test_same_outcomes_over_stdio(name): anyio.run(compare_both_ways, name, stdio(name))

def test_same_outcomes_over_http():
    with http_server("banking") as url: anyio.run(compare_both_ways, "banking", url)

def number_paths(s, where):
    "Paths inside parameter schema `s` that take numbers: the parameter itself, or `p[0]` for a list of numbers."
    opts = s.get("anyOf") or [s]
    if any(o.get("type") in ("number", "integer") for o in opts): yield where, lambda v: v
    for o in opts:
        if o.get("type") == "array" and (o.get("items") or {}).get("type") in ("number", "integer"): yield f"{where}[0]", lambda v: [v]

def test_no_nan_or_infinity_anywhere():
    "Every number parameter of all 343 tools refuses NaN, Infinity and -Infinity with a message naming it, and changes nothing."
    seen = 0
    for name in server_names():
        server = load_server(name)
        s = server.session()
        for tool, spec in server.tools.items():
            good = example_arguments(server, tool)
            for p, sch in spec.params.items():
                for path, wrap in number_paths(sch, p):
                    for v, word in ((math.nan, "NaN"), (math.inf, "Infinity"), (-math.inf, "-Infinity")):
                        before = s.hash()
                        r = s.call(tool, {**good, p: wrap(v)})
                        assert not r.ok and f"parameter '{path}' must be a finite number, got {word}" in r.error, (tool, p, r.error)
                        assert s.hash() == before
                        seen += 1
    assert seen == 3 * 98  # every number parameter (and list of numbers) of the 343 tools

def rpc(proc, msg: dict | str, reply=True):
    "Send one line to a raw stdio server; its reply (a dict) when `reply`, failing after 30 s without one."
    proc.stdin.write((msg if isinstance(msg, str) else json.dumps(msg)) + "\n"); proc.stdin.flush()
    if not reply: return None
    line = []
    t = threading.Thread(target=lambda: line.append(proc.stdout.readline()), daemon=True)
    t.start(); t.join(30)
    assert line, f"no reply to {msg!r}"
    return json.loads(line[0])

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}}

def test_raw_json_rpc_over_stdio():
    "NaN, Infinity and 1e999 sent as raw JSON are refused by name; a malformed line gets a JSON-RPC error with its id (or null)."
    proc = subprocess.Popen(SERVE + ["banking"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert "result" in rpc(proc, INIT)
        rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"}, reply=False)
        for i, raw in enumerate(["NaN", "Infinity", "-Infinity", "1e999"], 1):
            r = rpc(proc, '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "withdraw", '
                          '"arguments": {"account_id": "acc_0001", "amount": %s}}}' % (i, raw))
            assert r["id"] == i and r["result"]["isError"], r
            assert "parameter 'amount' must be a finite number" in r["result"]["content"][0]["text"]
        assert rpc(proc, '{"jsonrpc": "2.0", "id": 7, "method": 5}') == {"jsonrpc": "2.0", "id": 7, "error": {
            "code": -32600, "message": "Invalid Request: not a JSON-RPC 2.0 request, response or notification"}}
        r = rpc(proc, '{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": ')
        assert r["id"] is None and r["error"]["code"] == -32700
        r = rpc(proc, {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "get_account", "arguments": {"account_id": "acc_0001"}}})
        assert r["id"] == 9 and not r["result"].get("isError")  # still serving
    finally:
        proc.kill(); proc.wait(10)

def test_ctrl_c_stops_stdio_server():
    "SIGINT ends a stdio server whose stdin is still open."
    proc = subprocess.Popen(SERVE + ["banking"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert "result" in rpc(proc, INIT)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 130
    finally:
        if proc.poll() is None: proc.kill()

# ------------------------------------------------------------------ admin tools, session ids, tokens (15.3), remote hosts (15.7)

def test_admin_tools_off_by_default():
    "Not listed, not callable (an unknown tool) by default; with a token, callable only with it; never in the model's list."
    banking = load_server("banking")
    async def go():
        async with MCPToolClient(to_mcp(banking)) as c:
            assert not any(t["function"]["name"].startswith("prove_session") for t in await c.tools())
            assert (await c.call("prove_session_reset", {"session": "default"})).error.startswith("unknown tool 'prove_session_reset'")
            with pytest.raises(RuntimeError, match="unknown tool"): await c.admin("hash")
        async with MCPToolClient(to_mcp(banking, admin="t0k")) as c:
            names = {t.name for t in (await c.client.list_tools()).tools}
            assert names == set(banking.tools)
            with pytest.raises(RuntimeError, match="admin token"): await c.admin("hash")
            c.admin_token = "t\u00f6k"
            with pytest.raises(RuntimeError, match="admin token"): await c.admin("hash")
            c.admin_token = "t0k"
            assert len((await c.admin("hash"))["hash"]) == 32
            with pytest.raises(RuntimeError, match="parameter 'seed' must be integer"): await c.admin("create", seed="1")
    anyio.run(go)

def test_session_ids_are_random():
    a, b = MCPToolClient(to_mcp(load_server("banking"))), MCPToolClient(to_mcp(load_server("banking")))
    assert a.session != b.session and len(a.session) == 32 and int(a.session, 16) >= 0

def test_require_session():
    "A server asked to refuses calls without a session id; by default they share the `default` session."
    async def go(srv):
        async with Client(srv) as c:
            r = await c.call_tool("get_account", {"account_id": "acc_0001"})
            return r.is_error, r.content[0].text
    strict, loose = anyio.run(go, to_mcp(load_server("banking"), require_session=True)), anyio.run(go, to_mcp(load_server("banking")))
    assert strict[0] and SESSION_KEY in strict[1] and not loose[0]

def test_http_bearer_token():
    "With --token every HTTP request must carry it: 401 without, served with it (from the argument or PROVE_TOKEN)."
    with http_server("banking", "--token", "sekret") as url:
        assert httpx.post(url, json=INIT, headers={"Accept": "application/json, text/event-stream"}).status_code == 401
        async def go():
            async with MCPToolClient(url, token="sekret") as c: return (await c.call("get_account", {"account_id": "acc_0001"})).ok
        assert anyio.run(go)

def test_non_loopback_host_needs_flag_and_token():
    run = lambda *f: subprocess.run(SERVE + ["banking", "--transport", "http", "--port", str(free_port()), *f], capture_output=True, text=True, timeout=60)
    r = run("--host", "0.0.0.0")
    assert r.returncode != 0 and "--allow-remote" in r.stderr
    r = run("--host", "0.0.0.0", "--allow-remote")
    assert r.returncode != 0 and "token" in r.stderr

def test_remote_host_keeps_host_checks():
    "Served on all interfaces with a token: the names given are let in, any other Host header is refused."
    port = free_port()
    proc = subprocess.Popen(SERVE + ["banking", "--transport", "http", "--port", str(port), "--host", "0.0.0.0", "--allow-remote",
                                     "--token", "t", "--allowed-host", "prove.internal"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try: socket.create_connection(("127.0.0.1", port), 0.1).close(); break
            except OSError: time.sleep(0.1)
        post = lambda host: httpx.post(f"http://127.0.0.1:{port}/mcp", json=INIT, headers={
            "Host": host, "Authorization": "Bearer t", "Accept": "application/json, text/event-stream"}).status_code
        assert post("evil.example:80") == 421 and post(f"prove.internal:{port}") == 200
    finally:
        proc.terminate(); proc.wait(10)

# ------------------------------------------------------------------ time limits (15.4), shared-use limits (15.5)

def test_pathological_regex_is_bounded_and_others_are_served():
    "A catastrophic pattern returns an error naming the limit; a call of another session sent after it comes back first."
    srv = to_mcp(load_server("filesystem"))
    order = []
    async def bad(c):
        r = await c.call("search_file_contents", {"pattern": "(a|aa)+$", "path": "bad.txt", "regex": True})
        order.append("bad")
        assert not r.ok and "s of matching a search may use" in r.error, r.error
    async def other(c):
        await anyio.sleep(0.2)
        assert (await c.call("get_working_directory", {})).ok
        order.append("other")
    async def go():
        async with MCPToolClient(srv) as a, MCPToolClient(srv) as b:
            assert (await a.call("write_text_file", {"path": "bad.txt", "content": "a" * 60 + "!"})).ok
            async with anyio.create_task_group() as tg:
                tg.start_soon(bad, a); tg.start_soon(other, b)
    anyio.run(go)
    assert order == ["other", "bad"]

def test_call_time_limit():
    "A call past the server's limit gets an error naming it."
    srv = to_mcp(load_server("filesystem"), limits=ServeLimits(call_timeout=0.05))
    async def go():
        async with MCPToolClient(srv) as c:
            await c.call("write_text_file", {"path": "bad.txt", "content": "a" * 60 + "!"})
            return await c.call("search_file_contents", {"pattern": "(a|aa)+$", "path": "bad.txt", "regex": True})
    r = anyio.run(go)
    assert not r.ok and "per-call time limit of 0.05 s" in r.error

def test_session_cap_and_idle_expiry():
    srv = to_mcp(load_server("banking"), limits=ServeLimits(max_sessions=2, idle_expiry=3600))
    mgr = srv.prove_sessions
    async def go():
        async with MCPToolClient(srv, session="a") as a:
            assert (await a.call("get_account", {"account_id": "acc_0001"})).ok
            assert (await a.call("get_account", {"account_id": "acc_0001"}, session="b")).ok
            r = await a.call("get_account", {"account_id": "acc_0001"}, session="c")
            assert not r.ok and "too many open sessions (2)" in r.error
            assert mgr.expire(time.monotonic() + 3601) == 2 and mgr.sessions == {}
            assert (await a.call("get_account", {"account_id": "acc_0001"}, session="c")).ok
    anyio.run(go)

def test_aborted_http_request_logs_one_line():
    "A client that hangs up in the middle of a request body leaves one log line, not a traceback."
    srv = http_server("banking")
    with srv as url:
        H = {"Accept": "application/json, text/event-stream"}
        r = httpx.post(url, json=INIT, headers=H)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        with socket.create_connection(("127.0.0.1", int(url.split(":")[2].split("/")[0]))) as s:
            s.sendall((f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {H['Accept']}\r\nContent-Type: application/json\r\n"
                       f"mcp-session-id: {r.headers['mcp-session-id']}\r\nContent-Length: {len(body)}\r\n\r\n{body[:10]}").encode())
        async def still_serving():
            async with MCPToolClient(url) as c: return (await c.call("get_account", {"account_id": "acc_0001"})).ok
        assert anyio.run(still_serving)
    lines = [l for l in srv.stderr.splitlines() if l.strip()]
    assert lines == ["Error handling POST request: the client went away (ClientDisconnect)"], srv.stderr[-2000:]

def test_abandoned_initialisations_do_not_lock_clients_out():
    "Past --transport-sessions, the idlest transport session is closed for a new client instead of answering 503."
    H = {"Accept": "application/json, text/event-stream"}
    with http_server("banking", "--transport-sessions", "4") as url:
        ids = [httpx.post(url, json=INIT, headers=H).headers["mcp-session-id"] for _ in range(10)]
        async def served():
            async with MCPToolClient(url) as c: return (await c.call("get_account", {"account_id": "acc_0001"})).ok
        assert anyio.run(served)
        old = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                         headers={**H, "mcp-session-id": ids[0], "mcp-protocol-version": "2025-06-18"})
        new = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                         headers={**H, "mcp-session-id": ids[-1], "mcp-protocol-version": "2025-06-18"})
        assert (old.status_code, new.status_code) == (404, 200)
