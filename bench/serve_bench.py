"""Shared-server benchmark: isolation under concurrent HTTP clients, other sessions' latency while one
session sends a catastrophic regex, memory and admission after abandoned HTTP initialisations, per-session memory,
and filesystem-sandbox escape attempts over MCP.

    python bench/serve_bench.py [--quick] [--json] [--only isolation,stall,abandon,session_memory,sandbox] [--root DIR --old]

Without --quick, every part measured on this checkout's servers is written to bench/results/serve_bench.json.

`--root DIR` runs the servers from another checkout (e.g. a `git worktree` of an older commit) with the
client of this one; `--old` says that checkout predates `--admin` (its admin tools are always on).
"""
import argparse, json, os, random, socket, statistics, subprocess, sys, time, tracemalloc

import anyio, httpx

from prove_nb.server import load_server
from prove_nb.transport import MCPToolClient, SessionManager
from record import save

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}}
ACCEPT = {"Accept": "application/json, text/event-stream"}

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]

class served:
    "`prove serve NAME --transport http` from checkout `root` for a `with` block: (url, pid)."
    def __init__(self, name, root, *flags): self.name, self.root, self.flags, self.port = name, root, flags, free_port()
    def __enter__(self):
        env = {**os.environ, "PYTHONPATH": self.root}
        self.proc = subprocess.Popen([sys.executable, "-c", "from prove_nb.cli import main; main()", "serve", self.name, "--transport", "http",
                                      "--port", str(self.port), *self.flags], cwd=self.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(300):
            try: socket.create_connection(("127.0.0.1", self.port), 0.1).close(); break
            except OSError: time.sleep(0.1)
        return f"http://127.0.0.1:{self.port}/mcp", self.proc.pid
    def __exit__(self, *exc):
        self.proc.terminate()
        try: self.stderr = self.proc.communicate(timeout=20)[1].decode(errors="replace")
        except subprocess.TimeoutExpired:  # a server holding thousands of sessions can be slow to wind down
            self.proc.kill(); self.stderr = self.proc.communicate()[1].decode(errors="replace")

def rss_mib(pid) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return round(int(line.split()[1]) / 1024, 1)

def pct(xs, q): return round(sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] * 1000, 1) if xs else None

# ------------------------------------------------------------------------------------------------ isolation
def banking_calls(rng, n):
    accs = [f"acc_{i:04d}" for i in range(1, 6)]
    out = []
    for _ in range(n):
        k = rng.random()
        if k < 0.4: out.append(("deposit", {"account_id": rng.choice(accs), "amount": round(rng.uniform(1, 50), 2)}))
        elif k < 0.7: out.append(("withdraw", {"account_id": rng.choice(accs), "amount": round(rng.uniform(1, 80), 2)}))
        else: out.append(("get_account", {"account_id": rng.choice(accs)}))
    return out

