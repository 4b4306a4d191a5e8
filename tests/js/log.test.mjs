// static/js/tlog.js under Node: the round page's check of the commitment log
// runs every case of tests/fairness/log_cases.json, the file the independent
// reference verifier and the Python snippet run too
// (tests/fairness/test_log_cases.py). A genuine case is accepted; each
// tampered one is refused.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { keptCheckpoint } from "../../static/js/commitments.js";
import * as tlog from "../../static/js/tlog.js";
import { verifyLog } from "../../static/js/verify.js";

const cases = JSON.parse(readFileSync(new URL("../fairness/log_cases.json", import.meta.url), "utf8"));
// Why each tampered case is refused (the page says each reason in words):
// a verifier that refused everything, or for the wrong reason, fails here.
const WHY = {
  "wrong root: the log signs a root that is not its tree's": "inclusion",
  "wrong signature: the root changed after signing": "signature",
  "wrong signature: its last byte changed": "signature",
  "signed by another key of the same name": "unsigned",
  "signed by another key that claims the log's key id": "signature",
  "no signature at all": "unsigned",
  "wrong origin: the log's key signs another log's checkpoint": "origin",
  "the proof is for another tree size than the checkpoint's": "size",
  "a proof for another leaf": "inclusion",
  "the right leaf at a wrong index": "inclusion",
  "an inclusion proof missing its last hash": "inclusion_short",
  "an inclusion proof with an extra hash": "inclusion_long",
  "an inclusion proof hash cut to 31 bytes": "hash_size",
  "an inclusion proof hash that is not base64": "base64",
  "a leaf that is not base64": "base64",
  "a signature that is not base64": "base64",
  "a fork: the kept tree of 13 has another root": "fork",
  "a fork: the kept tree of 8 is not the start of this one": "consistency",
  "a smaller tree shown as the newer one": "smaller",
  "a consistency proof missing its last hash": "consistency_short",
  "a consistency proof with an extra hash": "consistency_long",
  "a consistency proof with a changed hash": "fork",
  "the kept checkpoint signed by another key": "unsigned",
};

for (const c of cases) {
  test(`${c.name}: ${c.expect === "ok" ? "accepted" : "refused"}`, async () => {
    if (c.expect === "ok") {
      const checkpoint = await tlog.checkCase(c);
      assert.equal(checkpoint.size, String(c.size));
      assert.equal(checkpoint.origin, "casino.local/log");
    } else {
      await assert.rejects(tlog.checkCase(c), (err) => err instanceof tlog.LogError && err.what === WHY[c.name]);
    }
  });
}

test("every tampered case of the file has its reason here", () => {
  const tampered = cases.filter((c) => c.expect === "refuse").map((c) => c.name);
  assert.deepEqual(tampered.sort(), Object.keys(WHY).sort());
});

test("the leaf's six lines are read by name", () => {
  const good = cases.find((c) => c.expect === "ok");
  const leaf = tlog.parseLeaf(tlog.fromBase64(good.leaf_b64, "leaf"));
  assert.equal(leaf.nonce, String(good.index));
  assert.equal(leaf.game, "baccarat");
  assert.match(leaf.commitment, /^[0-9a-f]{64}$/);
  const text = new TextDecoder().decode(tlog.fromBase64(good.leaf_b64, "leaf"));
  for (const bad of [text.replace("nonce 4", "nonce 04"), text + "x\n", text.replace("game baccarat", "game poker")]) {
    assert.throws(() => tlog.parseLeaf(new TextEncoder().encode(bad)), tlog.LogError);
  }
});

test("base64 is read strictly: no spaces, no other alphabet", () => {
  assert.deepEqual(Array.from(tlog.fromBase64("AAE=", "x")), [0, 1]);
  for (const bad of ["AA E=", "AAE", "AA-_", "AAE=\n"]) assert.throws(() => tlog.fromBase64(bad, "x"), tlog.LogError);
});

// --- the round page's check against a site (verify.js, verifyLog) ---------------


function storage(kept) {
  const items = new Map();
  if (kept) items.set("casino.log-checkpoint", JSON.stringify(kept));
  return { getItem: (k) => (items.has(k) ? items.get(k) : null), setItem: (k, v) => items.set(k, String(v)) };
}

// A site that answers the log's endpoints with a case's note and proofs.
function site(c) {
  return async (path) => {
    if (path === "/log/key") return c.key + "\n";
    if (path === "/log/checkpoint") return c.note;
    if (path.startsWith("/log/leaf?")) return JSON.stringify({ leaf: c.leaf_b64 });
    if (path.startsWith("/log/proof/inclusion?")) return JSON.stringify({ proof: c.inclusion });
    if (path.startsWith("/log/proof/consistency?")) return JSON.stringify({ proof: c.consistency });
    throw new Error("no such page " + path);
  };
}

const named = (name) => cases.find((c) => c.name === name);
const GOOD = named("leaf 4 of 13, consistent with a kept tree of 8");
const leafOf = (c) => tlog.parseLeaf(tlog.fromBase64(c.leaf_b64, "leaf"));
const roundOf = (c) => ({ index: String(c.index), commitment: leafOf(c).commitment, nonce: leafOf(c).nonce });
const whats = (result) => result.findings.map((f) => f.what);

