/* The Baccarat table's small amount of browser code: sounds, dialogs, BET
   over the table's socket, and a fallback when the reveal does not arrive.
   The bet slip is slip.js, started here; the rest is htmx: with the socket open BET sends
   the slip as a message on it (the answer and the reveal come back on it as
   fragments the htmx ws extension swaps by id); without it BET posts the
   slip and the reveal comes over the socket once it is back. */
import { dragChips, rackArrows } from "./chips.js";
import { BetSlip } from "./slip.js";
import { sound } from "./sound.js";
import { tableSocket } from "./table_socket.js";
import { celebrate } from "./win.js";

// The SQUEEZE toggle says plainly whether the squeeze is there this round,
// and why (``bets``: what BET would send).
function renderSqueezeToggle(slip, bets) {
  const toggle = document.getElementById("bac-squeeze-toggle");
  if (!toggle) return;
  const total = slip.total(bets);
  const byPromo = toggle.dataset.byPromo === "1";
  const unlocked = byPromo || total >= Number(toggle.dataset.threshold || 0);
  const side = !!(bets.player || bets.banker);
  const on = toggle.dataset.on === "1";
  toggle.dataset.unlocked = unlocked ? "1" : "0";
  toggle.classList.toggle("unlocked", unlocked);
  toggle.classList.toggle("locked", !unlocked);
  const state = toggle.querySelector(".squeeze-state");
  if (state) state.textContent = unlocked ? (on ? state.dataset.onText : state.dataset.offText) : "";
  const lock = toggle.querySelector(".squeeze-lock");
  if (!lock) return;
  const d = toggle.dataset;
  if (!unlocked) lock.textContent = d.textLocked;
  else if (total && !side) lock.textContent = d.textSide;
  else if (byPromo) lock.textContent = d.textPromo;
  else lock.textContent = on ? d.textOn : d.textOff;
}

// The bet slip (slip.js) on the table's form: a click or tap on an area puts
// the chosen chip down, the rack's tools act on the slip, a chip dragged or
// swiped from the rack lands where it is let go. Started before the rest of
// this module listens, so the slip has what BET sends before BET goes.
function startSlip(form) {

  const slip = new BetSlip(form, {
    ids: {
      limits: "bac-slip-limits",
      rebet: "bac-rebet",
      wallet: "bac-wallet",
      phase: "bac-phase",
      message: "bac-slip-msg",
      total: "bac-bet-total",
    },
    exclusive: [["player", "banker"]],
    afterRender: renderSqueezeToggle,
  });
  let sent = null;

  form.addEventListener("click", function (evt) {
    const area = evt.target.closest("[data-slip-area]");
    if (area) { slip.add(area.dataset.slipArea); return; }
    if (evt.target.closest("[data-slip-mult]")) { slip.cycleMultiplier(); return; }
    if (evt.target.closest("[data-slip-clear]")) { slip.clear(); return; }
    if (evt.target.closest("[data-slip-new]")) { slip.newBet(); return; }
    if (evt.target.closest("[data-slip-remove]")) { slip.removing = !slip.removing; slip.render(); return; }
    const rebet = evt.target.closest("[data-slip-rebet]");
    if (rebet) slip.rebet(rebet.dataset.slipRebet);
  });
  form.addEventListener("change", function (evt) {
    if (evt.target.matches("[data-slip-chip]")) {
      slip.chip = Number(evt.target.dataset.slipChip);
      slip.removing = false;
      slip.render();
    }
  });
  const strip = form.querySelector("[data-rack-chips]");
  if (strip) slip.drawArrows = rackArrows(strip, form.querySelectorAll("[data-rack-scroll]"));
  // A chip dragged (mouse) or swiped (touch) from the rack lands on the area under the pointer.
  dragChips({
    root: form,
    chip: "[data-chip-drag]",
    valueOf: function (face) { return Number(face.dataset.chipDrag); },
    targetAt: function (el) {
      const area = el.closest("[data-area]");
      return area && form.contains(area) ? area : null;
    },
    drop: function (area, value) {
      slip.chip = value;
      if (slip.add(area.dataset.area)) sound.play("chip");
      // The click that ends a drag lands on the common ancestor of the chip
      // and the area (no chip, no area): it selects and adds nothing.
      window.setTimeout(function () { slip.render(); }, 0);
    },
  });

  // The toggle and the squeeze stage are swapped by htmx: draw the slip's state on them again.
  document.addEventListener("htmx:afterSettle", function () { slip.render(); });
  document.addEventListener("htmx:beforeRequest", function (evt) {
    const elt = evt.detail.elt;
    if (elt && elt.matches && elt.matches(".bet-button")) sent = slip.toSend();
  });
  document.addEventListener("htmx:afterRequest", function (evt) {
    const elt = evt.detail.elt;
    if (!elt || !elt.matches || !elt.matches(".bet-button") || !evt.detail.successful) return;
    const text = evt.detail.xhr ? evt.detail.xhr.responseText : "";
    if (text.indexOf('id="bac-placed"') !== -1) slip.spent(sent || {});
  });
  // BET over the table's socket (below): its answer is a message, and
  // what the socket swaps (the toggle, the squeeze stage) is drawn again.
  document.addEventListener("htmx:wsAfterMessage", function (evt) {
    const text = evt.detail && evt.detail.message;
    if (typeof text === "string" && text.indexOf('id="bac-placed"') !== -1) slip.spent(sent || {});
    else slip.render();
  });
  slip.render();
  // The chosen chip (kept over a reload) starts in sight, not behind an arrow.
  const chosen = form.querySelector("[data-slip-chip]:checked");
  const pick = chosen && chosen.closest(".chip-pick");
  if (strip && pick) {
    const over = pick.getBoundingClientRect().right - strip.getBoundingClientRect().right;
    if (over > 0) strip.scrollLeft += over + 4;
  }
}

