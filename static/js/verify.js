// The provably fair shuffle re-derived in the browser (docs/fairness.md,
// /fair/): HMAC-SHA256 and SHA-256 from WebCrypto (crypto.subtle), no call to
// the server. The same algorithm as games/cards.py and the same rules as
// games/baccarat/rules.py and games/war/rules.py, written again from their
// specification, so a player need not trust the site's own code to check it.
//
// Three uses, each bound by a data attribute:
// - [data-verify-form] (a round's page): VERIFY replays the whole round from
//   the revealed seeds (the shoe, every card in order, the hands by the rules,
//   the result and every bet's return at the round's paytable) and names each
//   thing the stored round does differently; it also says whether this browser
//   saw the seed's commitment at a table before the round (commitments.js),
//   and checks the public log (tlog.js, verifyLog): the round's leaf holds its
//   commitment, the leaf is in a signed checkpoint, and that checkpoint
//   extends the last one this browser verified;
// - [data-vector] (the fairness page): re-derives a test vector's shoe;
// - [data-fair-form] (the fairness page): any seeds typed in.
// Without WebCrypto (a page served over plain http to another machine) the
// round page's form posts to the server's own check instead.
//
// tests/js/ import the same pure functions under Node, where nothing touches
// a document.
import { browserStorage, keepCheckpoint, keptCheckpoint, seenHere } from "./commitments.js";
import * as tlog from "./tlog.js";
import { points } from "./baccarat_points.js";

const RANKS = "A23456789TJQK";
const SUITS = "SHDC";
const TWO_32 = 4294967296;
const encoder = new TextEncoder();

function subtle() {
  return globalThis.crypto && globalThis.crypto.subtle;
}

function hexToBytes(hex) {
  const text = String(hex).trim();
  if (text.length % 2 || !/^[0-9a-fA-F]*$/.test(text)) {
    throw new Error("the server seed must be written in hexadecimal");
  }
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(i * 2, 2), 16);
  return out;
}

function bytesToHex(bytes) {
  return Array.prototype.map
    .call(new Uint8Array(bytes), function (b) { return b.toString(16).padStart(2, "0"); })
    .join("");
}

function newShoe(decks) {
  const deck = [];
  for (let s = 0; s < SUITS.length; s++) {
    for (let r = 0; r < RANKS.length; r++) deck.push(RANKS[r] + SUITS[s]);
  }
  let shoe = [];
  for (let d = 0; d < decks; d++) shoe = shoe.concat(deck);
  return shoe;
}

function isNonce(nonce) {
  return /^[0-9]+$/.test(String(nonce).trim());
}

function nonceText(nonce) {
  if (!isNonce(nonce)) throw new Error("the nonce is a whole number, 0 or more");
  return BigInt(String(nonce).trim()).toString(); // decimal, no leading zeros, any size
}

async function sha256Hex(bytes) {
  return bytesToHex(await subtle().digest("SHA-256", bytes));
}

// The stream: HMAC-SHA256(key = server seed, "client:nonce:counter" in UTF-8),
// counter 0, 1, 2...; each 32-byte block is 8 big-endian unsigned 32-bit words.
async function fairRng(seedBytes, clientSeed, nonce) {
  const key = await subtle().importKey(
    "raw", seedBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]
  );
  const prefix = clientSeed + ":" + nonceText(nonce) + ":";
  let counter = 0;
  let words = [];
  let pos = 0;
  async function nextWord() {
    if (pos >= words.length) {
      const block = await subtle().sign("HMAC", key, encoder.encode(prefix + counter));
      counter += 1;
      const view = new DataView(block);
      words = [];
      for (let i = 0; i < 8; i++) words.push(view.getUint32(i * 4, false));
      pos = 0;
    }
    return words[pos++];
  }
  // A uniform integer in [0, n): words at or above the largest multiple of
  // n that fits in 2^32 are thrown away, so no value is favoured.
  async function randrange(n) {
    const limit = TWO_32 - (TWO_32 % n);
    for (;;) {
      const u = await nextWord();
      if (u < limit) return u % n;
    }
  }
  return { randrange: randrange };
}

// Fisher-Yates from the end: for i = n-1 down to 1, swap i with randrange(i + 1).
async function deriveShoe(serverSeedHex, clientSeed, nonce, decks) {
  const rng = await fairRng(hexToBytes(serverSeedHex), clientSeed, nonce);
  const shoe = newShoe(decks);
  for (let i = shoe.length - 1; i > 0; i--) {
    const j = await rng.randrange(i + 1);
    const t = shoe[i]; shoe[i] = shoe[j]; shoe[j] = t;
  }
  return shoe;
}

// A test vector (the fairness page): the commitment and the shoe's first cards.
async function check(data) {
  const seed = hexToBytes(data.server_seed);
  const hash = await sha256Hex(seed);
  const shoe = await deriveShoe(data.server_seed, data.client_seed, data.nonce, Number(data.decks));
  const dealt = data.cards || [];
  const cards = dealt.map(function (card, i) {
    return { position: i + 1, dealt: card, derived: shoe[i], match: card === shoe[i] };
  });
  // No commitment is no match: an empty hash proves nothing.
  const hashMatch = Boolean(data.server_seed_hash) && hash === data.server_seed_hash;
  return {
    hash: hash,
    hashMatch: hashMatch,
    cards: cards,
    shoe: shoe,
    matches: hashMatch && cards.length > 0 && cards.every(function (c) { return c.match; }),
  };
}