test("VERIFY finds the round's leaf in a signed checkpoint that extends the kept one, and keeps it", async () => {
  const s = storage({ key: GOOD.key, note: GOOD.old_note });
  const result = await verifyLog(roundOf(GOOD), site(GOOD), s);
  assert.deepEqual(whats(result), ["log_leaf", "log_included", "log_consistent"]);
  assert.equal(result.ok, true);
  assert.equal(keptCheckpoint(s).note, GOOD.note);
});

test("a browser that kept no checkpoint keeps the first one it verifies", async () => {
  const s = storage();
  const result = await verifyLog(roundOf(GOOD), site(GOOD), s);
  assert.deepEqual(whats(result), ["log_leaf", "log_included", "log_first"]);
  assert.equal(keptCheckpoint(s).note, GOOD.note);
});

test("a log shown forked to this browser is a plain warning and the kept checkpoint stays", async () => {
  for (const name of ["a fork: the kept tree of 13 has another root", "a smaller tree shown as the newer one"]) {
    const c = named(name);
    const s = storage({ key: c.key, note: c.old_note });
    const result = await verifyLog(roundOf(c), site(c), s);
    assert.equal(result.fork, true, name);
    assert.equal(result.ok, false);
    assert.equal(whats(result).at(-1), "log_fork");
    assert.equal(keptCheckpoint(s).note, c.old_note);
  }
});

test("a leaf that holds another commitment than the round's is refused", async () => {
  const round = { ...roundOf(GOOD), commitment: "0".repeat(64) };
  const result = await verifyLog(round, site(GOOD), storage());
  assert.deepEqual(whats(result), ["log_leaf_other"]);
  assert.equal(result.ok, false);
});

test("a proof that does not lead to the signed root is refused and nothing is kept", async () => {
  const c = named("a proof for another leaf");
  const s = storage();
  const result = await verifyLog(roundOf(c), site(c), s);
  assert.deepEqual(result.findings.map((f) => [f.what, f.values.why]), [["log_leaf", undefined], ["log_refused", "inclusion"]]);
  assert.equal(keptCheckpoint(s), null);
});

test("a round not yet in a signed checkpoint is said to be pending, not failed", async () => {
  for (const index of [null, "13"]) {
    const result = await verifyLog({ ...roundOf(GOOD), index }, site(GOOD), storage());
    assert.equal(whats(result)[0], "log_pending");
    assert.equal(result.ok, true);
  }
});

test("a kept checkpoint that today's key does not open is said: the key changed", async () => {
  const c = named("the kept checkpoint signed by another key");
  const result = await verifyLog(roundOf(c), site(c), storage({ key: "another", note: c.old_note }));
  assert.equal(whats(result).at(-1), "log_key_changed");
  assert.equal(result.fork, true);
});

test("a log that cannot be read says so", async () => {
  const result = await verifyLog(roundOf(GOOD), async () => { throw new Error("offline"); }, storage());
  assert.deepEqual(result.findings.map((f) => [f.what, f.values.why]), [["log_unreadable", "network"]]);
});

test("the fair page's check reads only the newest checkpoint against the kept one", async () => {
  const s = storage({ key: GOOD.key, note: GOOD.old_note });
  const result = await verifyLog(null, site(GOOD), s);
  assert.deepEqual(whats(result), ["log_checkpoint", "log_consistent"]);
  assert.equal(keptCheckpoint(s).note, GOOD.note);
  const fork = named("a fork: the kept tree of 8 is not the start of this one");
  const forked = await verifyLog(null, site(fork), storage({ key: fork.key, note: fork.old_note }));
  assert.deepEqual(whats(forked), ["log_checkpoint", "log_fork"]);
});

// The witness of log_cases.py (fixed seed), as /log/key's second line names it.
const WITNESS_KEY = "witness.casino.local/w1+fc1462ed+BCVDuS/xCVURR2rcg2nbbdyTNmWhGXjdoUBO4QZsqVWd";

test("a witness's cosignature is checked under the witness key the log lists", async () => {
  const c = named("a witness cosignature beside the log's signature");
  const withWitness = (note) => async (path) => (path === "/log/key" ? `${c.key}\n${WITNESS_KEY}\n` : site({ ...c, note })(path));
  const result = await verifyLog(roundOf(c), withWitness(c.note), storage());
  assert.equal(result.findings[0].what, "log_witnessed");
  assert.deepEqual(result.findings[0].values, { count: 1, total: 1, names: "witness.casino.local/w1" });
  // A checkpoint the witness has not cosigned yet is said, not failed.
  const unsigned = await verifyLog(roundOf(GOOD), withWitness(GOOD.note), storage());
  assert.equal(unsigned.findings[0].what, "log_unwitnessed");
  assert.equal(unsigned.ok, true);
  // A cosignature changed after signing refuses the checkpoint.
  const lines = c.note.trimEnd().split("\n");
  const [dash, name, sig] = lines.at(-1).split(" ");
  const raw = tlog.fromBase64(sig, "sig");
  raw[raw.length - 1] ^= 1;
  const bent = [...lines.slice(0, -1), `${dash} ${name} ${tlog.toBase64(raw)}`].join("\n") + "\n";
  const refused = await verifyLog(roundOf(c), withWitness(bent), storage());
  assert.deepEqual(refused.findings.map((f) => [f.what, f.values.why]), [["log_unreadable", "cosignature"]]);
});
