/* A card's back lifted along a fold: the geometry and the drawing shared by
   the private table's squeeze (squeeze.js) and the live squeeze
   (live_squeeze.js). The card is a .peel-card holding a .peel-back (clipped
   along the fold line) and a .peel-flap (the shaded band of the lifted part).

   A lift is {origin: {x, y}, n: {x, y}, depth, extent}: the edge or corner
   taken (px from the card's top left), the unit vector from there into the
   card, how far the back is lifted along n (px) and the card's size along n. */

// The part of the w x h rectangle where dot(X - origin, n) >= depth, as a polygon.
export function clipRect(w, h, origin, n, depth) {
  const pts = [{ x: 0, y: 0 }, { x: w, y: 0 }, { x: w, y: h }, { x: 0, y: h }];
  const side = function (p) { return (p.x - origin.x) * n.x + (p.y - origin.y) * n.y - depth; };
  const out = [];
  for (let i = 0; i < pts.length; i++) {
    const a = pts[i], b = pts[(i + 1) % pts.length];
    const sa = side(a), sb = side(b);
    if (sa >= 0) out.push(a);
    if ((sa >= 0) !== (sb >= 0)) {
      const t = sa / (sa - sb);
      out.push({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });
    }
  }
  return out;
}

export function polygon(pts) {
  if (pts.length < 3) return "polygon(0 0, 0 0, 0 0)";
  return "polygon(" + pts.map(function (p) { return p.x.toFixed(1) + "px " + p.y.toFixed(1) + "px"; }).join(", ") + ")";
}

// Which edge or corner the pointer took: the lift goes from there into the card.
export function grab(el, x, y) {
  const w = el.clientWidth, h = el.clientHeight;
  const zone = Math.min(w, h) * 0.3;
  const left = x < zone, right = x > w - zone, top = y < zone, bottom = y > h - zone;
  let corner = null;
  if ((left || right) && (top || bottom)) corner = { x: left ? 0 : w, y: top ? 0 : h };
  if (corner) {
    const dx = w / 2 - corner.x, dy = h / 2 - corner.y;
    const len = Math.sqrt(dx * dx + dy * dy);
    const n = { x: dx / len, y: dy / len };
    return { origin: corner, n: n, extent: Math.abs(n.x) * w + Math.abs(n.y) * h };
  }
  // The nearest edge.
  const d = [
    { dist: y, origin: { x: 0, y: 0 }, n: { x: 0, y: 1 }, extent: h },
    { dist: h - y, origin: { x: 0, y: h }, n: { x: 0, y: -1 }, extent: h },
    { dist: x, origin: { x: 0, y: 0 }, n: { x: 1, y: 0 }, extent: w },
    { dist: w - x, origin: { x: w, y: 0 }, n: { x: -1, y: 0 }, extent: w },
  ].sort(function (a, b) { return a.dist - b.dist; })[0];
  return { origin: d.origin, n: d.n, extent: d.extent };
}

// Draw ``lift`` on the card ``el`` (a depth of 0: the back lies flat).
export function drawLift(el, lift) {
  const back = el.querySelector(".peel-back");
  const flap = el.querySelector(".peel-flap");
  if (!back || !flap) return;
  el.style.setProperty("--peel", Math.min(1, lift.depth / lift.extent).toFixed(3));
  if (lift.depth <= 0) {
    back.style.clipPath = "";
    flap.style.opacity = "0";
    el.classList.remove("lifting");
    return;
  }
  el.classList.add("lifting");
  const w = el.clientWidth, h = el.clientHeight, n = lift.n;
  back.style.clipPath = polygon(clipRect(w, h, lift.origin, n, lift.depth));
  // The flap: a band just past the fold line, lying along it.
  const fold = { x: lift.origin.x + n.x * lift.depth, y: lift.origin.y + n.y * lift.depth };
  const band = Math.min(lift.depth * 0.45, lift.extent - lift.depth, 60);
  const long = 2 * (w + h);
  const t = { x: n.y, y: -n.x }; // along the fold line; the band's local y axis is then n
  const angle = Math.atan2(t.y, t.x);
  flap.style.opacity = band > 1 ? "1" : "0";
  flap.style.width = long + "px";
  flap.style.height = Math.max(0, band) + "px";
  flap.style.transform =
    "translate(" + (fold.x - t.x * long / 2).toFixed(1) + "px," + (fold.y - t.y * long / 2).toFixed(1) + "px) rotate(" + angle + "rad)";
}
