/* The live squeeze in the browser (templates/baccarat/live_squeeze.html).

   The table's state carries the squeeze stage (#live-squeeze) with the
   peeler's name (data-peeler); the page knows its own (#bac data-me). The
   peeler's page lets its player drag the card (peel.js draws the lift) and
   sends the drag to the server as moves, at most one every MOVE_MS (the
   socket's message budget counts them), as fractions of the card so every
   screen draws the same fold; letting go past halfway, or OPEN, sends
   {"action": "peel", "slot", "open": true}. Every other page draws the
   moves the server relays (#live-peel-move), eased over MOVE_MS. The face
   under the back stays blank: the card opens, for everybody at once, when
   the server's next state shows it open. The server decides who peels;
   this only shows the handle to that player.

   Also the seconds before the card opens by itself, on the server's clock
   (the state's data-now), and the card's sound (sound.js) on every page as
   it opens. Exports state() for the browser tests. */
import { drawLift, grab } from "./peel.js";
import { sound } from "./sound.js";

const MOVE_MS = 300; // between two moves sent; the watchers ease over as long
const OPEN_AT = 0.5; // let go past half of the card: it opens; before: it falls back
const END_AT = 0.95; // dragged (nearly) to the far end: it opens at once
const TICK_MS = 250;
const REACH = 16; // a pointer this far outside the card still takes its edge

let socket = null; // the htmx ws extension's socket wrapper (has .send)
// The lift drawn now: the peeler's {key, origin, n, depth, extent} in px (peel.js),
// a watcher's {key, frac: {x0, y0, nx, ny}, depth} in fractions of the card, so
// it holds however the card is sized.
let lift = null;
let drag = null; // {pointerId, x, y} while the peeler holds the card
let sentAt = 0;
let pending = 0; // timer of a move held back by MOVE_MS
let opening = ""; // the key of the peel this page asked to open
let tween = 0; // requestAnimationFrame of a watcher's easing
let offset = 0; // the server's clock minus this device's
let drawnAt = null;
let shownKey = ""; // the peel the stage showed last

function stage() {
  return document.getElementById("live-squeeze");
}

function keyOf(el) {
  return el.dataset.coup + "-" + el.dataset.slot;
}

function isPeeler(el) {
  const table = document.getElementById("bac");
  const me = table ? table.dataset.me : "";
  return !!me && el.dataset.peeler === me;
}

function cardOf(el) {
  return el.querySelector(".peel-card");
}

function send(message) {
  if (!socket) return false;
  socket.send(JSON.stringify(message));
  return true;
}

function inPixels(card, l) {
  if (!l.frac) return l;
  const w = card.clientWidth, h = card.clientHeight;
  const n = { x: l.frac.nx, y: l.frac.ny };
  const extent = Math.abs(n.x) * w + Math.abs(n.y) * h;
  return { origin: { x: l.frac.x0 * w, y: l.frac.y0 * h }, n: n, extent: extent, depth: l.depth * extent };
}

function draw() {
  const el = stage();
  const card = el && cardOf(el);
  if (!card || !lift || lift.key !== keyOf(el)) return;
  drawLift(card, inPixels(card, lift));
}

// --- the peeler: drag, moves, OPEN ------------------------------------------

function sendMove() {
  const el = stage();
  const card = el && cardOf(el);
  if (!card || !lift || opening === lift.key) return;
  pending = 0;
  sentAt = performance.now();
  const w = card.clientWidth || 1, h = card.clientHeight || 1;
  send({
    action: "peel",
    slot: el.dataset.slot,
    x0: lift.origin.x / w,
    y0: lift.origin.y / h,
    nx: lift.n.x,
    ny: lift.n.y,
    depth: Math.max(0, Math.min(1, lift.depth / lift.extent)),
  });
}

function queueMove() {
  const wait = MOVE_MS - (performance.now() - sentAt);
  if (wait <= 0) sendMove();
  else if (!pending) pending = window.setTimeout(sendMove, wait);
}

function open() {
  const el = stage();
  if (!el || !isPeeler(el) || opening === keyOf(el)) return;
  window.clearTimeout(pending);
  pending = 0;
  if (!send({ action: "peel", slot: el.dataset.slot, open: true })) return;
  opening = keyOf(el);
  drag = null;
  const card = cardOf(el);
  if (card) card.classList.add("waiting-face"); // until the state shows it open
}

