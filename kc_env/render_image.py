"""Picture of a position (``render_mode="rgb_array"``): the table with real card faces, laid out
as the text render (``kc_env.render``) lays it out.

``render_image(state, viewer=seat)`` returns an ``H x W x 3`` ``uint8`` array: the title line, the
cross of piles (corners at the corners, sides between them, the stock in the middle as a card back
with its count), one row per seat (the viewer's cards face up, the others' as a back and a count;
``viewer=None`` shows every hand), the scores and the last moves. Each pile is fanned bottom to
top, so every card's index shows. A joker on a pile carries the card it stands for under ``JK``.

The size depends only on the number of players and on whether every hand is shown, so every frame
of an episode has the same shape (what video writers need): ``image_size(num_players, all_hands)``.
Card faces are drawn once per card with Pillow (suits as shapes, so no font needs ``♥``) and
pasted per frame; a frame takes about a millisecond or two.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

import numpy as np

from .cards import RANK_NAMES
from .engine import PILE_NAMES, GameState
from .render import LAST_MOVES, _title

CARD_W, CARD_H = 54, 76
WIDTH = 1000
FAN = 20  # horizontal offset between the cards of a fan
MARGIN = 12
TITLE_H = 34
CELL_W, CELL_H = (WIDTH - 2 * MARGIN) // 3, CARD_H + 26
ROW_FACES, ROW_COUNT = CARD_H + 10, 30
FOOTER_H = 52
FELT = (22, 92, 52)
INK = (240, 240, 230)
RED, BLACK = (200, 30, 40), (20, 20, 20)
_CROSS = (("NW", "N", "NE"), ("W", None, "E"), ("SW", "S", "SE"))
_SCALE = 3  # card faces are drawn this many times larger, then shrunk (smooth edges)


def image_size(num_players: int, all_hands: bool = False) -> tuple[int, int]:
    """``(height, width)`` of every picture of a table of ``num_players`` (``all_hands``: every
    hand face up, as ``viewer=None`` draws them)."""
    rows = num_players * ROW_FACES if all_hands else ROW_FACES + (num_players - 1) * ROW_COUNT
    return TITLE_H + 3 * CELL_H + 8 + rows + FOOTER_H, WIDTH


def render_image(state: GameState, viewer: int | None = None, *, totals: Sequence[float] | None = None,
                 last_moves: Sequence[str] = (), names: Sequence[str] | None = None) -> np.ndarray:
    """The position as an ``H x W x 3`` uint8 picture seen by seat ``viewer`` (None: every hand),
    with the same arguments as ``kc_env.render.render``."""
    from PIL import Image, ImageDraw

    n = state.num_players
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    height, width = image_size(n, viewer is None)
    img = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(img)
    _text(img, (MARGIN, 9), _title(state, names), 16)
    _draw_cross(img, draw, state)
    y = TITLE_H + 3 * CELL_H + 8
    for seat in range(n):
        y = _draw_seat(img, draw, state, seat, viewer, names, y)
    _draw_footer(img, draw, totals, last_moves, names, height - FOOTER_H + 4)
    return np.asarray(img, dtype=np.uint8)


# -- the table -------------------------------------------------------------------------------

def _draw_cross(img, draw, state: GameState) -> None:
    for r, row in enumerate(_CROSS):
        for c, name in enumerate(row):
            x, y = MARGIN + c * CELL_W, TITLE_H + r * CELL_H
            if name is None:
                _text(img, (x + 8, y + 2), "stock", 13)
                if state.stock:
                    img.paste(_back(), (x + 8, y + 20))
                _text(img, (x + 18 + CARD_W, y + 20 + CARD_H // 2 - 9), f"{len(state.stock)} cards", 15)
                continue
            pile = state.piles[PILE_NAMES.index(name)]
            _text(img, (x + 8, y + 2), name if pile else f"{name}  (empty)", 13)
            if not pile:
                draw.rounded_rectangle((x + 8, y + 20, x + 8 + CARD_W, y + 20 + CARD_H), 6,
                                       outline=(70, 140, 95), width=2)
            _fan(img, [_face_of(state, card) for card in pile], x + 8, y + 20, CELL_W - 16)


def _draw_seat(img, draw, state: GameState, seat: int, viewer: int | None, names: list[str], y: int) -> int:
    hand = state.hands[seat]
    label = names[seat] + (" (you)" if seat == viewer else "")
    notes = [f"{len(hand)} card{'s' if len(hand) != 1 else ''}"]
    if not state.is_over and seat == state.current_player:
        notes.append("to act")
    if seat == state.winner:
        notes.append("won the deal")
    faces = viewer is None or seat == viewer
    colour = (255, 225, 120) if "to act" in notes else INK
    _text(img, (MARGIN, y + 4), label, 15, colour)
    if faces:
        _text(img, (MARGIN, y + 22), " · ".join(notes), 13, colour)
        _fan(img, [_face(c) for c in sorted(hand)], MARGIN + 170, y + 4, WIDTH - MARGIN - 170 - MARGIN)
        return y + ROW_FACES
    if hand:
        img.paste(_small_back(), (MARGIN + 170, y + 2))
    _text(img, (MARGIN + 170 + _small_back().width + 8, y + 6), " · ".join(notes), 13, colour)
    return y + ROW_COUNT


def _draw_footer(img, draw, totals, last_moves, names, y: int) -> None:
    font = _font(13)
    if totals is not None:
        _text(img, (MARGIN, y), "scores: " + " · ".join(f"{names[s]} {totals[s]:g}" for s in range(len(names))), 13)
    if last_moves:
        shown = list(last_moves[-LAST_MOVES:])
        while len(shown) > 1 and draw.textlength("last moves: " + " · ".join(shown), font=font) > WIDTH - 2 * MARGIN:
            shown.pop(0)
        _text(img, (MARGIN, y + 20), "last moves: " + " · ".join(shown), 13)


def _fan(img, faces: list, x: int, y: int, room: int) -> None:
    """Paste card pictures left to right, overlapping so that they fit in ``room`` pixels."""
    if not faces:
        return
    step = FAN if len(faces) == 1 else min(FAN, (room - CARD_W) // (len(faces) - 1))
    for i, face in enumerate(faces):
        img.paste(face, (x + i * max(step, 4), y))


def _face_of(state: GameState, card: int):
    if card >= 52 and card in state.joker_value:
        rank, colour = state.joker_value[card]
        return _joker(rank, colour)
    return _face(card)


def _text(img, xy: tuple[int, int], text: str, size: int, colour=INK) -> None:
    """Write ``text`` at ``xy`` (its rendering cached: most lines repeat from frame to frame)."""
    mask = _text_mask(text, size)
    img.paste(colour, (xy[0], xy[1], xy[0] + mask.width, xy[1] + mask.height), mask)


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int):
    from PIL import Image, ImageDraw

    font = _font(size)
    width = int(font.getlength(text)) + 2
    mask = Image.new("L", (max(width, 1), size + size // 2))
    ImageDraw.Draw(mask).text((0, 0), text, fill=255, font=font)
    return mask


# -- card pictures (drawn once) ----------------------------------------------------------------

@cache
def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # pragma: no cover - Pillow < 10.1 or without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def _blank(fill=(252, 252, 248)):
    from PIL import Image, ImageDraw

    s = _SCALE
    img = Image.new("RGB", (CARD_W * s, CARD_H * s), FELT)
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle((0, 0, CARD_W * s - 1, CARD_H * s - 1), 6 * s, fill=fill, outline=(90, 90, 90), width=s)
    return img, draw


def _shrink(img):
    from PIL import Image

    return img.resize((CARD_W, CARD_H), Image.Resampling.LANCZOS)


@cache
def _face(card: int):
    """Card ``card``'s face: its rank and suit in the corner, a large suit in the middle."""
    if card >= 52:
        return _joker(None, None)
    suit, rank = divmod(card, 13)
    img, draw = _blank()
    s, colour = _SCALE, RED if suit in (1, 2) else BLACK
    draw.text((4 * s, 2 * s), RANK_NAMES[rank + 1], fill=colour, font=_font(15 * s))
    _suit(draw, suit, 10 * s, 27 * s, 6 * s, colour)
    _suit(draw, suit, 31 * s, 47 * s, 14 * s, colour)
    return _shrink(img)


