"""``quantity-guard-mcp annotate``: print a draft annotation file for a server (see
``quantity_guard.mcp.draft``).

    quantity-guard-mcp annotate --tools-json tools.json
    quantity-guard-mcp annotate -- python -m my_server
    quantity-guard-mcp annotate --upstream https://host/mcp

The TOML goes to stdout (``-o FILE`` writes it to FILE instead); a one-line summary to stderr.
Exit status: 0 drafted; 1 the server's tools could not be listed; 2 usage error; 4 the server
command could not be started.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

__all__ = ["main", "parser"]

PROG = "quantity-guard-mcp annotate"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Draft an annotation file from a server's own words: a declaration where "
                    "its descriptions, titles, property names or output schemas state a unit, "
                    "datum or time zone (with the words quoted in a comment), a comment where "
                    "they state none or an ambiguous one. The TOML loads with --annotations as it "
                    "is; review it, then run --check.",
        epilog="exit status: 0 drafted; 1 the tools could not be listed; 2 usage error; "
               "4 COMMAND could not be started")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--tools-json", metavar="FILE",
                        help="a saved tools/list result ({\"tools\": [...]}, or the JSON-RPC "
                             "answer holding one); - reads stdin")
    source.add_argument("--upstream", metavar="URL",
                        help="list the tools of the remote MCP server at URL (Streamable HTTP)")
    p.add_argument("--header-env", metavar="NAME=ENV", action="append", default=[],
                   help="(with --upstream) send header NAME with the value of environment "
                        "variable ENV")
    p.add_argument("-o", "--output", metavar="FILE", help="write the draft to FILE, not stdout")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="the server COMMAND to start and list (after --)")
    return p


EXIT_OK, EXIT_UPSTREAM, EXIT_USAGE, EXIT_START = 0, 1, 2, 4  # as quantity-guard-mcp's


def main(argv: list[str] | None = None, fetch: Any = None) -> int:
    """``fetch(command) -> (tools, era)`` lists a server's tools (by default the proxy's
    ``fetch_tools``)."""
    p = parser()
    try:
        args = p.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_USAGE
    command = [c for c in (args.command or [])]
    if command and command[0] == "--":
        command = command[1:]
    given = sum(1 for x in (args.tools_json, args.upstream, command) if x)
    if given != 1:
        _err("give one source of tools: --tools-json FILE, --upstream URL or -- COMMAND ...")
        return EXIT_USAGE
    if args.header_env and not args.upstream:
        _err("--header-env needs --upstream")
        return EXIT_USAGE
    from .draft import draft, draft_toml, summary, tools_of
    try:
        if args.tools_json:
            text = sys.stdin.read() if args.tools_json == "-" else \
                open(args.tools_json, encoding="utf-8").read()
            tools = tools_of(json.loads(text))
            source = "-" if args.tools_json == "-" else os.path.basename(args.tools_json)
        elif args.upstream:
            tools = _list_http(args.upstream, args.header_env)
            source = args.upstream
        else:
            if fetch is None:
                from .cli_runtime import fetch_tools as fetch
            tools, _era = fetch(command)
            source = " ".join([os.path.basename(command[0]), *command[1:]])
    except (FileNotFoundError, PermissionError) as exc:
        if args.tools_json:
            _err(f"cannot read {args.tools_json}: {exc.strerror or exc}")
            return EXIT_USAGE
        _err(f"cannot start {command[0]!r}: {exc.strerror or exc}")
        return EXIT_START
    except (ValueError, KeyError) as exc:
        _err(f"{args.tools_json or 'the server'}: {exc}")
        return EXIT_USAGE if args.tools_json else EXIT_UPSTREAM
    except Exception as exc:  # the server could not be listed (exited, timed out, refused)
        _err(f"could not list the tools of {source_of(args, command)}: {exc}")
        return EXIT_UPSTREAM
    drafts = draft(tools)
    text = draft_toml(drafts, source)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    _err(summary(drafts))
    return EXIT_OK


def source_of(args, command) -> str:
    return args.upstream or " ".join(command)


def _list_http(url: str, header_env: list[str]) -> list[dict]:
    from .._version import __version__
    from .http.upstream import fetch_tools_http
    headers = []
    for item in header_env:
        name, _, env = item.partition("=")
        if not name or env not in os.environ:
            raise ValueError(f"--header-env {item}: give NAME=ENV with ENV set")
        headers.append((name, os.environ[env]))
    return fetch_tools_http(url, headers=headers, client_info={"name": "quantity-guard-mcp", "version": __version__})


def _err(text: str) -> None:
    try:
        sys.stderr.write(f"{PROG}: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
