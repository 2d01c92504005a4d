"""The network edge of the retrieval packs, and the small record types they share.

Every pack function takes ``fetch=``: any callable ``fetch(url, headers) -> bytes``. The default,
:func:`fetch`, uses ``urllib`` with a timeout, a User-Agent, gzip, and retries with backoff on
429 and 5xx (honouring ``Retry-After``). Tests and the demo server pass :func:`replay` over
recorded responses instead, so nothing here needs the network to be exercised.

Only the standard library is imported, and only this module talks to the network.
"""
from __future__ import annotations

import email.utils
import json
import random
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any, Callable, Mapping

__all__ = [
    "PackError",
    "MissingValue",
    "Fetch",
    "fetch",
    "make_fetch",
    "replay",
    "get_json",
    "Reading",
    "USER_AGENT",
    "MAX_BODY_BYTES",
    "MAX_INFLATED_BYTES",
]

Fetch = Callable[[str, Mapping[str, str]], bytes]

USER_AGENT = "quantity-guard (+https://pypi.org/project/quantity-guard/; python-urllib)"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: Headers that must never follow a redirect to another host.
SECRET_HEADERS = frozenset({"x-api-key", "authorization"})
MAX_RETRY_AFTER = 120.0  # seconds; a longer wait is reported rather than slept through
#: The largest response body read from the network, and the largest a gzip or deflate body
#: may inflate to (``make_fetch(max_bytes=..., max_inflated_bytes=...)`` sets them per fetch;
#: the module values are the defaults, and bound what ``get_json`` inflates).
MAX_BODY_BYTES = 16 * 2**20
MAX_INFLATED_BYTES = 64 * 2**20


class PackError(Exception):
    """A retrieval failed, or the service answered with something the pack will not trust.

    ``url`` is the request that failed, ``reason`` what was wrong with it, ``status`` the HTTP
    status when there was one. ``retry_after`` (seconds) is set when the service asked for one.
    """

    def __init__(self, url: str | None, reason: str, *, status: int | None = None,
                 retry_after: float | None = None) -> None:
        self.url = url
        self.reason = reason
        self.status = status
        self.retry_after = retry_after
        super().__init__(f"{reason} ({url})" if url else reason)


class MissingValue(PackError):
    """The publisher sent a record with no value (a no-data sentinel, null, or a refused one).

    Raised by :attr:`Reading.value` so that a missing value can never be used as a number.
    """


# --------------------------------------------------------------------------------------------
# The default fetch: urllib with retries
# --------------------------------------------------------------------------------------------

