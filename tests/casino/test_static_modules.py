"""The site's ES modules under production settings: collectstatic (as ``make
setup`` runs it, debug off) writes every module of static/js under a hashed
name, and each import inside one names another module by its hashed name,
a file that was collected. A browser given the hashed page script then
never asks for an unhashed module (no far-future caching, and after a
deploy one version's module could meet another's)."""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath

import pytest
from django.contrib.staticfiles import finders

from tests import make_run

ROOT = Path(__file__).resolve().parent.parent.parent
HASHED = re.compile(r"\.[0-9a-f]{12}\.js$")
# Static imports and re-exports (`import x from "./a.js"`, `import "./a.js"`,
# `export * from "./a.js"`) and dynamic ones (`import("./a.js")`).
SPECIFIER = re.compile(
    r"""(?:\b(?:import|export)\b[^;"']*?\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']"""
)


@pytest.fixture(scope="module")
def collected(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """STATIC_ROOT after ``make run``'s set-up (its collectstatic, debug
    off), and its manifest."""
    env = make_run.production_env(tmp_path_factory.mktemp("modules"))
    make_run.set_up_site(env, tmp_path_factory)
    root = Path(env["DJANGO_STATIC_ROOT"])
    return root, json.loads((root / "staticfiles.json").read_text())["paths"]


def imports_of(source: str) -> list[str]:
    return SPECIFIER.findall(source)


def test_it_finds_the_imports_the_site_writes():
    source = (ROOT / "static/js/war.js").read_text()
    assert "./war_bet.js" in imports_of(source)
    assert imports_of('export * from "./a.js"; import("./b.js"); import "./c.js";') == [
        "./a.js",
        "./b.js",
        "./c.js",
    ]


def test_it_collects_every_module_under_a_hashed_name(collected):
    root, manifest = collected
    modules = sorted(
        p.relative_to(ROOT / "static").as_posix() for p in (ROOT / "static/js").glob("*.js")
    )
    assert modules, "static/js holds the site's modules"
    for name in modules:
        assert HASHED.search(manifest[name]), name
        assert (root / manifest[name]).is_file(), name


def test_it_points_every_import_of_every_module_at_a_hashed_file_that_exists(collected):
    root, manifest = collected
    hashed_names = set(manifest.values())
    checked = 0
    for name, hashed in manifest.items():
        if not name.startswith("js/") or not name.endswith(".js"):
            continue
        for specifier in imports_of((root / hashed).read_text()):
            target = PurePosixPath(hashed).parent / specifier
            resolved = PurePosixPath(*_normalised(target.parts)).as_posix()
            assert HASHED.search(resolved), f"{hashed} imports {specifier}, not a hashed name"
            assert resolved in hashed_names, f"{hashed} imports {specifier}, not this deploy's"
            assert (root / resolved).is_file(), f"{hashed} imports {specifier}, which is missing"
            checked += 1
    # baccarat, slip, squeeze and war import the shared modules.
    assert checked >= 9


def test_it_leaves_third_party_scripts_as_they_were(collected):
    root, manifest = collected
    # django_htmx's extensions name import("../htmx") in type comments, no
    # file: kept as written, they no longer stop collectstatic.
    extensions = [n for n in manifest if n.startswith("django_htmx/ext/") and n.endswith(".js")]
    assert extensions
    for name in extensions:
        original = Path(finders.find(name))  # the package's own file
        assert (root / manifest[name]).read_bytes() == original.read_bytes(), name


def _normalised(parts: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if part == "..":
            out.pop()
        elif part != ".":
            out.append(part)
    return out
