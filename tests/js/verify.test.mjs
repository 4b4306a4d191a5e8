// static/js/verify.js under Node (node --test tests/js/): the round page's
// verifier runs every case of tests/fairness/tampered_rounds.json, the file
// the Python snippet runs too (tests/fairness/test_tampered_rounds.py). A
// genuine round matches with nothing to say; each tampered one fails and its
// failure names what differs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import * as verify from "../../static/js/verify.js";
const { cases, vectors } = JSON.parse(
  readFileSync(new URL("../fairness/tampered_rounds.json", import.meta.url), "utf8"),
);

for (const c of cases) {
  test(`${c.name}: ${c.expect === "match" ? "matches" : "fails, naming " + JSON.stringify(c.names)}`, async () => {
    const result = await verify.verifyRound(c.round);
    const said = result.differences.map((d) => verify.describe(d));
    if (c.expect === "match") {
      assert.deepEqual(said, []);
      assert.equal(result.matches, true);
      assert.equal(result.hashMatch, true);
      assert.deepEqual(result.cards.map((x) => x.derived), c.round.cards);
      assert.equal(result.result, c.round.result);
    } else {
      assert.equal(result.matches, false, c.why);
      assert.ok(
        said.some((text) => text.toLowerCase().includes(c.names.toLowerCase())),
        `${c.why}: expected a difference naming ${JSON.stringify(c.names)}, got ${JSON.stringify(said)}`
      );
    }
  });
}

test("a tampered return is named with both amounts in chips", async () => {
  const genuine = cases.find((c) => c.name === "genuine coup").round;
  const round = structuredClone(genuine);
  round.returns.banker = 1950;
  const said = (await verify.verifyRound(round)).differences.map((d) => verify.describe(d));
  assert.deepEqual(said, ["return on banker: 19.50 stored, the seeds' game returns 20.08"]);
});

test("the page's words replace the English ones", async () => {
  const genuine = cases.find((c) => c.name === "genuine war").round;
  const round = structuredClone(genuine);
  round.cards[3] = round.cards[3] === "AS" ? "KD" : "AS";
  const [difference] = (await verify.verifyRound(round)).differences;
  const labels = {
    differences: { card: "%(n)s枚目（%(owner)s）：%(stored)s、シードでは%(derived)s" },
    owners: { burn: "バーン" },
  };
  assert.equal(
    verify.describe(difference, labels),
    `4枚目（バーン）：${round.cards[3]}、シードでは${genuine.cards[3]}`
  );
});

test("multipliers are exact decimals floored like games.money", () => {
  const times = (stake, text) => {
    const m = verify.parseMultiplier(text);
    return m === null ? null : (BigInt(stake) * m.num) / m.den;
  };
  assert.equal(times(10, "1.95"), 19n);
  assert.equal(times(30, "1.95"), 58n);
  assert.equal(times(1030, "1.95"), 2008n);
  assert.equal(times(7, "0.1E+1"), 7n);
  assert.equal(times(3, " 11 "), 33n);
  for (const junk of ["", "x1.95", "NaN", "Infinity", ".", "1.9.5", null, true, {}]) {
    assert.equal(verify.parseMultiplier(junk), null, JSON.stringify(junk));
  }
});

test("a void round is checked as far as it was dealt, its money not at all", async () => {
  const genuine = cases.find((c) => c.name === "genuine coup").round;
  const round = { ...structuredClone(genuine), void: true, cards: genuine.cards.slice(0, 3), returns: {} };
  assert.equal((await verify.verifyRound(round)).matches, true);
  round.cards[1] = round.cards[1] === "AS" ? "KD" : "AS";
  assert.equal((await verify.verifyRound(round)).matches, false);
});

test("the test vectors' shoes and commitments", async () => {
  for (const v of vectors) {
    const shoe = await verify.deriveShoe(v.server_seed, v.client_seed, v.nonce, v.decks);
    assert.deepEqual(shoe.slice(0, 12), v.first_cards, v.name);
    const checked = await verify.check({ ...v, cards: v.first_cards });
    assert.equal(checked.matches, true, v.name);
    const unhashed = await verify.check({ ...v, server_seed_hash: "", cards: v.first_cards });
    assert.equal(unhashed.matches, false, `${v.name}: an empty commitment proves nothing`);
  }
});
