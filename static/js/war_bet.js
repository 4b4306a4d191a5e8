// The Casino War bet being built on the felt: a stack of chips on ANTE and
// one on TIE BONUS (values in chips, the last one on top), kept in
// sessionStorage (slip.js's store) so a reload keeps them, checked against
// the table's limits as each chip goes down (for quick feedback only: the
// server checks the whole bet again at DEAL and its word is final), and
// drawn on the empty spots as the server draws a round's stakes.

import { STACK_SHOWN } from "./chips.js";
import { chipLabel, store } from "./slip.js";

const UNITS = 100; // limits arrive in minor units; the form sends chips
const fmt = (n) => n.toLocaleString("en-US");
const sum = (stack) => stack.reduce((a, b) => a + b, 0);

// The limits are read afresh each time: the menu's max bet swaps them in.
const limitsEl = () => document.getElementById("war-limits");

export class WarBet {
  constructor(form, slug) {
    this.form = form;
    const chips = [...form.querySelectorAll(".chip")];
    this.chipValues = chips.map((c) => Number(c.dataset.chip));
    this.colourOf = Object.fromEntries(chips.map((c) => [Number(c.dataset.chip), c.dataset.colour]));
    this.saved = store(`war:${slug}`);
    const restored = this.saved.load() || {};
    const valid = (stack) =>
      Array.isArray(stack) ? stack.filter((v) => this.chipValues.includes(v)) : [];
    this.stacks = { ante: valid(restored.ante), tie_bet: valid(restored.tie_bet) };
    this.active = "ante"; // the spot a chip from the rack goes on
    // What 0 (REPEAT) puts down again: the last round's bet as the server took it.
    this.last = {
      ante: Number(form.dataset.lastAnte || 0) / UNITS,
      tie_bet: Number(form.dataset.lastTieBet || 0) / UNITS,
    };
  }

  amounts() {
    return { ante: sum(this.stacks.ante), tie_bet: sum(this.stacks.tie_bet) };
  }

  // A message of the table: the limits' (swapped with them) or the form's.
  message(name) {
    return limitsEl()?.dataset[name] || this.form.dataset[name] || "";
  }

  limits() {
    const d = limitsEl()?.dataset || {};
    return {
      anteMin: Number(d.anteMin || 0) / UNITS,
      anteMax: Number(d.anteMax || 0) / UNITS,
      tieMax: Number(d.tieMax || 0) / UNITS,
      roundMax: Number(d.roundMax || 0) / UNITS,
    };
  }

  // The largest ante that can still go to war beside this tie bet: the MAX
  // BET bounds the ante, the tie bet and the raise (the server's
  // rounds.BetLimits.largest_staked_again, in whole steps); 0 when none can.
  warAnteMax(tieBet) {
    const d = limitsEl()?.dataset || {};
    const step = Number(d.step || UNITS);
    const tie = Math.round(tieBet * UNITS);
    let most = Math.min(Number(d.anteMax || 0), Math.floor((Number(d.roundMax || 0) - tie) / 2));
    most -= most % step;
    return most >= Math.max(Number(d.anteMin || 0), step) ? most / UNITS : 0;
  }

  // Why ``next`` cannot be the bet, or "" when it can.
  refusal(next) {
    const l = this.limits();
    if (next.ante > l.anteMax) return this.message("msgOverAnte");
    if (next.tie_bet > l.tieMax) return this.message("msgOverTie");
    const ante = next.ante ? Math.max(next.ante, l.anteMin) : 0;
    if (ante + next.tie_bet > l.roundMax) return this.message("msgOverRound");
    if (2 * ante + next.tie_bet > l.roundMax) return this.overWar(next.tie_bet);
    return "";
  }

  overWar(tieBet) {
    const most = this.warAnteMax(tieBet);
    return this.message(most ? "msgOverWar" : "msgNoWar")
      .replace("%(max)s", fmt(this.limits().roundMax))
      .replace("%(area)s", spotName("ante"))
      .replace("%(most)s", fmt(most));
  }

