// Card faces as SVG: pips laid out as on a printed deck, court cards framed, a joker, a back.
// Drawing only: which card is which comes from the server's views (kc_env/web/views.py).
"use strict";

const Cards = (() => {
  const RANKS = {1: "A", 11: "J", 12: "Q", 13: "K"};
  const L = 30, C = 50, R = 70;
  // Pip centres (x, y) on a 100 x 140 face, rank by rank; those below the middle are turned.
  const PIPS = {
    2: [[C, 30], [C, 110]],
    3: [[C, 30], [C, 70], [C, 110]],
    4: [[L, 30], [R, 30], [L, 110], [R, 110]],
    5: [[L, 30], [R, 30], [C, 70], [L, 110], [R, 110]],
    6: [[L, 30], [R, 30], [L, 70], [R, 70], [L, 110], [R, 110]],
    7: [[L, 30], [R, 30], [C, 50], [L, 70], [R, 70], [L, 110], [R, 110]],
    8: [[L, 30], [R, 30], [C, 50], [L, 70], [R, 70], [C, 90], [L, 110], [R, 110]],
    9: [[L, 30], [R, 30], [L, 57], [R, 57], [C, 70], [L, 83], [R, 83], [L, 110], [R, 110]],
    10: [[L, 30], [R, 30], [C, 43], [L, 57], [R, 57], [L, 83], [R, 83], [C, 97], [L, 110], [R, 110]],
  };
  const CROWN = "M-16 8L-16 -8L-8 0L0 -12L8 0L16 -8L16 8Z";

  function rankText(rank) { return RANKS[rank] || String(rank); }

  function pip(suit, x, y, size) {
    const turn = y > 72 ? ` transform="rotate(180 ${x} ${y})"` : "";
    return `<use href="#suit-${suit}" x="${x - size / 2}" y="${y - size / 2}" width="${size}" height="${size}"${turn}/>`;
  }

  function index(text, suit) {
    const small = text.length > 1 ? 17 : 20;
    return `<text x="11" y="22" font-size="${small}" text-anchor="middle" font-weight="700">${text}</text>` +
      (suit ? pip(suit, 11, 33, 13) : "");
  }

  function corners(text, suit) {
    const one = index(text, suit);
    return `<g>${one}</g><g transform="rotate(180 50 70)">${one}</g>`;
  }

  function court(card) {
    const tint = card.red ? "#f6d7d2" : "#d9e2f2";
    const letter = rankText(card.rank);
    const crown = card.rank === 11
      ? `<path d="M36 42Q50 26 64 42Z" fill="#d4a017" stroke="currentColor" stroke-width="1.5"/>`
      : `<path transform="translate(50 40) scale(${card.rank === 13 ? 1 : 0.8})" d="${CROWN}" fill="#d4a017" stroke="currentColor" stroke-width="1.5"/>`;
    return `<rect x="20" y="20" width="60" height="100" rx="4" fill="${tint}" stroke="currentColor" stroke-width="1.5"/>` +
      crown + `<text x="50" y="84" font-size="38" text-anchor="middle" font-family="Georgia, 'DejaVu Serif', serif" font-weight="700">${letter}</text>` +
      pip(card.suit, 50, 104, 16);
  }

  function face(card) {
    if (card.joker) return joker(card);
    const text = rankText(card.rank);
    let middle;
    if (card.rank === 1) middle = pip(card.suit, 50, 70, 46);
    else if (card.rank > 10) middle = court(card);
    else middle = PIPS[card.rank].map(([x, y]) => pip(card.suit, x, y, 19)).join("");
    const colour = card.red ? "#c62828" : "#1b1b1b";
    return `<svg class="face" viewBox="0 0 100 140" style="color:${colour};fill:${colour}" role="img" aria-label="${card.label}">` +
      `<rect x="1" y="1" width="98" height="138" rx="8" fill="#fff" stroke="#8a8a8a" stroke-width="1.5"/>` +
      corners(text, card.suit) + middle + `</svg>`;
  }

  function joker(card) {
    const value = card.stands_for ? `<text x="50" y="128" font-size="12" text-anchor="middle" fill="#333">= ${card.stands_for}</text>` : "";
    return `<svg class="face" viewBox="0 0 100 140" style="color:#6a1b9a;fill:#6a1b9a" role="img" aria-label="joker${card.stands_for ? " as " + card.stands_for : ""}">` +
      `<rect x="1" y="1" width="98" height="138" rx="8" fill="#fff" stroke="#8a8a8a" stroke-width="1.5"/>` +
      `<text x="12" y="22" font-size="13" text-anchor="middle" font-weight="700">J</text>` +
      `<text x="12" y="36" font-size="13" text-anchor="middle" font-weight="700">K</text>` +
      `<use href="#star" x="22" y="38" width="56" height="56"/>` +
      `<text x="50" y="112" font-size="16" text-anchor="middle" font-weight="700" letter-spacing="2">JOKER</text>` + value + `</svg>`;
  }

  function back() {
    return `<svg class="face" viewBox="0 0 100 140" role="img" aria-label="a card face down">` +
      `<rect x="1" y="1" width="98" height="138" rx="8" fill="#fff" stroke="#8a8a8a" stroke-width="1.5"/>` +
      `<rect x="7" y="7" width="86" height="126" rx="5" fill="url(#back-lattice)"/></svg>`;
  }

  // One card as an element: its face (or its back), data-card holding its id.
  function element(card, extraClass) {
    const el = document.createElement("div");
    el.className = "card" + (extraClass ? " " + extraClass : "");
    if (card) {
      el.dataset.card = card.id;
      el.dataset.name = card.name;
      el.title = card.label + (card.stands_for ? " (as " + card.stands_for + ")" : "");
      el.innerHTML = face(card);
    } else {
      el.innerHTML = back();
    }
    return el;
  }

  return {element, face, back};
})();
