// static/js/verify.js's shoe check under Node: every case of
// tests/fairness/shoe_cases.json, the file the Python core runs too
// (tests/fairness/test_live_shoe.py). The genuine shoe matches; each
// tampered one is refused, and the refusal names what differs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { verifyShoe, verifyShoeForBet } from "../../static/js/verify.js";

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

// A bet's round page: the document must be the shoe the page showed.
const genuine = cases.find((c) => c.name === "genuine shoe").shoe;
const [name, seed] = ["p-3f9a1c", "lucky-seven"];
const mine = genuine.commitments.find((c) => c.startsWith(name + ":"));
const bet = {
  coup: "3",
  cards: genuine.coups[2].cards.join(" "),
  commitment: genuine.commitment,
  decks: "8",
  mine: mine,
  mineSeed: name + ":" + seed,
};
const words = { coup: "not this coup", shoe: "not this shoe", mine: "not my seed" };

test("a bet's page: its own shoe matches", async () => {
  assert.deepEqual(await verifyShoeForBet(genuine, bet, words), []);
});

for (const [what, change, said] of [
  ["another commitment than the page showed", { commitment: "0".repeat(64) }, "not this shoe"],
  ["other decks than the shoe's", { decks: "6" }, "not this shoe"],
  ["the bet's coup with other cards", { cards: "AS 2S 3S 4S" }, "not this coup"],
  ["the bet's coup missing", { coup: "999" }, "not this coup"],
  ["the player's commitment missing", { mine: name + ":" + "f".repeat(64) }, "not my seed"],
  ["the player's revealed seed missing", { mineSeed: name + ":another" }, "not my seed"],
]) {
  test(`a bet's page refuses ${what}`, async () => {
    const problems = await verifyShoeForBet(genuine, { ...bet, ...change }, words);
    assert.ok(problems.includes(said), JSON.stringify(problems));
  });
}

test("a bet's page refuses a document in which its coup is void", async () => {
  const doc = { ...genuine, coups: genuine.coups.map((c) => (c.number === 3 ? { number: 3, void: true, cards: [] } : c)) };
  assert.ok((await verifyShoeForBet(doc, bet, words)).includes("not this coup"));
});