  // One chip on the active spot; the refusal when it does not fit.
  add(value) {
    const next = this.amounts();
    next[this.active] += value;
    const refusal = this.refusal(next);
    if (!refusal) this.stacks[this.active].push(value);
    return refusal;
  }

  // One chip of ``value`` off the active spot (its top chip without one).
  take(value) {
    const stack = this.stacks[this.active];
    const at = value === undefined ? stack.length - 1 : stack.lastIndexOf(value);
    if (at >= 0) stack.splice(at, 1);
  }

  clear() {
    this.stacks.ante = [];
    this.stacks.tie_bet = [];
  }

  // The last round's bet again, as the fewest chips of the rack; the refusal when it does not fit.
  repeat() {
    const refusal = this.refusal(this.last);
    if (refusal) return refusal;
    this.stacks.ante = this.asChips(this.last.ante);
    this.stacks.tie_bet = this.asChips(this.last.tie_bet);
    return "";
  }

  asChips(amount) {
    const out = [];
    for (const value of [...this.chipValues].sort((a, b) => b - a)) {
      while (amount >= value) {
        out.push(value);
        amount -= value;
      }
    }
    return out.reverse();
  }

  // A round was dealt with ``bet`` (chips): it is what REPEAT puts down next.
  spent(bet) {
    this.last = bet;
    this.clear();
    this.active = "ante";
  }

  // The chips of a stack, drawn as the server draws a round's stakes.
  discs(stack) {
    return stack.slice(-STACK_SHOWN).map((value, i, shown) => {
      const disc = document.createElement("span");
      // The rack's colour for this value (the server's chip_colour, shared by both games).
      disc.className = `disc chip-c${this.colourOf[value] ?? 0}`;
      disc.style.setProperty("--i", String(i));
      if (i === shown.length - 1) disc.textContent = chipLabel(value * UNITS);
      return disc;
    });
  }

  // The form's fields, the total and (on an empty table) the spots; the
  // line beside the ANTE limits follows the tie bet.
  render(tableEmpty, note) {
    this.saved.save(this.stacks);
    const bet = this.amounts();
    document.getElementById("war-ante-input").value = String(bet.ante);
    document.getElementById("war-tie-input").value = String(bet.tie_bet);
    const total = bet.ante + bet.tie_bet;
    document.getElementById("war-bet-total").textContent = total ? fmt(total) : "";
    if (tableEmpty) {
      for (const spot of document.querySelectorAll("#war-round .spot")) {
        const area = spot.dataset.area;
        const on = area === this.active;
        if (!spot.dataset.fixed) spot.setAttribute("aria-pressed", on ? "true" : "false");
        spot.classList.toggle("active", on);
        const stack = this.stacks[area] || [];
        spot.classList.toggle("has-bet", stack.length > 0);
        spot.querySelector(".stack").replaceChildren(...this.discs(stack));
        spot.querySelector(".spot-amount").textContent = stack.length ? fmt(sum(stack)) : "";
      }
    }
    if (bet.ante > 0 && bet.ante < this.limits().anteMin) note(this.message("msgBelowMin"));
    this.showWarAnteMax();
  }

  showWarAnteMax() {
    const hint = document.querySelector('#war-limits [data-testid="war-ante-hint"]');
    if (!hint) return;
    const most = this.warAnteMax(this.amounts().tie_bet);
    hint.querySelector('[data-war-hint="some"]').hidden = !most;
    hint.querySelector('[data-war-hint="none"]').hidden = Boolean(most);
    if (most) document.getElementById("war-ante-most").textContent = fmt(most);
  }
}

function spotName(area) {
  return (
    document.querySelector(`#war-round .spot[data-area="${area}"] .spot-name`)?.textContent.trim() ||
    area
  );
}
