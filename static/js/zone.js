// Sign-up: the browser's time zone, so the player's days and months (loss
// limits, the statement) start at their own midnight.
const field = document.querySelector("input[name=time_zone]");
if (field && !field.value) {
  try {
    field.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    field.value = "";
  }
}