class SafeRedirect(urllib.request.HTTPRedirectHandler):
    """Follow redirects, dropping credentials when the redirect leaves the original host."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D401 - urllib API
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            old_host = urllib.parse.urlsplit(req.full_url).hostname
            new_host = urllib.parse.urlsplit(new.full_url).hostname
            if old_host != new_host:
                for name in list(new.headers):
                    if name.lower() in SECRET_HEADERS:
                        del new.headers[name]
                for name in list(new.unredirected_hdrs):
                    if name.lower() in SECRET_HEADERS:
                        del new.unredirected_hdrs[name]
        return new


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


def _too_big(url: str | None, what: str, limit: int, knob: str) -> PackError:
    return PackError(url, f"{what} more than {limit} bytes, the {knob} limit (a wrong URL "
                          f"answering with a huge page, or a gzip bomb?); if the response is "
                          f"genuine, pass fetch=make_fetch({knob}=<larger>)")


def _inflate(raw: bytes, wbits: int, limit: int, url: str | None) -> bytes:
    """Inflate ``raw`` (every gzip member), refusing to produce more than ``limit`` bytes:
    the output is produced in bounded steps, so a bomb costs at most ``limit`` of memory."""
    out = bytearray()
    data = raw
    while True:
        d = zlib.decompressobj(wbits)
        out += d.decompress(data, limit + 1 - len(out))
        while d.unconsumed_tail and len(out) <= limit:
            out += d.decompress(d.unconsumed_tail, limit + 1 - len(out))
        if len(out) > limit:
            raise _too_big(url, "the response inflates to", limit, "max_inflated_bytes")
        if not d.eof:
            raise EOFError("compressed data ended before the end-of-stream marker")
        data = d.unused_data
        if not data or wbits != 16 + zlib.MAX_WBITS:
            return bytes(out)


def _decode_body(raw: bytes, encoding: str | None, *, limit: int | None = None,
                 url: str | None = None) -> bytes:
    """The body decoded from gzip or deflate, inflated to at most ``limit`` bytes
    (``MAX_INFLATED_BYTES`` when None); a larger result is a :class:`PackError`."""
    limit = MAX_INFLATED_BYTES if limit is None else limit
    encoding = (encoding or "").lower()
    if encoding == "gzip" or raw[:2] == b"\x1f\x8b":
        return _inflate(raw, 16 + zlib.MAX_WBITS, limit, url)
    if encoding == "deflate":
        try:
            return _inflate(raw, zlib.MAX_WBITS, limit, url)
        except zlib.error:
            return _inflate(raw, -zlib.MAX_WBITS, limit, url)
    return raw


def _read_capped(response: Any, limit: int, url: str) -> bytes:
    """At most ``limit`` bytes of a response body; a longer body is a :class:`PackError`
    (refused from its Content-Length when it states one, before anything is read)."""
    length = response.headers.get("Content-Length") if response.headers else None
    if length is not None and length.strip().isdigit() and int(length) > limit:
        raise _too_big(url, f"the response is {int(length)} bytes,", limit, "max_bytes")
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = response.read(min(1 << 16, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise _too_big(url, "the response is", limit, "max_bytes")


def _excerpt(body: bytes, limit: int = 200) -> str:
    text = body[:limit * 2].decode("utf-8", "replace")
    text = re.sub(r"\s+", " ", text).strip()
    return text[:limit] + ("..." if len(text) > limit else "")


def make_fetch(*, timeout: float = 30.0, retries: int = 3, backoff: float = 1.0,
               user_agent: str = USER_AGENT, opener: Any = None,
               sleep: Callable[[float], None] = time.sleep, max_bytes: int | None = None,
               max_inflated_bytes: int | None = None) -> Fetch:
    """Build a ``fetch(url, headers) -> bytes`` over urllib.

    ``retries`` is the number of further attempts after the first on 429, 5xx, timeouts and
    connection errors; the wait doubles from ``backoff`` seconds (with jitter) unless the
    service sends ``Retry-After``. Any other HTTP error fails at once. ``opener`` and ``sleep``
    are injectable so the retry logic can be tested without a network. A body longer than
    ``max_bytes``, or inflating to more than ``max_inflated_bytes`` (defaults
    ``MAX_BODY_BYTES``, ``MAX_INFLATED_BYTES``), is a :class:`PackError` naming the limit.
    """
    max_bytes = MAX_BODY_BYTES if max_bytes is None else int(max_bytes)
    max_inflated = MAX_INFLATED_BYTES if max_inflated_bytes is None else int(max_inflated_bytes)
    if opener is None:
        opener = urllib.request.build_opener(SafeRedirect())

    def fetch(url: str, headers: Mapping[str, str] | None = None) -> bytes:
        merged = {"User-Agent": user_agent, "Accept-Encoding": "gzip"}
        merged.update(headers or {})
        attempt = 0
        while True:
            request = urllib.request.Request(url, headers=merged)
            wait: float | None = None
            try:
                with opener.open(request, timeout=timeout) as response:
                    raw = _read_capped(response, max_bytes, url)
                    encoding = response.headers.get("Content-Encoding")
                try:
                    return _decode_body(raw, encoding, limit=max_inflated, url=url)
                except (OSError, EOFError, zlib.error) as exc:
                    raise PackError(url, f"could not decompress the response: {exc}") from exc
            except urllib.error.HTTPError as exc:
                status = exc.code
                try:
                    body = _decode_body(exc.read(1 << 16) or b"",  # only for the message
                                        exc.headers.get("Content-Encoding"), limit=1 << 16)
                except Exception:  # noqa: BLE001 - the error body is only for the message
                    body = b""
                wait = retry_after_seconds(exc.headers.get("Retry-After")) if exc.headers else None
                if status not in RETRY_STATUSES or attempt >= retries or (
                        wait is not None and wait > MAX_RETRY_AFTER):
                    reason = f"HTTP {status} {exc.reason}"
                    if status == 429:
                        reason += " (rate limited"
                        reason += f"; retry after {wait:.0f} s)" if wait is not None else ")"
                    if body:
                        reason += f": {_excerpt(body)}"
                    raise PackError(url, reason, status=status, retry_after=wait) from exc
            except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError) as exc:
                if attempt >= retries:
                    why = getattr(exc, "reason", exc)
                    raise PackError(url, f"network error after {attempt + 1} attempt(s): {why}") \
                        from exc
            attempt += 1
            if wait is None:
                wait = backoff * (2 ** (attempt - 1)) * (1 + random.random() / 4)
            sleep(wait)

    return fetch


#: The default fetch used by every pack function.
fetch: Fetch = make_fetch()


# --------------------------------------------------------------------------------------------
# Recorded responses
# --------------------------------------------------------------------------------------------

def _url_key(url: str) -> tuple:
    parts = urllib.parse.urlsplit(url)
    query = tuple(sorted(urllib.parse.parse_qsl(parts.query, keep_blank_values=True)))
    return (parts.hostname or "", parts.path.rstrip("/"), query)


def replay(routes: Mapping[str, bytes | str | Callable[[], bytes]], *,
           log: list | None = None) -> Fetch:
    """A ``fetch`` that answers from recorded responses instead of the network.

    ``routes`` maps a URL to the bytes (or text, or a zero-argument callable returning bytes)
    that were recorded for it. URLs match on host, path and the *set* of query parameters, so
    the order of parameters does not matter. An unknown URL raises :class:`PackError`. Each
    requested URL and its headers are appended to ``log`` when one is given.
    """
    table = {_url_key(url): body for url, body in routes.items()}

    def fetch(url: str, headers: Mapping[str, str] | None = None) -> bytes:
        if log is not None:
            log.append((url, dict(headers or {})))
        body = table.get(_url_key(url))
        if body is None:
            raise PackError(url, "no recorded response for this URL")
        if callable(body):
            body = body()
        return body.encode("utf-8") if isinstance(body, str) else body

    return fetch


def recorded(*, log: list | None = None) -> Fetch:
    """A ``fetch`` that answers from the recordings shipped with the package
    (``data/recorded_responses.json``: USGS site 07374000's record and latest values), so that
    an example runs offline from any directory::

        site, values = usgs.reading("07374000", fetch=recorded())

    Any other URL raises :class:`PackError`, as :func:`replay` does."""
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                        "recorded_responses.json")
    with open(path, encoding="utf-8") as fh:
        routes = json.load(fh)["routes"]
    return replay({url: json.dumps(body) for url, body in routes.items()}, log=log)


def get_json(fetch: Fetch, url: str, headers: Mapping[str, str] | None = None) -> Any:
    """Fetch ``url`` and decode JSON; any failure becomes a :class:`PackError` naming the URL."""
    try:
        body = fetch(url, dict(headers or {}))
    except PackError:
        raise
    except Exception as exc:  # a user-supplied fetch may raise anything
        raise PackError(url, f"fetch failed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(body, (bytes, bytearray)):
        raise PackError(url, f"fetch returned {type(body).__name__}, expected bytes")
    try:
        return json.loads(_decode_body(bytes(body), None, url=url).decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, OSError, EOFError, zlib.error) as exc:
        raise PackError(url, f"response is not JSON ({exc}): {_excerpt(bytes(body))!r}") from exc


def get_text(fetch: Fetch, url: str, headers: Mapping[str, str] | None = None) -> str:
    """Fetch ``url`` as UTF-8 text; failures become :class:`PackError`."""
    try:
        body = fetch(url, dict(headers or {}))
    except PackError:
        raise
    except Exception as exc:
        raise PackError(url, f"fetch failed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(body, (bytes, bytearray)):
        raise PackError(url, f"fetch returned {type(body).__name__}, expected bytes")
    try:
        return _decode_body(bytes(body), None, url=url).decode("utf-8-sig")
    except (UnicodeDecodeError, OSError, EOFError, zlib.error) as exc:
        raise PackError(url, f"response is not UTF-8 text ({exc})") from exc


def with_query(base: str, **params: Any) -> str:
    """``base`` with ``params`` (None values dropped) appended as a query string."""
    query = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None},
                                   safe=",:")
    return f"{base}?{query}" if query else base


# --------------------------------------------------------------------------------------------
# Parsing helpers shared by the packs
# --------------------------------------------------------------------------------------------

_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?$")


def parse_time(text: Any, *, url: str | None = None, default_tz: timezone | None = None,
               what: str = "time") -> datetime:
    """An aware datetime from an ISO 8601 / RFC 3339 string.

    A string without an offset is refused unless ``default_tz`` says how the publisher
    documents it (EA stageScale records, for example, are UTC without a ``Z``).
    Works the same on Python 3.10 (whose ``fromisoformat`` refuses ``Z`` and ``.000``).
    """
    if not isinstance(text, str):
        raise PackError(url, f"{what} is {text!r}, expected an ISO 8601 string")
    m = _ISO.match(text.strip())
    if not m:
        raise PackError(url, f"{what} {text!r} is not an ISO 8601 date-time")
    y, mo, d, h, mi, s, frac, off = m.groups()
    micro = int((frac or "0").ljust(6, "0")[:6])
    if off is None:
        if default_tz is None:
            raise PackError(url, f"{what} {text!r} has no UTC offset")
        tz = default_tz
    elif off == "Z":
        tz = timezone.utc
    else:
        sign = -1 if off[0] == "-" else 1
        digits = off[1:].replace(":", "")
        delta = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        tz = timezone.utc if not delta else timezone(sign * delta)
    try:
        return datetime(int(y), int(mo), int(d), int(h), int(mi), int(s or 0), micro, tzinfo=tz)
    except ValueError as exc:
        raise PackError(url, f"{what} {text!r} is not a valid date-time: {exc}") from exc


def parse_number(value: Any, *, url: str | None = None, what: str = "value") -> float:
    """A finite float from a JSON number or numeric string; anything else is a PackError."""
    if isinstance(value, bool):
        raise PackError(url, f"{what} is a boolean ({value!r}), not a number")
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise PackError(url, f"{what} {value!r} is not a number") from None
    else:
        raise PackError(url, f"{what} is {type(value).__name__} {value!r}, not a number")
    if number != number or number in (float("inf"), float("-inf")):
        raise PackError(url, f"{what} {value!r} is not a finite number")
    return number


_UNIT_TABLE: dict | None = None


def unit_table() -> dict:
    """``data/units_publishers.json``: each publisher's unit codes (read once)."""
    return _unit_table()


def _unit_table() -> dict:
    global _UNIT_TABLE
    if _UNIT_TABLE is None:
        import os
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "data", "units_publishers.json")
        with open(path, encoding="utf-8") as handle:
            _UNIT_TABLE = json.load(handle)
    return _UNIT_TABLE


