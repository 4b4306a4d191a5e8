// Account page: show the next allowed max-bet change in the player's own time
// zone as well (the page prints it in New York time and UTC). A file rather
// than an inline <script>: the Content Security Policy allows scripts from
// this origin only.
(function () {
  "use strict";

  function localise() {
    for (const el of document.querySelectorAll("time[data-local-time]")) {
      const when = new Date(el.dateTime);
      if (!Number.isNaN(when.getTime())) {
        el.textContent = when.toLocaleString(document.documentElement.lang, {
          weekday: "short", year: "numeric", month: "2-digit", day: "2-digit",
          hour: "2-digit", minute: "2-digit", timeZoneName: "short",
        });
      }
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", localise);
  } else {
    localise();
  }
})();
