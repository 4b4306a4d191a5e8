// Times in the player's own time zone. The server writes every time in UTC,
// named as such, inside <time datetime="...Z" data-local-time="seconds|minutes">
// (games/templatetags/times.py), which is what a browser without JavaScript
// shows. This script rewrites each one in the browser's time zone, in the
// page's language, the zone named after it ("2026-12-02 10:50 JST"), and fills
// every [data-local-zone] (a column heading's "Time (UTC)") with the zone's
// name. It runs again after htmx swaps in new rows.
//
// tests/js/ import formatLocal under Node, where there is no document.
function part(parts, type) {
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].type === type) return parts[i].value;
  }
  return "";
}

// "2026-12-02 10:50[:16] JST": year first in every language, as the UTC
// fallback writes it, so a column of times reads the same before and after.
export function formatLocal(iso, options) {
  const date = new Date(iso);
  if (isNaN(date.getTime())) return null;
  const withSeconds = options.precision !== "minutes";
  const format = new Intl.DateTimeFormat(options.locale, {
    timeZone: options.timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: withSeconds ? "2-digit" : undefined,
    hourCycle: "h23",
    timeZoneName: "short",
  });
  const parts = format.formatToParts(date);
  const text =
    part(parts, "year") + "-" + part(parts, "month") + "-" + part(parts, "day") + " " +
    part(parts, "hour") + ":" + part(parts, "minute") +
    (withSeconds ? ":" + part(parts, "second") : "");
  return text + " " + part(parts, "timeZoneName");
}

function browserZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch (err) {
    return "UTC";
  }
}

function rewrite(doc) {
  const locale = doc.documentElement.lang || undefined;
  const zone = browserZone();
  const times = doc.querySelectorAll("time[data-local-time]");
  for (let i = 0; i < times.length; i++) {
    const el = times[i];
    const text = formatLocal(el.getAttribute("datetime"), {
      locale: locale,
      timeZone: zone,
      precision: el.getAttribute("data-local-time"),
    });
    if (text === null) continue;
    if (!el.title) el.title = el.textContent.trim();
    el.textContent = text;
    el.setAttribute("data-zone", zone);
  }
  const names = doc.querySelectorAll("[data-local-zone]");
  for (let j = 0; j < names.length; j++) names[j].textContent = zone;
}

if (typeof document !== "undefined") {
  rewrite(document);
  document.addEventListener("htmx:afterSettle", function () { rewrite(document); });
}
