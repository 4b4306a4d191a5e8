// The commitments this browser was shown: every "next round" server seed hash
// a table displays is remembered in localStorage with the time it was first
// shown, so a round's VERIFY (verify.js) can say whether the seed revealed
// after the round matches a commitment this browser saw before it, not only
// the hash the round's page shows now (which the site could rewrite).
//
// On a table the script tag names the element that shows the hash:
//   <script src=".../commitments.js" data-watch="#bac-fairness [data-testid=seed-hash]" defer>
// It is read when the page opens and again after every swap (htmx over the
// socket replaces it after each round). Without data-watch (the round page)
// the script only answers window.CasinoCommitments.seenAt(hash).
//
// Under Node (tests/js/) the pure functions are exported with module.exports.
(function (root) {
  "use strict";

  var KEY = "casino.commitments";
  var LIMIT = 2000; // the newest ones: about 160 kB, months of play
  var HASH = /^[0-9a-f]{64}$/;

  function read(storage) {
    try {
      var list = JSON.parse(storage.getItem(KEY) || "[]");
      if (!Array.isArray(list)) return [];
      return list.filter(function (entry) {
        return Array.isArray(entry) && HASH.test(entry[0]) && typeof entry[1] === "number";
      });
    } catch (err) {
      return []; // unreadable: start again rather than break the table
    }
  }

  // Remember ``hash`` as shown at ``when`` (ms since the epoch) unless it was
  // shown before: the first time is the one that proves the commitment came
  // first. Returns whether it was new.
  function remember(storage, hash, when) {
    var text = String(hash || "").trim().toLowerCase();
    if (!HASH.test(text)) return false;
    var list = read(storage);
    if (list.some(function (entry) { return entry[0] === text; })) return false;
    list.push([text, when]);
    if (list.length > LIMIT) list = list.slice(list.length - LIMIT);
    try {
      storage.setItem(KEY, JSON.stringify(list));
    } catch (err) {
      return false; // storage full or refused: nothing is remembered
    }
    return true;
  }

  // When this browser was first shown ``hash`` (ms since the epoch), or null.
  function seenAt(storage, hash) {
    var text = String(hash || "").trim().toLowerCase();
    var list = read(storage);
    for (var i = 0; i < list.length; i++) {
      if (list[i][0] === text) return list[i][1];
    }
    return null;
  }

  var api = { KEY: KEY, LIMIT: LIMIT, remember: remember, seenAt: seenAt, read: read };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  if (typeof document === "undefined") return;

  var script = document.currentScript;
  var selector = script && script.getAttribute("data-watch");

  function storage() {
    try {
      return root.localStorage; // a browser set to refuse storage throws here
    } catch (err) {
      return null;
    }
  }

  root.CasinoCommitments = {
    seenAt: function (hash) {
      var s = storage();
      return s ? seenAt(s, hash) : null;
    },
  };

  if (!selector) return;
  var last = null;
  function look() {
    var shown = document.querySelector(selector);
    var hash = shown ? shown.textContent.trim() : "";
    if (!hash || hash === last) return;
    last = hash;
    var s = storage();
    if (s) remember(s, hash, Date.now());
  }
  function start() {
    look();
    // The hash is swapped in place after each round: look again after any change.
    new MutationObserver(look).observe(document.body, { childList: true, subtree: true, characterData: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(typeof window !== "undefined" ? window : globalThis);
