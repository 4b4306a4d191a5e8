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

test("no rack of the preset tables shows two chips of one colour", () => {
  const racks = { social: [1, 5, 10, 50, 100], classic: [0.1, 0.5, 1, 5, 25, 100], war: [1, 5, 25, 100, 500] };
  for (const [name, chips] of Object.entries(racks)) {
    for (const mult of [1, 10, 100]) {
      const colours = chips.map((c) => chipColour(Math.round(c * mult * 100)));
      assert.equal(new Set(colours).size, colours.length, `${name} x${mult}: ${colours}`);
    }
  }
});

test("another value takes its place among the rack's denominations", () => {
  assert.equal(chipColour(700, [100, 300, 700]), 2);
  assert.equal(chipColour(700, []), 0);
});
