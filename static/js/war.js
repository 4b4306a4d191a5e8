// Casino War table: building the bet with the chip rack, the shortcut keys,
// the tie decision's countdown and leaving the table when time runs out.
// The server decides everything; this only prepares the form htmx posts and
// reacts to what it swaps in.

const app = document.getElementById("war-app");
const form = document.getElementById("war-bet-form");

if (app && form) {
  const timedOutUrl = app.dataset.timedOutUrl;
  const chipUnits = 100; // limits arrive in minor units; the form sends chips
  const limits = {
    anteMin: Number(form.dataset.anteMin) / chipUnits,
    anteMax: Number(form.dataset.anteMax) / chipUnits,
    tieMax: Number(form.dataset.tieMax) / chipUnits,
    roundMax: Number(form.dataset.roundMax) / chipUnits,
  };
  const chipValues = [...form.querySelectorAll(".chip")].map((c) => Number(c.dataset.chip));
  // Each spot holds a stack of chips (values, last one on top), kept in
  // sessionStorage (slip.js) so a reload keeps the bet being built.
  const saved = window.CasinoSlip?.store(`war:${app.dataset.slug}`);
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
  // Sounds come from the shared sound.js when it is on the page.
  const sound = window.CasinoSound;
  sound?.configure({
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

  function render() {
    saved?.save(stacks);
    const bet = amounts();
    $("[data-testid=ante-amount]").textContent = fmt(bet.ante);
    $("[data-testid=tie-amount]").textContent = fmt(bet.tie_bet);
    $("#war-ante-input").value = String(bet.ante);
    $("#war-tie-input").value = String(bet.tie_bet);
    for (const spot of form.querySelectorAll(".spot")) {
      const area = spot.dataset.area;
      const on = area === active;
      spot.classList.toggle("active", on);
      spot.setAttribute("aria-pressed", on ? "true" : "false");
      const pile = spot.querySelector(".spot-chips");
      pile.replaceChildren(
        ...stacks[area].slice(-8).map((value) => {
          const disc = document.createElement("span");
          disc.className = `disc chip-${chipValues.indexOf(value) + 1}`;
          return disc;
        }),
      );
    }
    if (bet.ante > 0 && bet.ante < limits.anteMin) note(form.dataset.msgBelowMin);
  }

  function fits(next) {
    if (next.ante > limits.anteMax) return form.dataset.msgOverAnte;
    if (next.tie_bet > limits.tieMax) return form.dataset.msgOverTie;
    if (Math.max(next.ante, limits.anteMin) + next.tie_bet > limits.roundMax) {
      return form.dataset.msgOverRound;
    }
    return "";
  }

  function addChip(value) {
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
    if (!lastBet.ante) return;
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
    const tick = () => {
      const left = Math.max(0, Math.ceil((ends - performance.now()) / 1000));
      if (shown) shown.textContent = String(left);
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

  // --- the chip rack: left click adds, right click takes one off -----------
  for (const chip of form.querySelectorAll(".chip")) {
    const value = Number(chip.dataset.chip);
    chip.addEventListener("click", () => addChip(value));
    chip.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      takeChip(value);
    });
  }
  for (const spot of form.querySelectorAll(".spot")) {
    spot.addEventListener("click", () => {
      active = spot.dataset.area;
      render();
    });
    spot.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      active = spot.dataset.area;
      takeChip();
    });
  }
  $("#war-clear").addEventListener("click", clearBet);
  $("#war-repeat").addEventListener("click", repeatBet);

  // --- DEAL: checks that save a round trip; the server checks everything --
  form.addEventListener("htmx:beforeRequest", (event) => {
    if (event.target !== form) return;
    if (roundStatus() === "open") {
      note(form.dataset.msgFinish);
      event.preventDefault();
    } else if (amounts().ante <= 0) {
      note(form.dataset.msgNoAnte);
      event.preventDefault();
    }
  });

  // Sounds of what the server just swapped in: the cards, then the result.
  document.body.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail?.target?.id !== "war-round" && event.detail?.elt?.id !== "war-round") return;
    const el = roundEl();
    if (!el || el.dataset.status === "empty") return;
    play("card");
    const result = el.querySelector("[data-sound]");
    if (result) setTimeout(() => play(result.dataset.sound), 700);
  });

  document.body.addEventListener("htmx:afterSettle", () => {
    const el = roundEl();
    if (!el) return;
    if (el.dataset.status !== "empty" && el.dataset.roundId !== app.dataset.roundId) {
      // A new round was dealt: its bet (as the server took it, e.g. raised
      // to the minimum) becomes the one 0 repeats, and the spots clear.
      app.dataset.roundId = el.dataset.roundId;
      lastBet = { ante: Number(el.dataset.ante), tie_bet: Number(el.dataset.tieBet) };
      stacks.ante = [];
      stacks.tie_bet = [];
      active = "ante";
      note("");
      render();
    }
    syncDealButton();
    startCountdown();
  });

  // The server closes the socket with 4000 when the decision time ran out.
  app.addEventListener("htmx:wsClose", (event) => {
    if (event.detail?.event?.code === 4000) leaveTable();
  });

  // --- keys (seed 004): 0 repeat, Enter deal, + war, - surrender,
  //     PgDn pass, Del clear --------------------------------------------------
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
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
