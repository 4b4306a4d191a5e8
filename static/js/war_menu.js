// The Casino War table's menu (a dialog): its tabs (settings, game history,
// bet options, each loaded by htmx when it opens), the settings applied as
// soon as the form answers, and the volume slider.

import { sound } from "./sound.js";

export function startMenu(menu, opener) {
  const showTab = (name) => {
    for (const tab of menu.querySelectorAll("[data-tab]")) {
      tab.setAttribute("aria-selected", tab.dataset.tab === name ? "true" : "false");
    }
    for (const panel of menu.querySelectorAll("[data-panel]")) {
      panel.hidden = panel.dataset.panel !== name;
    }
  };
  opener?.addEventListener("click", () => {
    if (!menu.open) menu.showModal();
  });
  menu.addEventListener("click", (event) => {
    const tab = event.target.closest?.("[data-tab]");
    if (tab) showTab(tab.dataset.tab);
    // A click on the backdrop (outside the box) closes the menu.
    if (event.target === menu) menu.close();
  });
  // The settings form answers with itself: apply what it now says.
  document.body.addEventListener("htmx:afterSettle", () => {
    const settings = document.getElementById("war-settings");
    if (!settings) return;
    const on = (name) => Boolean(settings.querySelector(`[name=${name}]`)?.checked);
    sound.configure({ sound: on("sound"), effects: on("effects"), music: on("music") });
  });
  // Volume (0-100): the player's, saved with the other settings (htmx posts
  // the slider on change); the gain follows the slider as it moves.
  const volume = document.getElementById("war-volume");
  if (volume) {
    sound.setVolume(Number(volume.value));
    volume.addEventListener("input", () => sound.setVolume(Number(volume.value)));
  }
}
