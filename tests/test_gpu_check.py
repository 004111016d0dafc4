"""The device check's preparation, checked here: wheel closure markers, the slimmed bitsandbytes wheel, packing into
carry folders, the requirement check run after the install, the scale notebook's GPU cells, and the device command's
install step (bench/device/run.sh --install-only) with real pip and --no-index into a target folder."""
import base64, csv, hashlib, io, json, os, subprocess, sys, zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench" / "device"), str(ROOT / "bench")]
import prepare, scale_cells, verify  # noqa: E402

def make_wheel(folder: Path, name: str, version: str, requires=(), files=None) -> Path:
    "A valid pure-Python wheel of `name` with `files` ({path: bytes}) and Requires-Dist lines."
    files = {f"{name}/__init__.py": f"__version__ = {version!r}\n".encode(), **(files or {})}
    di = f"{name}-{version}.dist-info"
    files[f"{di}/METADATA"] = "\n".join(["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", *[f"Requires-Dist: {r}" for r in requires]]).encode() + b"\n"
    files[f"{di}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    rows = [[p, "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(), str(len(d))] for p, d in files.items()]
    buf = io.StringIO(); csv.writer(buf, lineterminator="\n").writerows(rows + [[f"{di}/RECORD", "", ""]])
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for p, d in files.items(): z.writestr(p, d)
        z.writestr(f"{di}/RECORD", buf.getvalue())
    return path

def test_requirements_follow_markers_for_the_device(tmp_path):
    w = make_wheel(tmp_path, "pkg", "1.0", ["a>=1", "b; sys_platform == 'win32'", "c; python_version < '3.12'", "d; python_version >= '3.12'",
                                            "e; extra == 'fast'", "f; platform_machine == 'x86_64'"])
    names = lambda py, extras=set(): sorted(r.name for r in prepare.requirements(w, extras, prepare.marker_env(py)))
    assert names("3.12") == ["a", "d", "f"]
    assert names("3.11") == ["a", "c", "f"]
    assert names("3.12", {"fast"}) == ["a", "d", "e", "f"]

def test_slim_bitsandbytes_keeps_cpu_and_cuda130_and_installs(tmp_path):
    libs = {f"bitsandbytes/libbitsandbytes_{v}.so": os.urandom(2000) for v in ("cpu", "cuda118", "cuda126", "cuda130")}
    w = make_wheel(tmp_path, "bitsandbytes", "0.50.2", ["torch>=2.4"], libs)
    before = w.stat().st_size
    prepare.slim_bitsandbytes(w)
    with zipfile.ZipFile(w) as z:
        names = set(z.namelist())
        record = z.read("bitsandbytes-0.50.2.dist-info/RECORD").decode()
    assert {n for n in names if n.endswith(".so")} == {"bitsandbytes/libbitsandbytes_cpu.so", "bitsandbytes/libbitsandbytes_cuda130.so"}
    assert "cuda118" not in record and "libbitsandbytes_cuda130.so,sha256=" in record and w.stat().st_size < before
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--target", str(site), str(w)], check=True)
    assert (site / "bitsandbytes/libbitsandbytes_cuda130.so").read_bytes() == libs["bitsandbytes/libbitsandbytes_cuda130.so"]
    assert not (site / "bitsandbytes/libbitsandbytes_cuda118.so").exists()

def test_pack_fills_carry_folders_biggest_first(tmp_path):
    (tmp_path / "all").mkdir()
    wheels = []
    for name, size in [("a", 50), ("b", 30), ("c", 25), ("d", 20), ("e", 5)]:
        (w := tmp_path / "all" / f"{name}-1-py3-none-any.whl").write_bytes(b"x" * size); wheels.append(w)
    parts = prepare.pack(wheels, tmp_path, chunk=60)
    assert [(p["folder"], p["bytes"]) for p in parts] == [("part1", 55), ("part2", 55), ("part3", 20)]
    assert all(p["bytes"] <= 60 for p in parts) and sorted(f.name for f in tmp_path.glob("part*/*.whl")) == sorted(w.name for w in wheels)
    (big := tmp_path / "all" / "big-1-py3-none-any.whl").write_bytes(b"x" * 70)
    with pytest.raises(SystemExit, match="alone exceeds"): prepare.pack([big], tmp_path, chunk=60)

