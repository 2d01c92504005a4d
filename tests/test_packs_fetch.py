"""The packs' network edge: retries, Retry-After, gzip, redirects, replay, and shared parsing.

Nothing here touches the network: urllib's opener is replaced by a fake that plays scripted
responses, and ``sleep`` by a recorder.
"""
from __future__ import annotations

import email.message
import gzip
import io
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone

import pytest

from quantity_guard.packs import MissingValue, PackError, Reading, make_fetch, replay
from quantity_guard.packs import _fetch


def _headers(**items) -> email.message.Message:
    msg = email.message.Message()
    for k, v in items.items():
        msg[k.replace("_", "-")] = v
    return msg


class _Response:
    def __init__(self, body: bytes, headers=None):
        self._body = io.BytesIO(body)
        self.headers = headers or _headers()

    def read(self, size=-1):  # as http.client.HTTPResponse: the next bytes, b"" at the end
        return self._body.read(size)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class FakeOpener:
    """Plays a script of responses: bytes, (bytes, headers), HTTP status tuples, exceptions."""

    def __init__(self, script):
        self.script = list(script)
        self.requests = []

    def open(self, request, timeout=None):
        self.requests.append((request, timeout))
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, tuple) and isinstance(step[0], int):
            status, body, headers = step
            raise urllib.error.HTTPError(request.full_url, status, "error", headers,
                                         io.BytesIO(body))
        if isinstance(step, tuple):
            return _Response(*step)
        return _Response(step)


URL = "https://api.waterdata.usgs.gov/ogcapi/v1/collections/x/items?f=json"


def _fetch_with(script, **kw):
    opener = FakeOpener(script)
    sleeps: list[float] = []
    fetch = make_fetch(opener=opener, sleep=sleeps.append, **kw)
    return fetch, opener, sleeps


def test_sends_user_agent_gzip_and_caller_headers_with_a_timeout():
    fetch, opener, _ = _fetch_with([b"{}"], timeout=7)
    assert fetch(URL, {"X-Api-Key": "k"}) == b"{}"
    request, timeout = opener.requests[0]
    assert timeout == 7
    assert "quantity-guard" in request.get_header("User-agent")
    assert request.get_header("Accept-encoding") == "gzip"
    assert request.get_header("X-api-key") == "k"


def test_gzip_body_is_decompressed():
    body = gzip.compress(b'{"a": 1}')
    fetch, _, _ = _fetch_with([(body, _headers(Content_Encoding="gzip"))])
    assert fetch(URL, {}) == b'{"a": 1}'


def test_5xx_is_retried_with_exponential_backoff():
    fetch, opener, sleeps = _fetch_with(
        [(503, b"busy", _headers()), (502, b"", _headers()), b"ok"], backoff=1.0)
    assert fetch(URL, {}) == b"ok"
    assert len(opener.requests) == 3
    assert 1.0 <= sleeps[0] <= 1.25 and 2.0 <= sleeps[1] <= 2.5


def test_429_honours_retry_after_seconds():
    fetch, _, sleeps = _fetch_with([(429, b"slow down", _headers(Retry_After="3")), b"ok"])
    assert fetch(URL, {}) == b"ok"
    assert sleeps == [3.0]


def test_retry_after_as_http_date():
    when = datetime(2030, 1, 1, 0, 0, 10, tzinfo=timezone.utc)
    now = (when - timedelta(seconds=10)).timestamp()
    header = "Tue, 01 Jan 2030 00:00:10 GMT"
    assert _fetch.retry_after_seconds(header, now=now) == pytest.approx(10.0)
    assert _fetch.retry_after_seconds("nonsense") is None


def test_retry_after_longer_than_the_cap_is_reported_not_slept():
    fetch, opener, sleeps = _fetch_with([(429, b"", _headers(Retry_After="3600"))])
    with pytest.raises(PackError) as err:
        fetch(URL, {})
    assert err.value.status == 429 and err.value.retry_after == 3600.0
    assert "rate limited" in str(err.value) and URL in str(err.value)
    assert sleeps == [] and len(opener.requests) == 1


def test_retries_exhausted_raise_pack_error_with_status_and_body():
    fetch, opener, _ = _fetch_with([(503, b"down for maintenance", _headers())] * 3, retries=2)
    with pytest.raises(PackError) as err:
        fetch(URL, {})
    assert err.value.status == 503
    assert "down for maintenance" in str(err.value) and URL in str(err.value)
    assert len(opener.requests) == 3


def test_4xx_is_not_retried():
    fetch, opener, sleeps = _fetch_with([(404, b"No sites found", _headers())])
    with pytest.raises(PackError) as err:
        fetch(URL, {})
    assert err.value.status == 404 and "No sites found" in str(err.value)
    assert len(opener.requests) == 1 and sleeps == []


def test_network_errors_are_retried_then_reported():
    boom = urllib.error.URLError("Name or service not known")
    fetch, opener, _ = _fetch_with([boom, TimeoutError("timed out")], retries=1)
    with pytest.raises(PackError) as err:
        fetch(URL, {})
    assert "network error after 2 attempt(s)" in str(err.value) and URL in str(err.value)


