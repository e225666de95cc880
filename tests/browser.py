"""What the web table's browser tests share (with ``web_server``: a real ``kc serve`` on a free
loopback port): a headless Chromium (Debian's, driven by Playwright: nothing is downloaded), and
clicking through a turn.

Run as a script it takes the pictures of docs/media (``make screenshots``)::

    python tests/browser.py docs/media
"""

from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path

from web_server import get_json, served

__all__ = ["get_json", "served"]  # the tests reach the server through this module too

CHROMIUM = os.environ.get("KC_CHROMIUM", "/usr/bin/chromium")
"""The browser the tests drive: Debian's chromium (``make test`` installs it)."""
FIRST_MOVE_MS = 240_000
"""How long a page may wait for the first agent move: a clean clone compiles the heuristic then."""


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM} (make test installs Debian's chromium; or set KC_CHROMIUM)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (the dev extra: pip install -e '.[web,dev]')"
    return None


@contextmanager
def chromium():
    """A headless Chromium (the system's, never one Playwright would download)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def api_view(base: str, page) -> dict:
    """The server's view of the game the page shows (its id is in the page's address)."""
    game = re.search(r"game=([\w-]+)", page.url).group(1)
    return get_json(f"{base}api/games/{game}")


def start_table(page, base: str, seats: list[str], one_deal: bool = True, seed: int | None = None,
                preset: str = "standard") -> None:
    """Fill the setup form and deal."""
    page.goto(base)
    page.wait_for_selector("#setup:not([hidden])")
    page.select_option("#preset", preset)
    page.select_option("#players", str(len(seats)))
    for seat, spec in enumerate(seats):
        choose_agent(page, f"#seat-fields .agent-pick[data-seat='{seat}']", spec)
    page.check(f"input[name=length][value={'deal' if one_deal else 'match'}]")
    if seed is not None:
        page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")


def choose_agent(page, picker: str, spec: str) -> None:
    """Choose ``spec`` in an agent picker (a seat's, or the adviser's): from its select when the
    server offers it, else typed after choosing "another, typed"."""
    offered = page.eval_on_selector(f"{picker} select", "(s, v) => [...s.options].some(o => o.value === v)", spec)
    page.select_option(f"{picker} select", spec if offered and spec != "typed" else "typed")
    if not offered:
        page.fill(f"{picker} input.typed", spec)


def wait_turn(page, timeout: float = FIRST_MOVE_MS) -> str:
    """Wait until the page waits for the person, or the game (the deal) is over; returns which."""
    page.wait_for_selector("body[data-waiting=person], body[data-waiting=over], body[data-waiting=next_deal]",
                           state="attached", timeout=timeout)
    return page.get_attribute("body", "data-waiting")


def version(page) -> int:
    return int(page.get_attribute("body", "data-version"))


def wait_version_after(page, before: int) -> None:
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=30_000)


def click_a_move(page) -> str:
    """Make one move by clicking, as a person would: a card the page marks playable, then the
    first pile that lights up for it; else a pile marked movable, then a lit pile; else end turn.
    Returns the move's name (``play 9H->N``...)."""
    for source, kind in (("#hand .card.playable", "play"), (".pile.movable", "move")):
        first = page.query_selector(source)
        if first is None:
            continue
        first.click()
        target = page.query_selector(".pile.lit")
        assert target is not None, f"{first.get_attribute('data-name')} was marked, but lit no pile"
        name = f"{kind} {first.get_attribute('data-name')}->{target.get_attribute('data-name')}"
        before = version(page)
        target.click()
        wait_version_after(page, before)
        return name
    before = version(page)
    page.click("#end-turn")
    wait_version_after(page, before)
    return "end turn"


def log_names(page) -> list[str]:
    return page.eval_on_selector_all("#log-list li", "items => items.map(li => li.dataset.name)")


# -- the pictures of docs/media ----------------------------------------------------------------------

SHOTS = {"web-table.png": (1280, 800), "web-table-phone.png": (390, 844)}


def take_screenshots(folder: Path, base: str, browser) -> list[Path]:
    """The table mid-deal at 1280x800 and at a phone's size, a card chosen and its targets lit;
    and the watch mode with a model's probabilities. Returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, (width, height) in SHOTS.items():
        page = browser.new_page(viewport={"width": width, "height": height})
        start_table(page, base, ["you", "heuristic"], one_deal=False, seed=11)
        for _ in range(4):
            if wait_turn(page) != "person":
                break
            click_a_move(page)
        wait_turn(page)
        for card in page.query_selector_all("#hand .card.playable"):
            card.click()
            if page.query_selector(".pile.lit"):
                break
            card.click()
        page.fill("#delay", "800")  # as kc serve's default pace shows it (the tests run at 0)
        page.evaluate("window.scrollTo(0, 0)")
        out.append(_screenshot(page, folder / name))
        page.close()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    start_table(page, base, ["ppo-standard-2p", "heuristic"], one_deal=True, seed=5)
    while not page.query_selector("#advice-body .bars") and page.get_attribute("body", "data-waiting") == "agent":
        before = version(page)
        page.click("#step")
        wait_version_after(page, before)
    page.fill("#delay", "800")
    out.append(_screenshot(page, folder / "web-watch.png"))
    return out


def _screenshot(page, path: Path) -> Path:
    """A screenshot kept small: 256 colours (octree) keep the cards' reds and the felt."""
    from PIL import Image

    page.screenshot(path=str(path))
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    small.save(path, optimize=True)
    return path


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/browser.py FOLDER", file=sys.stderr)
        return 2
    problem = chromium_missing()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    with served() as base, chromium() as browser:
        for path in take_screenshots(Path(argv[0]), base, browser):
            print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
