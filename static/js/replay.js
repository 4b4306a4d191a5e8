// Replays a stored round's reveal on its history page: the cards open one at a
// time in deal order, each side's total updating as at the table.  Everything
// comes from the page's #replay-data (the stored cards); nothing is fetched,
// so the replay can only show what was dealt.
// The page draws every card once, in deal order, inside <template id="replay-cards">
// (templates/games/card.html): the replay deals copies of those.
function cardElement(index) {
  const source = document.getElementById("replay-cards");
  const drawn = source ? source.content.children[index] : null;
  if (!drawn) return null;
  return drawn.cloneNode(true); // drawn "dealt": it slides in as it is added
}

function setup(root, data) {
  const startButton = root.querySelector("[data-replay-start]");
  const fastButton = root.querySelector("[data-replay-fast]");
  const normalButton = root.querySelector("[data-replay-normal]");
  const result = root.querySelector("[data-replay-result]");
  const finalResult = result ? result.textContent : "";
  let fast = false;
  let timer = null;
  let next = 0;

  function handFor(owner) {
    // A container lists the owners it holds, e.g. data-hand="player war_player".
    return root.querySelector('[data-hand~="' + owner + '"]');
  }

  function setTotals(card) {
    for (const side of ["player", "banker"]) {
      const el = root.querySelector('[data-total="' + side + '"]');
      const value = card ? card[side + "_total"] : null;
      if (el) el.textContent = value === null || value === undefined ? "" : String(value);
    }
  }

  function setSpeed(isFast) {
    fast = isFast;
    if (fastButton) fastButton.setAttribute("aria-pressed", String(isFast));
    if (normalButton) normalButton.setAttribute("aria-pressed", String(!isFast));
  }

  function finish() {
    timer = null;
    if (result) result.textContent = finalResult;
    root.dataset.state = "done";
    if (startButton) startButton.disabled = false;
  }

  function step() {
    const card = data.cards[next];
    const hand = handFor(card.owner);
    const el = cardElement(next);
    if (hand && el) hand.append(el);
    if (data.game === "baccarat") setTotals(card);
    next += 1;
    root.dataset.shown = String(next);
    if (next >= data.cards.length) {
      timer = setTimeout(finish, fast ? data.fast_delay_ms : data.delay_ms);
    } else {
      timer = setTimeout(step, fast ? data.fast_delay_ms : data.delay_ms);
    }
  }

  function start() {
    if (timer) clearTimeout(timer);
    for (const hand of root.querySelectorAll("[data-hand]")) hand.replaceChildren();
    setTotals(null);
    if (result) result.textContent = "";
    next = 0;
    root.dataset.state = "playing";
    root.dataset.shown = "0";
    if (startButton) startButton.disabled = true;
    timer = setTimeout(step, fast ? data.fast_delay_ms : data.delay_ms);
  }

  if (startButton) startButton.addEventListener("click", start);
  if (fastButton) fastButton.addEventListener("click", () => setSpeed(true));
  if (normalButton) normalButton.addEventListener("click", () => setSpeed(false));
}

function init() {
  const root = document.getElementById("replay");
  const source = document.getElementById("replay-data");
  if (!root || !source) return;
  const data = JSON.parse(source.textContent);
  if (!data.cards || data.cards.length === 0) return;
  setup(root, data);
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", init);
} else {
  init();
}