def publisher_unit(publisher: str, code: Any, *, url: str | None = None,
                   what: str = "value") -> Any:
    """The kernel spelling (or table entry) for a publisher's unit code.

    A missing or empty code, a code the table refuses, and a code the table does not know each
    raise :class:`PackError` naming the code: a value is never returned without a unit.
    """
    table = _unit_table()[publisher]
    if code is None or (isinstance(code, str) and not code.strip()):
        raise PackError(url, f"{what} has no unit ({code!r}); a value without a unit is refused")
    if not isinstance(code, str):
        raise PackError(url, f"{what} has unit {code!r}, expected a unit code string")
    if code in table["refuse"]:
        raise PackError(url, f"{what} is published in {code!r}, which is refused: "
                             f"{table['refuse'][code]}")
    entry = table["units"].get(code)
    if entry is None:
        known = ", ".join(repr(k) for k in sorted(table["units"]))
        raise PackError(url, f"{what} is published in the unit code {code!r}, which the "
                             f"{publisher} pack does not map to a unit (known: {known})")
    return entry


# --------------------------------------------------------------------------------------------
# The record every pack returns
# --------------------------------------------------------------------------------------------

def classify(flags: tuple[str, ...], publisher: str | None) -> tuple[str | None, tuple[str, ...]]:
    """(weakest quality grade or None, condition codes) for a publisher's flags."""
    if not flags or publisher is None:
        return None, ()
    from .. import quality  # lazily, as everything the packs use from the core
    grade, conditions = quality.classify(list(flags), publisher)
    return grade, tuple(conditions)


