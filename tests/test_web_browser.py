"""The web table in a real browser: headless Chromium (Debian's) driven by Playwright against a
real ``kc serve`` on a free loopback port (``tests/browser.py``).

A whole deal against the heuristic played by clicking (an illegal click refused, a reload in the
middle), watching agents step by step and at speed, and replaying a saved game with the slider
are in the default suite; the pictures are marked slow.
"""

from __future__ import annotations

import random
import re
import urllib.request

import browser
import pytest

from kc_env import engine, record
from kc_env.cards import card_name

pytestmark = [pytest.mark.skipif(browser.chromium_missing() is not None, reason=str(browser.chromium_missing())),
              pytest.mark.xdist_group("web_browser")]  # one server and one browser for the module


@pytest.fixture(scope="module")
def base():
    with browser.served() as url:
        yield url


@pytest.fixture(scope="module")
def chromium():
    with browser.chromium() as b:
        yield b


@pytest.fixture
def page(chromium):
    page = chromium.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    page.close()
    assert not errors, f"the page raised: {errors}"


def _record_of(base: str, page) -> record.Record:
    view = browser.api_view(base, page)
    with urllib.request.urlopen(f"{base}api/games/{view['id']}/record", timeout=30) as response:
        return record.loads(response.read().decode())


def _refused_click(page) -> str:
    """Click a card, then a pile it does not fit on (not lit): the status says why."""
    for card in page.query_selector_all("#hand .card"):
        card.click()
        unlit = page.query_selector_all(".pile:not(.lit)")
        if unlit:
            before = browser.version(page)
            unlit[0].click()
            page.wait_for_selector("#status.error")
            assert browser.version(page) == before
            return page.inner_text("#status")
        card.click()
    raise AssertionError("every pile fits every card: no illegal click to try")


def _dragged_move(page) -> str:
    """Drag a playable card onto a pile it lights up (found by clicking it first, then put back)."""
    card = page.query_selector("#hand .card.playable")
    assert card is not None, "the deal of this test gives the person a card to play at once"
    card.click()
    pile = page.query_selector(".pile.lit").get_attribute("data-name")
    card.click()
    name = card.get_attribute("data-name")
    before = browser.version(page)
    page.drag_and_drop(f"#hand .card[data-name='{name}']", f".pile[data-name='{pile}']")
    browser.wait_version_after(page, before)
    return f"play {name}->{pile}"


def test_a_full_deal_against_the_heuristic_by_clicking(base, page):
    browser.start_table(page, base, ["you", "heuristic"], one_deal=True, seed=21)
    assert browser.wait_turn(page) == "person"

    refused = _refused_click(page)
    assert refused.startswith("Refused: play ") and "may not go on" in refused, refused
    view = browser.api_view(base, page)
    assert view["version"] == browser.version(page)  # the server changed nothing either

    mine = [_dragged_move(page)]
    reloaded = False
    while browser.wait_turn(page) == "person":
        mine.append(browser.click_a_move(page))
        if len(mine) == 3 and not reloaded:  # a reload keeps the game: same version, log and hand
            browser.wait_turn(page)
            before = (browser.version(page), browser.log_names(page), page.get_attribute("#hand", "innerHTML"))
            page.reload()
            page.wait_for_selector("#game:not([hidden])")
            browser.wait_turn(page)
            assert (browser.version(page), browser.log_names(page), page.get_attribute("#hand", "innerHTML")) == before
            reloaded = True
    assert browser.wait_turn(page) == "over"
    assert reloaded and mine

    rec = _record_of(base, page)
    assert isinstance(rec, record.GameRecord) and str(rec.seed) == browser.api_view(base, page)["deal"]["seed"]
    shown = browser.log_names(page)
    assert shown == [engine.move_name(m) for m in rec.moves]  # every move shown is the engine's record
    seats = page.eval_on_selector_all("#log-list li", "items => items.map(li => Number(li.dataset.seat))")
    assert [name for name, seat in zip(shown, seats, strict=True) if seat == 0] == mine
    final = record.replay(rec)
    assert final.is_over
    counts = page.eval_on_selector_all("#seats .count", "els => els.map(e => Number(e.dataset.count))")
    assert counts == [len(h) for h in final.hands]
    assert page.inner_text("#result .result-text").startswith("The deal is")