def test_corrupt_gzip_is_a_pack_error():
    fetch, _, _ = _fetch_with([(b"\x1f\x8bnot gzip", _headers(Content_Encoding="gzip"))])
    with pytest.raises(PackError, match="decompress"):
        fetch(URL, {})


def _redirect(from_url, to_url, headers):
    handler = _fetch.SafeRedirect()
    req = urllib.request.Request(from_url, headers=headers)
    return handler.redirect_request(req, None, 302, "Found", {}, to_url)


def test_api_key_is_dropped_on_a_cross_host_redirect_and_kept_on_the_same_host():
    same = _redirect(URL, "https://api.waterdata.usgs.gov/other", {"X-Api-Key": "secret"})
    assert same.get_header("X-api-key") == "secret"
    other = _redirect(URL, "https://elsewhere.example/x", {"X-Api-Key": "secret"})
    assert other.get_header("X-api-key") is None


def test_replay_matches_on_the_set_of_query_parameters():
    log = []
    fetch = replay({"https://h.example/p?a=1&b=2": b"x"}, log=log)
    assert fetch("https://h.example/p?b=2&a=1", {"H": "v"}) == b"x"
    assert log == [("https://h.example/p?b=2&a=1", {"H": "v"})]
    with pytest.raises(PackError, match="no recorded response"):
        fetch("https://h.example/p?a=1", {})


def test_get_json_names_the_url_for_bad_payloads_and_foreign_exceptions():
    fetch = replay({"https://h.example/html": b"<html>Service Unavailable</html>"})
    with pytest.raises(PackError) as err:
        _fetch.get_json(fetch, "https://h.example/html")
    assert "not JSON" in str(err.value) and "Service Unavailable" in str(err.value)
    assert err.value.url == "https://h.example/html"

    def broken(url, headers):
        raise RuntimeError("socket closed")

    with pytest.raises(PackError, match="RuntimeError: socket closed"):
        _fetch.get_json(broken, "https://h.example/x")

    with pytest.raises(PackError, match="expected bytes"):
        _fetch.get_json(lambda url, headers: {"a": 1}, "https://h.example/x")


@pytest.mark.parametrize("text, expected", [
    ("2019-02-14T00:15:00.000-05:00", datetime(2019, 2, 14, 5, 15, tzinfo=timezone.utc)),
    ("2026-08-19T09:15:00+00:00", datetime(2026, 8, 19, 9, 15, tzinfo=timezone.utc)),
    ("2015-12-10T16:00:00Z", datetime(2015, 12, 10, 16, 0, tzinfo=timezone.utc)),
    ("2026-08-19T09:26:17.140679+00:00",
     datetime(2026, 8, 19, 9, 26, 17, 140679, tzinfo=timezone.utc)),
])
def test_parse_time_is_aware_and_exact(text, expected):
    parsed = _fetch.parse_time(text)
    assert parsed.tzinfo is not None and parsed == expected


def test_parse_time_keeps_the_published_offset_and_refuses_naive():
    parsed = _fetch.parse_time("2025-08-24T10:15:00.000-06:00")
    assert parsed.utcoffset() == timedelta(hours=-6)
    with pytest.raises(PackError, match="no UTC offset"):
        _fetch.parse_time("2012-12-24T12:45:00", url="u")
    assert _fetch.parse_time("2012-12-24T12:45:00", default_tz=timezone.utc).tzinfo is timezone.utc
    with pytest.raises(PackError, match="not an ISO 8601"):
        _fetch.parse_time("yesterday")


@pytest.mark.parametrize("bad", [True, None, "abc", float("nan"), "inf", [3.5]])
def test_parse_number_refuses_non_numbers(bad):
    with pytest.raises(PackError):
        _fetch.parse_number(bad, url="u")


def test_parse_number_reads_strings_with_spaces():
    assert _fetch.parse_number(" 2.73") == 2.73
    assert _fetch.parse_number("010") == 10.0


def test_publisher_unit_table_maps_and_refuses_by_name():
    assert _fetch.publisher_unit("usgs", "ft^3/s") == "ft3/s"
    # the "@25C" qualifier is kept as metadata beside the unit, never dropped (issue #14)
    assert _fetch.publisher_unit("usgs", "uS/cm @25C") == {"unit": "uS/cm",
                                                          "qualifier": "at 25 degC"}
    assert _fetch.publisher_unit("nwps", "kcfs") == "kcfs"
    assert _fetch.publisher_unit("ea", "mAOD") == {"unit": "m", "datum": "ODN"}
    with pytest.raises(PackError, match="'---'"):
        _fetch.publisher_unit("ea", "---")
    with pytest.raises(PackError, match="'V'"):
        _fetch.publisher_unit("ea", "V")
    with pytest.raises(PackError, match="'furlong/fortnight'"):
        _fetch.publisher_unit("usgs", "furlong/fortnight")
    for empty in (None, "", "  "):
        with pytest.raises(PackError, match="without a unit is refused"):
            _fetch.publisher_unit("usgs", empty)


