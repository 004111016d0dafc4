"""A maintained benchmark's current result: `bench/results/<bench>.json`, stamped with the date, the commit and the machine.

A full-size run replaces it; the figures it replaces stay in git and in the benchmark's history table in bench/RESULTS.md.
Quick runs (`make bench`) only print."""
import datetime, json, os, platform, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
START_LOAD = os.getloadavg()  # when the benchmark imported this, before it ran

VECTOR = ("amx_bf16", "avx512_bf16", "avx512f", "avx2")  # the widest first: AMX and AVX512-BF16 compute bfloat16 natively

def machine() -> dict:
    "What a CPU benchmark's figures depend on: the CPU model, its widest vector extension, its cores, the platform and Python."
    info = Path("/proc/cpuinfo")
    lines = info.read_text().splitlines() if info.exists() else []
    names = [l.split(":", 1)[1].strip() for l in lines if l.startswith("model name")]
    flags = next((set(l.split(":", 1)[1].split()) for l in lines if l.startswith("flags")), set())
    return {"cpu": names[0] if names else platform.machine(), "vector": next((v for v in VECTOR if v in flags), None),
            "cores": os.cpu_count(), "platform": sys.platform, "python": platform.python_version()}

def save(bench: str, result: dict, folder: Path = RESULTS) -> Path:
    "Write `result` as `bench`'s current result, with the date (UTC), the commit, the machine and its load when it started and ended."
    commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True).stdout.strip()
    record = {"bench": bench, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "commit": commit or None,
              "machine": machine(), "load_average": {"start": [round(x, 2) for x in START_LOAD], "end": [round(x, 2) for x in os.getloadavg()]}, **result}
    path = Path(folder) / f"{bench}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}", file=sys.stderr)
    return path