const slipForm = document.querySelector("form[data-slip-table]");
if (slipForm) startSlip(slipForm);

function applyPrefs() {
  const prefs = document.getElementById("bac-prefs");
  if (!prefs) return;
  sound.configure({
    sound: prefs.dataset.sound === "1",
    effects: prefs.dataset.effects === "1",
    music: prefs.dataset.music === "1",
  });
}

function openDialog(id) {
  const dialog = document.getElementById(id);
  if (dialog && !dialog.open) dialog.showModal();
}

function refreshRoadsDetail() {
  const dialog = document.getElementById("bac-roads-dialog");
  const table = document.getElementById("bac");
  if (dialog && dialog.open && table && window.htmx) {
    window.htmx.ajax("GET", table.dataset.roadsUrl, { target: "#bac-roads-detail", swap: "innerHTML" });
  }
}

document.addEventListener("click", function (evt) {
  const opener = evt.target.closest("[data-open-dialog]");
  if (opener) openDialog(opener.dataset.openDialog);
  if (evt.target.closest("[data-chip-sound]")) sound.play("chip");
});

document.addEventListener("change", function (evt) {
  if (evt.target.matches(".chip-pick input")) sound.play("click");
});

// Cards slide out of the shoe: the first four face down as the round is
// dealt (P, B, P, B), the third cards face up as they open. Fast play and
// fast-forward shorten the slide; prefers-reduced-motion turns it off.
const reducedMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)");

function fastNow() {
  return !!document.querySelector("[data-testid=speed-normal]");
}

