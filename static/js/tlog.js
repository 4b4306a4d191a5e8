// The commitment log checked in the browser (docs/fairness.md, /fair/):
// RFC 9162 §2.1's Merkle tree (leaf hash SHA-256(0x00 || leaf), node hash
// SHA-256(0x01 || left || right)), its inclusion and consistency proofs, and
// C2SP checkpoints as signed notes under an Ed25519 verifier key, with
// WebCrypto alone (SHA-256, Ed25519). Written again from those texts, not from
// the site's code, like the rest of verify.js.
//
// Every refusal throws a LogError whose ``what`` names the reason and whose
// message says it in English; verify.js shows the page's words for ``what``.
// tests/js/log.test.mjs runs tests/fairness/log_cases.json through checkCase.

export class LogError extends Error {
  constructor(what, message) {
    super(message);
    this.what = what;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function subtle() {
  return globalThis.crypto.subtle;
}

// Standard base64 (RFC 4648 §4), strictly: atob alone would skip spaces.
export function fromBase64(text, what) {
  const s = String(text);
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s)) {
    throw new LogError("base64", what + " is not base64");
  }
  return Uint8Array.from(atob(s), function (c) { return c.charCodeAt(0); });
}

export function toBase64(bytes) {
  return btoa(String.fromCharCode.apply(null, Array.from(bytes)));
}

function hash32(text, what) {
  const raw = fromBase64(text, what);
  if (raw.length !== 32) throw new LogError("hash_size", what + " is " + raw.length + " bytes, not 32");
  return raw;
}

function join() {
  const parts = Array.from(arguments);
  const out = new Uint8Array(parts.reduce(function (n, p) { return n + p.length; }, 0));
  let at = 0;
  parts.forEach(function (p) { out.set(p, at); at += p.length; });
  return out;
}

function same(a, b) {
  return a.length === b.length && a.every(function (x, i) { return x === b[i]; });
}

async function sha256(bytes) {
  return new Uint8Array(await subtle().digest("SHA-256", bytes));
}

export function leafHash(leaf) {
  return sha256(join(Uint8Array.of(0), leaf));
}

function nodeHash(left, right) {
  return sha256(join(Uint8Array.of(1), left, right));
}

// Sizes and indexes are BigInt: a tree may outgrow 2^32, where JavaScript's
// bit operators stop.
function big(n) {
  return BigInt(n);
}

