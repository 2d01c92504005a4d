"""An option of the Streamable HTTP proxy given to a stdio proxy (a server COMMAND, no --listen,
no --upstream) is refused with exit status 2 and a reason naming it, never silently ignored:
every such option the command line defines, read from its own parser, so one added later is
held to it too."""
from __future__ import annotations

import subprocess
import sys

import pytest

from quantity_guard.mcp.cli_options import build_parser

# what a stdio proxy reads of the HTTP options: the addresses that make it an HTTP proxy, and
# the per-request timeout that bounds its own waits too
READ_BY_A_STDIO_PROXY = {"--upstream", "--listen", "--upstream-timeout"}

VALUES = {"N": "4", "SECONDS": "5", "URL": "https://example.invalid", "ENV": "QG_UNSET_X",
          "NAME": "X-Name", "NAME=ENV": "X-Name=QG_UNSET_X", "ORIGIN": "https://a.example",
          "FILE": sys.executable, "TEXT": "p:", "ISS": "https://issuer.example",
          "AUD": "mcp", "LIST": "RS256", "refuse|proceed": "proceed"}


def _http_options() -> list[tuple[str, list[str]]]:
    _, _, actions = build_parser()
    out = []
    for action in actions:
        flag = action.option_strings[0]
        if flag in READ_BY_A_STDIO_PROXY:
            continue
        value = [] if action.nargs == 0 else [VALUES.get(str(action.metavar), "x")]
        out.append((flag, value))
    return out


@pytest.mark.parametrize("flag, value", _http_options())
def test_an_http_option_without_http_is_refused(flag, value):
    done = subprocess.run([sys.executable, "-m", "quantity_guard.mcp", flag, *value, "--",
                           sys.executable, "-c", "pass"], capture_output=True, text=True,
                          timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, (flag, done.returncode, done.stderr)
    assert "error:" in done.stderr and flag in done.stderr, done.stderr
    assert "relaying" not in done.stderr  # no proxy was started


def test_the_table_reaches_every_kind_of_value():
    """Each option's value is one its parser takes (a missing row would send "x")."""
    _, _, actions = build_parser()
    assert {str(a.metavar) for a in actions if a.nargs != 0} <= set(VALUES) | {"[HOST:]PORT"}
