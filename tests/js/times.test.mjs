// static/js/times.js under Node: a time the server wrote in UTC, as a player
// in another zone reads it.
import assert from "node:assert/strict";
import { test } from "node:test";

import * as times from "../../static/js/times.js";

const ISO = "2026-12-02T01:50:16Z";

test("a player in Tokyo reads the time in Tokyo, the zone named", () => {
  assert.equal(
    times.formatLocal(ISO, { locale: "ja", timeZone: "Asia/Tokyo" }),
    "2026-12-02 10:50:16 JST",
  );
});

test("a player in New York reads the day before, in minutes when the page asks", () => {
  assert.equal(
    times.formatLocal(ISO, { locale: "en", timeZone: "America/New_York", precision: "minutes" }),
    "2026-12-01 20:50 EST",
  );
});

test("a time the browser cannot read is left as the server wrote it", () => {
  assert.equal(times.formatLocal("not a time", { locale: "en", timeZone: "UTC" }), null);
});
