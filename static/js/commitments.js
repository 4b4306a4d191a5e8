// The commitments this browser was shown: every "next round" server seed hash
// a table displays is remembered in localStorage with the time it was first
// shown, so a round's VERIFY (verify.js) can say whether the seed revealed
// after the round matches a commitment this browser saw before it, not only
// the hash the round's page shows now (which the site could rewrite).
//
// On a table the script tag names the element that shows the hash:
//   <script type="module" src=".../commitments.js" data-watch="#bac-fairness [data-testid=seed-hash]">
// It is read when the page opens and again after every swap (htmx over the
// socket replaces it after each round). The round page's verify.js imports
// ``seenHere`` and the kept checkpoint; tests/js/ import the pure functions
// under Node.
export const KEY = "casino.commitments";
export const LIMIT = 2000; // the newest ones: about 160 kB, months of play
const HASH = /^[0-9a-f]{64}$/;

export function read(storage) {
  try {
    const list = JSON.parse(storage.getItem(KEY) || "[]");
    if (!Array.isArray(list)) return [];
    return list.filter(function (entry) {
      return Array.isArray(entry) && HASH.test(entry[0]) && typeof entry[1] === "number";
    });
  } catch (err) {
    return []; // unreadable: start again rather than break the table
  }
}

// Remember ``hash`` as shown at ``when`` (ms since the epoch) unless it was
// shown before: the first time is the one that proves the commitment came
// first. Returns whether it was new.
export function remember(storage, hash, when) {
  const text = String(hash || "").trim().toLowerCase();
  if (!HASH.test(text)) return false;
  let list = read(storage);
  if (list.some(function (entry) { return entry[0] === text; })) return false;
  list.push([text, when]);
  if (list.length > LIMIT) list = list.slice(list.length - LIMIT);
  try {
    storage.setItem(KEY, JSON.stringify(list));
  } catch (err) {
    return false; // storage full or refused: nothing is remembered
  }
  return true;
}

// When this browser was first shown ``hash`` (ms since the epoch), or null.
export function seenAt(storage, hash) {
  const text = String(hash || "").trim().toLowerCase();
  const list = read(storage);
  for (let i = 0; i < list.length; i++) {
    if (list[i][0] === text) return list[i][1];
  }
  return null;
}

// When this browser was first shown ``hash`` (the round page's VERIFY), or null.
export function seenHere(hash) {
  const s = browserStorage();
  return s ? seenAt(s, hash) : null;
}

// --- the log's checkpoint --------------------------------------------------------
// The newest checkpoint of the commitment log this browser verified, with the
// verifier key it verified it under. Every newer checkpoint a VERIFY is shown
// must extend it (a consistency proof, verify.js): a site that showed this
// browser one history and later another is caught here, whatever its pages say.
export const CHECKPOINT_KEY = "casino.log-checkpoint";

export function keptCheckpoint(storage) {
  try {
    const kept = JSON.parse(storage.getItem(CHECKPOINT_KEY) || "null");
    if (kept && typeof kept.key === "string" && typeof kept.note === "string") return kept;
  } catch (err) {
    // unreadable: as if none was kept
  }
  return null;
}

// Keep ``note`` (verified under ``key``) as the one the next must extend.
export function keepCheckpoint(storage, key, note) {
  try {
    storage.setItem(CHECKPOINT_KEY, JSON.stringify({ key: key, note: note }));
    return true;
  } catch (err) {
    return false;
  }
}

export function browserStorage() {
  try {
    return window.localStorage; // a browser set to refuse storage throws here
  } catch (err) {
    return null;
  }
}

// The table's script tag names the hash to watch (a module has no currentScript).
const script = typeof document === "undefined" ? null : document.querySelector("script[data-watch]");
const selector = script && script.getAttribute("data-watch");
let last = null;
function look() {
  const shown = document.querySelector(selector);
  const hash = shown ? shown.textContent.trim() : "";
  if (!hash || hash === last) return;
  last = hash;
  const s = browserStorage();
  if (s) remember(s, hash, Date.now());
}
if (selector) {
  look();
  // The hash is swapped in place after each round: look again after any change.
  new MutationObserver(look).observe(document.body, { childList: true, subtree: true, characterData: true });
}
