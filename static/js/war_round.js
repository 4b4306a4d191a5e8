// The Casino War round region as the server renders it (#war-round, swapped
// whole by DEAL's and the decision's answers): its state, the sounds of each
// card leaving the shoe and of the result once the last one has landed, the
// tie decision's countdown, and clearing a finished round off the felt.

import { sound } from "./sound.js";
import { celebrate } from "./win.js";

export const roundEl = () => document.getElementById("war-round");
// "empty" (the felt is clear), "open" (a tie waits for its decision) or "settled".
export const roundStatus = () => roundEl()?.dataset.status || "empty";

// The finished round leaves the felt: the empty spots come back.
export function clearRound() {
  const empty = document.getElementById("war-empty-round").content.cloneNode(true);
  roundEl().replaceWith(empty);
}

// WAR or SURRENDER, as its button would send it.
export function decide(which) {
  const button = document.getElementById(which === "war" ? "war-btn-war" : "war-btn-surrender");
  if (!button || button.disabled) return;
  // A key can beat htmx to a freshly swapped panel (it wires new content
  // when it settles); wire it now so the decision goes through htmx.
  window.htmx?.process(button.form);
  button.click();
}

let lastShown = "";

// Sounds of what the server just swapped in: each card as it leaves the
// shoe, then the result once the last one has landed.
export function roundShown() {
  const el = roundEl();
  if (!el || el.dataset.status === "empty") return;
  // One answer swaps several parts (out of band too): react once to each new state.
  const shown = `${el.dataset.roundId}:${el.dataset.status}`;
  if (shown === lastShown) return;
  lastShown = shown;
  sound.playDealt(el);
  const result = el.querySelector("[data-sound]");
  const reveal = parseFloat(el.style.getPropertyValue("--reveal")) || 0;
  if (result) {
    setTimeout(() => {
      sound.play(result.dataset.sound);
      celebrate(result, "[data-testid=war-net]");
      // The round's end, read out (the round region was swapped whole).
      const out = document.getElementById("war-announce");
      if (out) out.textContent = result.innerText.replace(/\s+/g, " ").trim();
    }, reveal * 1000);
  }
}

let countdown = null;

// The tie decision's seconds, counted down from what the server said is
// left; ``leave`` runs when time is up and the round still waits.
export function startCountdown(leave) {
  if (countdown) clearInterval(countdown);
  countdown = null;
  const panel = document.querySelector("[data-testid=decision-panel]");
  if (!panel) return;
  const ends = performance.now() + Number(panel.dataset.secondsLeft || 0) * 1000;
  const shown = document.getElementById("war-countdown");
  const timer = panel.querySelector(".timer");
  const tick = () => {
    const left = Math.max(0, Math.ceil((ends - performance.now()) / 1000));
    if (shown) shown.textContent = String(left);
    timer?.classList.toggle("hurry", left <= 5);
    if (left === 0) {
      clearInterval(countdown);
      countdown = null;
      // The socket normally closes first (the server owns the deadline);
      // without a socket, leave a little after the server's grace period.
      setTimeout(() => {
        if (roundStatus() === "open") leave();
      }, 4000);
    }
  };
  tick();
  countdown = setInterval(tick, 250);
}
