/* The bet slip, held by the browser (both games use this module).

   The chips a player puts down live here: on the felt at once, kept in
   sessionStorage so a reload keeps them, and sent whole with BET. Each chip
   is checked against the table's limits as it goes down, for quick
   feedback only: the server checks the whole slip again at BET and its
   word is final. Amounts are minor units (1 chip = 100). */
(function () {
  "use strict";

  var UNITS = 100;
  var MULTIPLIERS = [1, 10, 100];
  var STACK_SHOWN = 5;

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID().replace(/-/g, "");
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  // 1234 -> "12.34", 123400 -> "1,234": cents only when there are some.
  function formatChips(units) {
    var sign = units < 0 ? "-" : "";
    units = Math.abs(Math.round(units));
    var whole = Math.floor(units / UNITS);
    var cents = units % UNITS;
    var text = whole.toLocaleString("en-US");
    if (cents) text += "." + (cents < 10 ? "0" : "") + cents;
    return sign + text;
  }

  // The number a form field carries: chips, with cents when there are some.
  function chipsField(units) {
    if (!units) return "";
    var cents = units % UNITS;
    return Math.floor(units / UNITS) + (cents ? "." + (cents < 10 ? "0" : "") + cents : "");
  }

  function chipLabel(value) {
    if (value >= 1000000 && value % 100000 === 0) return value / 1000000 + "M";
    if (value >= 1000 && value % 100 === 0) return value / 1000 + "K";
    return value.toLocaleString("en-US");
  }

  function fill(template, values) {
    return (template || "").replace(/%\((\w+)\)s/g, function (_, name) { return values[name]; });
  }

  function BetSlip(form) {
    this.form = form;
    this.storageKey = "slip:" + form.dataset.slipTable;
    this.chips = Array.prototype.map.call(form.querySelectorAll("[data-slip-chip]"), function (input) {
      return Number(input.dataset.slipChip);
    });
    var saved = null;
    try { saved = JSON.parse(window.sessionStorage.getItem(this.storageKey) || "null"); } catch (e) { saved = null; }
    saved = saved || {};
    this.bets = {};
    var areas = this.limits().areas || {};
    for (var area in saved.bets || {}) {
      var amount = Number(saved.bets[area]);
      if (areas[area] && amount > 0 && Math.floor(amount) === amount) this.bets[area] = amount;
    }
    this.key = typeof saved.key === "string" && saved.key ? saved.key : newKey();
    this.chip = this.chips.indexOf(saved.chip) !== -1 ? saved.chip : this.chips[0];
    this.mult = MULTIPLIERS.indexOf(saved.mult) !== -1 ? saved.mult : 1;
  }

  BetSlip.prototype.limits = function () {
    var el = document.getElementById("bac-slip-limits");
    try { return JSON.parse(el ? el.textContent : "{}"); } catch (e) { return {}; }
  };

  BetSlip.prototype.total = function () {
    var sum = 0;
    for (var area in this.bets) sum += this.bets[area];
    return sum;
  };

  BetSlip.prototype.save = function () {
    try {
      window.sessionStorage.setItem(this.storageKey, JSON.stringify({
        key: this.key, bets: this.bets, chip: this.chip, mult: this.mult,
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

  BetSlip.prototype.add = function (area) {
    var next = Object.assign({}, this.bets);
    next[area] = (next[area] || 0) + this.chip * this.mult * UNITS;
    var why = this.refusal(next);
    if (why) {
      this.message("error", why);
      return false;
    }
    this.bets = next;
    this.message("", "");
    this.render();
    return true;
  };

  BetSlip.prototype.clear = function () {
    this.bets = {};
    this.message("", "");
    this.render();
  };

  BetSlip.prototype.rebet = function (which) {
    var el = document.getElementById("bac-rebet");
    var data = {};
    try { data = JSON.parse(el ? el.textContent : "{}"); } catch (e) { data = {}; }
    var bets = data[which] || {};
    if (!Object.keys(data.once || {}).length) {
      this.message("error", this.form.dataset.msgNoRebet);
      return;
    }
    this.bets = Object.assign({}, bets);
    this.message(data[which + "_capped"] ? "note" : "", data[which + "_capped"] ? this.form.dataset.msgCapped : "");
    this.render();
  };

  // BET was answered with a round: the slip is spent; the next one gets a new key.
  BetSlip.prototype.spent = function () {
    this.bets = {};
    this.key = newKey();
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

  // The largest chips that make up ``units``, at most STACK_SHOWN of them.
  BetSlip.prototype.stack = function (units) {
    var denoms = this.denominations();
    var left = Math.floor(units / UNITS);
    var out = [];
    for (var i = denoms.length - 1; i >= 0 && out.length < STACK_SHOWN; i--) {
      while (left >= denoms[i] && out.length < STACK_SHOWN) {
        out.push(denoms[i]);
        left -= denoms[i];
      }
    }
    return out.reverse().map(function (value) { return { value: value, colour: denoms.indexOf(value) % 8 }; });
  };

  BetSlip.prototype.render = function () {
    var self = this;
    this.form.querySelectorAll("[data-slip-amount]").forEach(function (input) {
      input.value = chipsField(self.bets[input.dataset.slipAmount] || 0);
    });
    this.form.querySelectorAll("[data-slip-stack]").forEach(function (box) {
      var amount = self.bets[box.dataset.slipStack] || 0;
      box.classList.toggle("has-bet", amount > 0);
      var pile = box.querySelector(".stack");
      pile.replaceChildren.apply(pile, self.stack(amount).map(function (chip, i) {
        var disc = document.createElement("span");
        disc.className = "chip chip-c" + chip.colour;
        disc.style.setProperty("--i", i);
        disc.textContent = chipLabel(chip.value);
        return disc;
      }));
      box.querySelector(".area-amount").textContent = amount ? formatChips(amount) : "";
    });
    var denoms = this.denominations();
    this.form.querySelectorAll("[data-slip-chip]").forEach(function (input) {
      var base = Number(input.dataset.slipChip);
      input.checked = base === self.chip;
      var face = input.parentElement.querySelector(".chip");
      face.textContent = chipLabel(base * self.mult);
      face.className = "chip chip-c" + (denoms.indexOf(base * self.mult) % 8);
    });
    var mult = this.form.querySelector("[data-slip-mult]");
    if (mult) mult.textContent = "×" + this.mult;
    var key = this.form.querySelector("[data-slip-key]");
    if (key) key.value = this.key;
    var total = this.total();
    var totalEl = document.getElementById("bac-bet-total");
    if (totalEl) {
      totalEl.dataset.total = String(total);
      totalEl.textContent = formatChips(total);
    }
    var toggle = document.getElementById("bac-squeeze-toggle");
    if (toggle) {
      var unlocked = toggle.dataset.byPromo === "1" || total >= Number(toggle.dataset.threshold || 0);
      toggle.dataset.unlocked = unlocked ? "1" : "0";
      toggle.classList.toggle("unlocked", unlocked);
      toggle.classList.toggle("locked", !unlocked);
      var lock = toggle.querySelector(".squeeze-lock");
      if (lock && toggle.dataset.byPromo !== "1") {
        lock.textContent = unlocked ? lock.dataset.unlockedText : lock.dataset.lockedText;
      }
    }
    this.save();
  };

  // A table's slip in sessionStorage: it survives a reload of the tab, not a new tab.
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

  window.CasinoSlip = { BetSlip: BetSlip, formatChips: formatChips, chipLabel: chipLabel, store: store };

  var form = document.querySelector("form[data-slip-table]");
  if (!form) return;
  var slip = new BetSlip(form);
  window.CasinoSlip.current = slip;

  form.addEventListener("click", function (evt) {
    var area = evt.target.closest("[data-slip-area]");
    if (area) { slip.add(area.dataset.slipArea); return; }
    if (evt.target.closest("[data-slip-mult]")) { slip.cycleMultiplier(); return; }
    if (evt.target.closest("[data-slip-clear]")) { slip.clear(); return; }
    var rebet = evt.target.closest("[data-slip-rebet]");
    if (rebet) slip.rebet(rebet.dataset.slipRebet);
  });
  form.addEventListener("change", function (evt) {
    if (evt.target.matches("[data-slip-chip]")) {
      slip.chip = Number(evt.target.dataset.slipChip);
      slip.render();
    }
  });
  // The toggle and the squeeze stage are swapped by htmx: draw the slip's state on them again.
  document.addEventListener("htmx:afterSettle", function () { slip.render(); });
  document.addEventListener("htmx:afterRequest", function (evt) {
    var elt = evt.detail.elt;
    if (!elt || !elt.matches || !elt.matches(".bet-button") || !evt.detail.successful) return;
    var text = evt.detail.xhr ? evt.detail.xhr.responseText : "";
    if (text.indexOf('id="bac-placed"') !== -1) slip.spent();
  });
  slip.render();
})();