// RFC 9162 §2.1.3.2.
export async function verifyInclusion(hash, index, size, path, root) {
  let fn = big(index);
  let sn = big(size) - 1n;
  if (fn < 0n || fn > sn) throw new LogError("index", "leaf " + index + " is not in a tree of " + size);
  let r = hash;
  for (const p of path) {
    if (sn === 0n) throw new LogError("inclusion_long", "the inclusion proof has too many hashes");
    if (fn & 1n || fn === sn) {
      r = await nodeHash(p, r);
      while (fn && !(fn & 1n)) { fn >>= 1n; sn >>= 1n; }
    } else {
      r = await nodeHash(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  if (sn !== 0n) throw new LogError("inclusion_short", "the inclusion proof is too short");
  if (!same(r, root)) throw new LogError("inclusion", "the inclusion proof does not lead to the signed root");
}

const EMPTY_ROOT_HEX = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// RFC 9162 §2.1.4.2, with the cases it leaves to the caller: equal sizes
// (the same tree, an empty proof) and the empty tree.
export async function verifyConsistency(first, second, firstHash, secondHash, proof) {
  const m = big(first);
  const n = big(second);
  if (m > n) throw new LogError("smaller", "a tree of " + second + " leaves cannot extend one of " + first);
  if (m === n) {
    if (proof.length) throw new LogError("consistency_long", "two trees of one size need an empty proof");
    if (!same(firstHash, secondHash)) throw new LogError("fork", "two different trees of " + first + " leaves");
    return;
  }
  if (m === 0n) {
    if (proof.length) throw new LogError("consistency_long", "a proof from the empty tree is empty");
    if (toHex(firstHash) !== EMPTY_ROOT_HEX) throw new LogError("fork", "an empty tree with a root");
    return;
  }
  if (!proof.length) throw new LogError("consistency_short", "the consistency proof is empty");
  const path = (m & (m - 1n)) === 0n ? [firstHash].concat(proof) : proof.slice();
  let fn = m - 1n;
  let sn = n - 1n;
  while (fn & 1n) { fn >>= 1n; sn >>= 1n; }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0n) throw new LogError("consistency_long", "the consistency proof has too many hashes");
    if (fn & 1n || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      while (fn && !(fn & 1n)) { fn >>= 1n; sn >>= 1n; }
    } else {
      sr = await nodeHash(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  if (sn !== 0n) throw new LogError("consistency_short", "the consistency proof is too short");
  if (!same(fr, firstHash)) throw new LogError("fork", "the older tree is not the start of the newer one");
  if (!same(sr, secondHash)) throw new LogError("consistency", "the consistency proof does not lead to the newer root");
}

function toHex(bytes) {
  return Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
}

// A verifier key (C2SP signed-note): "<name>+<8 hex key id>+<base64(type || key)>",
// its id the first 4 bytes of SHA-256(name || "\n" || type || key); the type
// is 0x01 for the log's Ed25519 key, 0x04 for a witness's (C2SP tlog-cosignature).
export async function parseKey(text, type) {
  const parts = /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(String(text).trim());
  if (!parts) throw new LogError("key", "the log's verifier key is not name+id+key");
  parts.shift(); // name, id, key
  const raw = fromBase64(parts[2], "the verifier key");
  if (raw.length !== 33 || raw[0] !== (type || 1)) throw new LogError("key", "the verifier key is not an Ed25519 key");
  const id = (await sha256(join(encoder.encode(parts[0] + "\n"), raw))).slice(0, 4);
  if (toHex(id) !== parts[1]) throw new LogError("key", "the verifier key's id is not its hash");
  const key = await subtle().importKey("raw", raw.slice(1), { name: "Ed25519" }, false, ["verify"]);
  return { name: parts[0], id: id, key: key, text: String(text).trim() };
}

// The checkpoint of a signed note the log's key signed: {origin, size, root,
// witnessed}, ``witnessed`` the names of ``witnesses`` whose cosignature (a
// big-endian 8-byte time, then an Ed25519 signature of
// "cosignature/v1\ntime <t>\n" and the note's text) verifies. Signatures of
// unknown keys (a rotated key) are ignored; one that names a known key and
// its id but fails refuses the note.
export async function openCheckpoint(note, key, witnesses) {
  const text = String(note);
  if (!text.endsWith("\n") || /[\x00-\x09\x0b-\x1f]/.test(text)) {
    throw new LogError("note", "the checkpoint is not a signed note");
  }
  const cut = text.lastIndexOf("\n\n");
  if (cut < 0) throw new LogError("unsigned", "the checkpoint is not signed");
  const body = text.slice(0, cut + 1);
  const lines = text.slice(cut + 2).split("\n").slice(0, -1);
  if (!lines.length) throw new LogError("unsigned", "the checkpoint is not signed");
  let signed = false;
  const witnessed = [];
  for (const line of lines) {
    const found = /^\u2014 (\S+) (\S+)$/.exec(line);
    if (!found) throw new LogError("note", "a signature line is not '— name base64'");
    const raw = fromBase64(found[2], "a signature");
    const witness = (witnesses || []).find(function (w) {
      return found[1] === w.name && raw.length >= 4 && same(raw.slice(0, 4), w.id);
    });
    if (witness) {
      const time = raw.length === 76 ? new DataView(raw.buffer, raw.byteOffset + 4, 8).getBigUint64(0) : null;
      const message = encoder.encode("cosignature/v1\ntime " + time + "\n" + body);
      const good = time !== null && await subtle().verify({ name: "Ed25519" }, witness.key, raw.slice(12), message);
      if (!good) throw new LogError("cosignature", "a witness's cosignature does not verify");
      witnessed.push(witness.name);
      continue;
    }
    if (found[1] !== key.name || raw.length < 4 || !same(raw.slice(0, 4), key.id)) continue;
    const good = raw.length === 68 &&
      await subtle().verify({ name: "Ed25519" }, key.key, raw.slice(4), encoder.encode(body));
    if (!good) throw new LogError("signature", "the log's signature on the checkpoint does not verify");
    signed = true;
  }
  if (!signed) throw new LogError("unsigned", "the checkpoint has no signature of the log's key");
  const head = body.split("\n").slice(0, -1);
  if (head.length < 3 || head.some(function (l) { return !l; })) {
    throw new LogError("note", "the checkpoint is not an origin, a size and a root");
  }
  if (head[0] !== key.name) throw new LogError("origin", "the checkpoint is of another log: " + head[0]);
  if (!/^(0|[1-9][0-9]*)$/.test(head[1])) throw new LogError("note", "the checkpoint's size is not a number");
  return {
    origin: head[0], size: head[1], root: hash32(head[2], "the checkpoint's root"), note: text, witnessed: witnessed,
  };
}

const LEAF = /^casino-commitment\/1\ncommitment ([0-9a-f]{64})\nnonce (0|[1-9][0-9]*)\ngame (baccarat|war|-)\ntable (\S+)\nplayer ([0-9a-f]{32})\n$/;

// The six lines of a leaf (version 1), by field name.
export function parseLeaf(bytes) {
  let text;
  try {
    text = decoder.decode(bytes);
  } catch (err) {
    throw new LogError("leaf", "the leaf is not UTF-8");
  }
  const found = LEAF.exec(text);
  if (!found) throw new LogError("leaf", "the leaf is not six lines of casino-commitment/1");
  return { commitment: found[1], nonce: found[2], game: found[3], table: found[4], player: found[5] };
}

// A case of tests/fairness/log_cases.json (the same checks the round page
// makes): the note opens under the key, the leaf is at its index in the
// note's tree, and the note's tree extends the kept one. Returns the checkpoint.
export async function checkCase(c) {
  const key = await parseKey(c.key);
  const checkpoint = await openCheckpoint(c.note, key);
  if (String(c.size) !== checkpoint.size) throw new LogError("size", "the proof is for another tree size");
  const leaf = fromBase64(c.leaf_b64, "the leaf");
  parseLeaf(leaf);
  const path = c.inclusion.map(function (h) { return hash32(h, "an inclusion proof hash"); });
  await verifyInclusion(await leafHash(leaf), c.index, checkpoint.size, path, checkpoint.root);
  if (c.old_note !== null) {
    const old = await openCheckpoint(c.old_note, key);
    const proof = c.consistency.map(function (h) { return hash32(h, "a consistency proof hash"); });
    await verifyConsistency(old.size, checkpoint.size, old.root, checkpoint.root, proof);
  }
  return checkpoint;
}
