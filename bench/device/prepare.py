"""Prepare, on a machine with PyPI, the wheels the GPU check needs on the lent device (Python 3.12, x86-64, no network).

The device already has torch 2.11, transformers 5.17, peft, accelerate and the packages named in DEVICE_HAS (read off
the device kind's package list); it lacks TRL, datasets, the MCP SDK, Unsloth and bitsandbytes. This script downloads
the ROOTS and, recursively, every requirement the device does not already meet (markers evaluated for CPython 3.12 on
x86-64 Linux), with `pip download --no-deps` for binary wheels only. bitsandbytes ships one CUDA library per CUDA
version (43 MB); its wheel is rebuilt with only the CPU and CUDA 13.0 libraries (the device's torch is cu130). The
wheels are then packed into carry folders of at most `--chunk-mib` each, biggest first, and a manifest records every
wheel, its size and its folder:

    python bench/device/prepare.py                          # -> build/device-wheels/{part1,...}, manifest.json
    python bench/device/prepare.py --python-version 3.11    # the same set for CPython 3.11 (the local rehearsal)
"""
import argparse, base64, csv, hashlib, io, json, re, shutil, subprocess, sys, zipfile
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
ROOTS = ["trl==1.15.0", "datasets==4.8.5", "mcp==2.3.0", "unsloth==2026.10.9", "unsloth_zoo==2026.10.9", "bitsandbytes==0.50.2"]
# What the device image already holds (KINDS.md, nvidia-h200), with the versions read there where known.
DEVICE_HAS = {n: None for n in """absl-py accelerate aiofiles aiohappyeyeballs aiohttp aiosignal annotated-doc anyio attrs build certifi
charset-normalizer click cloudpickle colorama contourpy cycler einops filelock fonttools frozenlist fsspec h11 hf-xet httpcore httpx
huggingface-hub idna jinja2 joblib markdown markdown-it-py markupsafe matplotlib mdurl ml-dtypes mpmath msgpack multidict networkx
numpy packaging pandas peft pillow pip protobuf psutil pyarrow pygments pyparsing python-dateutil pyyaml regex requests rich
safetensors scipy sentencepiece setuptools shellingham six sympy tiktoken tokenizers torch torchvision tqdm transformers triton
typer typing-extensions urllib3 wheel xxhash yarl zipp""".split()}
DEVICE_HAS.update({"torch": "2.11.0", "transformers": "5.17.0", "accelerate": "1.15.0", "huggingface-hub": "1.33.0", "numpy": "2.5.2",
                   "safetensors": "0.8.0", "sentencepiece": "0.2.2", "tokenizers": "0.23.2", "triton": "3.6.0", "torchvision": "0.26.0"})
# Optional accelerators Unsloth uses when present and works without: xformers wheels are built for one torch (not 2.11),
# hf_transfer only speeds downloads (the device has no network), diffusers only serves image models.
SKIP = {"xformers", "hf-transfer", "diffusers"}
# Carried even though the device has them: datasets caps fsspec (<=2026.2.0) and the device's version is not known.
FORCE = {"fsspec"}
PLATFORMS = ["manylinux_2_%d_x86_64" % n for n in (39, 35, 34, 31, 28, 27, 24, 17)] + ["manylinux2014_x86_64", "manylinux1_x86_64"]
BNB_KEEP = re.compile(r"libbitsandbytes_(cpu|cuda130)\.so$")

def marker_env(py: str) -> dict:
    "Marker values of CPython `py` on x86-64 Linux."
    return {**default_environment(), "python_version": py, "python_full_version": py + ".0", "sys_platform": "linux",
            "platform_system": "Linux", "platform_machine": "x86_64", "implementation_name": "cpython", "platform_python_implementation": "CPython"}

def requirements(wheel: Path, extras: set, env: dict) -> list:
    "The wheel's requirements that apply for `extras` under `env`."
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    reqs = [Requirement(l.split(":", 1)[1].strip()) for l in meta.splitlines() if l.startswith("Requires-Dist:")]
    return [r for r in reqs if r.marker is None or any(r.marker.evaluate({**env, "extra": e}) for e in extras | {""})]

def download(spec: str, dest: Path, py: str) -> Path:
    "One binary wheel for `spec` (no dependencies) into `dest`; its path."
    before = set(dest.glob("*.whl"))
    plat = [a for p in PLATFORMS for a in ("--platform", p)]
    subprocess.run([sys.executable, "-m", "pip", "download", "-qq", "--no-deps", "--only-binary=:all:", "--python-version", py,
                    "--implementation", "cp", *plat, "-d", str(dest), spec], check=True)
    new = set(dest.glob("*.whl")) - before
    name = canonicalize_name(Requirement(spec).name)
    return next(iter(new)) if new else next(w for w in dest.glob("*.whl") if parse_wheel_filename(w.name)[0] == name)