def register_gauge_zero(station_id: str, elevation: Any, *, prefix: str, publisher: str,
                        source: str | None) -> str | None:
    """The packs' one policy for a gauge datum: the gauge zero a record publishes on a named
    datum is registered when the record is read (``register=True``, the default of every pack).
    Returns None when it is registered (or was, with the same zero), else a note saying why not.

    Two sources that disagree about one gauge's zero (NWPS and USGS for a USGS gage, 37.2 ft
    against 37.04 ft on NAVD88) never fail a read: the zero registered first stands (a datum
    is registered once, never overwritten or averaged), the later record is returned with its
    own figure, and the note names both figures and where the registered one came from."""
    from .. import datums
    from ..errors import RedefinitionError
    try:
        datums.register_station(station_id, elevation, prefix=prefix, source=source)
        return None
    except RedefinitionError:
        pass
    name = datums.get(f"{prefix}:{station_id}").name
    on = datums.get(elevation.datum).name
    mine = f"{fmt_number(elevation.magnitude)} {elevation.unit.symbol} on {on}"
    known, origin = None, None
    for a, b, metres, src in datums.registered_offsets():
        if a == name:
            from ..quantity import Q
            there = Q(float(metres), "m").to(elevation.unit).magnitude
            known = f"{fmt_number(there)} {elevation.unit.symbol} on {b}"
            origin = src
            break
    held = f"at {known}" if known else "with another zero"
    return (f"{publisher} puts the zero of {name} at {mine}, but {name} is already registered "
            f"{held}" + (f" (from {origin})" if origin else "") + "; the registered zero "
            f"stands (a gauge datum is registered once, never overwritten or averaged) and "
            f"converting {name} uses it; this record's own figure stays in the record returned "
            f"(to convert with it instead, read this record in a fresh registry scope: "
            f"datums.isolated())")


