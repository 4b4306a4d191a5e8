// The provably fair shuffle re-derived in the browser (docs/fairness.md,
// /fair/): HMAC-SHA256 and SHA-256 from WebCrypto (crypto.subtle), no call to
// the server. The same algorithm as games/cards.py, written again from its
// specification, so a player need not trust the site's own code to check it.
//
// Three uses, each bound by a data attribute:
// - [data-verify-form] (a round's page): VERIFY re-derives the shoe from the
//   revealed seeds and compares it with the dealt cards, card by card;
// - [data-vector] (the fairness page): re-derives a test vector;
// - [data-fair-form] (the fairness page): any seeds typed in.
// Without WebCrypto (a page served over plain http to another machine) the
// round page's form posts to the server's own check instead.
(function () {
  "use strict";

  var RANKS = "A23456789TJQK";
  var SUITS = "SHDC";
  var TWO_32 = 4294967296;
  var encoder = new TextEncoder();

  function hexToBytes(hex) {
    var text = String(hex).trim();
    if (text.length % 2 || !/^[0-9a-fA-F]*$/.test(text)) {
      throw new Error("the server seed must be written in hexadecimal");
    }
    var out = new Uint8Array(text.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(text.substr(i * 2, 2), 16);
    return out;
  }

  function bytesToHex(bytes) {
    return Array.prototype.map
      .call(new Uint8Array(bytes), function (b) { return b.toString(16).padStart(2, "0"); })
      .join("");
  }

  function newShoe(decks) {
    var deck = [];
    for (var s = 0; s < SUITS.length; s++) {
      for (var r = 0; r < RANKS.length; r++) deck.push(RANKS[r] + SUITS[s]);
    }
    var shoe = [];
    for (var d = 0; d < decks; d++) shoe = shoe.concat(deck);
    return shoe;
  }

  function nonceText(nonce) {
    var text = String(nonce).trim();
    if (!/^[0-9]+$/.test(text)) throw new Error("the nonce is a whole number, 0 or more");
    return BigInt(text).toString(); // decimal, no leading zeros, any size
  }

  async function sha256Hex(bytes) {
    return bytesToHex(await crypto.subtle.digest("SHA-256", bytes));
  }

  // The stream: HMAC-SHA256(key = server seed, "client:nonce:counter" in UTF-8),
  // counter 0, 1, 2...; each 32-byte block is 8 big-endian unsigned 32-bit words.
  async function fairRng(seedBytes, clientSeed, nonce) {
    var key = await crypto.subtle.importKey(
      "raw", seedBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]
    );
    var prefix = clientSeed + ":" + nonceText(nonce) + ":";
    var counter = 0;
    var words = [];
    var pos = 0;
    async function nextWord() {
      if (pos >= words.length) {
        var block = await crypto.subtle.sign("HMAC", key, encoder.encode(prefix + counter));
        counter += 1;
        var view = new DataView(block);
        words = [];
        for (var i = 0; i < 8; i++) words.push(view.getUint32(i * 4, false));
        pos = 0;
      }
      return words[pos++];
    }
    // A uniform integer in [0, n): words at or above the largest multiple of
    // n that fits in 2^32 are thrown away, so no value is favoured.
    async function randrange(n) {
      var limit = TWO_32 - (TWO_32 % n);
      for (;;) {
        var u = await nextWord();
        if (u < limit) return u % n;
      }
    }
    return { randrange: randrange };
  }

  // Fisher-Yates from the end: for i = n-1 down to 1, swap i with randrange(i + 1).
  async function deriveShoe(serverSeedHex, clientSeed, nonce, decks) {
    var rng = await fairRng(hexToBytes(serverSeedHex), clientSeed, nonce);
    var shoe = newShoe(decks);
    for (var i = shoe.length - 1; i > 0; i--) {
      var j = await rng.randrange(i + 1);
      var t = shoe[i]; shoe[i] = shoe[j]; shoe[j] = t;
    }
    return shoe;
  }

  // Re-derive and compare: the commitment and each dealt card.
  async function check(data) {
    var seed = hexToBytes(data.server_seed);
    var hash = await sha256Hex(seed);
    var shoe = await deriveShoe(data.server_seed, data.client_seed, data.nonce, Number(data.decks));
    var dealt = data.cards || [];
    var cards = dealt.map(function (card, i) {
      return { position: i + 1, dealt: card, derived: shoe[i], match: card === shoe[i] };
    });
    var hashMatch = !data.server_seed_hash || hash === data.server_seed_hash;
    return {
      hash: hash,
      hashMatch: hashMatch,
      cards: cards,
      shoe: shoe,
      matches: hashMatch && cards.every(function (c) { return c.match; }),
    };
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardList(result, labels, owners) {
    var list = el("ol", { class: "js-cards", "data-testid": "js-cards" });
    result.cards.forEach(function (c) {
      var owner = owners && owners[c.position - 1] ? " (" + owners[c.position - 1] + ")" : "";
      var li = el("li", {
        class: c.match ? "match" : "mismatch",
        "data-testid": "js-card",
        "data-match": c.match ? "true" : "false",
        "data-card": c.dealt,
        "data-derived": c.derived,
      });
      li.textContent = (c.match ? "✔ " : "✘ ") + c.position + ". " + labels.dealt + " " + c.dealt +
        owner + " · " + labels.derived + " " + c.derived;
      list.appendChild(li);
    });
    return list;
  }

  // --- the round page ------------------------------------------------------------------

  function bindRound(form) {
    var source = document.getElementById(form.getAttribute("data-verify-form"));
    if (!source || !window.crypto || !crypto.subtle) return; // the server checks instead
    var data = JSON.parse(source.textContent);
    var labels = data.labels;
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      var box = document.getElementById("verification");
      box.replaceChildren(el("p", { class: "hint" }, labels.working));
      box.className = "verification";
      var result;
      try {
        result = await check(data);
      } catch (err) {
        box.replaceChildren(el("p", { class: "verdict", "data-testid": "verdict" }, "✘ " + err.message));
        box.className = "verification bad";
        return;
      }
      var nodes = [
        el("p", { class: "verdict", "data-testid": "verdict" },
          result.matches ? "✔ " + labels.matches : "✘ " + labels.mismatch),
        el("p", { "data-testid": "js-hash", "data-match": String(result.hashMatch) },
          (result.hashMatch ? "✔ " : "✘ ") + labels.hash + " " + result.hash),
        cardList(result, labels, data.owners),
        el("p", { class: "hint", "data-testid": "js-note" }, labels.note),
      ];
      box.replaceChildren.apply(box, nodes);
      box.className = "verification " + (result.matches ? "ok" : "bad");
      box.setAttribute("data-checked-by", "browser");
    });
  }

  // --- the fairness page -----------------------------------------------------------------

  function bindVector(button) {
    var source = document.getElementById(button.getAttribute("data-vector"));
    var out = document.getElementById(button.getAttribute("aria-controls"));
    if (!source || !out) return;
    var vector = JSON.parse(source.textContent);
    button.addEventListener("click", async function () {
      if (!window.crypto || !crypto.subtle) {
        out.textContent = button.getAttribute("data-no-crypto");
        return;
      }
      var result = await check({
        server_seed: vector.server_seed,
        server_seed_hash: vector.server_seed_hash,
        client_seed: vector.client_seed,
        nonce: vector.nonce,
        decks: vector.decks,
        cards: vector.first_cards,
      });
      out.replaceChildren(
        el("p", { "data-testid": "vector-verdict", "data-match": String(result.matches) },
          (result.matches ? "✔ " : "✘ ") + button.getAttribute(result.matches ? "data-ok" : "data-bad")),
        el("p", {}, "SHA-256: " + result.hash),
        el("p", { "data-testid": "vector-cards" }, result.shoe.slice(0, vector.first_cards.length).join(" "))
      );
    });
  }

  function bindFairForm(form) {
    var out = document.getElementById(form.getAttribute("data-fair-form"));
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      if (!window.crypto || !crypto.subtle) {
        out.textContent = form.getAttribute("data-no-crypto");
        return;
      }
      var f = form.elements;
      try {
        var decks = Number(f.decks.value);
        if (!Number.isInteger(decks) || decks < 1 || decks > 8) throw new Error(form.getAttribute("data-bad-decks"));
        var seed = hexToBytes(f.server_seed.value);
        var shoe = await deriveShoe(f.server_seed.value, f.client_seed.value, f.nonce.value, decks);
        out.replaceChildren(
          el("p", { "data-testid": "fair-out-hash" }, "SHA-256: " + (await sha256Hex(seed))),
          el("p", { "data-testid": "fair-out-cards" }, shoe.slice(0, 12).join(" "))
        );
      } catch (err) {
        out.replaceChildren(el("p", { class: "error", "data-testid": "fair-out-error" }, err.message));
      }
    });
  }

  window.CasinoVerify = { deriveShoe: deriveShoe, sha256Hex: sha256Hex, check: check };

  function init() {
    document.querySelectorAll("[data-verify-form]").forEach(bindRound);
    document.querySelectorAll("[data-vector]").forEach(bindVector);
    document.querySelectorAll("[data-fair-form]").forEach(bindFairForm);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
