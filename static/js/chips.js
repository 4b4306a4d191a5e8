// Chips carried from the rack onto the felt, shared by both tables: a press
// on a chip that moves more than a few pixels becomes a drag (a mouse) or a
// swipe (a finger); a ghost chip follows the pointer, the place under it is
// marked, and letting go over one puts the chip down there. A press that
// does not move stays a plain tap or click. Pointer events only, so a
// mouse, a pen and a finger work the same way.

export const DRAG_START = 6; // pixels a pointer moves before a press becomes a drag

// The colour of each chip value (in chips), the same at every table of both
// games: games.presenters.common.CHIP_COLOUR_OF, chip-c0 .. chip-c11 of
// css/casino.css (white, red, blue, green, black, purple, orange, gold, pink,
// teal, brown, silver).
export const COLOURS = 12;

// The chips drawn on a bet area or spot of either table, in the browser and
// by the server (games.presenters.common.STACK_SHOWN): five show how a stake
// is made up and fit the smallest area (a phone's Baccarat side bet) without
// covering its name; the amount written under the stack says the rest.
export const STACK_SHOWN = 5;
export const COLOUR_OF = {
  0.1: 9, 0.5: 8, 1: 0, 5: 1, 10: 2, 25: 3, 50: 6, 100: 4,
  250: 8, 500: 5, 1000: 7, 2500: 9, 5000: 10, 10000: 11,
  25000: 3, 50000: 6, 100000: 4, 250000: 8, 500000: 5, 1000000: 7,
};

/** A chip's colour from its value in minor units (100 a chip); another value
 *  takes its place among ``denominations`` (units), as on the server. */
export function chipColour(units, denominations = []) {
  const chips = units / 100;
  if (Object.hasOwn(COLOUR_OF, chips)) return COLOUR_OF[chips];
  const at = denominations.indexOf(units);
  return (at < 0 ? 0 : at) % COLOURS;
}

/**
 * The rack's arrows, shown when its chips do not all fit and each disabled at
 * its end; a press scrolls the strip a width less about a chip, so the next
 * chips show at once with one already seen. Both tables' racks.
 *   strip: the scrolling row of chips
 *   arrows: its buttons, each with data-rack-scroll="-1" or "1"
 * Returns the function that draws them again (after the rack changes).
 */
export function rackArrows(strip, arrows) {
  const draw = () => {
    const more = strip.scrollWidth > strip.clientWidth + 2;
    for (const arrow of arrows) {
      const dir = Number(arrow.dataset.rackScroll);
      arrow.hidden = !more;
      arrow.disabled = dir < 0 ? strip.scrollLeft <= 0
        : strip.scrollLeft + strip.clientWidth >= strip.scrollWidth - 2;
    }
  };
  for (const arrow of arrows) {
    arrow.addEventListener("click", () => {
      const step = Math.max(strip.clientWidth - 48, strip.clientWidth * 0.5);
      strip.scrollBy({ left: Number(arrow.dataset.rackScroll) * step, behavior: "smooth" });
    });
  }
  strip.addEventListener("scroll", draw, { passive: true });
  window.addEventListener("resize", draw);
  draw();
  return draw;
}

/**
 * Lets chips be dragged onto drop targets.
 *   root: where presses on chips are listened for
 *   chip: selector of a draggable chip face inside root
 *   valueOf(face): the chip's value
 *   targetAt(element): the drop target holding element, or null
 *   drop(target, value): puts the chip down; returns true if it went down
 */
export function dragChips({ root, chip, valueOf, targetAt, drop }) {
  let drag = null;

  const under = (x, y) => {
    const el = document.elementFromPoint(x, y);
    return el ? targetAt(el) : null;
  };
  const mark = (target) => {
    for (const el of document.querySelectorAll(".drop-target")) {
      if (el !== target) el.classList.remove("drop-target");
    }
    target?.classList.add("drop-target");
  };

  root.addEventListener("pointerdown", (evt) => {
    const face = evt.target.closest?.(chip);
    if (!face || evt.button > 0) return;
    drag = { face, value: valueOf(face), x: evt.clientX, y: evt.clientY, ghost: null, id: evt.pointerId };
  });

  document.addEventListener(
    "pointermove",
    (evt) => {
      if (!drag || evt.pointerId !== drag.id) return;
      if (!drag.ghost) {
        if (Math.abs(evt.clientX - drag.x) + Math.abs(evt.clientY - drag.y) < DRAG_START) return;
        drag.ghost = drag.face.cloneNode(true);
        drag.ghost.classList.add("chip-ghost");
        drag.ghost.removeAttribute("data-testid");
        drag.ghost.removeAttribute("id");
        drag.ghost.setAttribute("aria-hidden", "true");
        document.body.appendChild(drag.ghost);
        document.body.classList.add("dragging-chip");
      }
      drag.ghost.style.left = `${evt.clientX}px`;
      drag.ghost.style.top = `${evt.clientY}px`;
      mark(under(evt.clientX, evt.clientY));
      evt.preventDefault();
    },
    { passive: false },
  );

  const finish = (evt) => {
    if (!drag || evt.pointerId !== drag.id) return;
    const { ghost, value } = drag;
    drag = null;
    if (!ghost) return;
    ghost.remove();
    document.body.classList.remove("dragging-chip");
    const target = under(evt.clientX, evt.clientY);
    mark(null);
    if (target && evt.type === "pointerup") drop(target, value);
  };
  document.addEventListener("pointerup", finish);
  document.addEventListener("pointercancel", finish);
}