def fmt_number(x: float) -> str:
    return f"{float(x):.6g}"


def to_q(magnitude: float, unit: str, datum: str | None, quality: str | None,
         source: dict) -> Any:
    """The one place a pack record becomes a ``Q``."""
    from ..quantity import Q  # lazily: packs are never imported at package import time
    return Q(magnitude, unit, datum=datum, quality=quality, source=source)


@dataclass(frozen=True)
class Reading:
    """One published value with everything the publisher said about it.

    ``value`` is a ``Q`` carrying the unit, datum, quality grade and source. When the publisher
    sent no value (a no-data sentinel, ``null``), or sent one the pack refuses (an unmapped
    unit, an elevation on an unnamed datum), ``magnitude`` is None, ``value`` raises
    :class:`MissingValue` saying why, and ``missing`` is true: such a value never becomes a
    number. ``raw`` keeps what was published, for inspection only.

    ``qualifiers`` are the publisher's own codes, verbatim. ``flags`` are the same codes in the
    vocabulary the quality module reads for ``publisher``; ``quality`` is the weakest grade
    among them and ``conditions`` the condition codes (ice, equipment, ...). ``time`` is always
    timezone-aware, in the offset the publisher used; ``magnitude`` is the number as published
    and ``unit`` the kernel's spelling of the publisher's ``unit_code``.
    """

    parameter: str
    magnitude: float | None
    unit: str | None
    time: datetime | None
    datum: str | None = None
    qualifiers: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    publisher: str | None = None
    source: dict = field(default_factory=dict, compare=False)
    unit_code: str | None = None
    method: str | None = None
    why_missing: str | None = None
    day: date | None = None  # a daily value's local calendar day (then ``time`` is None)
    raw: Any = field(default=None, compare=False)  # the value exactly as published

    @property
    def missing(self) -> bool:
        """True when there is no usable value: none was sent, or the pack refused it."""
        return self.magnitude is None or self.unit is None

    @property
    def quality(self) -> str | None:
        return classify(self.flags, self.publisher)[0]

    @property
    def conditions(self) -> tuple[str, ...]:
        return classify(self.flags, self.publisher)[1]

    @property
    def value(self) -> Any:
        if self.magnitude is None or self.unit is None:
            raise MissingValue(self.source.get("url"), self._missing_text())
        return to_q(self.magnitude, self.unit, self.datum, self.quality, dict(self.source))

    def _missing_text(self) -> str:
        who = " ".join(str(self.source[k]) for k in ("agency", "station") if self.source.get(k))
        text = f"{who} {self.parameter}".strip()
        if self.time is not None:
            text += f" at {self.time.isoformat()}"
        elif self.day is not None:
            text += f" on {self.day.isoformat()}"
        text += f" has no value: {self.why_missing or 'the publisher sent none'}"
        if self.qualifiers:
            text += f" (qualifiers: {', '.join(self.qualifiers)})"
        return text
