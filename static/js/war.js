// Casino War table: building the bet on the felt with the chip rack, the
// shortcut keys, the tie decision's countdown, leaving the table when time
// runs out, and the table menu. The server decides everything; this only
// prepares the form and reacts to what comes back. With the table's socket
// open, DEAL and WAR / SURRENDER go as messages on it (the answer comes back
// on it, swapped by id); without it htmx posts the forms.
//
// The spots (TIE BONUS, ANTE, RAISE) belong to the round region the server
// renders: while a round is on the table they show its stakes and results;
// when the table is clear this draws the bet being built on them. Cards slide
// from the shoe with the shared cards.js and cards.css.

import { STACK_SHOWN, dragChips, rackArrows } from "./chips.js";
import { chipLabel, store } from "./slip.js";
import { sound } from "./sound.js";
import { tableSocket } from "./table_socket.js";
import { celebrate } from "./win.js";

const app = document.getElementById("war-app");
const form = document.getElementById("war-bet-form");

if (app && form) {
  const timedOutUrl = app.dataset.timedOutUrl;
  const chipUnits = 100; // limits arrive in minor units; the form sends chips
  // The limits are read afresh each time: the menu's max bet swaps them in.
  const limitsEl = () => document.getElementById("war-limits");
  const limits = () => {
    const d = limitsEl()?.dataset || {};
    return {
      anteMin: Number(d.anteMin || 0) / chipUnits,
      anteMax: Number(d.anteMax || 0) / chipUnits,
      tieMax: Number(d.tieMax || 0) / chipUnits,
      roundMax: Number(d.roundMax || 0) / chipUnits,
    };
  };
  const msg = (name) => limitsEl()?.dataset[name] || form.dataset[name] || "";
  const chipValues = [...form.querySelectorAll(".chip")].map((c) => Number(c.dataset.chip));
  const colourOf = Object.fromEntries(
    [...form.querySelectorAll(".chip")].map((c) => [Number(c.dataset.chip), c.dataset.colour]),
  );
  // Each spot holds a stack of chips (values, last one on top), kept in
  // sessionStorage (slip.js) so a reload keeps the bet being built.
  const saved = store(`war:${app.dataset.slug}`);
  const restored = saved?.load() || {};
  const valid = (stack) =>
    Array.isArray(stack) ? stack.filter((v) => chipValues.includes(v)) : [];
  const stacks = { ante: valid(restored.ante), tie_bet: valid(restored.tie_bet) };
  const sum = (stack) => stack.reduce((a, b) => a + b, 0);
  const amounts = () => ({ ante: sum(stacks.ante), tie_bet: sum(stacks.tie_bet) });
  // An amount as the fewest chips of the rack (for REPEAT).
  const asChips = (amount) => {
    const out = [];
    for (const value of [...chipValues].sort((a, b) => b - a)) {
      while (amount >= value) {
        out.push(value);
        amount -= value;
      }
    }
    return out.reverse();
  };
  let lastBet = {
    ante: Number(form.dataset.lastAnte || 0) / chipUnits,
    tie_bet: Number(form.dataset.lastTieBet || 0) / chipUnits,
  };
  let active = "ante";
  let countdown = null;

  const $ = (selector) => document.querySelector(selector);
  // Sounds come from the shared sound.js.
  sound.configure({
    sound: app.dataset.sound === "1",
    effects: app.dataset.effects === "1",
    music: app.dataset.music === "1",
  });
  const play = (name) => sound?.play(name);
  const fmt = (n) => n.toLocaleString("en-US");
  const note = (text) => {
    $("#war-bet-note").textContent = text || "";
  };
  const roundEl = () => document.getElementById("war-round");
  const roundStatus = () => roundEl()?.dataset.status || "empty";

  // The chips of a stack, drawn as the server draws a round's stakes.
  function discs(stack) {
    return stack.slice(-STACK_SHOWN).map((value, i, shown) => {
      const disc = document.createElement("span");
      // The rack's colour for this value (the server's chip_colour, shared by both games).
      disc.className = `disc chip-c${colourOf[value] ?? 0}`;
      disc.style.setProperty("--i", String(i));
      if (i === shown.length - 1) disc.textContent = chipLabel(value * chipUnits);
      return disc;
    });
  }

  function render() {
    saved?.save(stacks);
    const bet = amounts();
    $("#war-ante-input").value = String(bet.ante);
    $("#war-tie-input").value = String(bet.tie_bet);
    const total = bet.ante + bet.tie_bet;
    $("#war-bet-total").textContent = total ? fmt(total) : "";
    if (roundStatus() === "empty") {
      for (const spot of document.querySelectorAll("#war-round .spot")) {
        const area = spot.dataset.area;
        const on = area === active;
        if (!spot.dataset.fixed) spot.setAttribute("aria-pressed", on ? "true" : "false");
        spot.classList.toggle("active", on);
        const stack = stacks[area] || [];
        spot.classList.toggle("has-bet", stack.length > 0);
        spot.querySelector(".stack").replaceChildren(...discs(stack));
        spot.querySelector(".spot-amount").textContent = stack.length ? fmt(sum(stack)) : "";
      }
    }
    if (bet.ante > 0 && bet.ante < limits().anteMin) note(msg("msgBelowMin"));
    showWarAnteMax(bet.tie_bet);
  }

  // The largest ante that can still go to war beside this tie bet: the MAX
  // BET bounds the ante, the tie bet and the raise (the server's
  // rounds.BetLimits.largest_staked_again, in whole steps); 0 when none can.
  function warAnteMax(tieBet) {
    const d = limitsEl()?.dataset || {};
    const step = Number(d.step || chipUnits);
    const tie = Math.round(tieBet * chipUnits);
    let most = Math.min(Number(d.anteMax || 0), Math.floor((Number(d.roundMax || 0) - tie) / 2));
    most -= most % step;
    return most >= Math.max(Number(d.anteMin || 0), step) ? most / chipUnits : 0;
  }

  function overWar(tieBet) {
    const most = warAnteMax(tieBet);
    return msg(most ? "msgOverWar" : "msgNoWar")
      .replace("%(max)s", fmt(limits().roundMax))
      .replace("%(area)s", spotName("ante"))
      .replace("%(most)s", fmt(most));
  }

  function spotName(area) {
    return document.querySelector(`#war-round .spot[data-area="${area}"] .spot-name`)?.textContent.trim() || area;
  }

  function fits(next) {
    const l = limits();
    if (next.ante > l.anteMax) return msg("msgOverAnte");
    if (next.tie_bet > l.tieMax) return msg("msgOverTie");
    const ante = next.ante ? Math.max(next.ante, l.anteMin) : 0;
    if (ante + next.tie_bet > l.roundMax) return msg("msgOverRound");
    if (2 * ante + next.tie_bet > l.roundMax) return overWar(next.tie_bet);
    return "";
  }

  // The line beside the ANTE limits follows the tie bet being built.
  function showWarAnteMax(tieBet) {
    const hint = document.querySelector('#war-limits [data-testid="war-ante-hint"]');
    if (!hint) return;
    const most = warAnteMax(tieBet);
    hint.querySelector('[data-war-hint="some"]').hidden = !most;
    hint.querySelector('[data-war-hint="none"]').hidden = Boolean(most);
    if (most) document.getElementById("war-ante-most").textContent = fmt(most);
  }

  // A new bet clears the finished round off the felt first; a waiting tie
  // must be decided before anything else goes down.
  function readyForBet() {
    if (roundStatus() === "open") {
      note(msg("msgFinish"));
      return false;
    }
    if (roundStatus() === "settled") pass();
    return true;
  }

  function addChip(value) {
    if (!readyForBet()) return;
    const next = amounts();
    next[active] += value;
    const refusal = fits(next);
    if (refusal) {
      note(refusal);
      return;
    }
    note("");
    stacks[active].push(value);
    play("chip");
    render();
  }

  // Right click on a chip of the rack takes one chip of that value off the
  // selected spot; right click on a spot takes its top chip off.
  function takeChip(value) {
    if (roundStatus() !== "empty") return;
    note("");
    const stack = stacks[active];
    const at = value === undefined ? stack.length - 1 : stack.lastIndexOf(value);
    if (at >= 0) stack.splice(at, 1);
    render();
  }

  function clearBet() {
    stacks.ante = [];
    stacks.tie_bet = [];
    note("");
    render();
  }

  function repeatBet() {
    if (!lastBet.ante || !readyForBet()) return;
    const refusal = fits(lastBet);
    if (refusal) {
      note(refusal);
      return;
    }
    note("");
    stacks.ante = asChips(lastBet.ante);
    stacks.tie_bet = asChips(lastBet.tie_bet);
    render();
  }

  function deal() {
    form.requestSubmit();
  }

  function pass() {
    if (roundStatus() !== "settled") return;
    const empty = document.getElementById("war-empty-round").content.cloneNode(true);
    roundEl().replaceWith(empty);
    render();
    syncDealButton();
  }

  function decide(which) {
    const button = document.getElementById(which === "war" ? "war-btn-war" : "war-btn-surrender");
    if (!button || button.disabled) return;
    // A key can beat htmx to a freshly swapped panel (it wires new content
    // when it settles); wire it now so the decision goes through htmx.
    window.htmx?.process(button.form);
    button.click();
  }

  function syncDealButton() {
    const open = roundStatus() === "open";
    $("#war-deal").classList.toggle("waiting", open);
    app.dataset.roundStatus = roundStatus();
  }

  function leaveTable() {
    window.location.assign(timedOutUrl);
  }

  function startCountdown() {
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
          if (roundStatus() === "open") leaveTable();
        }, 4000);
      }
    };
    tick();
    countdown = setInterval(tick, 250);
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
      if (roundStatus() === "settled") pass();
      if (roundStatus() === "open") return;
      active = spot.dataset.area;
      addChip(value);
    },
  });
  // The spots are swapped with the round region: listen on the document.
  const spotOf = (event) => event.target.closest?.("#war-round .spot:not([data-fixed])");
  document.addEventListener("click", (event) => {
    const spot = spotOf(event);
    if (!spot) return;
    if (roundStatus() === "settled") pass();
    if (roundStatus() === "open") return;
    active = spot.dataset.area;
    if (removing()) takeChip();
    else render();
  });
  document.addEventListener("contextmenu", (event) => {
    const spot = spotOf(event);
    if (!spot) return;
    event.preventDefault();
    active = spot.dataset.area;
    takeChip();
  });
  $("#war-clear").addEventListener("click", clearBet);
  $("#war-repeat").addEventListener("click", repeatBet);

  // --- DEAL: checks that save a round trip; the server checks everything --
  form.addEventListener("htmx:beforeRequest", (event) => {
    if (event.target !== form) return;
    if (roundStatus() === "open") {
      note(msg("msgFinish"));
      event.preventDefault();
    } else if (amounts().ante <= 0) {
      note(msg("msgNoAnte"));
      event.preventDefault();
    }
  });

  let lastSwapped = "";
  // Sounds of what the server just swapped in: each card as it leaves the
  // shoe, then the result once the last one has landed.
  document.body.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail?.target?.id !== "war-round" && event.detail?.elt?.id !== "war-round") return;
    roundSwapped();
  });
  function roundSwapped() {
    const el = roundEl();
    if (!el || el.dataset.status === "empty") return;
    // One answer swaps several parts (out of band too): react once to each new state.
    const shown = `${el.dataset.roundId}:${el.dataset.status}`;
    if (shown === lastSwapped) return;
    lastSwapped = shown;
    for (const card of el.querySelectorAll(".playing-card.dealt")) {
      const delay = parseFloat(card.style.getPropertyValue("--deal-delay")) || 0;
      setTimeout(() => play("card"), delay * 1000);
    }
    const result = el.querySelector("[data-sound]");
    const reveal = parseFloat(el.style.getPropertyValue("--reveal")) || 0;
    if (result) {
      setTimeout(() => {
        play(result.dataset.sound);
        celebrate(result, "[data-testid=war-net]");
        // The round's end, read out (the round region was swapped whole).
        const out = document.getElementById("war-announce");
        if (out) out.textContent = result.innerText.replace(/\s+/g, " ").trim();
      }, reveal * 1000);
    }
  }

  document.body.addEventListener("htmx:afterSettle", roundSettled);
  function roundSettled() {
    const el = roundEl();
    if (!el) return;
    if (el.dataset.status !== "empty" && el.dataset.roundId !== app.dataset.roundId) {
      // A new round was dealt: its bet (as the server took it, e.g. raised
      // to the minimum) becomes the one 0 repeats, and the slip is spent.
      app.dataset.roundId = el.dataset.roundId;
      lastBet = { ante: Number(el.dataset.ante), tie_bet: Number(el.dataset.tieBet) };
      stacks.ante = [];
      stacks.tie_bet = [];
      active = "ante";
      render();
    }
    syncDealButton();
    startCountdown();
    // The limits may have been swapped in (a new personal max bet): the
    // line beside the ANTE follows the tie bet on the felt.
    showWarAnteMax(amounts().tie_bet);
  }

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
    if (!deciding && roundStatus() === "open") return note(msg("msgFinish"));
    if (!deciding && amounts().ante <= 0) return note(msg("msgNoAnte"));
    const values = event.detail.formData || event.detail.parameters;
    const fields = values instanceof FormData ? values.entries() : Object.entries(values);
    const hold = deciding ? null : document.getElementById("war-deal");
    socket.send(deciding ? "decide" : "deal", fields, hold, elt);
  });
  app.addEventListener("htmx:wsAfterMessage", (event) => {
    const html = event.detail?.message;
    if (typeof html !== "string") return;
    if (html.indexOf('id="war-round"') !== -1) {
      roundSwapped();
      roundSettled();
    }
    if (html.indexOf('id="war-round"') !== -1 || html.indexOf('id="war-message"') !== -1) socket.release();
  });

  // An amount that is not one is refused with a 422 (only a forged or
  // hand-edited slip sends one); its message still goes in the message region.
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    if (event.detail?.xhr?.status === 422 && event.detail?.target?.id === "war-message") {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // The server closes the socket with 4000 when the decision time ran out.
  app.addEventListener("htmx:wsClose", (event) => {
    if (event.detail?.event?.code === 4000) leaveTable();
    // 4001: the session ended (logged out elsewhere, expired, deactivated): sign in again.
    if (event.detail?.event?.code === 4001) {
      window.location.assign(`/accounts/login/?next=${encodeURIComponent(window.location.pathname)}`);
    }
  });

  // --- the menu: settings, history, personal max bet -------------------------
  const menu = document.getElementById("war-menu");
  const showTab = (name) => {
    for (const tab of menu.querySelectorAll("[data-tab]")) {
      tab.setAttribute("aria-selected", tab.dataset.tab === name ? "true" : "false");
    }
    for (const panel of menu.querySelectorAll("[data-panel]")) {
      panel.hidden = panel.dataset.panel !== name;
    }
  };
  document.querySelector("[data-open-menu]")?.addEventListener("click", () => {
    if (!menu.open) menu.showModal();
  });
  menu.addEventListener("click", (event) => {
    const tab = event.target.closest?.("[data-tab]");
    if (tab) showTab(tab.dataset.tab);
    // A click on the backdrop (outside the box) closes the menu.
    if (event.target === menu) menu.close();
  });
  // The settings form answers with itself: apply what it now says.
  document.body.addEventListener("htmx:afterSettle", () => {
    const settings = document.getElementById("war-settings");
    if (!settings) return;
    const on = (name) => Boolean(settings.querySelector(`[name=${name}]`)?.checked);
    sound?.configure({ sound: on("sound"), effects: on("effects"), music: on("music") });
  });
  // Volume (0-100): the player's, saved with the other settings (htmx posts
  // the slider on change); the gain follows the slider as it moves.
  const volume = document.getElementById("war-volume");
  if (volume && typeof sound?.setVolume === "function") {
    sound.setVolume(Number(volume.value));
    volume.addEventListener("input", () => sound.setVolume(Number(volume.value)));
  }

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
    else if (key === "Enter" || code === "NumpadEnter") deal();
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
  startCountdown();
}