@cache
def _joker(rank: int | None, colour: int | None):
    """A joker; on a pile, with the rank (and colour: red, black, any) it stands for."""
    img, draw = _blank()
    s = _SCALE
    draw.text((4 * s, 2 * s), "JK", fill=(120, 40, 150), font=_font(15 * s))
    _star(draw, 27 * s, 44 * s, 13 * s, (120, 40, 150))
    if rank is not None:  # what it stands for, in the corner that stays visible in a fan
        col = {0: BLACK, 1: RED}.get(colour, (90, 90, 90))
        draw.text((4 * s, 20 * s), RANK_NAMES[rank], fill=col, font=_font(13 * s))
        if colour in (0, 1):
            _suit(draw, 3 if colour == 0 else 2, 9 * s, 41 * s, 4 * s, col)
    return _shrink(img)


@cache
def _back():
    img, draw = _blank(fill=(40, 70, 150))
    s = _SCALE
    draw.rounded_rectangle((5 * s, 5 * s, (CARD_W - 5) * s, (CARD_H - 5) * s), 4 * s, outline=(200, 210, 240), width=s)
    for k in range(-CARD_H, CARD_W, 8):
        draw.line(((k + 5) * s, 5 * s, (k + 5 + CARD_H - 10) * s, (CARD_H - 5) * s), fill=(70, 100, 180), width=s)
    return _shrink(img)