def test_watching_agents_step_by_step_and_at_speed(base, page):
    browser.start_table(page, base, ["ppo-standard-2p", "random"], one_deal=True, seed=4)
    for n in (1, 2, 3):
        before = browser.version(page)
        page.click("#step")
        browser.wait_version_after(page, before)
        assert len(browser.log_names(page)) == n
    page.fill("#delay", "0")
    page.click("#run")
    page.wait_for_function("document.querySelectorAll('#log-list li').length >= 30 || document.body.dataset.waiting === 'over'")
    page.click("#run")  # pause: the move on its way lands, then nothing more
    page.wait_for_timeout(300)
    assert browser.api_view(base, page)["version"] == browser.version(page)
    rec = _record_of(base, page)
    assert browser.log_names(page) == [engine.move_name(m) for m in rec.moves]
    model_lines = page.eval_on_selector_all("#log-list li[data-seat='0']", "items => items.map(li => li.textContent)")
    assert model_lines and all(" (p 0." in line or " (p 1." in line for line in model_lines), model_lines
    assert page.query_selector("#advice-body .bars li") is not None  # its probabilities over its legal moves


def test_a_game_loaded_before_the_page_has_its_config_still_replays(base, page, tmp_path):
    """The file chooser works from the first moment: a file picked while /api/config is still on
    its way (held here) is loaded, and the config's arrival does not send the page back to setup."""
    deal = engine.new_deal("standard", 2, seed=9)
    path = tmp_path / "game.json"
    record.save(record.GameRecord.from_state(deal, []), path)
    held = []
    page.route("**/api/config", lambda route: held.append(route))
    page.goto(base)
    page.set_input_files("#load-file", str(path))
    page.wait_for_selector("body[data-mode=replay]", state="attached")
    assert len(held) == 1  # the config has not arrived yet
    assert not page.is_visible("#notice"), page.inner_text("#notice")
    held[0].continue_()
    page.wait_for_selector("body[data-ready]", state="attached")
    assert page.is_visible("#game") and not page.is_visible("#setup")
    assert page.inner_text("#slider-text") == "move 0 of 0"


def test_a_saved_game_loads_and_replays_with_the_slider(base, page, tmp_path):
    deal = engine.new_deal("standard", 2, seed=9)
    moves = []
    rng = random.Random(1)
    while not deal.is_over and len(moves) < 400:
        move = rng.choice(engine.legal_moves(deal))
        engine.apply(deal, move)
        moves.append(move)
    path = tmp_path / "game.json"
    record.save(record.GameRecord.from_state(deal, moves), path)

    page.goto(base)
    page.set_input_files("#load-file", str(path))
    page.wait_for_selector("body[data-mode=replay]", state="attached")
    assert page.inner_text("#slider-text") == f"move {len(moves)} of {len(moves)}"
    assert browser.log_names(page) == [engine.move_name(m) for m in moves]

    k = len(moves) // 2
    page.eval_on_selector("#slider", f"(s) => {{ s.value = {k}; s.dispatchEvent(new Event('input')); }}")
    page.wait_for_function(f"document.getElementById('slider-text').textContent === 'move {k} of {len(moves)}'")
    there = engine.new_deal("standard", 2, seed=9)
    for move in moves[:k]:
        engine.apply(there, move)
    shown = page.eval_on_selector_all(
        ".pile", "els => els.sort((a, b) => a.dataset.pile - b.dataset.pile).map(e => e.dataset.cards)")
    assert shown == [" ".join(map(card_name, p)) for p in there.piles]
    page.click("#forward")
    page.wait_for_function(f"document.getElementById('slider-text').textContent === 'move {k + 1} of {len(moves)}'")
    assert len(browser.log_names(page)) == k + 1

    page.reload()  # the position is in the address: a reload keeps it
    page.wait_for_selector("body[data-mode=replay]", state="attached")
    assert page.inner_text("#slider-text") == f"move {k + 1} of {len(moves)}"

    browser.choose_agent(page, "#adviser-pick", "greedy")
    page.click("#ask")
    page.wait_for_selector("#advice-body .choice")


BIG_SEED = 7753467294573964965
"""A seed past 2**53: a JavaScript number would show it as 7753467294573965000."""
SUIT = re.compile("[♣♦♥♠]")
CODE = re.compile(r"\b(10|[2-9AJQK])[CDHS]\b")


