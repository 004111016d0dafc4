"""The built docs site in a real headless Chromium (Debian's `chromium`, driven by Playwright).

Run by `make docs-test` (which builds `_docs/` first), not by `make test`: the `docs` marker is deselected by default
(pyproject's pytest `addopts`), so run it by hand with `pytest -m docs tests/test_docs.py` after `make docs`.

Every notebook must have its page; each page is loaded over HTTP from a local server (Quarto's search needs http,
not file://) and fails the test on a console error, an uncaught exception, a failed request, a request to any
other host (the site must work offline), a broken image, or a link to a page that is not there. Screenshots of the
landing page and the rewards page go to `runs/docs-screenshots/` (or `$PROVE_DOCS_SCREENSHOTS`).
"""
import functools, os, shutil, threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

pytestmark = pytest.mark.docs

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("PROVE_DOCS_SITE", ROOT / "_docs"))
SHOTS = Path(os.environ.get("PROVE_DOCS_SCREENSHOTS", ROOT / "runs" / "docs-screenshots"))
NBS = sorted((ROOT / "nbs").glob("*.ipynb"))


def page_of(nb: Path) -> str:
    from nbdev.config import nbpath2html
    return nbpath2html(Path(nb.name)).as_posix()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *a): pass


@pytest.fixture(scope="module")
def site():
    assert (SITE / "index.html").exists(), f"no site in {SITE}: run `make docs` first"
    srv = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    t = threading.Thread(target=srv.serve_forever, daemon=True); t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/"
    srv.shutdown(); srv.server_close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "no Chromium: `apt-get install -y chromium` (Debian's package)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield b
        b.close()


def test_every_notebook_has_a_page():
    assert NBS, "no notebooks found"
    missing = [f"{nb.name} -> {page_of(nb)}" for nb in NBS if not (SITE / page_of(nb)).exists()]
    assert not missing, f"notebooks without a page in {SITE}: {missing}"


_BROKEN_IMAGES = """async () => {
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = 'eager'; });
  const bad = await Promise.all(imgs.map(i => i.decode().then(() => i.naturalWidth > 0 ? null : i.src, () => i.src)));
  return {n: imgs.length, bad: bad.filter(x => x)};
}"""


def _visit(browser, url: str, host: str, shot: Path | None = None) -> tuple[list, dict]:
    "Load `url`; the problems seen on it, and what it shows."
    problems = []
    page = browser.new_page(viewport={"width": 1400, "height": 1000})

    def _route(route):
        if urlsplit(route.request.url).netloc not in (host, "") and not route.request.url.startswith("data:"):
            problems.append(f"request to another host: {route.request.url}")
            return route.abort()
        return route.continue_()
    page.route("**/*", _route)
    page.on("console", lambda m: m.type == "error" and problems.append(f"console error: {m.text} at {m.location}"))
    page.on("pageerror", lambda e: problems.append(f"uncaught exception: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"))
    resp = page.goto(url, wait_until="load")
    if resp is None or resp.status != 200: problems.append(f"HTTP {resp and resp.status}: {url}")
    page.wait_for_load_state("networkidle")
    imgs = page.evaluate(_BROKEN_IMAGES)
    problems += [f"broken image: {s[:120]}" for s in imgs["bad"]]
    links = page.eval_on_selector_all("a[href]", "as => as.map(a => a.getAttribute('href'))")
    for href in links:
        u = urlsplit(urljoin(url, href))
        if u.netloc != host or u.scheme not in ("http", "https"): continue
        target = SITE / u.path.lstrip("/")
        if u.path.endswith("/"): target = target / "index.html"
        if not target.exists(): problems.append(f"link to a missing page: {href}")
    shown = {"title": page.title(), "text": len(page.inner_text("body")), "images": imgs["n"]}
    if shot is not None:
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=False)
    page.close()
    return problems, shown


def test_pages_in_chromium(site, browser):
    host = urlsplit(site).netloc
    shots = {"index.html": SHOTS / "landing.png", page_of(ROOT / "nbs" / "07_rewards.ipynb"): SHOTS / "rewards.png"}
    report = {}
    for nb in NBS:
        name = page_of(nb)
        if not (SITE / name).exists(): report[name] = ["missing page"]; continue
        problems, shown = _visit(browser, urljoin(site, name), host, shots.get(name))
        assert shown["text"] > 200, f"{name} shows almost nothing: {shown}"
        if problems: report[name] = problems
    assert not report, "problems in the built site:\n" + "\n".join(f"{k}: {v}" for k, v in report.items())
    for p in shots.values():
        assert p.exists() and p.stat().st_size > 10_000, f"no screenshot at {p}"
