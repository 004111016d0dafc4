"""On the device, after the install: every requirement of every distribution in the target folder, met or not.

Reads each `*.dist-info/METADATA` under the target folder, evaluates its requirements' markers for this interpreter,
and looks each one up with `importlib.metadata` (the target folder first on sys.path, then the device's own
packages). Prints one line per unmet requirement and a summary line; exits 0 either way unless --strict, so that a
missing optional piece is recorded rather than stopping the check.

    python bench/device/verify.py --site build/device-site [--skip xformers,hf-transfer,diffusers] [--strict]
"""
import argparse, sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

def site_requirements(site: Path) -> dict:
    "{distribution name: [Requirement]} of every distribution installed in `site`, markers evaluated here (no extras)."
    out = {}
    for meta in sorted(site.glob("*.dist-info/METADATA")):
        lines = meta.read_text(errors="replace").splitlines()
        name = next(l.split(":", 1)[1].strip() for l in lines if l.startswith("Name:"))
        reqs = [Requirement(l.split(":", 1)[1].strip()) for l in lines if l.startswith("Requires-Dist:")]
        out[name] = [r for r in reqs if r.marker is None or r.marker.evaluate({"extra": ""})]
    return out

def unmet(site: Path, skip: set) -> list:
    "(distribution, requirement, what is installed) for every requirement not met."
    bad = []
    for dist, reqs in site_requirements(site).items():
        for r in reqs:
            if canonicalize_name(r.name) in skip: continue
            try: have = version(r.name)
            except PackageNotFoundError: bad.append((dist, str(r), "missing")); continue
            if r.specifier and not r.specifier.contains(have, prereleases=True): bad.append((dist, str(r), have))
    return bad

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", required=True)
    ap.add_argument("--skip", default="xformers,hf-transfer,diffusers", help="requirements left out on purpose")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a requirement is not met")
    a = ap.parse_args(argv)
    site = Path(a.site).resolve()
    sys.path.insert(0, str(site))
    bad = unmet(site, {canonicalize_name(s) for s in a.skip.split(",") if s})
    for dist, req, have in bad: print(f"unmet: {dist} needs {req}, found {have}")
    print(f"verify: {len(site_requirements(site))} distributions in {a.site}, {len(bad)} unmet requirement(s)")
    return 1 if bad and a.strict else 0

if __name__ == "__main__":
    sys.exit(main())
