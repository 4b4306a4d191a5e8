// The reality check's pause at a table (templates/play_safe/table.html).
// The server refuses the next round until an answer is posted; this only
// shows the question: after a round's request answers, when the interval
// falls due, or when a bet was refused for it. Never while a War round
// waits for its decision.
const dialog = document.getElementById("reality-check");
let timer = null;

function fill(status) {
  const line = dialog.querySelector("[data-reality-summary]");
  line.textContent = line.dataset.template
    .replace("%(minutes)s", String(status.played_minutes))
    .replace("%(net)s", status.net);
}

async function fetchStatus() {
  try {
    const response = await fetch(dialog.dataset.status, { credentials: "same-origin" });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

// The header's session figures (templates/play_safe/header_bit.html).
function showSession(status) {
  const time = document.querySelector("[data-testid=session-time]");
  const net = document.querySelector("[data-testid=session-net]");
  if (time) time.textContent = time.textContent.replace(/^\d+/, String(status.played_minutes));
  if (net) net.textContent = (status.net.startsWith("-") || status.net === "0" ? "" : "+") + status.net;
}

// A Baccarat round on its way to its result: cards still to open, a
// squeeze still to peel, or BET answered and its reveal not yet at the
// result. The header's net (and the reality check) would tell the result
// before the cards do; they wait for it. The net counts a round once its
// result is shown (the table's page drawn mid-reveal leaves it out too).
function revealPending() {
  if (document.querySelector("[data-phase=revealing]")) return true;
  const placed = document.getElementById("bac-placed");
  const phase = document.getElementById("bac-phase");
  const placedRound = Number(placed && placed.dataset.round);
  if (!(placedRound > 0)) return false;
  return !phase || phase.dataset.phase !== "done" || !(Number(phase.dataset.round) >= placedRound);
}

async function check() {
  if (!dialog || dialog.open || revealPending()) return;
  const status = await fetchStatus();
  // A BET may have been answered while the figures were on their way.
  if (!status || revealPending()) return;
  showSession(status);
  clearTimeout(timer);
  if (status.due && !status.round_open) {
    fill(status);
    dialog.showModal();
  } else if (status.due_in !== null) {
    timer = setTimeout(check, (status.due_in + 1) * 1000);
  }
}

if (dialog) {
  // The dialog is answered only by one of its three choices.
  dialog.addEventListener("cancel", (event) => event.preventDefault());
  // After a round's answer or a pushed reveal step, but never while cards
  // are still being revealed (revealPending).
  document.body.addEventListener("htmx:afterRequest", check);
  document.body.addEventListener("htmx:wsAfterMessage", check);
  setInterval(check, 60_000);
  check();
}

// A refusal arrives out of band and replaces the region, shown; the next
// answer without one (a round played, a slip changed) puts it away.
document.body.addEventListener("htmx:afterRequest", (event) => {
  const region = document.getElementById("play-safe-refusal");
  const answer = event.detail.xhr ? event.detail.xhr.responseText || "" : "";
  if (region && !answer.includes('id="play-safe-refusal"')) region.hidden = true;
});
