/* A live table in the browser. The slip, BET (over the socket, or posted
   without it) and the chips' sounds are the private Baccarat table's
   (baccarat.js, which reads the same bac-* ids); this adds the coup's
   countdown and the deal's sounds. The server sends the table's state (#live-state) at every
   step and every second while bets are open, with when betting closes
   (data-closes-at) and its own clock when it drew the state (data-now),
   so the countdown runs on the server's time, whatever this device's
   clock says. The server's word is final: a bet that reaches it after the
   close is refused.

   A new shoe (#live-state[data-new-shoe]) is shuffled with a secret seed
   from each player who bets on its first coup: this page draws the seed,
   keeps it in localStorage (a reload keeps it), and sends only its SHA-256
   with the bet (the slip's hidden "commit" field). When betting has closed
   and every commitment is fixed (data-status="revealing") it reveals the
   seed over the socket, if BET's answer said the commitment was kept.

   The deal's state brings the cards sliding in one after the other
   (--deal-delay): each is heard as it leaves the shoe, and its hand's
   score counts it once it has landed, as at the private tables (the
   server's totals and the result come with the next state). The player's
   own result is heard with their seat's message (data-sound, played by
   baccarat.js as the private table's). */
import "./baccarat.js";
import { points } from "./baccarat_points.js";
import { sound } from "./sound.js";

const TICK_MS = 250;
let offset = 0;
let drawnAt = null;

function tick() {
  const state = document.getElementById("live-state");
  if (!state) return;
  if (state.dataset.now !== drawnAt) {
    drawnAt = state.dataset.now;
    offset = Number(drawnAt) - Date.now();
  }
  const clock = state.querySelector("[data-testid=live-clock]");
  if (!clock || clock.dataset.state !== "open") return;
  const left = Math.ceil((Number(state.dataset.closesAt) - (Date.now() + offset)) / 1000);
  if (left > 0) {
    clock.textContent = String(left);
    clock.classList.toggle("hurry", left <= 5);
  } else {
    clock.textContent = clock.dataset.closedText;
    clock.dataset.state = "closed";
    clock.classList.remove("hurry");
  }
}

let socket = null; // the htmx ws extension's socket wrapper
document.addEventListener("htmx:wsOpen", function (evt) { socket = (evt.detail && evt.detail.socketWrapper) || null; });
document.addEventListener("htmx:wsClose", function () { socket = null; });

const revealed = new Set(); // shoes whose seed this page has sent
let committing = ""; // the shoe whose commitment the slip holds (or is computing)

function seedKey(state, shoe) {
  return "live-seed:" + state.dataset.table + ":" + (shoe || state.dataset.shoe);
}

function hex(bytes) {
  return Array.from(new Uint8Array(bytes), function (b) { return b.toString(16).padStart(2, "0"); }).join("");
}

function commit(state) {
  const field = document.querySelector("#bac-slip input[name=commit]");
  if (!field) return;
  const key = seedKey(state);
  if (!state.dataset.newShoe || !(window.crypto && crypto.subtle)) {
    field.value = "";
    committing = "";
    return;
  }
  if (committing === key) return;
  committing = key;
  let seed = localStorage.getItem(key);
  if (!seed) {
    seed = hex(crypto.getRandomValues(new Uint8Array(16)));
    localStorage.setItem(key, seed);
  }
  crypto.subtle.digest("SHA-256", new TextEncoder().encode(seed)).then(function (digest) {
    if (committing === key) field.value = hex(digest);
  });
}

// BET's answer (over the socket or HTTP) says when the server kept the commitment.
function noteCommitted(html) {
  const state = document.getElementById("live-state");
  const found = typeof html === "string" && html.match(/data-committed="(\d+)"/);
  if (state && found) localStorage.setItem(seedKey(state, found[1]) + ":committed", "1");
}
document.addEventListener("htmx:wsAfterMessage", function (evt) { noteCommitted(evt.detail && evt.detail.message); });
document.addEventListener("htmx:afterRequest", function (evt) { noteCommitted(evt.detail && evt.detail.xhr && evt.detail.xhr.responseText); });

function reveal(state) {
  const key = seedKey(state);
  if (state.dataset.status !== "revealing" || revealed.has(key) || !socket) return;
  const seed = localStorage.getItem(key);
  if (!seed || !localStorage.getItem(key + ":committed")) return;
  revealed.add(key);
  socket.send(JSON.stringify({ action: "reveal", seed: seed }));
}

function seeds() {
  const state = document.getElementById("live-state");
  if (!state || !state.dataset.shoe) return;
  // BET names the coup on screen: one that reaches the server after it closed is refused.
  const meant = document.querySelector("#bac-slip input[name=coup]");
  if (meant) meant.value = state.dataset.coupId || "";
  commit(state);
  reveal(state);
}

window.setInterval(function () { tick(); seeds(); }, TICK_MS);
tick();
seeds();

// The deal's cards, each heard as it leaves the shoe; only the deal's own
// state has cards sliding in (.dealt), never a later state of the same coup.
document.addEventListener("htmx:wsAfterMessage", function (evt) {
  const html = evt.detail && evt.detail.message;
  if (typeof html !== "string" || html.indexOf('id="live-state"') === -1) return;
  sound.playDealt(document.getElementById("live-state"));
});

// A hand's running score: the last digit of the points of its cards that have landed.
document.addEventListener("animationend", function (evt) {
  const card = evt.target;
  if (!card.matches || !card.matches(".live-board .playing-card.dealt") || !card.dataset.card) return;
  card.classList.add("landed");
  const hand = card.closest(".hand");
  const score = hand && hand.querySelector(".score");
  if (!score) return;
  let total = 0;
  hand.querySelectorAll(".playing-card.landed").forEach(function (c) { total += points(c.dataset.card); });
  score.textContent = String(total % 10);
});
