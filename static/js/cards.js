/* Cards slide from the shoe (shared by the tables; styles in css/cards.css).

   Contract: a card with the class "dealt" (templates/games/card.html#card)
   animates from the shoe to its place; this script tells the stylesheet where
   the shoe is, as --from-x / --from-y on the card (the shoe's centre minus the
   card's, in px). The shoe is the element with [data-shoe]. It runs on the
   page as loaded and on every piece htmx swaps in (a response, an
   out-of-band swap, a websocket message), before the browser paints it.
   Without this script the cards still come in, from up and to the right.

   prepare(root), exported, does it by hand for cards under ``root``
   (returns them), e.g. for content a script inserts itself. An ES module. */

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

function prepare(root) {
  const scope = root && root.querySelectorAll ? root : document;
  const cards = Array.prototype.slice.call(scope.querySelectorAll(".playing-card.dealt:not([data-deal-ready])"));
  if (scope.matches && scope.matches(".playing-card.dealt:not([data-deal-ready])")) cards.push(scope);
  const shoe = document.querySelector("[data-shoe]");
  if (!cards.length || !shoe) return cards;
  const from = centre(shoe.getBoundingClientRect());
  cards.forEach(function (card) {
    // Measure where the card sits, not where its first frame draws it.
    card.style.animation = "none";
    const to = centre(card.getBoundingClientRect());
    card.style.setProperty("--from-x", Math.round(from.x - to.x) + "px");
    card.style.setProperty("--from-y", Math.round(from.y - to.y) + "px");
    card.style.animation = "";
    card.setAttribute("data-deal-ready", "");
  });
  return cards;
}

function fromEvent(evt) {
  const d = evt.detail || {};
  prepare(d.target && d.target.isConnected ? d.target : document);
}

document.addEventListener("htmx:afterSwap", fromEvent);
document.addEventListener("htmx:oobAfterSwap", fromEvent);
document.addEventListener("htmx:wsAfterMessage", function () { prepare(document); });
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", function () { prepare(document); });
} else {
  prepare(document);
}

export { prepare };
