/* The bet slip, held by the browser. It knows no game: the table that
   starts one names the elements it reads and writes (``ids``), the areas
   that cannot be bet together (``exclusive``) and what else follows the
   slip as it changes (``afterRender``); Baccarat's start-up is baccarat.js,
   and War keeps its bet with ``store``.

   The chips a player puts down live here: on the felt at once, kept in
   sessionStorage so a reload keeps them, and sent whole with BET. Each chip
   is checked against the table's limits as it goes down, for quick
   feedback only: the server checks the whole slip again at BET and its
   word is final. Amounts are minor units (1 chip = 100).

   After BET the stakes stay on the felt (locked) through the reveal and
   with their results once it ends; the next chip, NEW BET or BET takes
   them back to the rack. Chips go down by a click or tap on an area, or by
   dragging (mouse) or swiping (touch) a chip from the rack onto one; the
   REMOVE tool takes the last chip off an area per click. */
import { STACK_SHOWN, chipColour } from "./chips.js";

const UNITS = 100;
const MULTIPLIERS = [1, 10, 100];

function newKey() {
  if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID().replace(/-/g, "");
  const bytes = new Uint8Array(16);
  window.crypto.getRandomValues(bytes);
  return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
}

function pad2(n) { return (n < 10 ? "0" : "") + n; }

// 1234 -> "12.34", 123400 -> "1,234": cents only when there are some.
function formatChips(units) {
  const sign = units < 0 ? "-" : "";
  units = Math.abs(Math.round(units));
  const cents = units % UNITS;
  const text = Math.floor(units / UNITS).toLocaleString("en-US");
  return sign + text + (cents ? "." + pad2(cents) : "");
}

// The number a form field carries: chips, with cents when there are some.
function chipsField(units) {
  if (!units) return "";
  const cents = units % UNITS;
  return Math.floor(units / UNITS) + (cents ? "." + pad2(cents) : "");
}

// A chip's face from its value in units: 0.1, 5, 1K, 2.5K, 1M.
function chipLabel(units) {
  const chips = units / UNITS;
  if (chips >= 1000000 && chips % 100000 === 0) return chips / 1000000 + "M";
  if (chips >= 1000 && chips % 100 === 0) return chips / 1000 + "K";
  if (units % UNITS) return String(Math.round(units) / UNITS);
  return chips.toLocaleString("en-US");
}

function fill(template, values) {
  return (template || "").replace(/%\((\w+)\)s/g, function (_, name) { return values[name]; });
}

function sum(list) {
  return list.reduce(function (a, b) { return a + b; }, 0);
}

function readJson(id) {
  const el = document.getElementById(id);
  try { return JSON.parse(el ? el.textContent : "{}") || {}; } catch (e) { return {}; }
}

// options.ids: the elements of the table's page the slip uses, by id:
//   limits and rebet (JSON the server writes), wallet (data-balance),
//   phase (data-phase "revealing" while a round is shown), message, total.
// options.exclusive: pairs of areas one slip cannot hold both of.
// options.afterRender(slip, bets): what else follows the slip (bets: what BET would send).
function BetSlip(form, options) {
  this.form = form;
  this.ids = options.ids;
  this.exclusive = options.exclusive || [];
  this.afterRender = options.afterRender || function () {};
  this.storageKey = "slip:" + form.dataset.slipTable;
  this.chips = Array.prototype.map.call(form.querySelectorAll("[data-slip-chip]"), function (input) {
    return Number(input.dataset.slipChip);
  });
  let saved = {};
  try { saved = JSON.parse(window.sessionStorage.getItem(this.storageKey) || "null") || {}; } catch (e) { saved = {}; }
  const areas = this.limits().areas || {};
  this.stacks = {};
  for (const area in saved.stacks || {}) {
    const stack = (saved.stacks[area] || []).filter(function (v) { return Number.isInteger(v) && v > 0; });
    if (areas[area] && stack.length) this.stacks[area] = stack;
  }
  this.key = typeof saved.key === "string" && saved.key ? saved.key : newKey();
  this.chip = this.chips.indexOf(saved.chip) !== -1 ? saved.chip : this.chips[0];
  this.mult = MULTIPLIERS.indexOf(saved.mult) !== -1 ? saved.mult : 1;
  this.placed = null; // the stakes of the round just bet: shown until the next bet starts
  this.removing = false;
}

// The balance a chip is checked against is the one the table shows (the
// wallet, swapped by the reveal's deal and result), not BET's answer.
BetSlip.prototype.limits = function () {
  const limits = readJson(this.ids.limits);
  const wallet = document.getElementById(this.ids.wallet);
  if (limits && wallet && wallet.dataset.balance) limits.balance = Number(wallet.dataset.balance);
  return limits;
};

BetSlip.prototype.bets = function () {
  const out = {};
  for (const area in this.stacks) {
    const amount = sum(this.stacks[area]);
    if (amount) out[area] = amount;
  }
  return out;
};