// --- money: Decimal multipliers on integer units, floored as games.money does ------------

function floorDiv(a, b) {
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}

// A multiplier as Python's Decimal(str(value)) reads it, as an exact fraction
// num / den; null when it is no finite number (the round cannot be settled).
function parseMultiplier(value) {
  if (typeof value === "number" && Number.isFinite(value)) value = String(value);
  if (typeof value !== "string") return null;
  const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(value);
  if (!m || (m[2] === "" && !m[3])) return null;
  const fraction = m[3] || "";
  const exponent = Number(m[4] || 0) - fraction.length;
  if (Math.abs(exponent) > 100) return null;
  let num = BigInt(m[2] + fraction || "0") * (m[1] === "-" ? -1n : 1n);
  let den = 1n;
  if (exponent >= 0) num *= 10n ** BigInt(exponent);
  else den = 10n ** BigInt(-exponent);
  return { num: num, den: den };
}

// What the stored round says came back: Python's int(value or 0).
function storedUnits(value) {
  if (value === undefined || value === null || value === false || value === 0 || value === "") return 0n;
  if (value === true) return 1n;
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)) return BigInt(value.trim());
  return null;
}

function isStake(value) {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

// A paytable reader that notes each multiplier it needs and cannot use.
function payer(pays, differences) {
  let ok = true;
  return {
    times: function (stake, area) {
      if (stake === 0n) return 0n;
      const m = parseMultiplier(pays[area]);
      if (m === null) {
        differences.push({ what: "pay", where: area, stored: pays[area] });
        ok = false;
        return 0n;
      }
      return floorDiv(stake * m.num, m.den);
    },
    ok: function () { return ok; },
  };
}

function compareReturns(stored, derived, differences) {
  const areas = Object.keys(stored);
  Object.keys(derived).forEach(function (area) {
    if (derived[area] !== 0n && areas.indexOf(area) < 0) areas.push(area);
  });
  areas.forEach(function (area) {
    const was = storedUnits(stored[area]);
    const back = derived[area] === undefined ? 0n : derived[area];
    if (was === null || was !== back) {
      differences.push({ what: "return", where: area, stored: was === null ? stored[area] : was, derived: back });
    }
  });
}

// --- Baccarat (games/baccarat/rules.py) ---------------------------------------------

const BACCARAT_AREAS = ["player", "banker", "tie", "player_pair", "banker_pair"];

// With no natural: the Banker draws on 0-5 when the Player stood; when the
// Player drew, by the Banker's total and the points of the Player's third card.
function bankerDraws(total, third) {
  if (third === null) return total <= 5;
  return total <= 2 ||
    (total === 3 && third !== 8) ||
    (total === 4 && third >= 2 && third <= 7) ||
    (total === 5 && third >= 4 && third <= 7) ||
    (total === 6 && third >= 6 && third <= 7);
}

function playCoup(shoe) {
  const cards = [
    { code: shoe[0], owner: "player" }, { code: shoe[1], owner: "banker" },
    { code: shoe[2], owner: "player" }, { code: shoe[3], owner: "banker" },
  ];
  let player = (points(shoe[0]) + points(shoe[2])) % 10;
  let banker = (points(shoe[1]) + points(shoe[3])) % 10;
  const natural = player >= 8 || banker >= 8;
  let next = 4;
  if (!natural) {
    let third = null;
    if (player <= 5) {
      third = points(shoe[next]);
      cards.push({ code: shoe[next++], owner: "player" });
      player = (player + third) % 10;
    }
    if (bankerDraws(banker, third)) {
      banker = (banker + points(shoe[next])) % 10;
      cards.push({ code: shoe[next++], owner: "banker" });
    }
  }
  return {
    cards: cards,
    player_total: player,
    banker_total: banker,
    winner: player > banker ? "player" : banker > player ? "banker" : "tie",
    natural: natural,
    player_pair: shoe[0][0] === shoe[2][0],
    banker_pair: shoe[1][0] === shoe[3][0],
  };
}

function compareFact(name, stored, derived, differences) {
  if (stored !== undefined && stored !== null && stored !== derived) {
    differences.push({ what: name, stored: stored, derived: derived });
  }
}

function replayCoup(data, shoe, differences) {
  const coup = playCoup(shoe);
  if (data.void) return { cards: coup.cards, result: coup.winner };
  compareFact("winner", data.result, coup.winner, differences);
  ["player_total", "banker_total", "natural", "player_pair", "banker_pair"].forEach(function (fact) {
    compareFact(fact, data[fact], coup[fact], differences);
  });
  // A tie gives PLAYER and BANKER stakes back; each PAIR is settled on its own.
  const bets = data.bets || {};
  const pays = payer(data.pays || {}, differences);
  let settleable = true;
  const derived = {};
  Object.keys(bets).forEach(function (area) {
    const stake = bets[area];
    if (BACCARAT_AREAS.indexOf(area) < 0) {
      differences.push({ what: "area", where: area });
      settleable = false;
      return;
    }
    if (!isStake(stake)) {
      differences.push({ what: "stake", where: area, stored: stake });
      settleable = false;
      return;
    }
    const units = BigInt(stake);
    const won = area === "tie" ? coup.winner === "tie"
      : area === "player_pair" ? coup.player_pair
      : area === "banker_pair" ? coup.banker_pair
      : coup.winner === area;
    if (won) derived[area] = pays.times(units, area);
    else if (coup.winner === "tie" && (area === "player" || area === "banker")) derived[area] = units;
    else derived[area] = 0n;
  });
  if (settleable && pays.ok()) compareReturns(data.returns || {}, derived, differences);
  return { cards: coup.cards, result: coup.winner };
}

// --- Casino War (games/war/rules.py) ------------------------------------------------

const WAR_DEFAULT_PAYS = { ante: "2", raise: "2", tie_bet: "11", war_tie_bonus: "0" };
const WAR_BETS = ["ante", "tie_bet", "raise"];
const BURNS = 3;

function warValue(code) {
  return "23456789TJQKA".indexOf(code[0]) + 2;
}

function replayWar(data, shoe, differences) {
  const cards = [{ code: shoe[0], owner: "player" }, { code: shoe[1], owner: "dealer" }];
  const first = warValue(shoe[0]);
  const second = warValue(shoe[1]);
  const tied = first === second;
  const decision = data.decision || null;
  let result;
  if (!tied) {
    if (decision !== null && !data.void) differences.push({ what: "decision_untied", stored: decision });
    result = first > second ? "win" : "lose";
  } else if (decision === "war") {
    for (let b = 0; b < BURNS; b++) cards.push({ code: shoe[2 + b], owner: "burn" });
    cards.push({ code: shoe[5], owner: "war_player" }, { code: shoe[6], owner: "war_dealer" });
    const player = warValue(shoe[5]);
    const dealer = warValue(shoe[6]);
    result = player > dealer ? "war_win" : player < dealer ? "war_lose" : "war_tie";
  } else if (decision === "surrender") {
    result = "surrender";
  } else {
    // The player's choice is not in the seeds: without it the round cannot be played.
    if (!data.void) differences.push({ what: "decision_missing", stored: decision });
    return { cards: cards, result: "" };
  }
  if (data.void) return { cards: cards, result: result };
  compareFact("result", data.result, result, differences);

  const bets = data.bets || {};
  let settleable = true;
  Object.keys(bets).forEach(function (area) {
    if (WAR_BETS.indexOf(area) < 0) {
      differences.push({ what: "area", where: area });
      settleable = false;
    } else if (!isStake(bets[area])) {
      differences.push({ what: "stake", where: area, stored: bets[area] });
      settleable = false;
    }
  });
  const stored = data.pays || {};
  const table = Object.assign({}, WAR_DEFAULT_PAYS); // a missing pay is the default, as the game has it
  Object.keys(stored).forEach(function (key) {
    if (!(key in WAR_DEFAULT_PAYS)) {
      differences.push({ what: "pay_unknown", where: key });
      settleable = false;
    } else {
      table[key] = stored[key];
    }
  });
  if (!settleable) return { cards: cards, result: result };
  const ante = BigInt(bets.ante || 0);
  const tieBet = BigInt(bets.tie_bet || 0);
  // The raise is the ante again, staked only by going to war.
  const raise = BigInt(bets.raise || 0);
  const raiseNeeded = decision === "war" && tied ? ante : 0n;
  if (raise !== raiseNeeded) {
    differences.push({ what: "raise", stored: raise, derived: raiseNeeded, decision: tied ? decision : null });
  }
  const pays = payer(table, differences);
  const back = { ante: 0n, raise: 0n, tie_bet: 0n };
  if (result === "win") back.ante = pays.times(ante, "ante");
  else if (result === "surrender") back.ante = ante / 2n; // floored, in the house's favour
  else if (result === "war_win") {
    back.ante = ante;
    back.raise = pays.times(ante, "raise");
  } else if (result === "war_tie") {
    back.ante = ante + pays.times(ante, "war_tie_bonus");
    back.raise = pays.times(ante, "raise");
  }
  if (tied) back.tie_bet = pays.times(tieBet, "tie_bet");
  if (pays.ok()) compareReturns(data.returns || {}, back, differences);
  return { cards: cards, result: result };
}

// --- a stored round against the one its seeds deal -----------------------------------

// Everything that differs, in the order a reader checks it: the commitment,
// the inputs, the result and the facts of the deal, the money, the cards.
async function verifyRound(data) {
  const differences = [];
  const out = { matches: false, differences: differences, hash: "", hashMatch: false, cards: [], result: "" };
  const committed = data.server_seed_hash;
  if (typeof committed !== "string" || committed.trim() === "") differences.push({ what: "hash_missing" });
  let seed = data.server_seed;
  if (typeof seed !== "string" || seed.trim() === "") {
    differences.push({ what: "seed_missing" });
    return out;
  }
  try {
    seed = hexToBytes(seed);
  } catch (err) {
    differences.push({ what: "seed_hex" });
    return out;
  }
  out.hash = await sha256Hex(seed);
  out.hashMatch = typeof committed === "string" && committed === out.hash;
  if (typeof committed === "string" && committed.trim() !== "" && !out.hashMatch) {
    differences.push({ what: "hash", stored: committed, derived: out.hash });
  }
  const decks = Number(data.decks);
  if (typeof data.client_seed !== "string") differences.push({ what: "client_seed" });
  else if (!isNonce(data.nonce)) differences.push({ what: "nonce", stored: data.nonce });
  else if (!Number.isInteger(decks) || decks < 1 || decks > 8) differences.push({ what: "decks", stored: data.decks });
  else if (data.game !== "baccarat" && data.game !== "war") differences.push({ what: "game", stored: data.game });
  else {
    const shoe = await deriveShoe(data.server_seed, data.client_seed, data.nonce, decks);
    const play = data.game === "baccarat" ? replayCoup(data, shoe, differences) : replayWar(data, shoe, differences);
    out.result = play.result;
    compareCards(Array.isArray(data.cards) ? data.cards.map(String) : [], play.cards, data.void, out);
  }
  out.matches = differences.length === 0;
  return out;
}

// --- a live table's shoe (games/baccarat/live.py; docs/fairness.md, Live tables) ----

const CUT_FROM_END = 16;

// Python sorts text by code point, which is the order of the UTF-8 bytes.
function byUtf8(a, b) {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

function cardText(code) {
  const text = String(code).trim().toUpperCase();
  return text.startsWith("10") ? "T" + text.slice(2) : text;
}

// A published shoe against the one its seed and contributions deal: a list
// of problems in words (empty: every coup dealt is the shoe's).
async function verifyShoe(doc) {
  const problems = [];
  let seed;
  try {
    seed = hexToBytes(doc.server_seed);
    if (!Number.isInteger(doc.decks) || doc.decks < 1 || doc.decks > 8) throw new Error("decks is a whole number from 1 to 8");
    if (![doc.commitments, doc.contributions, doc.coups].every(Array.isArray)) throw new Error("commitments, contributions and coups are lists");
    if (!doc.coups.every((coup) => coup && Number.isInteger(coup.number))) throw new Error("a coup's number is a whole number");
    if (!doc.coups.every((coup) => Array.isArray(coup.cards))) throw new Error("a coup's cards are a list");
    const voidWithCards = doc.coups.find((coup) => coup.void === true && coup.cards.length);
    if (voidWithCards) throw new Error("coup " + voidWithCards.number + " is void: a void coup holds no card");
  } catch (err) {
    return ["not a shoe document: " + err.message];
  }
  const items = doc.contributions.map(String).sort(byUtf8);
  if (!items.length) return ["a shoe needs at least one player's seed"];
  if (new Set(items).size !== items.length) return ["a contribution appears twice"];
  // Each revealed seed hashes to its player's one commitment, fixed before any reveal.
  const split = (item) => { const at = item.indexOf(":"); return at < 0 ? [item, ""] : [item.slice(0, at), item.slice(at + 1)]; };
  const committed = new Map();
  for (const item of doc.commitments.map(String)) {
    const [name, digest] = split(item);
    if (committed.has(name)) problems.push(name + ": committed twice");
    committed.set(name, digest.trim().toLowerCase());
  }
  for (const item of doc.contributions.map(String)) {
    const [name, seedText] = split(item);
    if (!committed.has(name)) problems.push(name + ": a seed revealed without a commitment");
    else if ((await sha256Hex(encoder.encode(seedText))) !== committed.get(name)) {
      problems.push(name + ": the revealed seed does not hash to its commitment");
    }
  }
  const entropy = await sha256Hex(encoder.encode(items.join("\n")));
  if ((await sha256Hex(seed)) !== String(doc.commitment).trim().toLowerCase()) {
    problems.push("the server seed does not hash to the commitment shown before the shoe");
  }
  const order = await deriveShoe(doc.server_seed, entropy, 0, doc.decks);
  const replay = []; // the cards of each coup the shoe deals, to the cut card
  let position = 1 + Math.min(RANKS.indexOf(order[0][0]) + 1, 10);
  while (position < order.length - CUT_FROM_END) {
    const cards = playCoup(order.slice(position)).cards.map((c) => c.code);
    replay.push(cards);
    position += cards.length;
  }
  // Every coup the table opened is listed, numbered 1, 2, 3 ...; a void one took no card.
  if (!doc.coups.every((coup, i) => coup.number === i + 1)) {
    problems.push("the coups are not numbered 1, 2, 3 ... without a gap or a repeat");
  }
  const shown = doc.coups.filter((coup) => coup.void !== true);
  shown.forEach(function (coup, i) {
    if (i >= replay.length) {
      problems.push("coup " + coup.number + ": the shoe has no such coup (it ends at the cut card)");
      return;
    }
    const dealt = coup.cards.map(String);
    if (dealt.map(cardText).join(" ") !== replay[i].join(" ")) {
      problems.push("coup " + coup.number + ": dealt " + dealt.join(" ") + ", the shoe gives " + replay[i].join(" "));
    }
  });
  if (shown.length < replay.length) {
    problems.push("coups missing: the shoe deals " + replay.length + " coups to the cut card, the document shows " + shown.length);
  }
  return problems;
}

// verifyShoe, and the document is the shoe a bet's round page showed: the
// commitment shown before it (and in the log), its decks, the bet's coup
// dealt with the cards the page shows, and the player's own seed as they
// committed it and as it was revealed. ``bet``: {coup, cards, commitment,
// decks, mine ("pseudonym:sha256", if they committed), mineSeed
// ("pseudonym:seed", once revealed)}; ``words``: what to say of each.
async function verifyShoeForBet(doc, bet, words) {
  const problems = await verifyShoe(doc);
  const coups = Array.isArray(doc.coups) ? doc.coups : [];
  const dealt = coups.find((c) => c && Number(c.number) === Number(bet.coup));
  if (!dealt || dealt.void === true || !Array.isArray(dealt.cards) || dealt.cards.join(" ") !== bet.cards) {
    problems.push(words.coup);
  }
  if (String(doc.commitment).trim().toLowerCase() !== bet.commitment || Number(doc.decks) !== Number(bet.decks)) {
    problems.push(words.shoe);
  }
  const listed = (list, item) => Array.isArray(list) && list.map(String).indexOf(item) !== -1;
  if ((bet.mine && !listed(doc.commitments, bet.mine)) || (bet.mineSeed && !listed(doc.contributions, bet.mineSeed))) {
    problems.push(words.mine);
  }
  return problems;
}

function compareCards(dealt, expected, isVoid, out) {
  // A void round may have stopped part-way: its cards are a prefix of the deal.
  if (isVoid) expected = expected.slice(0, dealt.length);
  const count = Math.max(dealt.length, expected.length);
  for (let i = 0; i < count; i++) {
    const card = i < dealt.length ? dealt[i] : null;
    const want = i < expected.length ? expected[i] : null;
    const position = i + 1;
    if (want === null) {
      out.differences.push({ what: "card_extra", where: position, stored: card });
    } else if (card === null) {
      out.differences.push({ what: "card_missing", where: position, owner: want.owner, derived: want.code });
    } else if (card !== want.code) {
      out.differences.push({ what: "card", where: position, owner: want.owner, stored: card, derived: want.code });
    }
    out.cards.push({
      position: position,
      owner: want ? want.owner : "",
      dealt: card,
      derived: want ? want.code : null,
      match: card !== null && want !== null && card === want.code,
    });
  }
  if (dealt.length !== expected.length) {
    out.differences.push({ what: "card_count", stored: dealt.length, derived: expected.length });
  }
}

// --- words ----------------------------------------------------------------------------

// English; the round page passes its reader's language (games/presenters/fair.py).
const MESSAGES = {
  hash_missing: "the commitment hash is missing",
  hash: "the commitment hash %(stored)s is not the SHA-256 of the revealed server seed (%(derived)s)",
  seed_missing: "the server seed is missing",
  seed_hex: "the server seed is not hexadecimal",
  client_seed: "the client seed is missing",
  nonce: "the nonce %(stored)s is not a whole number",
  decks: "the number of decks %(stored)s is not 1 to 8",
  game: "%(stored)s is not a game this verifier knows",
  card: "card %(n)s (%(owner)s): dealt %(stored)s, the seeds deal %(derived)s",
  card_missing: "card %(n)s (%(owner)s): missing, the seeds deal %(derived)s",
  card_extra: "card %(n)s: dealt %(stored)s, the game deals no such card",
  card_count: "%(stored)s cards dealt, the game needs %(derived)s",
  fact: "%(what)s: stored %(stored)s, the seeds' game gives %(derived)s",
  decision_missing: "tie decision: the first cards tie, and %(stored)s is neither war nor surrender",
  decision_untied: "tie decision: %(stored)s stored, but the first cards do not tie",
  raise: "raise: %(stored)s staked, the tie decision %(decision)s needs %(derived)s",
  return: "return on %(area)s: %(stored)s stored, the seeds' game returns %(derived)s",
  pay: "the paytable has no usable multiplier for %(area)s (%(stored)s)",
  pay_unknown: "the paytable names %(area)s, which is no pay of this game",
  stake: "the stake on %(area)s is not a whole number of units (%(stored)s)",
  area: "%(area)s is not a bet area of this game",
};
const FACTS = {
  winner: "winner",
  result: "result",
  player_total: "player total",
  banker_total: "banker total",
  natural: "natural",
  player_pair: "player pair",
  banker_pair: "banker pair",
};
const OWNERS = {
  player: "Player",
  banker: "Banker",
  dealer: "Dealer",
  burn: "Burn",
  war_player: "Player (war)",
  war_dealer: "Dealer (war)",
};

function fill(template, values) {
  return template.replace(/%\((\w+)\)s/g, function (all, name) {
    return values[name] === undefined ? all : String(values[name]);
  });
}

// Units as chips, as games.display.format_chips writes them: 1,234 or 1,234.50.
function formatChips(units) {
  const sign = units < 0n ? "-" : "";
  const abs = units < 0n ? -units : units;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const cents = abs % 100n;
  return sign + whole + (cents ? "." + cents.toString().padStart(2, "0") : "");
}

function describe(difference, labels) {
  const words = labels || {};
  const d = difference;
  const messages = Object.assign({}, MESSAGES, words.differences || {});
  const facts = Object.assign({}, FACTS, words.facts || {});
  const owners = Object.assign({}, OWNERS, words.owners || {});
  const areas = words.areas || {};
  function show(value) {
    if (value === undefined || value === null || value === "") return "—";
    if (typeof value === "bigint") return formatChips(value);
    if (value === true) return words.yes || "yes";
    if (value === false) return words.no || "no";
    return typeof value === "string" ? value : JSON.stringify(value);
  }
  const key = d.what in FACTS ? "fact" : d.what;
  return fill(messages[key] || d.what, {
    what: facts[d.what] || d.what,
    n: d.where,
    area: areas[d.where] || d.where,
    owner: owners[d.owner] || d.owner || "",
    stored: show(d.stored),
    derived: show(d.derived),
    decision: show(d.decision),
  });
}

// --- the public commitment log ----------------------------------------------------------

// Check the round's leaf in the log, as a list of findings {what, ok, values}
// (ok: true, false, or null for "not yet"), and whether the log forked.
// ``round`` is {index, commitment, nonce}, or null to check only the newest
// checkpoint against the kept one (the fair page); ``get(path)`` answers a path of
// the log's endpoints (/log/...) as text; ``storage`` keeps the checkpoint.
async function verifyLog(round, get, storage) {
  const found = [];
  const out = { findings: found, fork: false, ok: false };
  function say(what, ok, values) { found.push({ what: what, ok: ok, values: values || {} }); }
  async function json(path) {
    const text = await get(path);
    const proof = JSON.parse(text);
    return proof.proof || proof.leaf;
  }
  let key;
  let checkpoint;
  try {
    const lines = (await get("/log/key")).split("\n").map(function (l) { return l.trim(); }).filter(Boolean);
    key = await tlog.parseKey(lines[0] || "");
    const witnesses = await Promise.all(lines.slice(1).map(function (l) { return tlog.parseKey(l, 4); }));
    checkpoint = await tlog.openCheckpoint(await get("/log/checkpoint"), key, witnesses);
    // A witness cosigns a little after the log signs: none yet is not a failure.
    if (witnesses.length) {
      say(checkpoint.witnessed.length ? "log_witnessed" : "log_unwitnessed", checkpoint.witnessed.length ? true : null, {
        count: checkpoint.witnessed.length, total: witnesses.length, names: checkpoint.witnessed.join(", "),
      });
    }
  } catch (err) {
    say("log_unreadable", false, { why: reason(err) });
    return out;
  }
  const kept = storage ? keptCheckpoint(storage) : null;
  if (round === null) {
    say("log_checkpoint", true, { size: checkpoint.size });
  } else if (round.index === null || round.index === undefined || round.index === "" ||
      BigInt(round.index) >= BigInt(checkpoint.size)) {
    say("log_pending", null, { size: checkpoint.size });
  } else {
    try {
      const bytes = tlog.fromBase64(await json("/log/leaf?index=" + round.index), "the leaf");
      const leaf = tlog.parseLeaf(bytes);
      if (leaf.commitment !== round.commitment || leaf.nonce !== String(round.nonce)) {
        say("log_leaf_other", false, { index: round.index, commitment: leaf.commitment, nonce: leaf.nonce });
        return out;
      }
      say("log_leaf", true, { index: round.index });
      const path = (await json("/log/proof/inclusion?index=" + round.index + "&size=" + checkpoint.size))
        .map(function (h) { return tlog.fromBase64(h, "an inclusion proof hash"); });
      await tlog.verifyInclusion(await tlog.leafHash(bytes), round.index, checkpoint.size, path, checkpoint.root);
      say("log_included", true, { size: checkpoint.size });
    } catch (err) {
      say("log_refused", false, { why: reason(err) });
      return out;
    }
  }
  if (!kept) {
    say("log_first", true, { size: checkpoint.size });
  } else {
    let old;
    try {
      old = await tlog.openCheckpoint(kept.note, key);
    } catch (err) {
      // The kept checkpoint does not open under today's key: a key rotation
      // (docs/security.md) or another log shown as this one.
      out.fork = true;
      say("log_key_changed", false, { kept: kept.key, now: key.text });
      return out;
    }
    try {
      // A smaller tree than the kept one needs no proof to be refused.
      const smaller = BigInt(old.size) > BigInt(checkpoint.size);
      const proof = smaller ? [] : (await json("/log/proof/consistency?from=" + old.size + "&to=" + checkpoint.size))
        .map(function (h) { return tlog.fromBase64(h, "a consistency proof hash"); });
      await tlog.verifyConsistency(old.size, checkpoint.size, old.root, checkpoint.root, proof);
      say("log_consistent", true, { old: old.size, size: checkpoint.size });
    } catch (err) {
      out.fork = err instanceof tlog.LogError;
      say(out.fork ? "log_fork" : "log_refused", false, { old: old.size, size: checkpoint.size, why: reason(err) });
      return out;
    }
  }
  if (storage) keepCheckpoint(storage, key.text, checkpoint.note);
  out.ok = found.every(function (f) { return f.ok !== false; });
  return out;
}

function reason(err) {
  return err instanceof tlog.LogError ? err.what : "network";
}

export { check, deriveShoe, describe, formatChips, parseMultiplier, sha256Hex, verifyLog, verifyRound, verifyShoe, verifyShoeForBet };

// --- the page ---------------------------------------------------------------------------

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardList(result, labels) {
  const owners = Object.assign({}, OWNERS, labels.owners || {});
  const list = el("ol", { class: "js-cards", "data-testid": "js-cards" });
  result.cards.forEach(function (c) {
    const owner = c.owner ? " (" + (owners[c.owner] || c.owner) + ")" : "";
    const li = el("li", {
      class: c.match ? "match" : "mismatch",
      "data-testid": "js-card",
      "data-match": c.match ? "true" : "false",
      "data-card": c.dealt || "",
      "data-derived": c.derived || "",
    });
    li.textContent = (c.match ? "✔ " : "✘ ") + c.position + ". " + labels.dealt + " " + (c.dealt || "—") +
      owner + " · " + labels.derived + " " + (c.derived || "—");
    list.appendChild(li);
  });
  return list;
}

// Did this browser see the revealed seed's commitment at a table, and when?
function commitmentLine(hash, createdAt, labels) {
  const seen = hash ? seenHere(hash) : null;
  if (seen === null) {
    return el("p", { class: "warning", "data-testid": "js-commitment", "data-seen": "never" }, "⚠ " + labels.never_seen);
  }
  const time = new Date(seen).toLocaleString();
  const dealt = Date.parse(createdAt);
  const after = !isNaN(dealt) && seen > dealt;
  return el("p", { class: after ? "warning" : "", "data-testid": "js-commitment", "data-seen": after ? "after" : "before" },
    (after ? "⚠ " : "✔ ") + fill(after ? labels.seen_after : labels.seen_before, { time: time }));
}

// The log's findings as lines of the page's words; a fork first and loud.
function logLines(result, labels) {
  const words = labels.log || {};
  const reasons = words.reasons || {};
  const box = el("div", { class: "log-check", "data-testid": "js-log", "data-fork": String(result.fork) });
  box.appendChild(el("h3", {}, words.heading || "The public log"));
  result.findings.forEach(function (f) {
    const values = Object.assign({}, f.values, { why: reasons[f.values.why] || f.values.why });
    const mark = f.ok === true ? "✔ " : f.ok === false ? "✘ " : "… ";
    const line = el("p", {
      class: f.ok === false ? "warning" : "",
      "data-testid": "js-log-finding",
      "data-what": f.what,
    }, mark + fill(words[f.what] || f.what, values));
    if (f.what === "log_fork" || f.what === "log_key_changed") line.setAttribute("role", "alert");
    box.appendChild(line);
  });
  return box;
}

async function getText(path) {
  const response = await fetch(path, { headers: { accept: "text/plain, application/json" } });
  if (!response.ok) throw new Error(path + " " + response.status);
  return response.text();
}

function bindRound(form) {
  const source = document.getElementById(form.getAttribute("data-verify-form"));
  if (!source || !subtle()) return; // the server checks instead
  const data = JSON.parse(source.textContent);
  const labels = data.labels;
  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    const box = document.getElementById("verification");
    box.replaceChildren(el("p", { class: "hint" }, labels.working));
    box.className = "verification";
    let result;
    try {
      result = await verifyRound(data);
    } catch (err) {
      box.replaceChildren(el("p", { class: "verdict", "data-testid": "verdict" }, "✘ " + err.message));
      box.className = "verification bad";
      return;
    }
    const differences = el("ul", { class: "differences", "data-testid": "js-differences" });
    result.differences.forEach(function (d) {
      differences.appendChild(el("li", { "data-what": d.what }, describe(d, labels)));
    });
    const nodes = [
      el("p", { class: "verdict", "data-testid": "verdict" },
        result.matches ? "✔ " + labels.matches : "✘ " + labels.mismatch),
      el("p", { "data-testid": "js-hash", "data-match": String(result.hashMatch) },
        (result.hashMatch ? "✔ " : "✘ ") + labels.hash + " " + (result.hash || "—")),
      commitmentLine(result.hash, data.created_at, labels),
    ];
    if (result.differences.length) nodes.push(differences);
    nodes.push(cardList(result, labels), el("p", { class: "hint", "data-testid": "js-note" }, labels.note));
    box.replaceChildren.apply(box, nodes);
    box.className = "verification " + (result.matches ? "ok" : "bad");
    box.setAttribute("data-checked-by", "browser");
    const index = form.getAttribute("data-log-index");
    const log = await verifyLog(
      { index: index === "" ? null : index, commitment: data.server_seed_hash, nonce: data.nonce },
      getText, browserStorage()
    );
    box.appendChild(logLines(log, labels));
    // The replay's verdict stands; a log that forked or lied about this round
    // turns the whole check red (one that could not be read only says so).
    if (log.findings.some(function (f) { return f.ok === false && f.what !== "log_unreadable"; })) {
      box.className = "verification bad";
    }
  });
}