def closure(dest: Path, py: str) -> dict:
    "Download ROOTS and every requirement the device lacks; {name: wheel path}, and the requirements met by the device."
    env, got, on_device, todo = marker_env(py), {}, {}, [(Requirement(s), set()) for s in ROOTS]
    while todo:
        req, extras = todo.pop(0)
        name = canonicalize_name(req.name)
        if name in SKIP: continue
        if name in DEVICE_HAS and name not in got and name not in FORCE:
            have = DEVICE_HAS[name]
            if have and req.specifier and not req.specifier.contains(have, prereleases=True):
                raise SystemExit(f"the device's {name} {have} does not meet {req}")
            on_device.setdefault(name, set()).add(str(req.specifier) or "any"); continue
        if name not in got: got[name] = download(f"{req.name}{req.specifier}", dest, py)
        version = parse_wheel_filename(got[name].name)[1]
        if not req.specifier.contains(version, prereleases=True): raise SystemExit(f"{got[name].name} does not meet {req}")
        todo += [(r, set(r.extras)) for r in requirements(got[name], set(req.extras) | extras, env)]
    return {"wheels": got, "on_device": {k: sorted(v) for k, v in sorted(on_device.items())}}

def slim_bitsandbytes(wheel: Path) -> Path:
    "Rewrite the bitsandbytes wheel in place keeping only the CPU and CUDA 13.0 libraries (RECORD updated)."
    out = io.BytesIO()
    with zipfile.ZipFile(wheel) as z, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as o:
        names = [n for n in z.namelist() if not n.endswith(".so") or BNB_KEEP.search(n)]
        record = next(n for n in names if n.endswith(".dist-info/RECORD"))
        rows = []
        for n in names:
            if n == record: continue
            data = z.read(n); o.writestr(z.getinfo(n), data)
            rows.append([n, "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode(), str(len(data))])
        buf = io.StringIO(); csv.writer(buf, lineterminator="\n").writerows(rows + [[record, "", ""]])
        o.writestr(record, buf.getvalue())
    wheel.write_bytes(out.getvalue())
    return wheel

def pack(wheels: list, out: Path, chunk: int) -> list:
    "Move `wheels` into folders part1, part2, ... of at most `chunk` bytes each (first fit, biggest first)."
    parts = []
    for w in sorted(wheels, key=lambda w: -w.stat().st_size):
        size = w.stat().st_size
        if size > chunk: raise SystemExit(f"{w.name} ({size / 2**20:.1f} MiB) alone exceeds a carry of {chunk / 2**20:.0f} MiB")
        part = next((p for p in parts if p["bytes"] + size <= chunk), None)
        if part is None: parts.append(part := {"folder": f"part{len(parts) + 1}", "bytes": 0, "wheels": []})
        part["bytes"] += size; part["wheels"].append(w.name)
    for p in parts:
        (out / p["folder"]).mkdir(parents=True, exist_ok=True)
        for n in p["wheels"]: shutil.move(str(out / "all" / n), out / p["folder"] / n)
    return parts

def tree_bytes() -> int:
    "Bytes of the working tree that travels to the device (tracked and untracked-not-ignored files)."
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True).stdout
    return sum(p.stat().st_size for f in files.split(b"\0") if f and (p := ROOT / f.decode()).is_file())

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "build/device-wheels"))
    ap.add_argument("--python-version", default="3.12")
    ap.add_argument("--chunk-mib", type=float, default=0, help="bytes per carry folder (default: 64 MiB less the working tree)")
    a = ap.parse_args(argv)
    out = Path(a.out); shutil.rmtree(out, ignore_errors=True); (out / "all").mkdir(parents=True)
    res = closure(out / "all", a.python_version)
    if "bitsandbytes" in res["wheels"]: slim_bitsandbytes(res["wheels"]["bitsandbytes"])
    tree = tree_bytes()
    chunk = int(a.chunk_mib * 2**20) if a.chunk_mib else 64 * 2**20 - tree - 2**20  # 1 MiB of slack
    if chunk < 2**20: raise SystemExit(f"the working tree that travels is {tree / 2**20:.0f} MiB of the 64: ignore what need not travel (git status)")
    wheels = sorted(res["wheels"].values())
    sizes = {w.name: w.stat().st_size for w in wheels}
    parts = pack(wheels, out, chunk)
    (out / "all").rmdir()
    manifest = {"python": a.python_version, "roots": ROOTS, "skipped": sorted(SKIP), "forced": sorted(FORCE), "working_tree_bytes": tree, "chunk_bytes": chunk,
                "total_bytes": sum(sizes.values()), "wheels": sizes, "parts": parts, "met_on_device": res["on_device"]}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(sizes)} wheels, {manifest['total_bytes'] / 2**20:.1f} MiB in {len(parts)} carry folder(s) of at most {chunk / 2**20:.1f} MiB "
          f"(working tree {tree / 2**20:.1f} MiB): " + ", ".join(f"{p['folder']} {p['bytes'] / 2**20:.1f} MiB" for p in parts))
    return manifest

if __name__ == "__main__":
    main()
