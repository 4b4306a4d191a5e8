/* The Baccarat table's small amount of browser code: sounds, dialogs, and a
   fallback when the reveal does not arrive. The bet slip is slip.js; the
   rest is htmx: BET posts the slip, and the websocket pushes fragments that
   the htmx ws extension swaps by id. */
(function () {
  "use strict";

  var sound = window.CasinoSound || { configure: function () {}, play: function () {}, playFrom: function () {} };

  function applyPrefs() {
    var prefs = document.getElementById("bac-prefs");
    if (!prefs) return;
    sound.configure({
      sound: prefs.dataset.sound === "1",
      effects: prefs.dataset.effects === "1",
      music: prefs.dataset.music === "1",
    });
  }

  function openDialog(id) {
    var dialog = document.getElementById(id);
    if (dialog && !dialog.open) dialog.showModal();
  }

  function refreshRoadsDetail() {
    var dialog = document.getElementById("bac-roads-dialog");
    var table = document.getElementById("bac");
    if (dialog && dialog.open && table && window.htmx) {
      window.htmx.ajax("GET", table.dataset.roadsUrl, { target: "#bac-roads-detail", swap: "innerHTML" });
    }
  }

  document.addEventListener("click", function (evt) {
    var opener = evt.target.closest("[data-open-dialog]");
    if (opener) openDialog(opener.dataset.openDialog);
    if (evt.target.closest("[data-chip-sound]")) sound.play("chip");
  });

  document.addEventListener("change", function (evt) {
    if (evt.target.matches(".chip-pick input")) sound.play("click");
  });

  // Fragments pushed by the websocket: sounds, and the end of a round.
  document.addEventListener("htmx:wsAfterMessage", function (evt) {
    var html = evt.detail && evt.detail.message;
    if (typeof html !== "string") return;
    sound.playFrom(html);
    if (html.indexOf('id="bac-phase"') !== -1 && html.indexOf('data-phase="done"') !== -1) {
      refreshRoadsDetail();
      document.body.dispatchEvent(new CustomEvent("bac:round-done"));
    }
  });

  // The socket's state on <body data-ws>: "open" once the table can show a reveal.
  document.addEventListener("htmx:wsOpen", function () { document.body.dataset.ws = "open"; });
  document.addEventListener("htmx:wsClose", function () { document.body.dataset.ws = "closed"; });

  // Settings saved: the #bac-prefs element was swapped in again.
  document.addEventListener("htmx:oobAfterSwap", function (evt) {
    var target = evt.detail && evt.detail.target;
    if (target && target.id === "bac-prefs") applyPrefs();
  });
  document.addEventListener("htmx:afterSettle", applyPrefs);

  // BET was accepted but no reveal started (the socket was down): the round
  // is settled already, so a reload shows it.
  var pendingRound = null;
  document.addEventListener("htmx:beforeRequest", function (evt) {
    if (evt.detail.elt && evt.detail.elt.matches && evt.detail.elt.matches(".bet-button")) {
      var phase = document.getElementById("bac-phase");
      pendingRound = phase ? phase.dataset.round : null;
    }
  });
  document.addEventListener("htmx:afterRequest", function (evt) {
    var elt = evt.detail.elt;
    if (!elt || !elt.matches || !elt.matches(".bet-button") || !evt.detail.successful) return;
    var text = evt.detail.xhr ? evt.detail.xhr.responseText : "";
    if (text.indexOf('id="bac-placed"') === -1) return; // refused: no round to wait for
    var before = pendingRound;
    window.setTimeout(function () {
      var phase = document.getElementById("bac-phase");
      if (phase && phase.dataset.round === before) window.location.reload();
    }, 5000);
  });

  applyPrefs();
})();
