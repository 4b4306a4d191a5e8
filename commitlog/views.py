"""The log's public endpoints (no login, GET only) and the one a witness
posts its cosignature to. The formats: docs/commitment-log.md."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from commitlog import reads
from commitlog.cosigning import store_cosignatures
from commitlog.published import LogForked
from games import tlog

TEXT = "text/plain; charset=utf-8"
TILE = "application/octet-stream"
MAX_DIGITS = 19  # a tree index fits in 63 bits


def _refused(exc: Exception) -> JsonResponse:
    return JsonResponse({"error": str(exc)}, status=400)


def _number(request: HttpRequest, name: str) -> int:
    raw = request.GET.get(name, "")
    if not raw.isascii() or not raw.isdigit() or len(raw) > MAX_DIGITS:
        raise tlog.LogError(f"{name} must be a whole number from 0 up.")
    return int(raw)


@require_GET
@never_cache
def checkpoint(request: HttpRequest) -> HttpResponse:
    """The newest checkpoint (``?witnessed=1``: the newest a witness cosigned)."""
    try:
        note = reads.checkpoint_note(witnessed=request.GET.get("witnessed") == "1")
    except tlog.LogError as exc:
        return HttpResponse(f"{exc}\n", content_type=TEXT, status=404)
    except LogForked as exc:
        return HttpResponse(f"{exc}\n", content_type=TEXT, status=503)
    return HttpResponse(note, content_type=TEXT)


@require_GET
@cache_control(public=True, max_age=300)
def key(request: HttpRequest) -> HttpResponse:
    return HttpResponse(reads.key_lines(), content_type=TEXT)


def _proof(
    request: HttpRequest, build: Callable[[Callable[[str], int]], list[bytes]]
) -> JsonResponse:
    """``{"proof": [...]}`` built from the request's numbers, or a 400 in words."""
    try:
        proof = build(lambda name: _number(request, name))
    except tlog.LogError as exc:
        return _refused(exc)
    return JsonResponse({"proof": [tlog.b64(h) for h in proof]})


@require_GET
def leaf(request: HttpRequest) -> JsonResponse:
    try:
        data = reads.leaf(_number(request, "index"))
    except tlog.LogError as exc:
        return _refused(exc)
    return JsonResponse({"leaf": tlog.b64(data)})


@require_GET
def inclusion(request: HttpRequest) -> JsonResponse:
    return _proof(request, lambda n: reads.inclusion(n("index"), n("size")))


@require_GET
def consistency(request: HttpRequest) -> JsonResponse:
    return _proof(request, lambda n: reads.consistency(n("from"), n("to")))


@require_GET
def tile(request: HttpRequest, path: str) -> HttpResponse:
    """C2SP tlog-tiles: ``<L>/<N>[.p/<W>]`` and ``entries/<N>[.p/<W>]``."""
    try:
        level, index, width = _tile_path(path)
        found = (
            reads.entry_bundle(index, width)
            if level == "entries"
            else (reads.hash_tile(int(level), index, width))
        )
    except tlog.LogError as exc:
        return _refused(exc)
    response = HttpResponse(found.data, content_type=TILE)
    # A full tile never changes; a partial one is replaced by a wider one.
    response["Cache-Control"] = (
        "public, max-age=31536000, immutable" if found.full else "public, max-age=60"
    )
    return response


def _tile_path(path: str) -> tuple[str, int, int]:
    parts = path.split("/")
    width = tlog.TILE_WIDTH
    if len(parts) >= 3 and parts[-2].endswith(".p"):
        raw = parts[-1]
        if not raw.isascii() or not raw.isdigit() or raw != str(int(raw)) or int(raw) >= 256:
            raise tlog.LogError("A partial tile's width is 1 to 255, with no leading zero.")
        width = int(raw)
        parts = [*parts[:-2], parts[-2][:-2]]
    level, *digits = parts
    if level != "entries" and (
        not level.isascii() or not level.isdigit() or level != str(int(level))
    ):
        raise tlog.LogError("A tile's level is a number from 0 to 63, or entries.")
    return level, tlog.parse_tile_index(digits), width


@csrf_exempt
@require_POST
def cosignature(request: HttpRequest) -> JsonResponse:
    """A witness posts the checkpoint note it cosigned, its line added. The
    line counts only if it is a registered witness's and verifies: the
    signature is the authentication (docs/commitment-log.md)."""
    try:
        stored = store_cosignatures(request.body.decode("utf-8"))
    except (tlog.LogError, UnicodeDecodeError) as exc:
        return _refused(exc)
    return JsonResponse({"stored": stored})
