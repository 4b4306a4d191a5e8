/* The squeeze promo clip: a short <canvas> animation the site draws itself
   (no video file). Watching it to its end unlocks the squeeze for the rest
   of this visit to the table screen.

   Opening the clip posts "promo_start" and its end posts "promo_end" (the
   hidden htmx forms in the promo dialog, with the page's visit token); the
   server accepts the end only a clip's length after the start it recorded,
   and answers with the SQUEEZE toggle, now unlocked. Only time the clip is
   actually drawn counts (a hidden tab pauses requestAnimationFrame). Closing
   the dialog stops the clip; opening it again starts over. The canvas's
   data-* attributes carry the translated texts. */

let dialog = null;
let canvas = null;
let ctx = null;
let seconds = 12;
let elapsed = 0;
let last = 0;
let frame = 0;
let running = false;
const text = {};

function clamp(v) { return Math.max(0, Math.min(1, v)); }
function ease(v) { v = clamp(v); return v * v * (3 - 2 * v); }
function phase(t, from, to) { return ease((t - from) / (to - from)); }

function rounded(x, y, w, h, r) {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + h, r);
  ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}

function cardBack(x, y, w, h) {
  rounded(x, y, w, h, 8);
  ctx.fillStyle = "#fffdf7";
  ctx.fill();
  ctx.save();
  rounded(x + 5, y + 5, w - 10, h - 10, 5);
  ctx.clip();
  ctx.fillStyle = "#8d1526";
  ctx.fillRect(x, y, w, h);
  ctx.strokeStyle = "#b02238";
  ctx.lineWidth = 4;
  for (let i = -h; i < w + h; i += 11) {
    ctx.beginPath();
    ctx.moveTo(x + i, y);
    ctx.lineTo(x + i - h, y + h);
    ctx.stroke();
  }
  ctx.restore();
}

// A nine of hearts: the pips a squeeze slowly uncovers.
const NINE = [[.3, .18], [.7, .18], [.3, .39], [.7, .39], [.5, .5], [.3, .61], [.7, .61], [.3, .82], [.7, .82]];

function cardFace(x, y, w, h, withIndex) {
  rounded(x, y, w, h, 8);
  ctx.fillStyle = "#fffdf7";
  ctx.fill();
  ctx.fillStyle = "#c8102e";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.font = "bold " + Math.round(w * 0.2) + "px sans-serif";
  NINE.forEach(function (p) { ctx.fillText("♥", x + p[0] * w, y + p[1] * h); });
  if (withIndex) {
    ctx.font = "bold " + Math.round(w * 0.15) + "px sans-serif";
    ctx.fillText("9", x + w * 0.12, y + h * 0.08);
    ctx.fillText("♥", x + w * 0.12, y + h * 0.17);
  }
}

function title(str, y, size, alpha, colour) {
  ctx.globalAlpha = alpha;
  ctx.fillStyle = colour || "#f3d77a";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.font = "bold " + size + "px sans-serif";
  ctx.fillText(str, canvas.width / 2, y);
  ctx.globalAlpha = 1;
}

