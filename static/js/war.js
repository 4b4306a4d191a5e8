// The Casino War table: the chip rack and the spots build the bet
// (war_bet.js), DEAL and WAR / SURRENDER go to the server, the round region
// it answers with plays its sounds and counts the decision down
// (war_round.js), time running out leaves the table, the menu (war_menu.js)
// and the shortcut keys. The server decides everything; this only prepares
// the form and reacts to what comes back. With the table's socket open, DEAL
// and the decision go as messages on it (the answer comes back on it,
// swapped by id); without it htmx posts the forms.
//
// The spots (TIE BONUS, ANTE, RAISE) belong to the round region the server
// renders: while a round is on the table they show its stakes and results;
// when the table is clear war_bet.js draws the bet being built on them.
// Cards slide from the shoe with the shared cards.js and cards.css.

import { dragChips, rackArrows } from "./chips.js";
import { sound } from "./sound.js";
import { tableSocket } from "./table_socket.js";
import { WarBet } from "./war_bet.js";
import { startMenu } from "./war_menu.js";
import { clearRound, decide, roundEl, roundShown, roundStatus, startCountdown } from "./war_round.js";

const app = document.getElementById("war-app");
const form = document.getElementById("war-bet-form");

if (app && form) {
  const bet = new WarBet(form, app.dataset.slug);
  sound.configure({
    sound: app.dataset.sound === "1",
    effects: app.dataset.effects === "1",
    music: app.dataset.music === "1",
  });
  const note = (text) => {
    document.getElementById("war-bet-note").textContent = text || "";
  };
  const render = () => bet.render(roundStatus() === "empty", note);
  const leaveTable = () => window.location.assign(app.dataset.timedOutUrl);

  function syncDealButton() {
    document.getElementById("war-deal").classList.toggle("waiting", roundStatus() === "open");
    app.dataset.roundStatus = roundStatus();
  }

  // PASS: the finished round leaves the felt, the bet being built shows.
  function pass() {
    if (roundStatus() !== "settled") return;
    clearRound();
    render();
    syncDealButton();
  }

  // A new bet clears the finished round off the felt first; a waiting tie
  // must be decided before anything else goes down.
  function readyForBet() {
    if (roundStatus() === "open") {
      note(bet.message("msgFinish"));
      return false;
    }
    if (roundStatus() === "settled") pass();
    return true;
  }

  function addChip(value) {
    if (!readyForBet()) return;
    const refusal = bet.add(value);
    note(refusal);
    if (refusal) return;
    sound.play("chip");
    render();
  }

  // Right click on a chip of the rack takes one chip of that value off the
  // selected spot; right click on a spot takes its top chip off.
  function takeChip(value) {
    if (roundStatus() !== "empty") return;
    note("");
    bet.take(value);
    render();
  }

  function clearBet() {
    bet.clear();
    note("");
    render();
  }

  function repeatBet() {
    if (!bet.last.ante || !readyForBet()) return;
    const refusal = bet.repeat();
    note(refusal);
    if (!refusal) render();
  }

  // A spot taken from a click, a tap or a dropped chip: a finished round
  // leaves the felt first; a waiting tie keeps it.
  function choose(spot) {
    if (roundStatus() === "settled") pass();
    if (roundStatus() === "open") return false;
    bet.active = spot.dataset.area;
    return true;
  }

  // --- the chip rack and the spots: a tap (or click) adds; with REMOVE on,
  //     it takes one off (a right click does too, on a desktop) ---------------
  const removeTool = document.getElementById("war-remove");
  const removing = () => removeTool?.getAttribute("aria-pressed") === "true";
  removeTool?.addEventListener("click", () => {
    removeTool.setAttribute("aria-pressed", removing() ? "false" : "true");
  });
  for (const chip of form.querySelectorAll(".chip")) {
    const value = Number(chip.dataset.chip);
    chip.addEventListener("click", () => (removing() ? takeChip(value) : addChip(value)));
    chip.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      takeChip(value);
    });
  }
  // The rack scrolls sideways, with its arrows, when its chips do not all fit.
  const rackStrip = form.querySelector("[data-rack-chips]");
  if (rackStrip) rackArrows(rackStrip, form.querySelectorAll("[data-rack-scroll]"));
  // A chip dragged (or swiped) from the rack onto ANTE or TIE BONUS goes down there.
  dragChips({
    root: form,
    chip: ".chip[data-chip]",
    valueOf: (face) => Number(face.dataset.chip),
    targetAt: (el) => el.closest("#war-round .spot:not([data-fixed])"),
    drop: (spot, value) => {
      if (choose(spot)) addChip(value);
    },
  });
  // The spots are swapped with the round region: listen on the document.
  const spotOf = (event) => event.target.closest?.("#war-round .spot:not([data-fixed])");
  document.addEventListener("click", (event) => {
    const spot = spotOf(event);
    if (!spot || !choose(spot)) return;
    if (removing()) takeChip();
    else render();
  });
  document.addEventListener("contextmenu", (event) => {
    const spot = spotOf(event);
    if (!spot) return;
    event.preventDefault();
    bet.active = spot.dataset.area;
    takeChip();
  });
  document.getElementById("war-clear").addEventListener("click", clearBet);
  document.getElementById("war-repeat").addEventListener("click", repeatBet);

  // --- DEAL: checks that save a round trip; the server checks everything --
  form.addEventListener("htmx:beforeRequest", (event) => {
    if (event.target !== form) return;
    if (roundStatus() === "open") {
      note(bet.message("msgFinish"));
      event.preventDefault();
    } else if (bet.amounts().ante <= 0) {
      note(bet.message("msgNoAnte"));
      event.preventDefault();
    }
  });

  document.body.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail?.target?.id !== "war-round" && event.detail?.elt?.id !== "war-round") return;
    roundShown();
  });

  function roundSettled() {
    const el = roundEl();
    if (!el) return;
    if (el.dataset.status !== "empty" && el.dataset.roundId !== app.dataset.roundId) {
      // A new round was dealt: its bet (as the server took it, e.g. raised
      // to the minimum) becomes the one 0 repeats, and the slip is spent.
      app.dataset.roundId = el.dataset.roundId;
      bet.spent({ ante: Number(el.dataset.ante), tie_bet: Number(el.dataset.tieBet) });
      render();
    }
    syncDealButton();
    startCountdown(leaveTable);
    // The limits may have been swapped in (a new personal max bet): the
    // line beside the ANTE follows the tie bet on the felt.
    bet.showWarAnteMax();
  }
  document.body.addEventListener("htmx:afterSettle", roundSettled);

  // --- DEAL and the decision over the table's socket ------------------------
  const socket = tableSocket(app, app);
  // The form htmx would post, as one message: DEAL's slip, or the decision
  // with the button pressed. The slip key makes a DEAL sent twice one round.
  document.body.addEventListener("htmx:configRequest", (event) => {
    const elt = event.detail?.elt;
    const deciding = elt?.matches?.(".decide-form");
    if (!socket.open() || !(elt === form || deciding)) return;
    event.preventDefault();
    if (socket.waiting()) return; // an answer is on its way
    if (!deciding && roundStatus() === "open") return note(bet.message("msgFinish"));
    if (!deciding && bet.amounts().ante <= 0) return note(bet.message("msgNoAnte"));
    const values = event.detail.formData || event.detail.parameters;
    const fields = values instanceof FormData ? values.entries() : Object.entries(values);
    const hold = deciding ? null : document.getElementById("war-deal");
    socket.send(deciding ? "decide" : "deal", fields, hold, elt);
  });
  app.addEventListener("htmx:wsAfterMessage", (event) => {
    const html = event.detail?.message;
    if (typeof html !== "string") return;
    if (html.indexOf('id="war-round"') !== -1) {
      roundShown();
      roundSettled();
    }
    if (html.indexOf('id="war-round"') !== -1 || html.indexOf('id="war-message"') !== -1) socket.release();
  });

  // An amount that is not one is refused with a 422 (only a forged or
  // hand-edited slip sends one), an action over the pace of a hand with a
  // 429; the message still goes in the message region.
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    const status = event.detail?.xhr?.status;
    if ((status === 422 || status === 429) && event.detail?.target?.id === "war-message") {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // The server closes the socket with 4000 when the decision time ran out.
  app.addEventListener("htmx:wsClose", (event) => {
    if (event.detail?.event?.code === 4000) leaveTable();
    // 4002: the table's paytable or limits changed: the page is drawn again with them.
    if (event.detail?.event?.code === 4002) window.location.assign(app.dataset.termsChangedUrl);
    // 4001: the session ended (logged out elsewhere, expired, deactivated): sign in again.
    if (event.detail?.event?.code === 4001) {
      window.location.assign(`/accounts/login/?next=${encodeURIComponent(window.location.pathname)}`);
    }
  });

  const menu = document.getElementById("war-menu");
  startMenu(menu, document.querySelector("[data-open-menu]"));

  // --- keys (seed 004): 0 repeat, Enter deal, + war, - surrender,
  //     PgDn pass, Del clear --------------------------------------------------
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || menu.open) return;
    const target = event.target;
    if (target instanceof HTMLElement && target.closest("input, textarea, select, [contenteditable]")) {
      return;
    }
    const key = event.key;
    const code = event.code;
    let handled = true;
    if (key === "0" || code === "Numpad0") repeatBet();
    else if (key === "Enter" || code === "NumpadEnter") form.requestSubmit();
    else if (key === "+" || code === "NumpadAdd") decide("war");
    else if (key === "-" || code === "NumpadSubtract") decide("surrender");
    else if (key === "PageDown") pass();
    else if (key === "Delete") clearBet();
    else handled = false;
    if (handled) event.preventDefault();
  });

  const first = roundEl();
  if (first && first.dataset.roundId) app.dataset.roundId = first.dataset.roundId;
  render();
  syncDealButton();
  startCountdown(leaveTable);
}