@cache
def _small_back():
    from PIL import Image

    return _back().resize((CARD_W * 24 // CARD_H, 24), Image.Resampling.LANCZOS)


def _suit(draw, suit: int, cx: int, cy: int, r: int, colour) -> None:
    """Suit ``suit`` (C D H S) as a shape of radius ``r`` around ``(cx, cy)``."""
    if suit == 1:  # diamond
        draw.polygon([(cx, cy - r), (cx + r * 0.75, cy), (cx, cy + r), (cx - r * 0.75, cy)], fill=colour)
    elif suit == 2:  # heart
        q = r / 2
        draw.ellipse((cx - r, cy - r * 0.8, cx, cy - r * 0.8 + r), fill=colour)
        draw.ellipse((cx, cy - r * 0.8, cx + r, cy - r * 0.8 + r), fill=colour)
        draw.polygon([(cx - r * 0.97, cy - q * 0.2), (cx + r * 0.97, cy - q * 0.2), (cx, cy + r)], fill=colour)
    elif suit == 3:  # spade
        q = r / 2
        draw.ellipse((cx - r, cy - r * 0.2, cx, cy + r * 0.8), fill=colour)
        draw.ellipse((cx, cy - r * 0.2, cx + r, cy + r * 0.8), fill=colour)
        draw.polygon([(cx - r * 0.97, cy + q * 0.5), (cx + r * 0.97, cy + q * 0.5), (cx, cy - r)], fill=colour)
        draw.polygon([(cx, cy + q), (cx - q, cy + r * 1.05), (cx + q, cy + r * 1.05)], fill=colour)
    else:  # club
        c = r * 0.45
        for dx, dy in ((0, -r * 0.5), (-r * 0.5, r * 0.15), (r * 0.5, r * 0.15)):
            draw.ellipse((cx + dx - c, cy + dy - c, cx + dx + c, cy + dy + c), fill=colour)
        draw.polygon([(cx, cy), (cx - r * 0.4, cy + r * 1.05), (cx + r * 0.4, cy + r * 1.05)], fill=colour)


def _star(draw, cx: int, cy: int, r: int, colour) -> None:
    points = []
    for k in range(10):
        radius = r if k % 2 == 0 else r * 0.45
        angle = np.pi / 2 + k * np.pi / 5
        points.append((cx + radius * np.cos(angle), cy - radius * np.sin(angle)))
    draw.polygon(points, fill=colour)


__all__ = ["render_image", "image_size"]
