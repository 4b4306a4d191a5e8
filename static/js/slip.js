/* The bet slip, held by the browser (both games use this module).

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
import { STACK_SHOWN, chipColour, dragChips, rackArrows } from "./chips.js";
import { sound } from "./sound.js";

  var UNITS = 100;
  var MULTIPLIERS = [1, 10, 100];

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID().replace(/-/g, "");
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function pad2(n) { return (n < 10 ? "0" : "") + n; }

  // 1234 -> "12.34", 123400 -> "1,234": cents only when there are some.
  function formatChips(units) {
    var sign = units < 0 ? "-" : "";
    units = Math.abs(Math.round(units));
    var cents = units % UNITS;
    var text = Math.floor(units / UNITS).toLocaleString("en-US");
    return sign + text + (cents ? "." + pad2(cents) : "");
  }

  // The number a form field carries: chips, with cents when there are some.
  function chipsField(units) {
    if (!units) return "";
    var cents = units % UNITS;
    return Math.floor(units / UNITS) + (cents ? "." + pad2(cents) : "");
  }

  // A chip's face from its value in units: 0.1, 5, 1K, 2.5K, 1M.
  function chipLabel(units) {
    var chips = units / UNITS;
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
    var el = document.getElementById(id);
    try { return JSON.parse(el ? el.textContent : "{}") || {}; } catch (e) { return {}; }
  }

  function BetSlip(form) {
    this.form = form;
    this.storageKey = "slip:" + form.dataset.slipTable;
    this.chips = Array.prototype.map.call(form.querySelectorAll("[data-slip-chip]"), function (input) {
      return Number(input.dataset.slipChip);
    });
    var saved = {};
    try { saved = JSON.parse(window.sessionStorage.getItem(this.storageKey) || "null") || {}; } catch (e) { saved = {}; }
    var areas = this.limits().areas || {};
    this.stacks = {};
    for (var area in saved.stacks || {}) {
      var stack = (saved.stacks[area] || []).filter(function (v) { return Number.isInteger(v) && v > 0; });
      if (areas[area] && stack.length) this.stacks[area] = stack;
    }
    this.key = typeof saved.key === "string" && saved.key ? saved.key : newKey();
    this.chip = this.chips.indexOf(saved.chip) !== -1 ? saved.chip : this.chips[0];
    this.mult = MULTIPLIERS.indexOf(saved.mult) !== -1 ? saved.mult : 1;
    this.placed = null; // the stakes of the round just bet: shown until the next bet starts
    this.removing = false;
  }

  // The balance a chip is checked against is the one the table shows
  // (#bac-wallet, swapped by the reveal's deal and result), not BET's answer.
  BetSlip.prototype.limits = function () {
    var limits = readJson("bac-slip-limits");
    var wallet = document.getElementById("bac-wallet");
    if (limits && wallet && wallet.dataset.balance) limits.balance = Number(wallet.dataset.balance);
    return limits;
  };

  BetSlip.prototype.bets = function () {
    var out = {};
    for (var area in this.stacks) {
      var amount = sum(this.stacks[area]);
      if (amount) out[area] = amount;
    }
    return out;
  };

  // What BET sends: the slip being built, or (when it is empty) the stakes on the felt again.
  BetSlip.prototype.toSend = function () {
    var bets = this.bets();
    if (!Object.keys(bets).length && this.placed) return Object.assign({}, this.placed);
    return bets;
  };

  BetSlip.prototype.total = function (bets) {
    var all = 0;
    for (var area in bets) all += bets[area];
    return all;
  };

  BetSlip.prototype.revealing = function () {
    var phase = document.getElementById("bac-phase");
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
    var box = document.getElementById("bac-slip-msg");
    if (!box) return;
    box.replaceChildren();
    if (!text) return;
    var p = document.createElement("p");
    p.className = "slip-msg " + kind;
    p.setAttribute("role", kind === "error" ? "alert" : "status");
    p.dataset.testid = kind === "error" ? "slip-error" : "slip-note";
    p.textContent = text;
    box.appendChild(p);
  };

  BetSlip.prototype.label = function (area) {
    var el = this.form.querySelector('[data-area="' + area + '"]');
    return el ? el.dataset.label : area;
  };

  // Why ``bets`` cannot be the slip, or "" when it can.
  BetSlip.prototype.refusal = function (bets) {
    var limits = this.limits();
    var d = this.form.dataset;
    var total = 0;
    for (var area in bets) {
      var range = (limits.areas || {})[area];
      if (!range) return "?";
      if (bets[area] > range[1]) return fill(d.msgAreaMax, { area: this.label(area), max: formatChips(range[1]) });
      total += bets[area];
    }
    if (bets.player && bets.banker) return d.msgBoth;
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
    var units = (value || this.chip) * this.mult;
    var next = this.bets();
    next[area] = (next[area] || 0) + units;
    var why = this.refusal(next);
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
    var stack = this.stacks[area];
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
    var denoms = this.denominations().slice().reverse();
    var out = {};
    for (var area in bets) {
      var left = bets[area];
      var stack = [];
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
    var data = readJson("bac-rebet");
    if (!Object.keys(data.once || {}).length) {
      this.message("error", this.form.dataset.msgNoRebet);
      return;
    }
    this.startNew();
    this.stacks = this.asStacks(data[which] || {});
    var capped = data[which + "_capped"];
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
    var out = [];
    this.chips.forEach(function (chip) {
      MULTIPLIERS.forEach(function (m) { if (out.indexOf(chip * m) === -1) out.push(chip * m); });
    });
    return out.sort(function (a, b) { return a - b; });
  };

  // The chips drawn on an area: its own chips (the last STACK_SHOWN), or the
  // largest chips that make up an amount (the stakes of a round already bet).
  BetSlip.prototype.discs = function (area) {
    var denoms = this.denominations();
    var values;
    if (this.placed && !Object.keys(this.stacks).length) {
      values = (this.asStacks({ x: this.placed[area] || 0 }).x || []);
    } else {
      values = this.stacks[area] || [];
    }
    return values.slice(-STACK_SHOWN).map(function (value) {
      return { value: value, colour: chipColour(value, denoms) };
    });
  };

  // The most one more chip could add anywhere, and the least an area takes.
  BetSlip.prototype.room = function () {
    var limits = this.limits();
    var bets = this.placed && !Object.keys(this.stacks).length ? {} : this.bets();
    var total = this.total(bets);
    var left = Math.min(limits.max_bet - total, limits.balance - total);
    var most = 0;
    var least = Infinity;
    for (var area in limits.areas || {}) {
      var range = limits.areas[area];
      least = Math.min(least, range[0]);
      if ((area === "player" && bets.banker) || (area === "banker" && bets.player)) continue;
      most = Math.max(most, Math.min(range[1] - (bets[area] || 0), left));
    }
    return { most: most, least: least === Infinity ? 0 : least };
  };

  BetSlip.prototype.render = function () {
    var self = this;
    var building = this.bets();
    var shown = Object.keys(building).length || !this.placed ? building : this.placed;
    var sending = this.toSend();
    var locked = !!this.placed && !Object.keys(building).length;
    this.form.classList.toggle("slip-locked", locked);
    this.form.classList.toggle("removing", this.removing);
    this.form.querySelectorAll("[data-slip-amount]").forEach(function (input) {
      input.value = chipsField(sending[input.dataset.slipAmount] || 0);
    });
    this.form.querySelectorAll("[data-slip-stack]").forEach(function (box) {
      var area = box.dataset.slipStack;
      var amount = shown[area] || 0;
      box.classList.toggle("has-bet", amount > 0);
      box.closest(".area").classList.toggle("staked", amount > 0);
      var pile = box.querySelector(".stack");
      pile.replaceChildren.apply(pile, self.discs(area).map(function (chip, i) {
        var disc = document.createElement("span");
        disc.className = "chip chip-c" + chip.colour;
        disc.style.setProperty("--i", i);
        disc.textContent = chipLabel(chip.value);
        return disc;
      }));
      box.querySelector(".area-amount").textContent = amount ? formatChips(amount) : "";
    });
    var denoms = this.denominations();
    var room = this.room();
    this.form.querySelectorAll("[data-slip-chip]").forEach(function (input) {
      var base = Number(input.dataset.slipChip);
      var value = base * self.mult;
      input.checked = base === self.chip;
      var face = input.parentElement.querySelector(".chip");
      face.textContent = chipLabel(value);
      face.className = "chip chip-c" + chipColour(value, denoms);
      var unavailable = value > room.most || value < room.least;
      input.parentElement.classList.toggle("unavailable", unavailable);
      input.parentElement.setAttribute("aria-disabled", unavailable ? "true" : "false");
    });
    var mult = this.form.querySelector("[data-slip-mult]");
    if (mult) mult.textContent = "×" + this.mult;
    var remove = this.form.querySelector("[data-slip-remove]");
    if (remove) remove.setAttribute("aria-pressed", this.removing ? "true" : "false");
    var key = this.form.querySelector("[data-slip-key]");
    if (key) key.value = this.key;
    var total = this.total(shown);
    var totalEl = document.getElementById("bac-bet-total");
    if (totalEl) {
      totalEl.dataset.total = String(total);
      totalEl.textContent = formatChips(total);
    }
    this.renderSqueeze(sending);
    this.renderArrows();
    this.save();
  };

  // The SQUEEZE toggle says plainly whether the squeeze is there this round, and why.
  BetSlip.prototype.renderSqueeze = function (bets) {
    var toggle = document.getElementById("bac-squeeze-toggle");
    if (!toggle) return;
    var total = this.total(bets);
    var byPromo = toggle.dataset.byPromo === "1";
    var unlocked = byPromo || total >= Number(toggle.dataset.threshold || 0);
    var side = !!(bets.player || bets.banker);
    var on = toggle.dataset.on === "1";
    toggle.dataset.unlocked = unlocked ? "1" : "0";
    toggle.classList.toggle("unlocked", unlocked);
    toggle.classList.toggle("locked", !unlocked);
    var state = toggle.querySelector(".squeeze-state");
    if (state) state.textContent = unlocked ? (on ? state.dataset.onText : state.dataset.offText) : "";
    var lock = toggle.querySelector(".squeeze-lock");
    if (!lock) return;
    var d = toggle.dataset;
    if (!unlocked) lock.textContent = d.textLocked;
    else if (total && !side) lock.textContent = d.textSide;
    else if (byPromo) lock.textContent = d.textPromo;
    else lock.textContent = on ? d.textOn : d.textOff;
  };

  // Arrows on the rack when it holds more chips than fit (chips.js draws them).
  BetSlip.prototype.renderArrows = function () {
    if (this.drawArrows) this.drawArrows();
  };

  function store(name) {
    var key = "slip:" + name;
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

  // The Baccarat table's slip (War builds its bet in war.js with store()).
  function start(form) {
  var slip = new BetSlip(form);
  var sent = null;

  form.addEventListener("click", function (evt) {
    var area = evt.target.closest("[data-slip-area]");
    if (area) { slip.add(area.dataset.slipArea); return; }
    if (evt.target.closest("[data-slip-mult]")) { slip.cycleMultiplier(); return; }
    if (evt.target.closest("[data-slip-clear]")) { slip.clear(); return; }
    if (evt.target.closest("[data-slip-new]")) { slip.newBet(); return; }
    if (evt.target.closest("[data-slip-remove]")) { slip.removing = !slip.removing; slip.render(); return; }
    var rebet = evt.target.closest("[data-slip-rebet]");
    if (rebet) slip.rebet(rebet.dataset.slipRebet);
  });
  form.addEventListener("change", function (evt) {
    if (evt.target.matches("[data-slip-chip]")) {
      slip.chip = Number(evt.target.dataset.slipChip);
      slip.removing = false;
      slip.render();
    }
  });
  var strip = form.querySelector("[data-rack-chips]");
  if (strip) slip.drawArrows = rackArrows(strip, form.querySelectorAll("[data-rack-scroll]"));
  // A chip dragged (mouse) or swiped (touch) from the rack lands on the area under the pointer.
  dragChips({
    root: form,
    chip: "[data-chip-drag]",
    valueOf: function (face) { return Number(face.dataset.chipDrag); },
    targetAt: function (el) {
      var area = el.closest("[data-area]");
      return area && form.contains(area) ? area : null;
    },
    drop: function (area, value) {
      slip.chip = value;
      if (slip.add(area.dataset.area)) sound.play("chip");
      // The click that ends a drag lands on the common ancestor of the chip
      // and the area (no chip, no area): it selects and adds nothing.
      window.setTimeout(function () { slip.render(); }, 0);
    },
  });

  // The toggle and the squeeze stage are swapped by htmx: draw the slip's state on them again.
  document.addEventListener("htmx:afterSettle", function () { slip.render(); });
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail.elt;
    if (elt && elt.matches && elt.matches(".bet-button")) sent = slip.toSend();
  });
  document.addEventListener("htmx:afterRequest", function (evt) {
    var elt = evt.detail.elt;
    if (!elt || !elt.matches || !elt.matches(".bet-button") || !evt.detail.successful) return;
    var text = evt.detail.xhr ? evt.detail.xhr.responseText : "";
    if (text.indexOf('id="bac-placed"') !== -1) slip.spent(sent || {});
  });
  // BET over the table's socket (baccarat.js): its answer is a message, and
  // what the socket swaps (the toggle, the squeeze stage) is drawn again.
  document.addEventListener("htmx:wsAfterMessage", function (evt) {
    var text = evt.detail && evt.detail.message;
    if (typeof text === "string" && text.indexOf('id="bac-placed"') !== -1) slip.spent(sent || {});
    else slip.render();
  });
  slip.render();
  // The chosen chip (kept over a reload) starts in sight, not behind an arrow.
  var chosen = form.querySelector("[data-slip-chip]:checked");
  var pick = chosen && chosen.closest(".chip-pick");
  if (strip && pick) {
    var over = pick.getBoundingClientRect().right - strip.getBoundingClientRect().right;
    if (over > 0) strip.scrollLeft += over + 4;
  }
  }

  var slipForm = document.querySelector("form[data-slip-table]");
  if (slipForm) start(slipForm);