function snapBack() {
  const from = lift.depth;
  const t0 = performance.now();
  const step = function (now) {
    if (!lift || drag) return;
    const k = Math.min(1, (now - t0) / 220);
    lift.depth = from * (1 - k) * (1 - k);
    draw();
    if (k < 1) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
  queueMove();
}

function grabbed(evt) {
  const el = stage();
  const card = el && cardOf(el);
  if (!card || !isPeeler(el) || opening === keyOf(el)) return null;
  if (!evt.target.closest || !evt.target.closest("#live-squeeze")) return null;
  const r = card.getBoundingClientRect();
  const near = evt.clientX > r.left - REACH && evt.clientX < r.right + REACH &&
    evt.clientY > r.top - REACH && evt.clientY < r.bottom + REACH;
  return near ? card : null;
}

function local(card, evt) {
  const r = card.getBoundingClientRect();
  return {
    x: Math.max(0, Math.min(card.clientWidth, evt.clientX - r.left)),
    y: Math.max(0, Math.min(card.clientHeight, evt.clientY - r.top)),
  };
}

document.addEventListener("pointerdown", function (evt) {
  const card = grabbed(evt);
  if (!card || (evt.button !== undefined && evt.button > 0)) return;
  evt.preventDefault();
  const p = local(card, evt);
  const g = grab(card, p.x, p.y);
  lift = { key: keyOf(stage()), origin: g.origin, n: g.n, extent: g.extent, depth: 0 };
  drag = { pointerId: evt.pointerId, x: p.x, y: p.y };
  try {
    card.setPointerCapture(evt.pointerId);
  } catch (err) {
    // A synthetic pointer (tests) cannot be captured; document listeners still see it.
  }
  draw();
});

document.addEventListener("pointermove", function (evt) {
  if (!drag || evt.pointerId !== drag.pointerId || !lift) return;
  const el = stage();
  const card = el && cardOf(el);
  if (!card || lift.key !== keyOf(el)) return;
  evt.preventDefault();
  const p = local(card, evt);
  const d = (p.x - drag.x) * lift.n.x + (p.y - drag.y) * lift.n.y;
  lift.depth = Math.max(0, Math.min(lift.extent, d));
  draw();
  if (lift.depth >= lift.extent * END_AT) {
    sendMove();
    open();
  } else {
    queueMove();
  }
});

function release(evt) {
  if (!drag || evt.pointerId !== drag.pointerId || !lift) return;
  drag = null;
  if (lift.depth >= lift.extent * OPEN_AT) {
    sendMove();
    open();
  } else {
    snapBack();
  }
}
document.addEventListener("pointerup", release);
document.addEventListener("pointercancel", release);

document.addEventListener("click", function (evt) {
  if (evt.target.closest && evt.target.closest("[data-live-peel-open]")) open();
});

document.addEventListener("keydown", function (evt) {
  if ((evt.key === "Enter" || evt.key === " ") && evt.target.closest && evt.target.closest("#live-squeeze .peel-card")) {
    evt.preventDefault();
    open();
  }
});

// --- the watchers: the relayed moves ----------------------------------------

function watch(move) {
  const el = stage();
  const card = el && cardOf(el);
  if (!card || isPeeler(el)) return;
  if (move.dataset.coup + "-" + move.dataset.slot !== keyOf(el)) return;
  const frac = {
    x0: Number(move.dataset.x0), y0: Number(move.dataset.y0),
    nx: Number(move.dataset.nx), ny: Number(move.dataset.ny),
  };
  const target = Number(move.dataset.depth);
  const sameFold = lift && lift.frac && lift.key === keyOf(el) &&
    lift.frac.nx === frac.nx && lift.frac.ny === frac.ny;
  const from = sameFold ? lift.depth : 0;
  lift = { key: keyOf(el), frac: frac, depth: from };
  cancelAnimationFrame(tween);
  const t0 = performance.now();
  const step = function (now) {
    const k = Math.min(1, (now - t0) / MOVE_MS);
    lift.depth = from + (target - from) * k;
    draw();
    if (k < 1) tween = requestAnimationFrame(step);
  };
  tween = requestAnimationFrame(step);
}

// --- the stage as the state arrives ------------------------------------------

function sync() {
  const el = stage();
  // The card peeled until now is open (the next card's stage, or none when
  // it was the last): heard on every page as it turns, as at a private table.
  if (shownKey && shownKey !== (el ? keyOf(el) : "")) sound.play("card");
  if (!el) {
    lift = null;
    drag = null;
    shownKey = "";
    return;
  }
  const me = isPeeler(el);
  el.classList.toggle("me", me);
  const card = cardOf(el);
  if (card && me) {
    card.setAttribute("tabindex", "0");
    card.setAttribute("role", "button");
  }
  if (lift && lift.key !== keyOf(el)) {
    lift = null; // a new card: the last one's fold is gone
    drag = null;
  }
  if (me && shownKey !== keyOf(el)) {
    // The peeler's turn: on a phone the page may be down at the slip.
    const r = (card || el).getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) (card || el).scrollIntoView({ block: "center", behavior: "instant" });
  }
  shownKey = keyOf(el);
  if (card && opening === keyOf(el)) card.classList.add("waiting-face");
  draw(); // the same card redrawn by a state: keep its lift
}

function tick() {
  const state = document.getElementById("live-state");
  const el = stage();
  if (!state || !el) return;
  if (state.dataset.now !== drawnAt) {
    drawnAt = state.dataset.now;
    offset = Number(drawnAt) - Date.now();
  }
  const clock = el.querySelector(".live-peel-clock");
  if (!clock) return;
  const left = Math.max(0, Math.ceil((Number(el.dataset.until) - (Date.now() + offset)) / 1000));
  clock.textContent = left + (clock.dataset.unit || "s");
  clock.classList.toggle("hurry", left <= 3);
}

document.addEventListener("htmx:wsOpen", function (evt) { socket = evt.detail.socketWrapper; });
document.addEventListener("htmx:wsAfterMessage", function (evt) {
  socket = evt.detail.socketWrapper || socket;
  const html = evt.detail.message;
  if (typeof html !== "string") return;
  if (html.indexOf("live-peel-move") !== -1) {
    const move = document.getElementById("live-peel-move");
    if (move) watch(move);
  }
  if (html.indexOf('id="live-state"') !== -1) {
    sync();
    tick();
  }
});

window.setInterval(tick, TICK_MS);
window.addEventListener("resize", draw);
sync();
tick();

// The peel as this page draws it, for the browser tests and debugging.
export function state() {
  const el = stage();
  return {
    slot: el ? el.dataset.slot : null,
    peeler: el ? isPeeler(el) : false,
    depth: lift && el && lift.key === keyOf(el) ? (lift.frac ? lift.depth : lift.depth / lift.extent) : 0,
    opening: opening,
  };
}