function dealFromShoe(card, delay) {
  const shoe = document.querySelector("#bac-board [data-shoe]");
  if (!card || !shoe || !card.animate || (reducedMotion && reducedMotion.matches)) return;
  const from = shoe.getBoundingClientRect();
  const to = card.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  card.classList.add("dealing");
  const slide = card.animate(
    [
      { transform: "translate(" + dx + "px, " + dy + "px) rotate(-24deg) scale(.55)", opacity: 0.3 },
      { transform: "none", opacity: 1 },
    ],
    { duration: fastNow() ? 160 : 380, delay: delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" }
  );
  slide.onfinish = function () { card.classList.remove("dealing"); };
}

function dealt(html) {
  if (html.indexOf('data-phase="revealing"') !== -1) {
    const gap = fastNow() ? 60 : 140;
    ["p1", "b1", "p2", "b2"].forEach(function (slot, i) {
      dealFromShoe(document.getElementById("bac-card-" + slot), i * gap);
    });
    return;
  }
  ["p3", "b3"].forEach(function (slot) {
    if (html.indexOf('id="bac-card-' + slot + '"') === -1) return;
    const card = document.getElementById("bac-card-" + slot);
    if (card && card.classList.contains("fresh")) dealFromShoe(card, 0);
  });
}

// The round's end, read out: the result line as the banner shows it.
function announceResult() {
  const result = document.getElementById("bac-result");
  const out = document.getElementById("bac-announce");
  if (!result || !out) return;
  out.textContent = result.textContent.replace(/\s+/g, " ").trim();
}

// Fragments pushed by the websocket: the deal, sounds, and the end of a round.
document.addEventListener("htmx:wsAfterMessage", function (evt) {
  const html = evt.detail && evt.detail.message;
  if (typeof html !== "string") return;
  dealt(html);
  sound.playFrom(html);
  if (html.indexOf('id="bac-phase"') !== -1 && html.indexOf('data-phase="done"') !== -1) {
    announceResult();
    celebrate(document.getElementById("bac-result"), ".result-net");
    refreshRoadsDetail();
    document.body.dispatchEvent(new CustomEvent("bac:round-done"));
  }
});

// The socket's state on <body data-ws>: "open" once the table can show a reveal.
const socket = tableSocket(document, document.body);
document.addEventListener("htmx:wsClose", function (evt) {
  // 4001: the session ended (logged out elsewhere, expired, deactivated): sign in again.
  const code = evt.detail && evt.detail.event && evt.detail.event.code;
  if (code === 4001) window.location.assign("/accounts/login/?next=" + encodeURIComponent(window.location.pathname));
});

// Settings saved: the #bac-prefs element was swapped in again.
document.addEventListener("htmx:oobAfterSwap", function (evt) {
  const target = evt.detail && evt.detail.target;
  if (target && target.id === "bac-prefs") applyPrefs();
});
document.addEventListener("htmx:afterSettle", applyPrefs);

// BET over the socket: the slip's fields as one message (what the HTTP
// BET would post), held until its answer: BET's "placed" or a refusal
// under the slip. The slip key makes a BET sent twice one round.
document.addEventListener("htmx:wsAfterMessage", function (evt) {
  const html = evt.detail && evt.detail.message;
  if (typeof html !== "string" || !socket.waiting()) return;
  if (html.indexOf('id="bac-placed"') !== -1 || html.indexOf('id="bac-slip-msg"') !== -1) socket.release();
});

// BET was accepted over HTTP but no reveal started (the socket was down):
// the round is settled already, so a reload shows it.
let pendingRound = null;
document.addEventListener("htmx:beforeRequest", function (evt) {
  const elt = evt.detail.elt;
  if (!elt || !elt.matches || !elt.matches(".bet-button")) return;
  if (socket.open()) {
    evt.preventDefault(); // the socket carries it
    if (!socket.waiting()) socket.send("bet", new FormData(elt.form).entries(), elt);
    return;
  }
  const phase = document.getElementById("bac-phase");
  pendingRound = phase ? phase.dataset.round : null;
});
document.addEventListener("htmx:afterRequest", function (evt) {
  const elt = evt.detail.elt;
  if (!elt || !elt.matches || !elt.matches(".bet-button") || !evt.detail.successful) return;
  const text = evt.detail.xhr ? evt.detail.xhr.responseText : "";
  if (text.indexOf('id="bac-placed"') === -1) return; // refused: no round to wait for
  const before = pendingRound;
  window.setTimeout(function () {
    const phase = document.getElementById("bac-phase");
    if (phase && phase.dataset.round === before) window.location.reload();
  }, 5000);
});

// An amount that is not one is refused with a 422 (only a forged or
// hand-edited slip sends one), a BET over the pace of a hand with a 429:
// the message still goes under the slip.
document.addEventListener("htmx:beforeSwap", function (evt) {
  const elt = evt.detail.elt;
  const status = evt.detail.xhr ? evt.detail.xhr.status : 0;
  if ((status === 422 || status === 429) && elt && elt.matches && elt.matches(".bet-button")) {
    evt.detail.shouldSwap = true;
    evt.detail.isError = false;
  }
});

applyPrefs();
