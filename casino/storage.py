"""Static files under hashed names, the site's own ES modules included.

The page names its module by its hashed name, but a module's own
``import ... from "./sound.js"`` would still fetch the unhashed file: served
without far-future caching, and after a deploy a cached page could mix one
version's module with another's. Django rewrites those imports when
``support_js_module_import_aggregation`` is on, yet its patterns apply to
every ``*.js``, and third-party scripts then stop collectstatic with a
missing file (the type comments of django_htmx's extensions name
``import("../htmx")``, which is no file). Here the same rewriting applies to ``js/`` alone, the
site's own modules (static/js), and every other file is left as it is.

Rewriting at collectstatic, rather than an import map rendered into each
page, keeps the modules working with no inline script (the content
security policy stays as it is) and gives each module a hash that changes
when a module it imports does.
"""

from __future__ import annotations

from django.contrib.staticfiles.storage import HashedFilesMixin
from whitenoise.storage import CompressedManifestStaticFilesStorage

# The site's own modules, relative to STATIC_ROOT (fnmatch: "*" spans folders).
OWN_MODULES = "js/*.js"


class ModuleManifestStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Whitenoise's compressed, hashed storage that also points the imports
    of the site's own ES modules at their hashed names."""

    # Django's own import/export regexes (what the aggregation flag adds for
    # every *.js), given the site's modules only; tests/casino/
    # test_static_modules.py notices if a Django upgrade moves them.
    patterns = (
        *CompressedManifestStaticFilesStorage.patterns,
        (OWN_MODULES, HashedFilesMixin._js_module_import_aggregation_patterns[1]),  # type: ignore[attr-defined]
    )