// What BET sends: the slip being built, or (when it is empty) the stakes on the felt again.
BetSlip.prototype.toSend = function () {
  const bets = this.bets();
  if (!Object.keys(bets).length && this.placed) return Object.assign({}, this.placed);
  return bets;
};

BetSlip.prototype.total = function (bets) {
  let all = 0;
  for (const area in bets) all += bets[area];
  return all;
};

BetSlip.prototype.revealing = function () {
  const phase = document.getElementById(this.ids.phase);
  return !!phase && phase.dataset.phase === "revealing";
};

BetSlip.prototype.save = function () {
  try {
    window.sessionStorage.setItem(this.storageKey, JSON.stringify({
      key: this.key, stacks: this.stacks, chip: this.chip, mult: this.mult,
    }));
  } catch (e) { /* private mode: the slip still works for this page */ }
};

BetSlip.prototype.message = function (kind, text) {
  const box = document.getElementById(this.ids.message);
  if (!box) return;
  box.replaceChildren();
  if (!text) return;
  const p = document.createElement("p");
  p.className = "slip-msg " + kind;
  p.setAttribute("role", kind === "error" ? "alert" : "status");
  p.dataset.testid = kind === "error" ? "slip-error" : "slip-note";
  p.textContent = text;
  box.appendChild(p);
};

BetSlip.prototype.label = function (area) {
  const el = this.form.querySelector('[data-area="' + area + '"]');
  return el ? el.dataset.label : area;
};

// Why ``bets`` cannot be the slip, or "" when it can.
BetSlip.prototype.refusal = function (bets) {
  const limits = this.limits();
  const d = this.form.dataset;
  let total = 0;
  for (const area in bets) {
    const range = (limits.areas || {})[area];
    if (!range) return "?";
    if (bets[area] > range[1]) return fill(d.msgAreaMax, { area: this.label(area), max: formatChips(range[1]) });
    total += bets[area];
  }
  if (this.exclusive.some(function (pair) { return bets[pair[0]] && bets[pair[1]]; })) return d.msgBoth;
  if (total > limits.max_bet) return fill(d.msgMaxBet, { max: formatChips(limits.max_bet) });
  if (total > limits.balance) {
    return fill(d.msgBalance, { total: formatChips(total), balance: formatChips(limits.balance) });
  }
  return "";
};

// The stakes of the last round go back to the rack; a new slip starts.
BetSlip.prototype.startNew = function () {
  if (!this.placed) return;
  this.placed = null;
  document.querySelectorAll(".area-outcome").forEach(function (el) {
    el.classList.remove("show", "outcome-won", "outcome-lost", "outcome-push");
    el.removeAttribute("data-outcome");
    el.textContent = "";
  });
};

BetSlip.prototype.add = function (area, value) {
  if (this.revealing()) return false;
  if (this.removing) return this.takeOff(area);
  this.startNew();
  const units = (value || this.chip) * this.mult;
  const next = this.bets();
  next[area] = (next[area] || 0) + units;
  const why = this.refusal(next);
  if (why) {
    this.message("error", why);
    this.render();
    return false;
  }
  (this.stacks[area] = this.stacks[area] || []).push(units);
  this.message("", "");
  this.render();
  return true;
};

BetSlip.prototype.takeOff = function (area) {
  const stack = this.stacks[area];
  if (!stack || !stack.length) return false;
  stack.pop();
  if (!stack.length) delete this.stacks[area];
  this.message("", "");
  this.render();
  return true;
};

BetSlip.prototype.clear = function () {
  if (this.revealing()) return;
  this.stacks = {};
  this.message("", "");
  this.render();
};

// NEW BET: the felt is cleared (the slip and the last round's stakes); REBET is kept.
BetSlip.prototype.newBet = function () {
  if (this.revealing()) return;
  this.startNew();
  this.clear();
};

BetSlip.prototype.asStacks = function (bets) {
  const denoms = this.denominations().slice().reverse();
  const out = {};
  for (const area in bets) {
    let left = bets[area];
    const stack = [];
    denoms.forEach(function (value) {
      while (left >= value) { stack.push(value); left -= value; }
    });
    if (left > 0) stack.push(left);
    out[area] = stack.reverse();
  }
  return out;
};

BetSlip.prototype.rebet = function (which) {
  if (this.revealing()) return;
  const data = readJson(this.ids.rebet);
  if (!Object.keys(data.once || {}).length) {
    this.message("error", this.form.dataset.msgNoRebet);
    return;
  }
  this.startNew();
  this.stacks = this.asStacks(data[which] || {});
  const capped = data[which + "_capped"];
  this.message(capped ? "note" : "", capped ? this.form.dataset.msgCapped : "");
  this.render();
};

// BET was answered with a round: its stakes stay on the felt; the next slip gets a new key.
BetSlip.prototype.spent = function (sent) {
  this.placed = sent;
  this.stacks = {};
  this.key = newKey();
  this.removing = false;
  this.render();
};

