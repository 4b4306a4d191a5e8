/* Casino sounds, synthesised with the Web Audio API (no audio files).

   An ES module; both tables' scripts import { sound } from it:
     configure({sound, effects, music[, volume]})  the player's settings (booleans; volume 0-100)
     setVolume(level)                    the master gain, 0-100 (the table's slider)
     state()                             {sound, effects, music, volume, gain}: what is applied now
     play(name)                          "chip", "card", "win", "end", "click"
     playFrom(html)                      play every data-sound="..." named in an HTML string
     playDealt(root)                     each dealt card under root, at its --deal-delay
   Browsers only let audio start after a user gesture, so the audio context
   is created (or resumed) on the first pointer or key press. Shared by every
   table (Baccarat, Casino War).

   The table's mute button and volume slider ([data-sound-controls]) post to
   the settings view with htmx; the saved values come back in the prefs
   element ([data-sound-prefs], swapped out of band), which this file reads
   on load and after each swap: the button and the slider always show what
   is stored, and the gain follows it. Moving the slider changes the gain at
   once, before the save. */
const global = window;

const prefs = { sound: true, effects: true, music: false, volume: 70 };
const BASE_GAIN = 0.5; // the master gain at full volume
let ctx = null;
let master = null;
let musicBus = null;
let musicTimer = null;
let nextBar = 0;
let bar = 0;

function audio() {
  if (!ctx) {
    const AC = global.AudioContext || global.webkitAudioContext;
    if (!AC) return null;
    ctx = new AC();
    master = ctx.createGain();
    master.gain.value = gainFor(prefs.volume);
    master.connect(ctx.destination);
  }
  if (ctx.state === "suspended") ctx.resume();
  return ctx;
}

function envelope(node, t, peak, attack, release) {
  node.gain.setValueAtTime(0.0001, t);
  node.gain.exponentialRampToValueAtTime(peak, t + attack);
  node.gain.exponentialRampToValueAtTime(0.0001, t + attack + release);
}

function tone(freq, t, dur, type, peak, out) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type || "sine";
  osc.frequency.setValueAtTime(freq, t);
  envelope(gain, t, peak || 0.2, 0.01, dur);
  osc.connect(gain).connect(out || master);
  osc.start(t);
  osc.stop(t + dur + 0.05);
}

function noise(t, dur, peak, filterFreq, filterType) {
  const length = Math.max(1, Math.floor(ctx.sampleRate * dur));
  const buffer = ctx.createBuffer(1, length, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) data[i] = Math.random() * 2 - 1;
  const src = ctx.createBufferSource();
  src.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = filterType || "bandpass";
  filter.frequency.value = filterFreq;
  const gain = ctx.createGain();
  envelope(gain, t, peak, 0.004, dur);
  src.connect(filter).connect(gain).connect(master);
  src.start(t);
}

const effects = {
  // Two clay chips knocking: a bright click and a short resonant tick.
  chip: function (t) {
    noise(t, 0.05, 0.5, 3800, "bandpass");
    tone(2600, t, 0.06, "triangle", 0.08);
    noise(t + 0.045, 0.04, 0.3, 4200, "bandpass");
  },
  // A card sliding and flipping: a filtered swish.
  card: function (t) {
    noise(t, 0.12, 0.35, 1800, "highpass");
    noise(t + 0.08, 0.05, 0.25, 900, "bandpass");
  },
  // A rising major arpeggio.
  win: function (t) {
    [523.25, 659.25, 783.99, 1046.5].forEach(function (f, i) {
      tone(f, t + i * 0.09, 0.35, "triangle", 0.18);
    });
  },
  // The end of a round without a win: two soft low notes.
  end: function (t) {
    tone(392, t, 0.25, "sine", 0.12);
    tone(329.63, t + 0.16, 0.35, "sine", 0.1);
  },
  click: function (t) {
    tone(1200, t, 0.04, "square", 0.05);
  },
};

function play(name) {
  if (!prefs.sound || !prefs.effects || !effects[name]) return;
  if (!audio()) return;
  effects[name](ctx.currentTime + 0.01);
}

function playFrom(html) {
  if (!html) return;
  const seen = {};
  const re = /data-sound="([a-z]+)"/g;
  let m;
  while ((m = re.exec(html))) {
    if (!seen[m[1]]) {
      seen[m[1]] = true;
      play(m[1]);
    }
  }
}

// Each card dealt under ``root`` (.playing-card.dealt, cards.css) heard as
// it leaves the shoe, at its --deal-delay.
function playDealt(root) {
  if (!root) return;
  root.querySelectorAll(".playing-card.dealt").forEach(function (card) {
    const delay = parseFloat(card.style.getPropertyValue("--deal-delay")) || 0;
    global.setTimeout(function () { play("card"); }, delay * 1000);
  });
}

