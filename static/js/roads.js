/* The roads beside the Baccarat table: "Ask P" / "Ask B" and the phone's
   "Roads" toggle. The marks a PLAYER or BANKER win would add are already in
   each road, hidden (templates/baccarat/table.html#roads); an Ask button
   only sets data-roads-ask on <body>, and static/css/roads.css shows those
   marks, blinking, while the button is held and for a few seconds after.
   The state lives on <body> because the websocket replaces the roads section
   at the end of every round. No framework. */
const HOLD_MS = 3000;
const STORE = "casino.roads.open";
const body = document.body;
let timer = null;

function sync() {
  const side = body.dataset.roadsAsk || "";
  const open = body.dataset.roadsOpen === "1";
  document.querySelectorAll("[data-ask-side]").forEach(function (button) {
    button.setAttribute("aria-pressed", button.dataset.askSide === side ? "true" : "false");
  });
  document.querySelectorAll("[data-roads-toggle]").forEach(function (button) {
    button.setAttribute("aria-expanded", open ? "true" : "false");
  });
}

/* Show the side's marks; with ms, hide them again after ms. */
function ask(side, ms) {
  clearTimeout(timer);
  timer = null;
  if (side) {
    body.dataset.roadsAsk = side;
    if (ms) {
      timer = setTimeout(function () { ask("", 0); }, ms);
    }
  } else {
    delete body.dataset.roadsAsk;
  }
  sync();
}

document.addEventListener("pointerdown", function (evt) {
  const button = evt.target.closest && evt.target.closest("[data-ask-side]");
  if (button) {
    ask(button.dataset.askSide, 0); // blinks for as long as it is held
  }
});
function released() {
  if (body.dataset.roadsAsk && !timer) {
    ask(body.dataset.roadsAsk, HOLD_MS);
  }
}
document.addEventListener("pointerup", released);
document.addEventListener("pointercancel", released);

document.addEventListener("click", function (evt) {
  const button = evt.target.closest && evt.target.closest("[data-ask-side]");
  if (button) {
    ask(button.dataset.askSide, HOLD_MS); // a click, a tap or the keyboard
    return;
  }
  const toggle = evt.target.closest && evt.target.closest("[data-roads-toggle]");
  if (toggle) {
    const open = body.dataset.roadsOpen !== "1";
    body.dataset.roadsOpen = open ? "1" : "0";
    try { localStorage.setItem(STORE, open ? "1" : "0"); } catch (e) { /* private mode */ }
    sync();
  }
});

try {
  if (localStorage.getItem(STORE) === "1") {
    body.dataset.roadsOpen = "1";
  }
} catch (e) { /* private mode: closed on a phone */ }

// The roads section is replaced after each round: give its buttons their state.
document.addEventListener("htmx:oobAfterSwap", sync);
document.addEventListener("htmx:afterSwap", sync);
document.addEventListener("htmx:wsAfterMessage", sync);
sync();
