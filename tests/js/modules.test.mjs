// The site's own scripts (static/js) are ES modules written one way: they
// import and export, declare with const and let, and hang nothing on
// window for another script to find.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

const folder = new URL("../../static/js/", import.meta.url);
const scripts = readdirSync(folder).filter((name) => name.endsWith(".js"));

test("every script is a module: no var, no wrapping function, no window.Casino* global", () => {
  assert.ok(scripts.length > 10);
  for (const name of scripts) {
    const source = readFileSync(new URL(name, folder), "utf8");
    assert.doesNotMatch(source, /\bvar\s/, `${name} declares with var`);
    assert.doesNotMatch(source, /^\(function\b/m, `${name} is wrapped in a function`);
    assert.doesNotMatch(source, /window\.Casino\w*\s*=/, `${name} sets a window.Casino* global`);
  }
});

test("every script of the pages is loaded as a module", () => {
  const templates = new URL("../../templates/", import.meta.url);
  const tags = [];
  for (const entry of readdirSync(templates, { recursive: true })) {
    if (!entry.endsWith(".html")) continue;
    const source = readFileSync(new URL(entry, templates), "utf8");
    for (const tag of source.match(/<script\b[^>]*static 'js\/[^>]*>/g) || []) tags.push([entry, tag]);
  }
  assert.ok(tags.length > 10);
  for (const [entry, tag] of tags) assert.match(tag, /type="module"/, `${entry}: ${tag}`);
});
