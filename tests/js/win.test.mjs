// static/js/win.js under Node: how a win is counted up and how many chips
// fall for it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { showerSize, withNumber } from "../../static/js/win.js";

test("a bigger win brings more chips, within bounds", () => {
  assert.equal(showerSize(0), 0);
  assert.equal(showerSize(-5), 0);
  const sizes = [1, 10, 100, 1_000, 20_000].map(showerSize);
  for (let i = 1; i < sizes.length; i += 1) assert.ok(sizes[i] > sizes[i - 1], sizes.join(" "));
  assert.ok(sizes[0] >= 6);
  assert.equal(showerSize(10 ** 9), 36);
});

test("the count-up writes the number as the result writes it", () => {
  assert.equal(withNumber("Net +1,250", 1250), "Net +1,250");
  assert.equal(withNumber("Net +1,250", 312.4), "Net +312");
  assert.equal(withNumber("+10.50", 3.256), "+3.26");
  assert.equal(withNumber("正味 +20", 7), "正味 +7");
  assert.equal(withNumber("no number", 5), "no number");
});
