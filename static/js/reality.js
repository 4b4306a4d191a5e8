// The reality check's pause at a table (templates/play_safe/table.html).
// The server refuses the next round until an answer is posted; this only
// shows the question: after a round's request answers, when the interval
// falls due, or when a bet was refused for it. Never while a War round
// waits for its decision.
const dialog = document.getElementById("reality-check");
const refusal = document.getElementById("play-safe-refusal");
let timer = null;

function fill(status) {
  const line = dialog.querySelector("[data-reality-summary]");
  line.textContent = line.dataset.template
    .replace("%(minutes)s", String(status.played_minutes))
    .replace("%(net)s", status.net);
}

async function check() {
  if (!dialog || dialog.open) return;
  let status;
  try {
    const response = await fetch(dialog.dataset.status, { credentials: "same-origin" });
    if (!response.ok) return;
    status = await response.json();
  } catch {
    return;
  }
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
  document.body.addEventListener("htmx:afterRequest", () => check());
  check();
}

if (refusal) {
  // An out-of-band refusal fills the region: show it.
  new MutationObserver(() => {
    refusal.hidden = !refusal.textContent.trim();
  }).observe(refusal, { childList: true, characterData: true, subtree: true });
}