// --- background music: a slow four-chord pad with a gentle bass -------------
const CHORDS = [
  [220.0, 261.63, 329.63], // Am
  [174.61, 220.0, 261.63], // F
  [196.0, 246.94, 293.66], // G
  [164.81, 207.65, 246.94], // E
];
const BAR = 2.4; // seconds

function scheduleMusic() {
  if (!ctx || !musicBus) return;
  while (nextBar < ctx.currentTime + BAR * 1.5) {
    const chord = CHORDS[bar % CHORDS.length];
    chord.forEach(function (f) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.0001, nextBar);
      gain.gain.linearRampToValueAtTime(0.05, nextBar + 0.6);
      gain.gain.linearRampToValueAtTime(0.0001, nextBar + BAR + 0.3);
      osc.connect(gain).connect(musicBus);
      osc.start(nextBar);
      osc.stop(nextBar + BAR + 0.4);
    });
    tone(chord[0] / 2, nextBar, 0.8, "triangle", 0.08, musicBus);
    tone(chord[2], nextBar + BAR / 2, 0.5, "sine", 0.03, musicBus);
    nextBar += BAR;
    bar += 1;
  }
}

function startMusic() {
  if (musicTimer || !audio()) return;
  musicBus = ctx.createGain();
  musicBus.gain.value = 0.6;
  musicBus.connect(master);
  nextBar = ctx.currentTime + 0.1;
  scheduleMusic();
  musicTimer = global.setInterval(scheduleMusic, 500);
}

function stopMusic() {
  if (musicTimer) global.clearInterval(musicTimer);
  musicTimer = null;
  if (musicBus) {
    const bus = musicBus;
    musicBus = null;
    bus.gain.setTargetAtTime(0.0001, ctx.currentTime, 0.2);
    global.setTimeout(function () { bus.disconnect(); }, 1200);
  }
}

function applyMusic() {
  if (prefs.sound && prefs.music && ctx) startMusic();
  else stopMusic();
}

// Loudness is heard roughly on a log scale: a squared slider feels even.
function gainFor(level) {
  const v = Math.max(0, Math.min(100, Number(level) || 0)) / 100;
  return BASE_GAIN * v * v;
}

function setVolume(level) {
  const n = Number(level);
  if (!isFinite(n)) return;
  prefs.volume = Math.max(0, Math.min(100, Math.round(n)));
  if (ctx && master) master.gain.setTargetAtTime(gainFor(prefs.volume), ctx.currentTime, 0.02);
}

function configure(next) {
  prefs.sound = !!next.sound;
  prefs.effects = !!next.effects;
  prefs.music = !!next.music;
  if (next.volume !== undefined && next.volume !== null) setVolume(next.volume);
  applyMusic();
}

function state() {
  return {
    sound: prefs.sound,
    effects: prefs.effects,
    music: prefs.music,
    volume: prefs.volume,
    gain: gainFor(prefs.volume),
  };
}

// --- the table's mute button and volume slider -------------------------------
function syncControls() {
  const stored = global.document.querySelector("[data-sound-prefs]");
  if (!stored) return;
  const on = stored.dataset.sound === "1";
  prefs.sound = on;
  if (stored.dataset.volume !== undefined) setVolume(stored.dataset.volume);
  applyMusic();
  global.document.querySelectorAll("[data-sound-mute]").forEach(function (btn) {
    btn.setAttribute("aria-pressed", on ? "false" : "true");
    // The next press asks for the other state.
    btn.setAttribute("hx-vals", JSON.stringify({ field: "sound", value: on ? "0" : "1" }));
  });
  global.document.querySelectorAll("[data-sound-volume]").forEach(function (slider) {
    if (global.document.activeElement !== slider || !slider.matches(":active")) {
      slider.value = String(prefs.volume);
    }
    slider.classList.toggle("muted", !on);
  });
}

global.document.addEventListener("input", function (evt) {
  if (evt.target.matches && evt.target.matches("[data-sound-volume]")) setVolume(evt.target.value);
});
global.document.addEventListener("htmx:oobAfterSwap", function (evt) {
  const target = evt.detail && evt.detail.target;
  if (target && target.matches && target.matches("[data-sound-prefs]")) syncControls();
});
if (global.document.readyState === "loading") {
  global.document.addEventListener("DOMContentLoaded", syncControls);
} else {
  syncControls();
}

// The first gesture unlocks audio (and starts the music if it is on).
function unlock() {
  audio();
  applyMusic();
  global.removeEventListener("pointerdown", unlock, true);
  global.removeEventListener("keydown", unlock, true);
}
global.addEventListener("pointerdown", unlock, true);
global.addEventListener("keydown", unlock, true);

export const sound = {
  configure: configure,
  setVolume: setVolume,
  state: state,
  play: play,
  playFrom: playFrom,
  playDealt: playDealt,
};
