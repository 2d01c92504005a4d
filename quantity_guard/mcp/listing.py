"""The guard's view of the upstream's tools: the catalogue listed so far, and the rewritten
``tools/list`` answers it remembers.

Advertising a listing means parsing it and asking the policy about each guarded tool; an
upstream mostly answers the same listing again. :class:`Listings` remembers the last
:data:`CACHE_SIZE` rewrites by the answer's text without its id (:func:`list_key`), and
answers a listing it has seen before without parsing it (:meth:`Listings.cached_answer`).
"""
from __future__ import annotations

import copy
from typing import Any

from . import jsonrpc as rpc
from .jsonrpc import MISSING
from .rewrite import apply_change
from .shape import fold_name
from .state import S2C, GuardView, Pending


__all__ = ["Listings", "FAST_MIN"]

PREFIX = '{"jsonrpc":"2.0","id":'
SUFFIX = ',"jsonrpc":"2.0","id":'
CACHE_SIZE = 8          # distinct tools/list answers remembered
CACHE_MAX = 1 << 20     # longest answer remembered (characters)
FAST_MIN = 512          # shorter upstream lines are parsed: it is as quick as a search


def list_key(text: str, ident: Any) -> tuple[tuple, str] | None:
    """A cache key for a tools/list answer: everything but its top-level id, which must be
    written first (``{"jsonrpc":"2.0","id":ID,...``, as Python SDK servers write) or last
    (``...,"jsonrpc":"2.0","id":ID}``, as the TypeScript SDK writes); ``None`` otherwise.
    Two answers with the same key differ only in their id, so they are rewritten alike."""
    if len(text) > CACHE_MAX or type(ident) not in (int, str):
        return None
    try:
        idtext = rpc.dumps(ident)
    except (ValueError, TypeError):
        return None
    if text.startswith(PREFIX + idtext + ","):
        return ("p", text[len(PREFIX) + len(idtext):]), idtext
    if text.endswith(SUFFIX + idtext + "}"):
        return ("s", text[:len(text) - len(SUFFIX) - len(idtext) - 1]), idtext
    return None


def remembered_line(value: tuple[str, str] | None, ident: str) -> bytes | None:
    """A remembered listing's rewrite (the text around its id) with this answer's id, or None
    where the listing was forwarded unchanged."""
    return None if value is None else (value[0] + ident + value[1]).encode("utf-8")


