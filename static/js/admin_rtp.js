// Table editor: "start from preset" fills the multipliers; htmx (hx-post on
// each multiplier) then refreshes the exact RTP beside them. The preset's
// paytables come from the select's data-presets attribute (JSON by key).
function applyPreset(select) {
  const presets = JSON.parse(select.dataset.presets || "{}");
  const pays = presets[select.value];
  if (!pays) return;
  const form = select.form;
  Object.keys(pays).forEach(function (key) {
    const input = form.querySelector('input[data-pay="' + key + '"]');
    if (!input || input.value === pays[key]) return;
    input.value = pays[key];
    // htmx listens for "input" (with the "changed" filter and a delay).
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

document.addEventListener("change", function (event) {
  const target = event.target;
  if (target instanceof HTMLSelectElement && target.classList.contains("table-preset")) {
    applyPreset(target);
  }
});