BetSlip.prototype.cycleMultiplier = function () {
  this.mult = MULTIPLIERS[(MULTIPLIERS.indexOf(this.mult) + 1) % MULTIPLIERS.length];
  this.render();
};

BetSlip.prototype.denominations = function () {
  const out = [];
  this.chips.forEach(function (chip) {
    MULTIPLIERS.forEach(function (m) { if (out.indexOf(chip * m) === -1) out.push(chip * m); });
  });
  return out.sort(function (a, b) { return a - b; });
};

// The chips drawn on an area: its own chips (the last STACK_SHOWN), or the
// largest chips that make up an amount (the stakes of a round already bet).
BetSlip.prototype.discs = function (area) {
  const denoms = this.denominations();
  let values;
  if (this.placed && !Object.keys(this.stacks).length) {
    values = (this.asStacks({ x: this.placed[area] || 0 }).x || []);
  } else {
    values = this.stacks[area] || [];
  }
  return values.slice(-STACK_SHOWN).map(function (value) {
    return { value: value, colour: chipColour(value, denoms) };
  });
};

// Whether ``area`` cannot take a chip beside ``bets`` (its pair is bet).
BetSlip.prototype.excluded = function (area, bets) {
  return this.exclusive.some(function (pair) {
    const at = pair.indexOf(area);
    return at !== -1 && !!bets[pair[1 - at]];
  });
};

// The most one more chip could add anywhere, and the least an area takes.
BetSlip.prototype.room = function () {
  const limits = this.limits();
  const bets = this.placed && !Object.keys(this.stacks).length ? {} : this.bets();
  const total = this.total(bets);
  const left = Math.min(limits.max_bet - total, limits.balance - total);
  let most = 0;
  let least = Infinity;
  for (const area in limits.areas || {}) {
    const range = limits.areas[area];
    least = Math.min(least, range[0]);
    if (this.excluded(area, bets)) continue;
    most = Math.max(most, Math.min(range[1] - (bets[area] || 0), left));
  }
  return { most: most, least: least === Infinity ? 0 : least };
};

BetSlip.prototype.render = function () {
  const self = this;
  const building = this.bets();
  const shown = Object.keys(building).length || !this.placed ? building : this.placed;
  const sending = this.toSend();
  const locked = !!this.placed && !Object.keys(building).length;
  this.form.classList.toggle("slip-locked", locked);
  this.form.classList.toggle("removing", this.removing);
  this.form.querySelectorAll("[data-slip-amount]").forEach(function (input) {
    input.value = chipsField(sending[input.dataset.slipAmount] || 0);
  });
  this.form.querySelectorAll("[data-slip-stack]").forEach(function (box) {
    const area = box.dataset.slipStack;
    const amount = shown[area] || 0;
    box.classList.toggle("has-bet", amount > 0);
    box.closest(".area").classList.toggle("staked", amount > 0);
    const pile = box.querySelector(".stack");
    pile.replaceChildren.apply(pile, self.discs(area).map(function (chip, i) {
      const disc = document.createElement("span");
      disc.className = "chip chip-c" + chip.colour;
      disc.style.setProperty("--i", i);
      disc.textContent = chipLabel(chip.value);
      return disc;
    }));
    box.querySelector(".area-amount").textContent = amount ? formatChips(amount) : "";
  });
  const denoms = this.denominations();
  const room = this.room();
  this.form.querySelectorAll("[data-slip-chip]").forEach(function (input) {
    const base = Number(input.dataset.slipChip);
    const value = base * self.mult;
    input.checked = base === self.chip;
    const face = input.parentElement.querySelector(".chip");
    face.textContent = chipLabel(value);
    face.className = "chip chip-c" + chipColour(value, denoms);
    const unavailable = value > room.most || value < room.least;
    input.parentElement.classList.toggle("unavailable", unavailable);
    input.parentElement.setAttribute("aria-disabled", unavailable ? "true" : "false");
  });
  const mult = this.form.querySelector("[data-slip-mult]");
  if (mult) mult.textContent = "×" + this.mult;
  const remove = this.form.querySelector("[data-slip-remove]");
  if (remove) remove.setAttribute("aria-pressed", this.removing ? "true" : "false");
  const key = this.form.querySelector("[data-slip-key]");
  if (key) key.value = this.key;
  const total = this.total(shown);
  const totalEl = document.getElementById(this.ids.total);
  if (totalEl) {
    totalEl.dataset.total = String(total);
    totalEl.textContent = formatChips(total);
  }
  this.afterRender(this, sending);
  this.renderArrows();
  this.save();
};

// Arrows on the rack when it holds more chips than fit (chips.js draws them).
BetSlip.prototype.renderArrows = function () {
  if (this.drawArrows) this.drawArrows();
};

function store(name) {
  const key = "slip:" + name;
  return {
    load: function () {
      try { return JSON.parse(window.sessionStorage.getItem(key) || "null"); } catch (e) { return null; }
    },
    save: function (value) {
      try { window.sessionStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ }
    },
  };
}

export { BetSlip, formatChips, chipLabel, store };
