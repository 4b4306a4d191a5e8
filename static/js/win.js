// A win, shown: the net amount counts up from 0 and a short shower of chips
// falls from the result, more chips for a bigger win. Shared by both tables.
// Nothing moves on the page: the number keeps the width of its final text,
// and the chips fall in a fixed layer that lets taps through. Off under
// prefers-reduced-motion.

const COUNT_MS = 900;
const SHOWER_MS = 1600;
const NUMBER = /[+]?\d[\d,]*(?:\.\d+)?/;
const COLOURS = ["#c62828", "#1565c0", "#2e7d32", "#222", "#6a1b9a", "#ef6c00", "#b8912a"];

const reducedMotion = () =>
  Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);

/** How many chips fall for a win of ``amount`` chips: 6 for a small win, up to 36. */
export function showerSize(amount) {
  if (!(amount > 0)) return 0;
  return Math.min(36, 6 + Math.round(Math.log10(1 + amount) * 6));
}

/** The text of ``text`` with its number replaced by ``value`` written as the original was. */
export function withNumber(text, value) {
  const found = text.match(NUMBER);
  if (!found) return text;
  const decimals = (found[0].split(".")[1] || "").length;
  const sign = found[0].startsWith("+") ? "+" : "";
  const written = value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return text.replace(NUMBER, sign + written);
}

function countUp(el) {
  const final = el.textContent;
  const found = final.match(NUMBER);
  if (!found) return 0;
  const target = Number(found[0].replace(/[+,]/g, ""));
  // Keep the box of the final text so nothing beside it moves.
  el.style.display = "inline-block";
  el.style.minWidth = `${el.getBoundingClientRect().width}px`;
  const started = performance.now();
  const step = (now) => {
    const t = Math.min(1, (now - started) / COUNT_MS);
    const eased = 1 - (1 - t) ** 3;
    el.textContent = t < 1 ? withNumber(final, target * eased) : final;
    if (t < 1) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
  return target;
}

function shower(from, amount) {
  const count = showerSize(amount);
  if (!count) return;
  const box = from.getBoundingClientRect();
  const layer = document.createElement("div");
  layer.className = "chip-shower";
  layer.setAttribute("aria-hidden", "true");
  layer.dataset.testid = "chip-shower";
  layer.dataset.chips = String(count);
  for (let i = 0; i < count; i += 1) {
    const chip = document.createElement("span");
    chip.className = "shower-chip";
    chip.style.left = `${box.left + box.width / 2}px`;
    chip.style.top = `${box.top + box.height / 2}px`;
    chip.style.setProperty("--c", COLOURS[i % COLOURS.length]);
    chip.style.setProperty("--dx", `${(Math.random() - 0.5) * Math.min(window.innerWidth, 160 + count * 14)}px`);
    chip.style.setProperty("--dy", `${120 + Math.random() * Math.min(window.innerHeight * 0.5, 80 + count * 8)}px`);
    chip.style.setProperty("--delay", `${Math.random() * 250}ms`);
    layer.appendChild(chip);
  }
  document.body.appendChild(layer);
  setTimeout(() => layer.remove(), SHOWER_MS + 300);
}

/** Celebrate the result ``result`` if it is a win (data-sound="win"). */
export function celebrate(result, netSelector) {
  if (!result || result.dataset.sound !== "win" || reducedMotion()) return;
  const net = result.querySelector(netSelector);
  const amount = net ? countUp(net) : 0;
  shower(result, amount);
}
