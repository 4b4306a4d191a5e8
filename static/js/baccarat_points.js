/* Baccarat's points of one card by its code ("9H", "TS"): A 1, 2-9 their
   face, T J Q K 0 (games/baccarat/rules.py's points). The browser's
   verifier and the live table's running scores count with it. An ES module. */
const RANKS = "A23456789TJQK";

export function points(code) {
  return Math.min(RANKS.indexOf(code[0]) + 1, 10) % 10;
}