function draw(t) {
  const W = canvas.width, H = canvas.height;
  const g = ctx.createRadialGradient(W / 2, 0, 40, W / 2, H / 2, W * 0.75);
  g.addColorStop(0, "#1d7a4c");
  g.addColorStop(1, "#06301c");
  ctx.fillStyle = g;
  ctx.fillRect(0, 0, W, H);
  ctx.strokeStyle = "#d4af37";
  ctx.lineWidth = 3;
  rounded(8, 8, W - 16, H - 16, 18);
  ctx.stroke();

  // 0-2.5 s: the title.
  const a = phase(t, 0, 1.2) * (1 - phase(t, 2.2, 2.8));
  if (a > 0) title(text.title, H / 2, 40 + 30 * phase(t, 0, 1.2), a);

  // 2.5-5 s: two cards dealt face down.
  const cw = 92, ch = 130;
  if (t > 2.5 && t < 9.6) {
    const d = phase(t, 2.5, 3.6);
    const shrink = 1 - phase(t, 4.6, 5.2);
    ctx.globalAlpha = shrink;
    cardBack(W * 0.3 - cw / 2, -ch + (H * 0.35 + ch) * d, cw, ch);
    cardBack(W * 0.7 - cw / 2, -ch + (H * 0.35 + ch) * phase(t, 2.9, 4.0), cw, ch);
    title(text.player, H * 0.3 - 14, 18, d * shrink, "#9dc0ff");
    ctx.globalAlpha = d * shrink;
    ctx.fillStyle = "#ffa39e";
    ctx.font = "bold 18px sans-serif";
    ctx.fillText(text.banker, W * 0.7, H * 0.3 - 14);
    ctx.globalAlpha = 1;
  }

  // 5-9.6 s: the player's card, big, lifted from its corner; the navigator beside it.
  if (t >= 5) {
    const bw = 150, bh = 210, bx = W * 0.3 - bw / 2, by = H / 2 - bh / 2 + 6;
    const lift = phase(t, 5.6, 8.6) * 0.75;
    const flip = phase(t, 9.2, 9.8);
    if (flip <= 0) {
      cardFace(bx, by, bw, bh, false);
      // The back covers all but the corner triangle lifted so far.
      const k = lift * (bw + bh);
      ctx.save();
      ctx.beginPath();
      ctx.moveTo(bx, by);
      ctx.lineTo(bx + bw, by);
      ctx.lineTo(bx + bw, by + Math.max(0, bh - k));
      ctx.lineTo(bx + Math.max(0, bw - k), by + bh);
      ctx.lineTo(bx, by + bh);
      ctx.closePath();
      ctx.clip();
      cardBack(bx, by, bw, bh);
      ctx.restore();
      if (k > 4) {
        // The flap along the fold, light at the crease.
        const fg = ctx.createLinearGradient(bx + bw - k / 2, by + bh - k / 2, bx + bw - k * 0.8, by + bh - k * 0.8);
        fg.addColorStop(0, "#fff4f4");
        fg.addColorStop(1, "#9c1a2c");
        ctx.beginPath();
        ctx.moveTo(bx + bw, by + Math.max(0, bh - k));
        ctx.lineTo(bx + Math.max(0, bw - k), by + bh);
        ctx.lineTo(bx + Math.max(0, bw - k * 1.25), by + bh - k * 0.25);
        ctx.lineTo(bx + bw - k * 0.25, by + Math.max(0, bh - k * 1.25));
        ctx.closePath();
        ctx.fillStyle = fg;
        ctx.fill();
      }
    } else {
      const sx = Math.abs(Math.cos(flip * Math.PI));
      ctx.save();
      ctx.translate(bx + bw / 2, 0);
      ctx.scale(Math.max(0.02, sx), 1);
      if (flip < 0.5) cardBack(-bw / 2, by, bw, bh);
      else cardFace(-bw / 2, by, bw, bh, true);
      ctx.restore();
    }

    // The navigator: CHANCE NO. with 0, 8 and 9 lighting up.
    const na = phase(t, 6, 6.8);
    ctx.globalAlpha = na;
    const nx = W * 0.55, ny = H / 2 - 86;
    ctx.fillStyle = "rgba(0,0,0,.45)";
    rounded(nx, ny, 240, 150, 12);
    ctx.fill();
    ctx.strokeStyle = "#2f6fde";
    ctx.stroke();
    ctx.fillStyle = "#f3d77a";
    ctx.font = "bold 18px sans-serif";
    ctx.textAlign = "left";
    ctx.fillText(text.chance, nx + 14, ny + 24);
    const hits = { 0: 7, 8: 7.5, 9: 8 };
    for (let v = 0; v < 10; v++) {
      const cx = nx + 14 + (v % 5) * 44, cy = ny + 44 + Math.floor(v / 5) * 48;
      const on = hits[v] !== undefined && t >= hits[v];
      ctx.fillStyle = on ? "#d4af37" : "rgba(255,255,255,.1)";
      rounded(cx, cy, 38, 40, 8);
      ctx.fill();
      ctx.fillStyle = on ? "#2b1d00" : "#f4f1e8";
      ctx.textAlign = "center";
      ctx.font = "bold 20px sans-serif";
      ctx.fillText(String(v), cx + 19, cy + 21);
    }
    ctx.globalAlpha = 1;
  }

  // 9.8-12 s: what the squeeze is.
  const b = phase(t, 9.9, 10.6);
  if (b > 0) {
    title(text.line1, 34, 24, b);
    title(text.line2, H - 30, 16, phase(t, 10.4, 11.1), "#f4f1e8");
  }
}

function progress() {
  const bar = document.getElementById("bac-promo-progress");
  if (bar) bar.value = Math.min(seconds, elapsed);
}

function tick(now) {
  if (!running) return;
  // Count only time the clip was on screen (a frame gap over 0.25 s is a pause).
  elapsed += Math.min(0.25, Math.max(0, (now - last) / 1000));
  last = now;
  draw(Math.min(elapsed, seconds));
  progress();
  if (elapsed >= seconds) {
    running = false;
    finished();
    return;
  }
  frame = requestAnimationFrame(tick);
}

function post(id) {
  const form = document.getElementById(id);
  if (form && window.htmx) window.htmx.trigger(form, "submit");
}

function play() {
  canvas = document.getElementById("bac-promo-canvas");
  dialog = document.getElementById("bac-promo-dialog");
  if (!canvas || !dialog || !canvas.getContext) return;
  ctx = canvas.getContext("2d");
  seconds = parseFloat(canvas.dataset.seconds) || 12;
  ["title", "line1", "line2", "line3", "player", "banker", "chance"].forEach(function (k) {
    text[k] = canvas.dataset[k] || "";
  });
  const msg = document.getElementById("bac-promo-msg");
  if (msg) msg.textContent = "";
  if (!dialog.open) dialog.showModal();
  cancelAnimationFrame(frame);
  elapsed = 0;
  last = performance.now();
  running = true;
  dialog.dataset.state = "playing";
  post("bac-promo-start");
  frame = requestAnimationFrame(tick);
}

function finished() {
  dialog.dataset.state = "ended";
  post("bac-promo-end");
}

document.addEventListener("click", function (evt) {
  if (evt.target.closest && evt.target.closest("[data-open-promo]")) play();
});

document.addEventListener("close", function (evt) {
  if (evt.target && evt.target.id === "bac-promo-dialog") {
    running = false;
    cancelAnimationFrame(frame);
  }
}, true);

// The server's answer to the end: unlocked (a note) or not (an error).
document.addEventListener("htmx:oobAfterSwap", function (evt) {
  const target = evt.detail && evt.detail.target;
  if (!target || target.id !== "bac-promo-msg" || !dialog) return;
  const msg = document.getElementById("bac-promo-msg"); // the new element (target was replaced)
  if (msg && msg.querySelector("[data-testid=promo-note]")) {
    if (ctx) {
      ctx.fillStyle = "rgba(0,0,0,.65)";
      ctx.fillRect(0, canvas.height / 2 - 32, canvas.width, 64);
      title(text.line3, canvas.height / 2, 28, 1);
    }
    window.setTimeout(function () { if (dialog.open) dialog.close(); }, 1600);
  }
});