// --- the fairness page -----------------------------------------------------------------

// A button of the fairness page that checks the JSON its data attribute
// names and writes into the element it controls (no WebCrypto: says so).
function bindCheckButton(button, attribute, run) {
  const source = document.getElementById(button.getAttribute(attribute));
  const out = document.getElementById(button.getAttribute("aria-controls"));
  if (!source || !out) return;
  const data = JSON.parse(source.textContent);
  button.addEventListener("click", async function () {
    if (!subtle()) {
      out.textContent = button.getAttribute("data-no-crypto");
      return;
    }
    await run(data, out);
  });
}

function bindVector(button) {
  bindCheckButton(button, "data-vector", async function (vector, out) {
    const result = await check({
      server_seed: vector.server_seed,
      server_seed_hash: vector.server_seed_hash,
      client_seed: vector.client_seed,
      nonce: vector.nonce,
      decks: vector.decks,
      cards: vector.first_cards,
    });
    out.replaceChildren(
      el("p", { "data-testid": "vector-verdict", "data-match": String(result.matches) },
        (result.matches ? "✔ " : "✘ ") + button.getAttribute(result.matches ? "data-ok" : "data-bad")),
      el("p", {}, "SHA-256: " + result.hash),
      el("p", { "data-testid": "vector-cards" }, result.shoe.slice(0, vector.first_cards.length).join(" "))
    );
  });
}