class Listings:
    """The tools the upstream listed (``catalogue``, by name; ``stale`` once it says
    ``notifications/tools/list_changed``) and the rewritten listings remembered (``cache``:
    answer key -> (the rewrite's text around the id, or None where it was unchanged; the
    guarded names it advertises; the parsed result, for the catalogue; never mutated))."""

    def __init__(self, guard: GuardView) -> None:
        self.guard = guard
        self.catalogue: dict[str, dict] = {}
        self.stale = False
        self.cache: dict[tuple, tuple[tuple[str, str] | None, frozenset, Any]] = {}
        self._folded: tuple[tuple, dict[str, str]] = ((), {})  # see near_guarded
        self._near: dict[str, str | None] = {}  # its answers by name (at most 1,024)

    def rewrite(self, entry: Pending, msg: rpc.Message, line_text: str | None,
                where: tuple[str, int, int] | None) -> Any:
        """The answer to the tools/list request ``entry`` with each guarded tool advertised
        by the policy (see ``rewrite.apply_change`` for ``line_text`` and ``where``); ``None``:
        unchanged."""
        obj = msg.obj
        found = list_key(line_text, msg.id) if line_text is not None else None
        if found is not None:
            hit = self.cache.get(found[0], MISSING)
            if hit is not MISSING:  # the same upstream answer as before: same rewrite
                self.page(entry, obj.get("result"))
                return remembered_line(hit[0], found[1])
        changes = self.advertise(entry, obj.get("result"))
        new = apply_change(line_text, where, obj, ("tools", changes), self.guard.note) \
            if changes else None
        if changes or found is not None:
            # a remembered answer that advertised one of these tools differently is stale
            # (the policy has seen the new definition): forget it
            names = {t.get("name") for t in changes.values()}
            for k in [k for k, v in self.cache.items() if v[1] & names]:
                del self.cache[k]
            if found is not None:
                self.remember(found, new, frozenset(names), obj.get("result"))
        return new

    def near_guarded(self, name: str) -> str | None:
        """The guarded tool that ``name`` is not, but folds to (``Runoff_Depth``,
        ``"runoff_depth "``), unless the upstream lists ``name`` as a tool of its own."""
        if name in self.catalogue:
            return None
        names = getattr(self.guard.policy, "guarded_names", None)
        try:
            candidates = tuple(names()) if callable(names) else tuple(
                n for n in self.catalogue if self.guard.guarded(n))
        except Exception as exc:
            self.guard.note(f"policy.guarded_names() failed: {exc!r}")
            return None
        if not candidates:
            return None
        if self._folded[0] != candidates:  # the guarded names by their folded form, once
            self._folded = (candidates, {fold_name(n): n for n in candidates if isinstance(n, str)})
            self._near.clear()
        if name in self._near:
            return self._near[name]
        other = self._folded[1].get(fold_name(name))
        found = other if other != name else None
        if len(self._near) >= 1024:
            self._near.clear()
        self._near[name] = found
        return found

    def cached_answer(self, raw: bytes) -> list[tuple[str, bytes]] | None:
        """The answer to a pending tools/list request that is, but for its id, an answer
        rewritten before: found by its text, without parsing it (parsing a 6 KB listing takes
        about 35 us, most of a listing's cost). ``None``: not one (the caller parses)."""
        table = self.guard.table
        if len(table) > 64:  # looking through the pending requests would cost more
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
        for key, entries in table.by_key.items():
            entry = entries[0]  # the request an answer with this id answers
            if entry.method != "tools/list":
                continue
            found = list_key(text, entry.id)
            if found is None:
                continue
            hit = self.cache.get(found[0])
            if hit is None:
                return None
            table.pop(key)
            self.page(entry, hit[2])
            line = remembered_line(hit[0], found[1])
            if line is None:
                self.guard.stats["forwarded"] += 1
                return [(S2C, raw + b"\n")]
            self.guard.stats["rewritten"] += 1
            return [(S2C, line)]
        return None

    def page(self, entry: Pending, result: Any) -> None:
        """The catalogue bookkeeping of :meth:`advertise`, for a cached listing."""
        if type(result) is not dict or result.get("resultType", "complete") != "complete":
            return
        tools = result.get("tools")
        if type(tools) is not list:
            return
        if not entry.cursor:
            self.catalogue = {}
            self.stale = False
        for tool in tools:
            if type(tool) is dict and isinstance(tool.get("name"), str):
                self.catalogue[tool["name"]] = tool

    def remember(self, found: tuple[tuple, str], new: bytes | None,
                       names: frozenset, result: Any) -> None:
        key, ident = found
        if new is None:
            value = None
        else:
            text = new.decode("utf-8")
            head = key[0]
            if head == "p" and text.startswith(PREFIX + ident):
                value = (PREFIX, text[len(PREFIX) + len(ident):])
            elif head == "s" and text.endswith(SUFFIX + ident + "}\n"):
                value = (text[:len(text) - len(ident) - 2], "}\n")
            else:
                return
        while len(self.cache) >= CACHE_SIZE:
            del self.cache[next(iter(self.cache))]
        self.cache[key] = (value, names, result)

    def advertise(self, entry: Pending, result: Any) -> dict[int, dict]:
        if type(result) is not dict or result.get("resultType", "complete") != "complete":
            return {}
        tools = result.get("tools")
        if type(tools) is not list:
            return {}
        if not entry.cursor:  # a first page starts the catalogue afresh
            self.catalogue = {}
            self.stale = False
        changes: dict[int, dict] = {}
        for i, tool in enumerate(tools):
            if type(tool) is not dict:
                continue
            name = tool.get("name")
            if not isinstance(name, str):
                continue
            self.catalogue[name] = tool
            if not self.guard.guarded(name):
                continue
            try:
                new = self.guard.policy.advertise(copy.deepcopy(tool))
            except Exception as exc:
                self.guard.note(f"policy.advertise({name!r}) failed: {exc!r}; the tool is listed unchanged")
                continue
            if type(new) is not dict:
                self.guard.note(f"policy.advertise({name!r}) returned {type(new).__name__}; listed unchanged")
                continue
            changes[i] = new
        if result.get("nextCursor") is None:
            self.complete()
        return changes

    def complete(self) -> None:
        """The last page of a listing: the policy may check its annotations against it
        (``catalogue_seen(tools) -> [warning, ...]``); each warning goes to stderr."""
        seen = getattr(self.guard.policy, "catalogue_seen", None)
        if not callable(seen):
            return
        try:
            warnings = seen(list(self.catalogue.values()))
        except Exception as exc:
            self.guard.note(f"policy.catalogue_seen() failed: {exc!r}")
            return
        for text in warnings or ():
            self.guard.note(str(text))
