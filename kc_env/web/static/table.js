// The web table's page: draws the views the server sends and sends the person's clicks.
// It holds no rule: the lit targets are the legal moves the server lists (the action mask),
// an illegal try is sent all the same and the server answers with the engine's reason.
"use strict";

const $ = (id) => document.getElementById(id);
const app = {config: null, view: null, selected: null, timer: null, running: false, busy: false,
             replayAt: null, replayDeal: null, hand: null};

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

async function api(method, path, body) {
  const options = {method, headers: {}};
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";  // the server takes no other body
    options.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = {error: `the server answered ${response.status}`}; }
  if (!response.ok) {
    const error = new Error(data.error || `the server answered ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function setStatus(text, kind) {
  const el = $("status");
  el.textContent = text || "";
  el.className = kind || "";
}

function notice(text) {
  $("notice").textContent = text || "";
  $("notice").hidden = !text;
}

// -- the address: which game this tab shows ------------------------------------------------------

function address() {
  const q = new URLSearchParams(location.search);
  return {game: q.get("game"), deal: q.get("deal"), at: q.get("at")};
}

function setAddress(game, deal, at) {
  const q = new URLSearchParams();
  if (game) q.set("game", game);
  if (deal != null) q.set("deal", deal);
  if (at != null) q.set("at", at);
  const search = q.toString();
  history.replaceState(null, "", location.pathname + (search ? "?" + search : ""));
}

// -- setting up a table ----------------------------------------------------------------------------

function buildSetup() {
  const c = app.config;
  const preset = $("preset");
  preset.innerHTML = Object.keys(c.presets).map((p) => `<option>${esc(p)}</option>`).join("");
  const fields = $("variant-fields");
  fields.innerHTML = "";
  for (const [name, values] of Object.entries(c.choices)) {
    const options = values.map((v) => `<option value="${esc(JSON.stringify(v))}">${esc(v)}</option>`).join("");
    fields.insertAdjacentHTML("beforeend",
      `<label title="${esc(c.descriptions[name] || "")}">${esc(name)} <select data-rule="${esc(name)}">${options}</select></label>`);
  }
  for (const name of c.numbers) {
    fields.insertAdjacentHTML("beforeend",
      `<label title="${esc(c.descriptions[name] || "")}">${esc(name)} <input type="number" min="1" step="1" data-rule="${esc(name)}"></label>`);
  }
  $("players").innerHTML = [...Array(c.players[1] - c.players[0] + 1).keys()]
    .map((i) => `<option>${i + c.players[0]}</option>`).join("");
  agentPicker($("adviser-pick"), "heuristic", false);
  preset.addEventListener("change", fillPreset);
  $("players").addEventListener("change", fillSeats);
  fields.addEventListener("change", describeRules);
  fillPreset();
  fillSeats();
}

function fillPreset() {
  const rules = app.config.presets[$("preset").value];
  for (const el of document.querySelectorAll("[data-rule]")) {
    const value = rules[el.dataset.rule];
    el.value = el.tagName === "SELECT" ? JSON.stringify(value) : (value == null ? "" : value);
  }
  describeRules();
}

function chosenRules() {
  const preset = $("preset").value;
  const base = app.config.presets[preset];
  const rules = {preset};
  for (const el of document.querySelectorAll("[data-rule]")) {
    const name = el.dataset.rule;
    let value = el.tagName === "SELECT" ? JSON.parse(el.value) : (el.value === "" ? null : Number(el.value));
    if (JSON.stringify(value) !== JSON.stringify(base[name])) rules[name] = value;
  }
  return rules;
}

function describeRules() {
  const r = chosenRules();
  const rules = Object.assign({}, app.config.presets[r.preset], r);
  const changed = Object.keys(r).filter((k) => k !== "preset");
  const target = app.config.targetless.includes(rules.scoring) ? "" : `, target ${rules.target}`;  // Rules.has_target
  $("preset-about").textContent = `scoring ${rules.scoring}${target}` +
    (changed.length ? ` · changed: ${changed.map((k) => `${k}=${r[k]}`).join(", ")}` : "");
}

// -- choosing an agent: a select of you, the rule-based agents and the models the server offers,
// and "another, typed" for a spec with options (search:redeals=8, heuristic:name=value) --------

const TYPED = "typed";

// At a seat each agent says what it is; in the narrow advice panel only its name does (and its title).
function agentOptions(withPerson, short) {
  const c = app.config;
  const text = (a) => short ? esc(a.spec) : `${esc(a.spec)}: ${esc(a.about)}`;
  const group = (label, agents) => agents.length ? `<optgroup label="${esc(label)}">` +
    agents.map((a) => `<option value="${esc(a.spec)}" title="${esc(a.about)}">${text(a)}</option>`).join("") + `</optgroup>` : "";
  return (withPerson ? `<option value="${esc(c.person)}">you (you play this seat)</option>` : "") +
    group("Rule-based agents", c.agents.filter((a) => a.group === "rule-based")) +
    group("Models", c.agents.filter((a) => a.group === "model")) +
    `<option value="${TYPED}">${short ? "typed…" : "another, typed (an agent with options)…"}</option>`;
}

// Fill `box` with a select of agents (`withPerson`: and you) and a text box for a typed spec, showing `value`.
function agentPicker(box, value, withPerson) {
  box.innerHTML = `<select aria-label="${esc(box.dataset.label || "agent")}">${agentOptions(withPerson, !withPerson)}</select>` +
    `<input class="typed" aria-label="${esc(box.dataset.label || "agent")} spec" placeholder="search:redeals=8,candidates=3" hidden>`;
  const select = box.querySelector("select");
  const typed = box.querySelector("input");
  const offered = [...select.options].some((o) => o.value === value && o.value !== TYPED);
  select.value = offered ? value : TYPED;
  typed.value = offered ? "" : value;
  typed.hidden = offered;
  select.addEventListener("change", () => { typed.hidden = select.value !== TYPED; if (!typed.hidden) typed.focus(); });
}

function pickedAgent(box) {
  const select = box.querySelector("select");
  if (!select) return "heuristic";  // the page has not its config yet: the picker is still empty
  return select.value === TYPED ? box.querySelector("input").value.trim() : select.value;
}

function fillSeats() {
  const n = Number($("players").value);
  const list = $("seat-fields");
  const old = [...list.querySelectorAll(".agent-pick")].map(pickedAgent);
  list.innerHTML = "";
  for (let seat = 0; seat < n; seat++) {
    const value = old[seat] || (seat === 0 ? app.config.person : "heuristic");
    list.insertAdjacentHTML("beforeend",
      `<li><span class="seat-label">Seat ${seat}</span> <span class="agent-pick" data-seat="${seat}" data-label="seat ${seat}"></span></li>`);
    agentPicker(list.querySelector(`[data-seat="${seat}"]`), value, true);
  }
}

async function startTable(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  const seedText = $("seed").value.trim();
  const body = {
    rules: chosenRules(),
    seats: [...$("seat-fields").querySelectorAll(".agent-pick")].map(pickedAgent),
    one_deal: document.querySelector("input[name=length]:checked").value === "deal",
    seed: seedText === "" ? null : seedText,  // as text: a seed has 63 bits, a JavaScript number keeps 53
  };
  $("start").disabled = true;
  try {
    const view = await api("POST", "/api/games", body);
    setAddress(view.id);
    show(view);
  } catch (e) {
    $("setup-error").textContent = e.message;
  } finally {
    $("start").disabled = false;
  }
}

function showSetup() {
  stopTimer();
  app.view = null;
  app.running = false;
  document.body.dataset.waiting = "setup";
  $("game").hidden = true;
  $("save-game").hidden = true;
  $("setup").hidden = false;
}

// -- loading and showing a game ------------------------------------------------------------------

async function loadGame(id, deal, at) {
  try {
    const q = deal != null || at != null ? `?deal=${encodeURIComponent(deal || 1)}` + (at != null ? `&at=${encodeURIComponent(at)}` : "") : "";
    show(await api("GET", `/api/games/${encodeURIComponent(id)}${q}`));
  } catch (e) {
    setAddress(null);
    showSetup();
    notice(e.message);
  }
}

async function loadRecord(file) {
  notice("");
  try {
    const view = await api("POST", "/api/replays", await file.text());
    setAddress(view.id, view.replay.deal, view.replay.at);
    show(view);
  } catch (e) {
    notice(`${file.name}: ${e.message}`);
  }
}

function show(view) {
  if (!app.view || app.view.id !== view.id) $("advice-body").innerHTML = "";  // another game: not its advice
  app.view = view;
  app.selected = null;
  $("setup").hidden = true;
  $("game").hidden = false;
  document.body.dataset.mode = view.mode;
  document.body.dataset.waiting = view.waiting;
  document.body.dataset.version = view.version;
  const save = $("save-game");
  save.hidden = false;
  save.href = `/api/games/${encodeURIComponent(view.id)}/record`;
  save.download = `kings-corner-${view.id}.json`;
  drawInfo(view);
  drawSeats(view);
  drawPiles(view);
  drawHand(view);
  drawResult(view);
  drawLog(view);
  drawBooks(view);
  drawControls(view);
  light();
  markLast(view);
  if (view.mode === "replay") setAddress(view.id, view.replay.deal, view.replay.at);
  if (!app.busy) describeWait(view);
  if ($("follow").checked && canAsk(view)) ask();
  pump();
}

function seatName(view, seat) { return view.setup.seats[seat].name; }

// The seeds are text, every digit as the server sent it. A one-deal table also shows its deal's
// seed: the saved game keeps that one, so its replay shows the same digits.
function drawInfo(view) {
  const s = view.setup;
  const oneDeal = s.one_deal && view.mode !== "replay";
  const parts = [s.rules_label, `${s.num_players} players`, s.scoring];
  if (s.one_deal && view.mode === "replay") parts.push(`deal seed ${s.seed}`);
  else parts.push(`seed ${s.seed}`);
  if (oneDeal) parts.push(`deal seed ${view.deal.seed}`);
  else if (!s.one_deal) parts.push(`deal ${view.deal.number}`);
  $("info").textContent = parts.join(" · ");
}

function drawSeats(view) {
  const list = $("seats");
  list.innerHTML = "";
  for (const hand of view.table.hands) {
    const seat = view.setup.seats[hand.seat];
    if (seat.person && !view.table.over) continue;
    const li = document.createElement("li");
    li.className = "seat" + (view.table.to_act === hand.seat ? " to-act" : "");
    li.dataset.seat = hand.seat;
    li.innerHTML = `<span class="who">${esc(seat.name)}${view.table.dealer === hand.seat ? " · dealer" : ""}</span>` +
      `<span class="count" data-count="${hand.count}">${hand.count} card${hand.count === 1 ? "" : "s"}</span>`;
    const row = document.createElement("div");
    row.className = "mini" + (hand.cards ? " open" : "");
    if (hand.cards) hand.cards.forEach((c) => row.appendChild(Cards.element(c)));
    else for (let i = 0; i < Math.min(hand.count, 12); i++) row.appendChild(Cards.element(null));
    li.appendChild(row);
    list.appendChild(li);
  }
}

function drawPiles(view) {
  view.table.piles.forEach((pile, p) => {
    const cell = document.querySelector(`[data-cell="${pile.name}"]`);
    cell.innerHTML = "";
    const el = document.createElement("div");
    el.className = "pile" + (p >= 4 ? " corner" : " side");
    el.dataset.pile = p;
    el.dataset.name = pile.name;
    el.dataset.cards = pile.cards.map((c) => c.name).join(" ");
    el.setAttribute("role", "button");
    el.setAttribute("aria-label", `pile ${pile.name}: ${pile.cards.map((c) => c.label).join(" ") || "empty"}`);
    const label = document.createElement("span");
    label.className = "pile-name";
    label.textContent = pile.name;
    el.appendChild(label);
    const fan = document.createElement("div");
    fan.className = "fan";
    if (!pile.cards.length) fan.appendChild(Object.assign(document.createElement("div"), {className: "card space"}));
    pile.cards.forEach((c) => fan.appendChild(Cards.element(c)));
    el.appendChild(fan);
    el.addEventListener("click", () => clickPile(p));
    if (pile.cards.length) draggable(el, () => ({pile: p}));
    el.addEventListener("dragover", (e) => { if (myTurn()) e.preventDefault(); });
    el.addEventListener("drop", (e) => { e.preventDefault(); if (app.selected) clickPile(p); });
    cell.appendChild(el);
    spread(fan, pile.cards.length);
  });
  const stock = $("stock-cell");
  stock.innerHTML = "";
  const el = document.createElement("div");
  el.className = "stock";
  el.appendChild(view.table.stock ? Cards.element(null) : Object.assign(document.createElement("div"), {className: "card space"}));
  el.insertAdjacentHTML("beforeend", `<span class="stock-count" id="stock-count">stock ${view.table.stock}</span>`);
  stock.appendChild(el);
}

// Overlap a pile's cards so that the whole pile fits its cell, the rank of each still showing.
function spread(fan, n) {
  if (n < 2) return;
  const width = fan.parentElement.clientWidth || 200;
  const card = fan.firstElementChild.getBoundingClientRect().width || 60;
  const step = Math.max(8, Math.min(card * 0.32, (width - card - 6) / (n - 1)));
  fan.style.setProperty("--step", `${step - card}px`);
}

function drawHand(view) {
  const area = $("hand-area");
  const person = view.setup.seats.findIndex((s) => s.person);
  area.hidden = person < 0 || view.table.over;
  const hand = $("hand");
  hand.innerHTML = "";
  if (person < 0) return;
  const mine = view.table.hands[person];
  $("hand-title").textContent = `Your hand (${mine.count})`;
  const drawn = justDrawn(view, mine.cards || []);
  for (const c of mine.cards || []) {
    const el = Cards.element(c, drawn.has(c.id) ? "drawn" : "");
    if (drawn.has(c.id)) el.title += " (just drawn)";
    el.setAttribute("role", "button");
    el.addEventListener("click", () => clickCard(c.id));
    draggable(el, () => ({card: c.id}));
    hand.appendChild(el);
  }
}

// The cards that came into your hand since this page last showed it (the stock's, drawn), marked
// until they leave it or the next card comes in. A page opened anew marks none.
function justDrawn(view, cards) {
  const ids = cards.map((c) => c.id);
  const last = app.hand && app.hand.game === view.id ? app.hand : null;
  let drawn = [];
  if (last) {
    const fresh = ids.filter((id) => !last.ids.includes(id));
    drawn = fresh.length ? fresh : last.drawn.filter((id) => ids.includes(id));
  }
  app.hand = {game: view.id, ids, drawn};
  return new Set(drawn);
}

function drawResult(view) {
  const el = $("result");
  if (!view.result) { el.hidden = true; el.innerHTML = ""; return; }
  const pens = view.result.penalties.map((p, s) => `${esc(seatName(view, s))} ${p}`).join(", ");
  let html = `<p class="result-text">${esc(view.result.text)}</p><p>Penalties: ${pens}</p>`;
  if (view.match && view.match.text) html += `<p class="match-text">${esc(view.match.text)}</p>`;
  if (view.waiting === "next_deal" && view.mode === "play") html += `<button id="next-deal" type="button" class="primary">Next deal</button>`;
  if (view.waiting === "over") html += `<button id="again" type="button" class="primary">New table</button>`;
  el.innerHTML = html;
  el.hidden = false;
  const next = $("next-deal");
  if (next) next.addEventListener("click", () => advance());
  const again = $("again");
  if (again) again.addEventListener("click", () => { setAddress(null); showSetup(); });
}

function drawLog(view) {
  const list = $("log-list");
  list.innerHTML = "";
  for (const entry of view.log) {
    const li = document.createElement("li");
    li.dataset.n = entry.n;
    li.dataset.seat = entry.seat;
    li.dataset.name = entry.name;
    const chosen = entry.advice && entry.advice.probabilities ? entry.advice.probabilities.find((m) => m.name === entry.name) : null;
    li.textContent = `${seatName(view, entry.seat)}: ${entry.text}` + (chosen ? ` (p ${chosen.p.toFixed(2)})` : "");
    list.appendChild(li);
  }
  list.scrollTop = list.scrollHeight;
  const last = [...view.log].reverse().find((e) => e.advice);
  if (last && view.mode === "watch") showAdvice(Object.assign({seat: last.seat}, last.advice), `move ${last.n}`);
}

function drawBooks(view) {
  const body = $("books-body");
  const m = view.match;
  if (!m || view.setup.one_deal) { $("books").hidden = true; return; }
  $("books").hidden = false;
  const n = view.setup.num_players;
  const head = [...Array(n).keys()].map((s) => `<th>${esc(seatName(view, s))}</th>`).join("");
  const rows = m.deals.map((d) => `<tr><td>deal ${d.number}</td>${d.points.map((p) => `<td>${p > 0 ? "+" : ""}${p}</td>`).join("")}</tr>`).join("");
  const target = view.setup.target == null ? "" : ` (target ${view.setup.target})`;
  body.innerHTML = `<table><thead><tr><th></th>${head}</tr></thead><tbody>${rows}</tbody>` +
    `<tfoot><tr><th>total${esc(target)}</th>${m.totals.map((t) => `<td>${t}</td>`).join("")}</tr></tfoot></table>`;
}

function drawControls(view) {
  $("watch-controls").hidden = view.mode === "replay";
  $("step").hidden = $("run").hidden = view.mode !== "watch";
  $("replay-controls").hidden = view.mode !== "replay";
  $("run").textContent = app.running ? "Pause" : "Play";
  if (view.mode === "replay") {
    const r = view.replay;
    $("deal-pick").hidden = r.deals < 2;
    $("replay-deal").innerHTML = [...Array(r.deals).keys()].map((i) => `<option value="${i + 1}"${i + 1 === r.deal ? " selected" : ""}>${i + 1}</option>`).join("");
    const slider = $("slider");
    slider.max = r.length;
    slider.value = r.at;
    $("slider-text").textContent = `move ${r.at} of ${r.length}`;
  }
  $("delay-text").textContent = `${(Number($("delay").value) / 1000).toFixed(2)} s`;
}

function describeWait(view) {
  const w = view.waiting;
  if (w === "person") setStatus("Your turn: pick a card, then a lit pile; or a pile, then a pile; or end your turn.");
  else if (w === "agent" && view.mode === "watch" && !app.running) setStatus(`${seatName(view, view.table.to_act)} is to act: Step, or Play.`);
  else if (w === "agent") setStatus(`${seatName(view, view.table.to_act)} is thinking…`);
  else if (w === "next_deal") setStatus(view.mode === "play" ? "The deal is over." : "The deal is over; the next one follows.");
  else if (w === "over") setStatus("The game is over.");
  else setStatus("");
}

// The piles the last move changed, marked until the next move.
function markLast(view) {
  const last = view.log[view.log.length - 1];
  for (const el of document.querySelectorAll(".pile")) {
    el.classList.toggle("last", !!last && last.piles.includes(Number(el.dataset.pile)));
  }
}

function canAsk(view) {
  if (view.mode === "replay") return !view.table.over;
  return view.waiting === "person" || (view.mode === "watch" && view.waiting === "agent");
}

// -- what is lit: the legal moves the server listed ----------------------------------------------

function light() {
  const view = app.view;
  const legal = view ? view.legal : [];
  const sel = app.selected;
  for (const el of document.querySelectorAll(".pile")) {
    const p = Number(el.dataset.pile);
    const lit = sel && legal.some((m) => (sel.card != null && m.kind === "play" && m.card === sel.card && m.pile === p) ||
                                         (sel.pile != null && m.kind === "move" && m.src === sel.pile && m.dst === p));
    el.classList.toggle("lit", !!lit);
    el.classList.toggle("selected", !!sel && sel.pile === p);
    el.classList.toggle("movable", !sel && legal.some((m) => m.kind === "move" && m.src === p));
  }
  for (const el of document.querySelectorAll("#hand .card")) {
    const c = Number(el.dataset.card);
    el.classList.toggle("selected", !!sel && sel.card === c);
    el.classList.toggle("playable", legal.some((m) => m.kind === "play" && m.card === c));
  }
  $("end-turn").classList.toggle("lit", legal.some((m) => m.kind === "end"));
  $("end-turn").disabled = !view || view.waiting !== "person";
}

// Dragging a card (or a pile) onto a pile is the same as clicking the one, then the other.
function draggable(el, what) {
  el.draggable = true;
  el.addEventListener("dragstart", (e) => {
    if (!myTurn()) { e.preventDefault(); return; }
    e.stopPropagation();
    e.dataTransfer.setData("text/plain", "");
    app.selected = what();
    light();
  });
}

function myTurn() { return app.view && app.view.waiting === "person" && !app.busy; }

function clickCard(card) {
  if (!myTurn()) { setStatus("Wait for your turn.", "error"); return; }
  app.selected = app.selected && app.selected.card === card ? null : {card};
  light();
}

function clickPile(p) {
  if (!myTurn()) { if (app.view && app.view.mode === "play") setStatus("Wait for your turn.", "error"); return; }
  const sel = app.selected;
  const pile = app.view.table.piles[p];
  if (sel && sel.card != null) {
    const card = app.view.table.hands[app.view.table.to_act].cards.find((c) => c.id === sel.card);
    send(`play ${card.name}->${pile.name}`);
  } else if (sel && sel.pile != null) {
    if (sel.pile === p) { app.selected = null; light(); return; }
    send(`move ${app.view.table.piles[sel.pile].name}->${pile.name}`);
  } else if (pile.cards.length) {
    app.selected = {pile: p};
    light();
  } else {
    setStatus(`Pick a card from your hand first, then ${pile.name}.`);
  }
}

async function send(move) {
  const view = app.view;
  app.busy = true;
  try {
    const next = await api("POST", `/api/games/${encodeURIComponent(view.id)}/move`, {move, at: view.version});
    app.busy = false;
    show(next);
  } catch (e) {
    app.busy = false;
    app.selected = null;
    light();
    if (e.status === 409) return reload(e.message);
    setStatus(`Refused: ${e.message}`, "error");
  }
}

async function reload(why) {
  await loadGame(app.view.id);
  if (why) setStatus(why, "error");
}

// -- agents' moves, one at a time ------------------------------------------------------------------

function stopTimer() { if (app.timer) clearTimeout(app.timer); app.timer = null; }

function delay() { return Number($("delay").value); }

function pump() {
  stopTimer();
  const v = app.view;
  if (!v || v.kind !== "table" || app.busy) return;
  if (v.waiting === "agent" && (v.mode === "play" || app.running)) app.timer = setTimeout(advance, delay());
  else if (v.waiting === "next_deal" && v.mode === "watch" && app.running) app.timer = setTimeout(advance, 3 * delay());
  else if (v.mode === "watch" && v.waiting === "over") { app.running = false; $("run").textContent = "Play"; }
}

async function advance() {
  stopTimer();
  const view = app.view;
  if (!view || app.busy) return;
  app.busy = true;
  try {
    const next = await api("POST", `/api/games/${encodeURIComponent(view.id)}/advance`, {at: view.version});
    app.busy = false;
    show(next);
  } catch (e) {
    app.busy = false;
    if (e.status === 409) {  // another tab moved this table on, or its agent is thinking: look again soon
      app.timer = setTimeout(() => reload(), 250);
      return;
    }
    setStatus(e.message, "error");
  }
}

// -- replay ----------------------------------------------------------------------------------------

async function replayTo(deal, at) {
  const view = app.view;
  try {
    show(await api("GET", `/api/games/${encodeURIComponent(view.id)}?deal=${deal}&at=${at}`));
  } catch (e) {
    setStatus(e.message, "error");
  }
}

// -- advice ----------------------------------------------------------------------------------------

async function ask() {
  const view = app.view;
  if (!view) return;
  let q = `?spec=${encodeURIComponent(pickedAgent($("adviser-pick")))}`;
  if (view.mode === "replay") q += `&deal=${view.replay.deal}&at=${view.replay.at}`;
  try {
    showAdvice(await api("GET", `/api/games/${encodeURIComponent(view.id)}/advice${q}`), "now");
  } catch (e) {
    $("advice-body").innerHTML = `<p class="error">${esc(e.message)}</p>`;
  }
}

function showAdvice(a, when) {
  const who = app.view ? seatName(app.view, a.seat) : `seat ${a.seat}`;
  let html = `<p><b>${esc(a.spec)}</b> for ${esc(who)} (${esc(when)}): <span class="choice" data-name="${esc(a.choice)}">${esc(a.choice_text)}</span></p>`;
  if (a.probabilities) {
    html += `<ul class="bars">` + a.probabilities.map((m) =>
      `<li data-name="${esc(m.name)}"><span class="bar" style="width:${Math.max(1, Math.round(m.p * 100))}%"></span>` +
      `<span class="bar-text">${esc(m.text)} ${(m.p * 100).toFixed(1)}%</span></li>`).join("") + `</ul>`;
    if (a.hidden) html += `<p class="about">and ${a.hidden} less likely moves</p>`;
  }
  $("advice-body").innerHTML = html;
}

// -- start -----------------------------------------------------------------------------------------

// The controls are wired before the config is asked for, so a file picked at once is not lost;
// body[data-ready] says the page has its config and has shown setup or the game in the address.
function wire() {
  $("setup-form").addEventListener("submit", startTable);
  $("new-table").addEventListener("click", () => { setAddress(null); notice(""); showSetup(); });
  $("load-file").addEventListener("change", (e) => { if (e.target.files[0]) loadRecord(e.target.files[0]); e.target.value = ""; });
  $("end-turn").addEventListener("click", () => { if (myTurn()) send("end turn"); });
  $("step").addEventListener("click", () => { app.running = false; $("run").textContent = "Play"; advance(); });
  $("run").addEventListener("click", () => { app.running = !app.running; $("run").textContent = app.running ? "Pause" : "Play"; pump(); });
  $("delay").addEventListener("input", () => { $("delay-text").textContent = `${(Number($("delay").value) / 1000).toFixed(2)} s`; });
  $("slider").addEventListener("input", () => replayTo(app.view.replay.deal, $("slider").value));
  $("back").addEventListener("click", () => { const r = app.view.replay; if (r.at > 0) replayTo(r.deal, r.at - 1); });
  $("forward").addEventListener("click", () => { const r = app.view.replay; if (r.at < r.length) replayTo(r.deal, r.at + 1); });
  $("replay-deal").addEventListener("change", () => replayTo($("replay-deal").value, 0));
  $("ask").addEventListener("click", ask);
  window.addEventListener("resize", () => { if (app.view) drawPiles(app.view), light(); });
}

async function main() {
  wire();
  app.config = await api("GET", "/api/config");
  $("delay").value = Math.round(app.config.pace * 1000);  // the server's pace is the delay's start
  buildSetup();
  const where = address();
  if (app.view) drawControls(app.view);  // a game shown before the config came: its delay, now the server's pace
  else if (where.game) await loadGame(where.game, where.deal, where.at);
  else showSetup();
  document.body.dataset.ready = "yes";
}

main().catch((e) => notice(`The page could not start: ${e.message}`));