def isolation(root, old, clients=64, calls=100):
    "`clients` concurrent HTTP clients, each with its own session, `calls` calls each; every session's hash against an in-process replay."
    server, lat = load_server("banking"), []
    plans = [banking_calls(random.Random(i), calls) for i in range(clients)]
    with served("banking", root, *([] if old else ["--admin"])) as (url, pid):
        async def client(plan, hashes):
            async with MCPToolClient(url) as c:
                for tool, args in plan:
                    t = time.perf_counter(); await c.call(tool, args); lat.append(time.perf_counter() - t)
                hashes.append((plan, (await c.admin("hash"))["hash"]))
        async def go():
            hashes = []
            t = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for p in plans: tg.start_soon(client, p, hashes)
            return hashes, time.perf_counter() - t
        hashes, secs = anyio.run(go)
        rss = rss_mib(pid)
    def replay(plan):
        s = server.session()
        for tool, args in plan: s.call(tool, args)
        return s.hash()
    equal = sum(h == replay(p) for p, h in hashes)
    return {"clients": clients, "calls_each": calls, "sessions_equal_to_replay": f"{equal}/{clients}", "seconds": round(secs, 1),
            "calls_per_s": round(clients * calls / secs), "p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99), "server_rss_mib": rss}

# ------------------------------------------------------------------------------------------------ stall
def stall(root, old, pattern, content, seconds=5.0, others=8):
    "Other sessions' latency for `seconds` without, then with, one session sending `pattern` against `content` in a loop."
    with served("filesystem", root) as (url, pid):
        async def phase(bad: bool):
            lat, bad_calls, stop = [], [], time.perf_counter() + seconds
            async def other():
                async with MCPToolClient(url) as c:
                    while time.perf_counter() < stop:
                        t = time.perf_counter(); await c.call("get_working_directory", {}); lat.append(time.perf_counter() - t)
            async def attacker():
                async with MCPToolClient(url) as c:
                    await c.call("write_text_file", {"path": "bad.txt", "content": content})
                    while time.perf_counter() < stop:
                        t = time.perf_counter()
                        r = await c.call("search_file_contents", {"pattern": pattern, "path": "bad.txt", "regex": True})
                        bad_calls.append((time.perf_counter() - t, r.error or "ok"))
            async with anyio.create_task_group() as tg:
                for _ in range(others): tg.start_soon(other)
                if bad: tg.start_soon(attacker)
            return lat, bad_calls
        base, _ = anyio.run(phase, False)
        hit, bad_calls = anyio.run(phase, True)
    return {"pattern": pattern, "content_bytes": len(content), "others": others,
            "baseline_p50_ms": pct(base, 0.5), "baseline_p99_ms": pct(base, 0.99), "baseline_calls": len(base),
            "with_bad_p50_ms": pct(hit, 0.5), "with_bad_p99_ms": pct(hit, 0.99), "with_bad_max_ms": pct(hit, 1.0), "with_bad_calls": len(hit),
            "bad_calls": len(bad_calls), "bad_call_s": round(max((d for d, _ in bad_calls), default=0), 2),
            "bad_result": (bad_calls[0][1][:110] if bad_calls else None)}

# ------------------------------------------------------------------------------------------------ abandoned initialisations
def abandon(root, old, n=10_000):
    "RSS before and after `n` initialize requests never followed up, and whether a new client (legacy handshake, and the SDK's) is served."
    with served("banking", root) as (url, pid):
        with httpx.Client(timeout=30) as h:
            h.post(url, json=INIT, headers=ACCEPT)
            time.sleep(0.5)
            before, codes, t = rss_mib(pid), {}, time.perf_counter()
            for _ in range(n):
                code = h.post(url, json=INIT, headers=ACCEPT).status_code
                codes[code] = codes.get(code, 0) + 1
            secs, after = time.perf_counter() - t, rss_mib(pid)
            legacy = h.post(url, json=INIT, headers=ACCEPT).status_code  # a 2025-06-18 client needs a transport session
        async def new_client():
            try:
                async with MCPToolClient(url) as c: return "served" if (await c.call("get_account", {"account_id": "acc_0001"})).ok else "error"
            except Exception as e: return f"refused ({type(e).__name__}: {str(e)[:60]})"
        fresh = anyio.run(new_client)
    return {"initialisations": n, "status_codes": codes, "seconds": round(secs, 1), "rss_before_mib": before, "rss_after_mib": after,
            "new_legacy_client_status": legacy, "new_sdk_client": fresh}

# ------------------------------------------------------------------------------------------------ per-session memory
def session_memory(n=2000):
    "Bytes a session holds after one write, in process (tracemalloc over `n` sessions of one SessionManager)."
    mgr = SessionManager(load_server("banking"))
    mgr.get("warm").call("deposit", {"account_id": "acc_0001", "amount": 1})
    tracemalloc.start()
    a = tracemalloc.take_snapshot()
    for i in range(n): mgr.get(f"s{i}").call("deposit", {"account_id": "acc_0001", "amount": 1})
    b = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grew = sum(s.size_diff for s in b.compare_to(a, "filename"))
    return {"sessions": n, "bytes_per_session": round(grew / n)}

# ------------------------------------------------------------------------------------------------ sandbox
ESCAPES = [("read_text_file", {"path": p}) for p in ["../../../../etc/passwd", "/etc/passwd", "/../../etc/shadow", "....//....//etc/passwd",
           "%2e%2e/%2e%2e/etc/passwd", "/proc/self/environ", "~root/.ssh/id_rsa", "/home/../../../root/.bashrc", "\\..\\..\\windows\\win.ini",
           "/dev/zero", "file:///etc/passwd", "/etc/passwd\x00.txt", "/" + "../" * 200 + "etc/hostname"]] + [
           ("list_directory", {"path": "/.."}), ("list_directory", {"path": "/proc"}), ("change_working_directory", {"path": "/../../.."}),
           ("get_path_info", {"path": "/work"}), ("find_paths", {"path": "/", "name": "passwd"}), ("create_symlink", {"target": "/..", "link_path": "up"}),
           ("write_text_file", {"path": "/../escape.txt", "content": "x"}), ("copy_path", {"source": "/etc/passwd", "destination": "/tmp/p"}),
           ("extract_file_archive", {"archive_path": "/etc/passwd", "destination": "/../../"}), ("move_path", {"source": "/tmp", "destination": "/../tmp"}),
           ("search_file_contents", {"pattern": "root:", "path": "/"})]

def sandbox(root, old):
    "Every escape attempt over MCP (and two reads of a canary file on the host's disk): does any result show host data?"
    token = os.urandom(8).hex()
    canary = f"/tmp/prove_canary_{token}.txt"
    open(canary, "w").write(f"canary {token}\n")
    host = [open("/etc/passwd").read().splitlines()[0], os.environ.get("PATH", "/usr/bin"), f"canary {token}"]
    attempts = ESCAPES + [("read_text_file", {"path": canary}), ("read_text_file", {"path": "../../../.." + canary})]
    with served("filesystem", root) as (url, pid):
        async def go():
            out = []
            async with MCPToolClient(url) as c:
                for tool, args in attempts:
                    r = await c.call(tool, args)
                    text = json.dumps(r.content) if r.ok else r.error
                    out.append((tool, r.ok, any(h and h in text for h in host)))
            return out
        res = anyio.run(go)
    os.remove(canary)
    return {"attempts": len(res), "leaks": sum(l for *_, l in res), "refused": sum(not ok for _, ok, _ in res)}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true"); ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", default="isolation,stall,abandon,session_memory,sandbox")
    ap.add_argument("--root", default=ROOT); ap.add_argument("--old", action="store_true")
    a = ap.parse_args()
    only, out = a.only.split(","), {"root": a.root, "load_average": os.getloadavg()}
    if "isolation" in only: out["isolation"] = isolation(a.root, a.old, 16 if a.quick else 64, 25 if a.quick else 100)
    if "stall" in only:
        secs = 3.0 if a.quick else 5.0
        out["stall_issue_pattern"] = stall(a.root, a.old, "(a+)+$", "a" * 24 + "!", secs)
        if not a.old: out["stall_limit_pattern"] = stall(a.root, a.old, "(a|aa)+$", "a" * 60 + "!", secs)
    if "abandon" in only: out["abandon"] = abandon(a.root, a.old, 1000 if a.quick else 10_000)
    if "session_memory" in only: out["session_memory"] = session_memory()
    if "sandbox" in only: out["sandbox"] = sandbox(a.root, a.old)
    print(json.dumps(out, indent=None if a.json else 1))
    if not a.quick and a.only == ap.get_default("only") and a.root == ROOT: save("serve_bench", out)

if __name__ == "__main__": main()
