/* The squeeze (seed 000): the player peels a face-down card by dragging
   from an edge or a corner, with mouse, pen or touch (Pointer Events).

   The squeeze stage (#bac-squeeze) arrives over the table's websocket with
   a blank face and the navigator. The first touch on the card (or OPEN)
   sends {"action": "peel_start", "slot"}; only then does the server send
   the card's face (#bac-peel-face). Dragging lifts the back progressively
   (the back is clipped along a fold line that follows the pointer, and a
   shaded flap shows the lifted part); letting go before halfway drops it
   back, past halfway or dragged to the end it flips open. The corner index
   stays hidden (squeeze.css) until the card is open. When it is open the
   browser sends {"action": "continue", "slot"} and the reveal goes on.

   Exports state() for the browser tests and debugging. */
import { drawLift, grab } from "./peel.js";
import { sound } from "./sound.js";

const OPEN_AT = 0.5; // let go past half of the card: it opens; before: it falls back
const END_AT = 0.95; // dragged (nearly) to the far end: it opens at once
const SHOW_OPEN_MS = 900; // the open card stays on the stage this long before the reveal goes on

let socket = null; // the htmx ws extension's socket wrapper (has .send)
let peel = null; // the current peel, see newPeel()

function send(action, slot) {
  if (!socket) return false;
  socket.send(JSON.stringify({ action: action, slot: slot }));
  return true;
}

function stageElt() {
  const stage = document.getElementById("bac-squeeze");
  return stage && !stage.hidden ? stage : null;
}

function newPeel(stage) {
  return {
    id: stage.dataset.peel,
    slot: stage.dataset.slot,
    started: false, // peel_start sent
    opening: false, // the card is opening (waits for the face if needed)
    opened: false,
    depth: 0, // how far the back is lifted, in px along n
    extent: 1, // the card's size along n
    origin: { x: 0, y: 0 },
    n: { x: 0, y: -1 }, // unit vector from the grabbed edge into the card
    drag: null, // {pointerId, x, y} while a pointer holds the card
    snap: 0, // requestAnimationFrame id of a snap-back
  };
}

function card() {
  const stage = stageElt();
  return stage ? stage.querySelector(".peel-card") : null;
}

function faceArrived() {
  const face = document.getElementById("bac-peel-face");
  return !!(face && face.dataset.card);
}

function start() {
  if (peel.started) return;
  peel.started = send("peel_start", peel.slot);
  const el = card();
  if (el) el.classList.add("started");
}

function render() {
  const el = card();
  if (!el || !peel) return;
  if (peel.opened) {
    el.style.setProperty("--peel", "1");
    el.querySelector(".peel-back").style.clipPath = "";
    el.querySelector(".peel-flap").style.transform = "";
    return;
  }
  drawLift(el, peel);
}

// --- opening ----------------------------------------------------------------

function open() {
  if (!peel || peel.opened) return;
  start();
  peel.opening = true;
  cancelAnimationFrame(peel.snap);
  peel.drag = null;
  if (!faceArrived()) {
    // The face is on its way (peel_start was just sent): open when it lands.
    const el = card();
    if (el) el.classList.add("waiting-face");
    return;
  }
  finishOpen();
}

function finishOpen() {
  const el = card();
  peel.opened = true;
  peel.depth = peel.extent;
  if (el) {
    el.classList.remove("waiting-face", "lifting");
    el.classList.add("opened");
    const stage = stageElt();
    if (stage) stage.classList.add("opened");
  }
  render();
  sound.play("card");
  const slot = peel.slot;
  window.setTimeout(function () { send("continue", slot); }, SHOW_OPEN_MS);
}

function snapBack() {
  const from = peel.depth;
  const t0 = performance.now();
  const step = function (now) {
    const k = Math.min(1, (now - t0) / 220);
    peel.depth = from * (1 - k) * (1 - k);
    render();
    if (k < 1) peel.snap = requestAnimationFrame(step);
  };
  peel.snap = requestAnimationFrame(step);
}

// --- pointer events (mouse, pen and touch alike) ------------------------------