function bindFairForm(form) {
  const out = document.getElementById(form.getAttribute("data-fair-form"));
  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (!subtle()) {
      out.textContent = form.getAttribute("data-no-crypto");
      return;
    }
    const f = form.elements;
    try {
      const decks = Number(f.decks.value);
      if (!Number.isInteger(decks) || decks < 1 || decks > 8) throw new Error(form.getAttribute("data-bad-decks"));
      const seed = hexToBytes(f.server_seed.value);
      const shoe = await deriveShoe(f.server_seed.value, f.client_seed.value, f.nonce.value, decks);
      out.replaceChildren(
        el("p", { "data-testid": "fair-out-hash" }, "SHA-256: " + (await sha256Hex(seed))),
        el("p", { "data-testid": "fair-out-cards" }, shoe.slice(0, 12).join(" "))
      );
    } catch (err) {
      out.replaceChildren(el("p", { class: "error", "data-testid": "fair-out-error" }, err.message));
    }
  });
}

// The fair page's "check the log now": the newest checkpoint against the kept one.
function bindLogCheck(button) {
  bindCheckButton(button, "data-log-check", async function (labels, out) {
    out.replaceChildren(logLines(await verifyLog(null, getText, browserStorage()), labels));
  });
}

// A live bet's round page, once its shoe has ended: the whole published
// shoe replayed here, and this bet's coup found in it with the cards stored.
function bindShoe(button) {
  const out = document.getElementById(button.getAttribute("aria-controls"));
  if (!out) return;
  button.addEventListener("click", async function () {
    if (!subtle()) {
      out.textContent = button.dataset.noCrypto;
      return;
    }
    const doc = await (await fetch(button.dataset.verifyShoe)).json();
    const words = { coup: button.dataset.notThisCoup, shoe: button.dataset.notThisShoe, mine: button.dataset.notMine };
    const problems = await verifyShoeForBet(doc, button.dataset, words);
    out.replaceChildren();
    out.className = "verification " + (problems.length ? "bad" : "ok");
    out.appendChild(el("p", { class: "verdict", "data-testid": "shoe-verdict" }, problems.length ? "✘ " + button.dataset.bad : "✔ " + button.dataset.ok));
    if (problems.length) {
      const list = el("ul", { class: "differences" });
      problems.forEach(function (p) { list.appendChild(el("li", {}, p)); });
      out.appendChild(list);
    }
  });
}

function init() {
  document.querySelectorAll("[data-verify-shoe]").forEach(bindShoe);
  document.querySelectorAll("[data-verify-form]").forEach(bindRound);
  document.querySelectorAll("[data-log-check]").forEach(bindLogCheck);
  document.querySelectorAll("[data-vector]").forEach(bindVector);
  document.querySelectorAll("[data-fair-form]").forEach(bindFairForm);
}
if (typeof document !== "undefined") init();