def test_device_list_holds_the_base_and_none_of_the_carried():
    assert prepare.DEVICE_HAS["torch"] == "2.11.0" and prepare.DEVICE_HAS["transformers"] == "5.17.0" and "peft" in prepare.DEVICE_HAS
    roots = {prepare.canonicalize_name(r.split("==")[0]) for r in prepare.ROOTS}
    assert roots == {"trl", "datasets", "mcp", "unsloth", "unsloth-zoo", "bitsandbytes"} and not roots & set(prepare.DEVICE_HAS)

def test_verify_reports_missing_and_wrong_versions(tmp_path):
    site = tmp_path / "site"
    for w in [make_wheel(tmp_path, "alpha", "1.0", ["beta>=2", "packaging>=1", "gamma", "nowhere; sys_platform == 'win32'"]), make_wheel(tmp_path, "beta", "1.5")]:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--target", str(site), str(w)], check=True)
    sys.path.insert(0, str(site))
    try:
        assert sorted(verify.unmet(site, set())) == [("alpha", "beta>=2", "1.5"), ("alpha", "gamma", "missing")]
        assert verify.unmet(site, {"gamma", "beta"}) == []
    finally: sys.path.remove(str(site))
    res = subprocess.run([sys.executable, str(ROOT / "bench/device/verify.py"), "--site", str(site), "--strict"], capture_output=True, text=True)
    assert res.returncode == 1 and "unmet: alpha needs gamma, found missing" in res.stdout and "2 unmet requirement(s)" in res.stdout

def test_scale_notebook_gpu_cells_and_their_needs():
    cells = scale_cells.gpu_cells()
    assert len(cells) == 2 and "train_grpo_unsloth" in cells[0][1] and "launch_multi_gpu" in cells[1][1]
    import torch
    if torch.cuda.is_available(): pytest.skip("a GPU is here")
    assert "a CUDA device" in scale_cells.missing(cells[0][1]) and "the hub model it names (no network there)" in scale_cells.missing(cells[1][1])

def test_device_command_installs_with_no_index(tmp_path):
    "bench/device/run.sh --install-only: carried wheels into a target folder with pip --no-index, then the requirement check."
    wheels = tmp_path / "wheels"
    for i, (name, req) in enumerate([("carried_one", ["carried_two>=1"]), ("carried_two", [])]):
        (wheels / f"part{i + 1}").mkdir(parents=True); make_wheel(wheels / f"part{i + 1}", name, "1.0", req)
    out, site = tmp_path / "out", tmp_path / "site"
    env = {**os.environ, "PYTHON": sys.executable, "SITE": str(site), "OUT": str(out), "WHEELS_DIR": str(wheels)}
    res = subprocess.run(["bash", str(ROOT / "bench/device/run.sh"), "--install-only"], env=env, capture_output=True, text=True, check=True)
    assert "installing 2 wheels" in res.stdout and (site / "carried_one/__init__.py").exists() and (site / "carried_two/__init__.py").exists()
    assert "verify: 2 distributions" in (out / "verify.txt").read_text() and "0 unmet" in (out / "verify.txt").read_text()

def test_scale_gpu_cell_runs_with_the_local_model_and_few_steps(tmp_path, monkeypatch):
    "The one-GPU cell's own source, run with its hub model swapped for the local random one and its sizes cut (training stubbed)."
    import gpu_check, prove_nb.scale as scale
    got = {}
    monkeypatch.setattr(gpu_check, "build", lambda size, folder: got.setdefault("built", (size, folder)))
    def fake_train(tasks, out, **kw):
        got.update(tasks=tasks, out=out, **kw); (ck := tmp_path / "run" / "checkpoint").mkdir(parents=True, exist_ok=True); return ck
    monkeypatch.setattr(scale, "train_grpo_unsloth", fake_train)
    (cid, src), = [c for c in scale_cells.gpu_cells() if "train_grpo_unsloth" in c[1]]
    printed = scale_cells.run_cell(src, steps=2, n_tasks=6)
    assert got["built"][0] == "0.6b" and got["model"] == str(got["built"][1]) and got["steps"] == 2 and got["max_completion"] == 1024
    assert 0 < len(got["tasks"]) <= 6 and all(t.split == "train" for t in got["tasks"]) and got["out"] == "runs/unsloth-qwen3-4b"
    assert printed.strip() == f"figure: {tmp_path / 'run' / 'rewards.png'}"

@pytest.mark.parametrize("script", ["bench/device/run.sh", "bench/device/rehearse.sh", "bench/gpu_check.sh"])
def test_device_shell_scripts_parse(script): subprocess.run(["bash", "-n", str(ROOT / script)], check=True)
