"""Environment benchmark: in-process call and fork cost, and MCP throughput of a prove server beside a bare SDK server.

    python bench/env_bench.py [--quick] [--json] [--server NAME]    # without --quick, writes bench/results/env_bench.json

Every pair that is compared runs in the same process under the same load, so ratios are meaningful.
Targets (2 cores): call_us <= 20; fork_us_10mb <= 50 and within 3x of fork_us_10kb; deepcopy_us_10mb / fork_us_10mb >= 100;
each prove MCP figure >= 0.8x the bare SDK's.
"""
import argparse, copy, json, socket, statistics, subprocess, sys, time

import anyio

from prove_nb.server import example_arguments, load_server, server_names, working_read_call
from prove_nb.transport import MCPToolClient, to_mcp
from prove_nb.state import State, TableSpec
from record import save

SERVE = [sys.executable, "-c", "from prove_nb.cli import main; main()", "serve"]
BARE = [sys.executable, "-c", """
import sys
from mcp.server import MCPServer
srv = MCPServer("bare", log_level="WARNING")
@srv.tool()
def echo(x: str) -> str:
    "Return x."
    return x
if sys.argv[1] == "stdio": srv.run("stdio")
else: srv.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
"""]

def bare_inproc():
    from mcp.server import MCPServer
    srv = MCPServer("bare", log_level="WARNING")
    @srv.tool()
    def echo(x: str) -> str:
        "Return x."
        return x
    return srv

def median_us(fn, n):
    "Median of n timings of fn() in microseconds (timed in batches to beat timer resolution)."
    batch, out = 50, []
    for _ in range(max(1, n // batch)):
        t = time.perf_counter()
        for _ in range(batch): fn()
        out.append((time.perf_counter() - t) / batch * 1e6)
    return statistics.median(out)

def synthetic_state(nbytes: int) -> State:
    "A state of about `nbytes` of JSON rows in two related tables, with a few changes in its delta."
    specs = [TableSpec("user", "user_id", "u_"), TableSpec("item", "item_id", "i_", {"user_id": "user"})]
    n = max(2, nbytes // 200)
    users = [{"user_id": f"u_{i:06d}", "name": f"user {i}", "email": f"user{i}@example.com"} for i in range(n // 10 + 1)]
    items = [{"item_id": f"i_{i:06d}", "user_id": f"u_{i % len(users):06d}", "title": f"item number {i}", "price": i * 1.5,
              "tags": ["a", "b"], "note": "x" * 40} for i in range(n)]
    st = State.from_rows(specs, {"user": users, "item": items}).fork()
    for i in range(5): st.update("item", f"i_{i:06d}", price=0.0)
    return st

def fork_bench(quick):
    out = {}
    for label, nbytes in (("10kb", 10_000), ("10mb", 10_000_000)):
        st = synthetic_state(nbytes)
        out[f"fork_us_{label}"] = round(median_us(st.fork, 2000 if quick else 20000), 2)
        if label == "10mb":
            rows = st.to_rows()  # the same rows as plain dicts and lists
            t = time.perf_counter(); copy.deepcopy(rows); out["deepcopy_us_10mb"] = round((time.perf_counter() - t) * 1e6, 1)
    return out

async def hammer(target, tool, args, sessions, calls, with_session):
    "calls/s of `sessions` concurrent clients' worth of calls over one connection."
    async with MCPToolClient(target) as c:
        await c.call(tool, args)  # warm up
        per = calls // sessions
        async def worker(i):
            for _ in range(per):
                r = await c.call(tool, args, session=f"s{i}" if with_session else None)
                assert r.ok, r.error
        t = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for i in range(sessions): tg.start_soon(worker, i)
        return per * sessions / (time.perf_counter() - t)

def wait_port(port):
    for _ in range(200):
        try: socket.create_connection(("127.0.0.1", port), 0.1).close(); return
        except OSError: time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]

def mcp_bench(server, quick):
    from mcp import StdioServerParameters
    srv = load_server(server)
    tool, args = bench_call(srv)
    calls = 640 if quick else 3200
    out = {"mcp_tool": tool}
    out["mcp_memory_calls_per_s"] = anyio.run(hammer, to_mcp(srv), tool, args, 1, calls, True)
    out["sdk_memory_calls_per_s"] = anyio.run(hammer, bare_inproc(), "echo", {"x": "hi"}, 1, calls, False)
    out["stdio_calls_per_s"] = anyio.run(hammer, StdioServerParameters(command=SERVE[0], args=SERVE[1:] + [server]), tool, args, 32, calls, True)
    out["sdk_stdio_calls_per_s"] = anyio.run(hammer, StdioServerParameters(command=BARE[0], args=BARE[1:] + ["stdio"]), "echo", {"x": "hi"}, 32, calls, False)
    for key, cmd, t, a, ws in (("http_calls_per_s", SERVE + [server, "--transport", "http", "--port"], tool, args, True),
                               ("sdk_http_calls_per_s", BARE + ["http"], "echo", {"x": "hi"}, False)):
        port = free_port()
        p = subprocess.Popen(cmd + [str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_port(port)
            out[key] = anyio.run(hammer, f"http://127.0.0.1:{port}/mcp", t, a, 32, calls, ws)
        finally: p.terminate(); p.wait(10)
    return {k: (round(v, 1) if isinstance(v, float) else v) for k, v in out.items()}

def bench_call(srv):
    "The read call with the smallest result: the protocol's cost, not the payload's, is what is compared."
    cands = []
    for name, spec in srv.tools.items():
        if spec.kind != "read": continue
        args = example_arguments(srv, name)
        r = srv.session().call(name, args)
        if r.ok: cands.append((len(r.text), name, args))
    if not cands: return working_read_call(srv)
    return min(cands)[1:]

def largest_server():
    return max(server_names(), key=lambda n: len(load_server(n).tools))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true"); ap.add_argument("--json", action="store_true")
    ap.add_argument("--server", default=None, help="server to measure (default: the one with most tools)")
    a = ap.parse_args()
    server = a.server or largest_server()
    srv = load_server(server)
    tool, args = bench_call(srv)
    sess = srv.session()
    res = {"server": server, "tools": len(srv.tools), "call_tool": tool, "call_us": round(median_us(lambda: sess.call(tool, args), 2000 if a.quick else 20000), 2)}
    per_tool = []
    for name in srv.tools:
        if srv.tools[name].kind != "read": continue
        targs = example_arguments(srv, name)
        if sess.call(name, targs).ok: per_tool.append(median_us(lambda: sess.call(name, targs), 200 if a.quick else 1000))
    res["call_us_median_over_read_tools"] = round(statistics.median(per_tool), 2)
    res["read_tools_timed"] = len(per_tool)
    res.update(fork_bench(a.quick))
    res.update(mcp_bench(server, a.quick))
    res["deepcopy_over_fork_10mb"] = round(res["deepcopy_us_10mb"] / res["fork_us_10mb"], 1)
    for k in ("mcp_memory", "stdio", "http"):
        sdk = {"mcp_memory": "sdk_memory"}.get(k, f"sdk_{k}")
        res[f"ratio_{k}"] = round(res[f"{k}_calls_per_s"] / res[f"{sdk}_calls_per_s"], 2)
    if not a.json:
        for k, v in res.items(): print(f"{k:>28}: {v}")
    print(json.dumps(res))
    if not a.quick: save("env_bench", res)

if __name__ == "__main__": main()
