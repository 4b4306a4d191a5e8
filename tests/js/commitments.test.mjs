// static/js/commitments.js under Node: what a table remembers of the
// commitments it showed, as a player's later VERIFY reads it back.
import assert from "node:assert/strict";
import { test } from "node:test";

import * as memory from "../../static/js/commitments.js";

function storage() {
  const items = new Map();
  return {
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => items.set(key, String(value)),
    items,
  };
}

const hash = (n) => n.toString(16).padStart(64, "0");

test("a commitment is remembered with the time it was first shown", () => {
  const s = storage();
  assert.equal(memory.seenAt(s, hash(1)), null);
  assert.equal(memory.remember(s, hash(1), 1000), true);
  // Shown again after a reload or a swap: the first time stays.
  assert.equal(memory.remember(s, ` ${hash(1).toUpperCase()}\n`, 5000), false);
  assert.equal(memory.seenAt(s, hash(1)), 1000);
  assert.equal(memory.seenAt(s, hash(2)), null);
});

test("the memory keeps the newest commitments only, so storage cannot fill up", () => {
  const s = storage();
  for (let n = 1; n <= memory.LIMIT + 5; n++) memory.remember(s, hash(n), n);
  assert.equal(memory.read(s).length, memory.LIMIT);
  assert.equal(memory.seenAt(s, hash(5)), null); // the oldest went first
  assert.equal(memory.seenAt(s, hash(6)), 6);
  assert.equal(memory.seenAt(s, hash(memory.LIMIT + 5)), memory.LIMIT + 5);
});

test("text that is no SHA-256 hash is never remembered as a commitment", () => {
  const s = storage();
  for (const junk of ["", "—", "abc", hash(1) + "0", "<script>", null, undefined]) {
    assert.equal(memory.remember(s, junk, 1), false, String(junk));
  }
  assert.deepEqual(memory.read(s), []);
});

test("a corrupt or refused storage neither breaks the table nor invents a sighting", () => {
  const s = storage();
  s.setItem(memory.KEY, "{not json");
  assert.equal(memory.seenAt(s, hash(1)), null);
  assert.equal(memory.remember(s, hash(1), 7), true);
  assert.equal(memory.seenAt(s, hash(1)), 7);
  s.setItem(memory.KEY, JSON.stringify([[hash(2), "yesterday"], "x", [hash(3), 3]]));
  assert.equal(memory.seenAt(s, hash(2)), null);
  assert.equal(memory.seenAt(s, hash(3)), 3);
  const full = { getItem: () => null, setItem: () => { throw new Error("QuotaExceededError"); } };
  assert.equal(memory.remember(full, hash(4), 4), false);
});

test("the log's checkpoint this browser verified is kept with its key, and junk reads as none", () => {
  const s = storage();
  assert.equal(memory.keptCheckpoint(s), null);
  assert.equal(memory.keepCheckpoint(s, "casino.local/log+01020304+AQ==", "note\n"), true);
  assert.deepEqual(memory.keptCheckpoint(s), { key: "casino.local/log+01020304+AQ==", note: "note\n" });
  s.setItem(memory.CHECKPOINT_KEY, "{not json");
  assert.equal(memory.keptCheckpoint(s), null);
  s.setItem(memory.CHECKPOINT_KEY, JSON.stringify({ key: 1, note: null }));
  assert.equal(memory.keptCheckpoint(s), null);
  const full = { getItem: () => null, setItem: () => { throw new Error("QuotaExceededError"); } };
  assert.equal(memory.keepCheckpoint(full, "k", "n"), false);
});
