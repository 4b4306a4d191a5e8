/* A live table in the browser. The slip, BET (over the socket, or posted
   without it) and the sounds are the private Baccarat table's
   (baccarat.js, which reads the same bac-* ids); this adds the coup's
   countdown. The server sends the table's state (#live-state) at every
   step and every second while bets are open, with when betting closes
   (data-closes-at) and its own clock when it drew the state (data-now),
   so the countdown runs on the server's time, whatever this device's
   clock says. The server's word is final: a bet that reaches it after the
   close is refused. */
import "./baccarat.js";

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

window.setInterval(tick, TICK_MS);
tick();
