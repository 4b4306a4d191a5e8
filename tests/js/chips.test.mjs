// static/js/chips.js under Node: one chip set, the same colour for a value
// at every table of both games (as games.presenters.common.chip_colour).
import assert from "node:assert/strict";
import { test } from "node:test";

import { chipColour } from "../../static/js/chips.js";

test("a usual value has its colour whatever the table", () => {
  assert.equal(chipColour(100), 0); // 1 chip: white
  assert.equal(chipColour(500), 1); // 5: red
  assert.equal(chipColour(10_000), 4); // 100: black
  assert.equal(chipColour(10_000, [100, 500, 10_000]), 4);
});

test("no rack of the preset tables shows two chips a bet can take in one colour", () => {
  // Each rack with the largest amount one area takes there (chips).
  const racks = {
    social: [[1, 5, 25, 100, 500, 1000, 5000], 5000],
    classic: [[0.1, 0.5, 1, 5, 25, 100, 500, 1000, 5000, 10000], 20000],
    war: [[1, 5, 25, 100, 500, 1000, 5000], 5000],
  };
  for (const [name, [chips, most]] of Object.entries(racks)) {
    for (const mult of [1, 10, 100]) {
      const colours = chips
        .map((c) => c * mult)
        .filter((c) => mult === 1 || c <= most)
        .map((c) => chipColour(Math.round(c * 100)));
      assert.equal(new Set(colours).size, colours.length, `${name} x${mult}: ${colours}`);
    }
  }
});

test("the large chips have colours of their own", () => {
  assert.equal(chipColour(100_000), 7); // 1K: gold
  assert.equal(chipColour(500_000), 10); // 5K: brown
  assert.equal(chipColour(1_000_000), 11); // 10K: silver
  assert.equal(chipColour(10), 9); // 0.1: teal
  assert.equal(chipColour(50), 8); // 0.5: pink
});

test("another value takes its place among the rack's denominations", () => {
  assert.equal(chipColour(700, [100, 300, 700]), 2);
  assert.equal(chipColour(1300, Array.from({ length: 14 }, (_, i) => (i + 1) * 100)), 0); // 12 colours, then again
  assert.equal(chipColour(700, []), 0);
});
