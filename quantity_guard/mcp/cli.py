"""``quantity-guard-mcp``: wrap an MCP server you did not write.

See ``quantity-guard-mcp --help`` for the options and exit codes. The command line is parsed
in :mod:`.cli_options` (an option is one ``add_argument`` there, a subcommand one row of its
``SUBCOMMANDS``); the stdio proxy runs here, the HTTP one in :mod:`.cli_http`.
"""
from __future__ import annotations

import importlib
import sys
from typing import Any

from .cli_options import (
    EXIT_CHECK,
    EXIT_CONFIG,
    EXIT_OK,
    EXIT_START,
    EXIT_UPSTREAM,
    EXIT_USAGE,
    EXIT_WRITE,
    PROG,
    SUBCOMMANDS,
    Options,
    UsageError,
    check_options,
    help_text,
    parse_args,
    parse_command_line,
)
from .cli_runtime import (
    CHECK_CAPABILITIES,
    apply_limits,
    err,
    fetch_tools,
    run_check,
    strict_preflight,
    version,
    with_policy,
)

__all__ = [
    "CHECK_CAPABILITIES",
    "EXIT_CHECK",
    "EXIT_CONFIG",
    "EXIT_OK",
    "EXIT_START",
    "EXIT_UPSTREAM",
    "EXIT_USAGE",
    "EXIT_WRITE",
    "Options",
    "UsageError",
    "fetch_tools",
    "main",
    "parse_args",
]



def __getattr__(name: str) -> str:
    if name == "USAGE":  # what --help prints, made from the parser when asked for
        return help_text()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] and args[0] in SUBCOMMANDS:  # another program: its module's main(argv)
        return int(importlib.import_module(SUBCOMMANDS[args[0]].module).main(args[1:]))
    try:
        opts, http = parse_command_line(args)
        if not (opts.help or opts.version):
            if http.active:
                from .cli_http import http_main
                return http_main(opts, http)
            check_options(opts)
            apply_limits(opts)
    except UsageError as exc:
        err(f"error: {exc}\ntry '{PROG} --help'")
        return EXIT_USAGE
    if opts.help:
        sys.stdout.write(help_text())
        sys.stdout.flush()
        return EXIT_OK
    if opts.version:
        sys.stdout.write(f"{PROG} {version()}\n")
        sys.stdout.flush()
        return EXIT_OK
    from .logs import configure
    configure(opts.log_level)

    def relay(policy: Any, wire: tuple[int, int]) -> int:
        if opts.check:
            return run_check(opts, policy, wire[1])
        if opts.strict_annotations:
            refused = strict_preflight(opts, policy)
            if refused is not None:
                return refused
        from .guard import Guard
        from .stdio import run_proxy
        return run_proxy(opts.command, Guard(policy), client_in=wire[0], client_out=wire[1],
                         drain_timeout=opts.drain_timeout, upstream_timeout=http.upstream_timeout)

    return with_policy(opts, relay)


if __name__ == "__main__":
    sys.exit(main())
