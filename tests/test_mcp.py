"""MCP conformance with the official client: in memory, over a real stdio subprocess, and over streamable HTTP."""
import socket, subprocess, sys, time
import anyio, pytest
from mcp import StdioServerParameters
from prove_nb.server import MCPToolClient, load_server, server_names, to_mcp, working_read_call

SERVE = [sys.executable, "-c", "from prove_nb.cli import main; main()", "serve"]

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]

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

def test_in_memory(): anyio.run(conformance, to_mcp(load_server("banking")))

def test_stdio_subprocess():
    anyio.run(conformance, StdioServerParameters(command=SERVE[0], args=SERVE[1:] + ["banking"]))

def test_streamable_http():
    port = free_port()
    proc = subprocess.Popen(SERVE + ["banking", "--transport", "http", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try: socket.create_connection(("127.0.0.1", port), 0.1).close(); break
            except OSError: time.sleep(0.1)
        anyio.run(conformance, f"http://127.0.0.1:{port}/mcp")
    finally:
        proc.terminate(); proc.wait(10)

@pytest.mark.parametrize("name", server_names())
def test_every_server_over_stdio(name):
    """Each server answers tools/list and a call over a real stdio subprocess, with the in-process result."""
    srv = load_server(name)
    tool, args = working_read_call(srv)
    async def go():
        async with MCPToolClient(StdioServerParameters(command=SERVE[0], args=SERVE[1:] + [name])) as c:
            tools = await c.tools()
            assert sorted(t["function"]["name"] for t in tools) == sorted(srv.tools)
            r = await c.call(tool, args)
            assert r.ok and r.content == srv.session().call(tool, args).content
            assert not (await c.call("no_such_tool", {})).ok
    anyio.run(go)
