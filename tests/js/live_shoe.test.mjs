// static/js/verify.js's shoe check under Node: every case of
// tests/fairness/shoe_cases.json, the file the Python core runs too
// (tests/fairness/test_live_shoe.py). The genuine shoe matches; each
// tampered one is refused, and the refusal names what differs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { verifyShoe } from "../../static/js/verify.js";

const { cases } = JSON.parse(
  readFileSync(new URL("../fairness/shoe_cases.json", import.meta.url), "utf8"),
);

for (const c of cases) {
  test(`${c.name}: ${c.expect === "match" ? "matches" : "refused, naming " + JSON.stringify(c.names)}`, async () => {
    const problems = await verifyShoe(c.shoe);
    if (c.expect === "match") assert.deepEqual(problems, []);
    else assert.ok(problems.some((p) => p.includes(c.names)), `${c.why}: ${JSON.stringify(problems)}`);
  });
}
