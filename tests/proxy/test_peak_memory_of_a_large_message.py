"""The proxy relays one large message with a bounded peak of memory, as a multiple of the
message's size (tracemalloc, the proxy in this process, its upstream a child process): a
tools/call result of 8 MiB through the stdio proxy and through --listen. The bound, 3.5x, is
above the measured 3.0x and below the 4.0x (stdio) and about 7x (--listen) the proxy used before
its avoidable copies were removed; bench/proxy_memory.py peak prints the figures per path."""
from __future__ import annotations

import sys

from bench import proxy_peak_memory as peak

SIZE = 8 << 20
BOUND = 3.5


def test_a_large_result_through_the_stdio_proxy(tmp_path):
    ratio = peak.stdio_peak(peak.call_line("big", {"size": SIZE}), SIZE, str(tmp_path))
    assert 1.0 <= ratio < BOUND, ratio


def test_a_large_result_through_the_listener(tmp_path):
    ratio = peak.http_peak(peak.call_line("big", {"size": SIZE}), SIZE, str(tmp_path), SIZE,
                       command=[sys.executable, peak.FAULT_SERVER])
    assert 1.0 <= ratio < BOUND, ratio