def test_a_missing_reading_never_yields_a_number():
    r = Reading(parameter="00060", magnitude=None, unit="ft3/s",
                time=datetime(2019, 1, 28, 21, tzinfo=timezone.utc), qualifiers=("P", "Ice"),
                source={"agency": "USGS", "station": "01542500", "url": "https://x"},
                why_missing="no-data value '-999999'")
    assert r.missing
    with pytest.raises(MissingValue) as err:
        r.value
    text = str(err.value)
    assert "USGS 01542500 00060" in text and "-999999" in text and "Ice" in text
    assert isinstance(err.value, PackError) and err.value.url == "https://x"


def test_packs_package_is_import_light():
    import subprocess
    import sys
    code = ("import sys, quantity_guard; "
            "assert not any(m.startswith('quantity_guard.packs') for m in sys.modules), "
            "sorted(m for m in sys.modules if m.startswith('quantity_guard')); "
            "import quantity_guard.packs as p; "
            "assert 'quantity_guard.packs.usgs' not in sys.modules; "
            "assert 'urllib.request' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


# -- issue 18 item 9: bounded reads from the network (a real loopback HTTP server) ------------
import http.server  # noqa: E402
import json  # noqa: E402
import threading  # noqa: E402
import tracemalloc  # noqa: E402
import zlib  # noqa: E402


def _gzip_bomb(inflated: int) -> bytes:
    """A real gzip body of ``inflated`` zero bytes, compressed in 1 MiB steps (about 1000:1)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [c.compress(block) for _ in range(inflated >> 20)]
    parts.append(c.flush())
    return b"".join(parts)


BOMB: list = []   # made once, by the server fixture: 256 MiB inflated, above the 64 MiB default
SMALL_JSON = json.dumps({"items": list(range(1000))}).encode()


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, body: bytes, headers=(), length=True):
        self.send_response(200)
        for k, v in headers:
            self.send_header(k, v)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        if self.path == "/bomb":
            self._send(BOMB[0], [("Content-Encoding", "gzip")])
        elif self.path == "/bomb-undeclared":     # gzip magic without the header
            self._send(BOMB[0])
        elif self.path == "/huge-declared":       # Content-Length states 20 MiB
            self._send(b" " * (20 << 20))
        elif self.path == "/huge-streamed":       # no Content-Length: read until close
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for _ in range(40):
                    self.wfile.write(b" " * (1 << 20))
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif self.path == "/two-members":
            self._send(gzip.compress(SMALL_JSON[:100]) + gzip.compress(SMALL_JSON[100:]),
                       [("Content-Encoding", "gzip")])
        else:
            self._send(gzip.compress(SMALL_JSON), [("Content-Encoding", "gzip")])


@pytest.fixture(scope="module")
def server():
    if not BOMB:
        BOMB.append(_gzip_bomb(256 << 20))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _loopback_fetch(**kw):
    # no proxy from the environment may sit between the test and its own loopback server
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                         _fetch.SafeRedirect())
    return make_fetch(opener=opener, retries=0, **kw)


def test_a_genuine_gzip_response_and_multi_member_gzip_still_decode(server):
    fetch = _loopback_fetch()
    assert fetch(f"{server}/ok", {}) == SMALL_JSON
    assert fetch(f"{server}/two-members", {}) == SMALL_JSON


def test_a_gzip_bomb_is_refused_naming_the_limit_at_bounded_memory(server):
    fetch = _loopback_fetch(max_inflated_bytes=1 << 20)
    tracemalloc.start()
    try:
        with pytest.raises(PackError) as err:
            fetch(f"{server}/bomb", {})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "more than 1048576 bytes, the max_inflated_bytes limit" in str(err.value)
    assert "make_fetch(max_inflated_bytes=<larger>)" in str(err.value)
    assert err.value.url == f"{server}/bomb"
    assert peak < 8 << 20   # the 256 MiB it would inflate to is never held
    with pytest.raises(PackError, match="max_inflated_bytes"):
        fetch(f"{server}/bomb-undeclared", {})


def test_the_default_inflation_limit_applies_to_the_default_fetch_and_get_json(server):
    with pytest.raises(PackError, match=f"more than {_fetch.MAX_INFLATED_BYTES} bytes"):
        _loopback_fetch()(f"{server}/bomb", {})
    # a caller's own fetch that returns the raw bomb: get_json inflates within the same bound
    with pytest.raises(PackError, match="max_inflated_bytes"):
        _fetch.get_json(lambda url, headers: BOMB[0], "http://example.invalid/x")


def test_a_huge_body_is_refused_naming_the_limit(server):
    fetch = _loopback_fetch(max_bytes=4 << 20)
    with pytest.raises(PackError) as err:
        fetch(f"{server}/huge-declared", {})
    assert "the response is 20971520 bytes, more than 4194304 bytes, the max_bytes limit" in \
        str(err.value)
    with pytest.raises(PackError, match="the response is more than 4194304 bytes, the max_bytes"):
        fetch(f"{server}/huge-streamed", {})
    assert _loopback_fetch(max_bytes=len(gzip.compress(SMALL_JSON)))(f"{server}/ok", {}) == \
        SMALL_JSON   # exactly at the limit is accepted