function local(el, evt) {
  const r = el.getBoundingClientRect();
  return { x: evt.clientX - r.left, y: evt.clientY - r.top };
}

// A pointer just outside the card's edge (or its rounded corner) still takes
// the edge: that is where a finger lands to lift it.
const REACH = 16;

function grabbed(evt) {
  const el = card();
  if (!el || !evt.target.closest || !evt.target.closest("#bac-squeeze")) return null;
  if (evt.target.closest(".peel-card")) return el;
  const r = el.getBoundingClientRect();
  const near = evt.clientX > r.left - REACH && evt.clientX < r.right + REACH &&
    evt.clientY > r.top - REACH && evt.clientY < r.bottom + REACH;
  return near ? el : null;
}

document.addEventListener("pointerdown", function (evt) {
  const el = grabbed(evt);
  if (!el || !peel || peel.opened || peel.opening) return;
  if (evt.button !== undefined && evt.button > 0) return; // not a right click
  evt.preventDefault();
  cancelAnimationFrame(peel.snap);
  const p = local(el, evt);
  p.x = Math.max(0, Math.min(el.clientWidth, p.x));
  p.y = Math.max(0, Math.min(el.clientHeight, p.y));
  const g = grab(el, p.x, p.y);
  peel.origin = g.origin;
  peel.n = g.n;
  peel.extent = g.extent;
  peel.depth = 0;
  peel.drag = { pointerId: evt.pointerId, x: p.x, y: p.y };
  try {
    el.setPointerCapture(evt.pointerId);
  } catch (err) {
    // A synthetic pointer (tests) cannot be captured; document listeners still see it.
  }
  start();
  render();
});

document.addEventListener("pointermove", function (evt) {
  if (!peel || !peel.drag || evt.pointerId !== peel.drag.pointerId) return;
  const el = card();
  if (!el) return;
  evt.preventDefault();
  const p = local(el, evt);
  const d = (p.x - peel.drag.x) * peel.n.x + (p.y - peel.drag.y) * peel.n.y;
  peel.depth = Math.max(0, Math.min(peel.extent, d));
  render();
  if (peel.depth >= peel.extent * END_AT) open();
});

function release(evt) {
  if (!peel || !peel.drag || evt.pointerId !== peel.drag.pointerId) return;
  peel.drag = null;
  if (peel.depth >= peel.extent * OPEN_AT) open();
  else snapBack();
}
document.addEventListener("pointerup", release);
document.addEventListener("pointercancel", release);

document.addEventListener("click", function (evt) {
  if (evt.target.closest && evt.target.closest("[data-peel-open]")) open();
});

document.addEventListener("keydown", function (evt) {
  if ((evt.key === "Enter" || evt.key === " ") && evt.target.matches && evt.target.matches(".peel-card")) {
    evt.preventDefault();
    open();
  }
});

// --- the socket --------------------------------------------------------------

function sync() {
  const stage = stageElt();
  if (!stage) {
    peel = null;
    return;
  }
  if (!peel || peel.id !== stage.dataset.peel) {
    peel = newPeel(stage);
    // On a small screen the stage may start below the fold.
    const r = stage.getBoundingClientRect();
    if (r.bottom > window.innerHeight || r.top < 0) stage.scrollIntoView({ block: "nearest", behavior: "instant" });
  }
  if (peel.opening && !peel.opened && faceArrived()) finishOpen();
  render(); // the face was swapped in: keep the lift where it was
}

document.addEventListener("htmx:wsOpen", function (evt) { socket = evt.detail.socketWrapper; });
document.addEventListener("htmx:wsAfterMessage", function (evt) {
  socket = evt.detail.socketWrapper || socket;
  const html = evt.detail.message;
  if (typeof html === "string" && (html.indexOf("bac-squeeze") !== -1 || html.indexOf("bac-peel-face") !== -1)) sync();
});

// The peel's state, for the browser tests and debugging (nothing on the page reads it).
export function state() {
  return peel && { id: peel.id, slot: peel.slot, started: peel.started, opened: peel.opened, progress: peel.depth / peel.extent };
}