def _hand_ids(page) -> list[int]:
    return page.eval_on_selector_all("#hand .card", "els => els.map(e => Number(e.dataset.card))")


def test_what_a_card_player_reads_at_the_table_and_in_its_replay(base, page, tmp_path):
    """Issue 36 item 10: the seats are chosen from the agents offered, the seed keeps every digit,
    the hand is sorted, the log, a refusal and the advice write cards as the table draws them,
    the card drawn for a turn is marked, and the replay of the saved game names the seats as the
    game did and shows the same seed."""
    page.goto(base)
    page.wait_for_selector("#setup:not([hidden])")
    offered = page.eval_on_selector_all("#seat-fields .agent-pick[data-seat='1'] option", "os => os.map(o => o.value)")
    assert offered[0] == "you" and {"heuristic", "greedy", "random", "search", "ppo-standard-2p"} <= set(offered)
    assert page.eval_on_selector("#seat-fields .agent-pick[data-seat='1'] select", "s => s.value") == "heuristic"
    assert not page.is_visible("#seat-fields .agent-pick[data-seat='1'] input.typed")

    browser.start_table(page, base, ["you", "greedy"], one_deal=True, seed=str(BIG_SEED))
    view = browser.api_view(base, page)
    assert f"seed {BIG_SEED}" in page.inner_text("#info") and f"deal seed {view['deal']['seed']}" in page.inner_text("#info")
    assert browser.wait_turn(page) == "person"
    ids = _hand_ids(page)
    assert ids == sorted(ids) and len(ids) > 1
    refused = _refused_click(page)
    assert SUIT.search(refused) and not CODE.search(refused), refused
    while browser.wait_turn(page) == "person" and not any(n.startswith("play ") for n in browser.log_names(page)):
        browser.click_a_move(page)
    lines = page.eval_on_selector_all("#log-list li", "items => items.map(li => li.textContent)")
    assert lines and all("->" not in line and not CODE.search(line) for line in lines), lines
    assert any(SUIT.search(line) for line in lines), lines

    page.click("#ask")
    page.wait_for_selector("#advice-body .choice")
    assert not CODE.search(page.inner_text("#advice-body"))
    while True:  # to the end of this turn, then the next: the card drawn for it is marked
        held = _hand_ids(page)
        if browser.click_a_move(page) == "end turn" or browser.wait_turn(page) != "person":
            break
    assert browser.wait_turn(page) == "person"  # the deal of this seed goes on
    drawn = page.eval_on_selector_all("#hand .card.drawn", "els => els.map(e => Number(e.dataset.card))")
    assert drawn == sorted(set(_hand_ids(page)) - set(held)) and len(drawn) == 1, (drawn, held)
    path = tmp_path / "saved.json"
    with urllib.request.urlopen(f"{base}api/games/{view['id']}/record", timeout=30) as response:
        path.write_bytes(response.read())
    page.set_input_files("#load-file", str(path))
    page.wait_for_selector("body[data-mode=replay]", state="attached")
    assert f"deal seed {record.load(path).seed}" in page.inner_text("#info")
    assert page.eval_on_selector_all("#seats .who", "els => els.map(e => e.textContent.split(' · ')[0])") == \
        ["p0 (you)", "p1 greedy"]
    assert page.inner_text("#advice-body") == ""  # the last game's advice is not this one's


def test_a_seat_may_hold_a_typed_agent_with_options(base, page):
    browser.start_table(page, base, ["heuristic:corner=0", "random"], one_deal=True, seed=4)
    assert browser.api_view(base, page)["setup"]["seats"][0]["spec"] == "heuristic:corner=0"
    page.click("#new-table")
    picker = "#seat-fields .agent-pick[data-seat='0']"
    assert page.eval_on_selector(f"{picker} select", "s => s.value") == "typed"
    assert page.input_value(f"{picker} input.typed") == "heuristic:corner=0"  # kept for the next table


@pytest.mark.slow
def test_the_pictures_of_the_table(base, chromium, tmp_path):
    written = browser.take_screenshots(tmp_path, base, chromium)
    from PIL import Image

    for path in written:
        with Image.open(path) as image:
            colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
            assert colours is None or len(colours) > 50, f"{path.name} looks blank"
