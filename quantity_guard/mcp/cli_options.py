"""``quantity-guard-mcp``'s command line, parsed with :mod:`argparse`.

One parser holds every option, in two groups: the proxy's (:class:`Options`) and the
Streamable HTTP ones (:class:`HTTPOptions`). An option is one ``add_argument`` call in its
group, with its help text (printed as written, line by line); ``--help`` is made from them.
A subcommand is one row of :data:`SUBCOMMANDS`.

Usage errors raise :class:`UsageError` with the text the user sees (argparse's own messages
are reworded to it in :meth:`Parser.error`).
"""
from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = [
    "EXIT_CHECK",
    "EXIT_CONFIG",
    "EXIT_OK",
    "EXIT_START",
    "EXIT_UPSTREAM",
    "EXIT_USAGE",
    "EXIT_WRITE",
    "PROG",
    "SUBCOMMANDS",
    "HTTPOptions",
    "Options",
    "UsageError",
    "check_options",
    "help_text",
    "parse_args",
    "parse_command_line",
    "parse_seconds",
    "parse_size",
]

PROG = "quantity-guard-mcp"

EXIT_OK = 0
EXIT_UPSTREAM = 1
EXIT_USAGE = 2
EXIT_CONFIG = 3
EXIT_START = 4
EXIT_CHECK = 5
EXIT_WRITE = 6


class Subcommand(NamedTuple):
    synopsis: str  # its line in the usage, after "quantity-guard-mcp NAME"
    module: str  # the module whose main(argv) -> int runs it


SUBCOMMANDS = {
    "annotate": Subcommand("[--tools-json FILE | --upstream URL | -- COMMAND ...]",
                           "quantity_guard.mcp.annotate"),
    "interceptor": Subcommand("--annotations FILE [--listen [HOST:]PORT]",
                              "quantity_guard.mcp.interceptor"),
}
"""The words that, first on the command line, run another program than the proxy."""


class UsageError(Exception):
    pass


# ------------------------------------------------------------------------------- values

_SIZE_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MIB": 1 << 20,
               "G": 1 << 30, "GIB": 1 << 30}


def parse_size(text: str, flag: str = "--max-message-size", *, zero: bool = False) -> int:
    """``"65536"``, ``"64MiB"``, ``"1 GiB"``, ``"512K"``: a positive number of bytes (or 0,
    when ``zero`` allows it)."""
    t = text.strip()
    digits = len(t) - len(t.lstrip("0123456789"))
    number, unit = t[:digits], t[digits:].strip().upper()
    if zero and number and unit in _SIZE_UNITS and int(number) == 0:
        return 0
    if not number or unit not in _SIZE_UNITS or int(number) * _SIZE_UNITS[unit] <= 0:
        raise UsageError(f"{flag} must be a positive number of bytes{' (or 0)' if zero else ''}, "
                         f"optionally with KiB, MiB or GiB (e.g. 64MiB), not {text!r}")
    return int(number) * _SIZE_UNITS[unit]


def parse_seconds(flag: str, text: str, *, positive: bool = False) -> float:
    """``"30"``, ``"0.5"``: a finite number of seconds (``>= 0``, or ``> 0`` if ``positive``)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value - value == 0) or value < 0 or (positive and value == 0):
        raise UsageError(f"{flag} must be a number of seconds{' above 0' if positive else ''} "
                         f"(e.g. 30 or 0.5), not {text!r}")
    return value


# Converters: (flag, text) -> value, raising UsageError with the text the user sees.

def _size(flag: str, text: str) -> int:
    return parse_size(text, flag)


def _size_or_zero(flag: str, text: str) -> int:
    return parse_size(text, flag, zero=True)


def _seconds(flag: str, text: str) -> float:
    return parse_seconds(flag, text)


def _seconds_above_zero(flag: str, text: str) -> float:
    return parse_seconds(flag, text, positive=True)


def _seconds_or_none(flag: str, text: str) -> float | None:
    """0 for no limit (None)."""
    return parse_seconds(flag, text) or None


def _positive_int(flag: str, text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"{flag} must be a positive integer, not {text!r}")
    return int(text)


def _backups(flag: str, text: str) -> int:
    if not text.isdigit() or int(text) > 1000:
        raise UsageError(f"{flag} must be a whole number from 0 to 1000, not {text!r}")
    return int(text)


def _manifests(flag: str, text: str) -> int:
    if not text.isdigit():
        raise UsageError(f"{flag} must be a whole number (0 keeps every manifest), not {text!r}")
    return int(text)


def _one_of(*choices: str) -> Callable[[str, str], str]:
    def convert(flag: str, text: str) -> str:
        if text not in choices:
            raise UsageError(f"{flag} must be {' or '.join(choices)}, not {text!r}")
        return text
    return convert


def _header_env(flag: str, text: str) -> tuple[str, str]:
    name, eq, envvar = text.partition("=")
    if not eq or not name or not envvar:
        raise UsageError(f"{flag} needs NAME=ENVVAR (the header and the environment variable "
                         f"holding its value), not {text!r}")
    return name, envvar


# ------------------------------------------------------------------------------- actions

class Given(argparse.Action):
    """Records each option given (``namespace.given``), for the options that need another."""

    def given(self, namespace: Any, option_string: str | None) -> None:
        namespace.given.add(option_string or self.dest)


class Flag(Given):
    def __init__(self, option_strings: list[str], dest: str, **kw: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=False, **kw)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, True)
        self.given(namespace, option_string)


class Value(Given):
    """An option with a value: never empty, converted by ``convert(flag, text)``; repeated, the
    last one counts (or, with ``append``, each is kept in a list)."""

    def __init__(self, option_strings: list[str], dest: str, convert: Any = None,
                 append: bool = False, **kw: Any) -> None:
        if append:
            kw["default"] = []
        super().__init__(option_strings, dest, **kw)
        self.convert, self.append = convert, append

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        flag = option_string or self.dest
        if not values:
            raise UsageError(f"{flag} needs a value")
        value = self.convert(flag, values) if self.convert else values
        if self.append:
            setattr(namespace, self.dest, [*getattr(namespace, self.dest), value])
        else:
            setattr(namespace, self.dest, value)
        self.given(namespace, option_string)


# ------------------------------------------------------------------------------- the parser

class Options(argparse.Namespace):
    """The proxy's options (the first group of ``--help``) and the server ``command``."""

    command: list[str]


class HTTPOptions(argparse.Namespace):
    """The Streamable HTTP options (all optional); ``given`` holds the flags given."""

    given: set[str]

    @property
    def active(self) -> bool:
        """Whether the command line asks for the HTTP proxy (``--upstream-timeout`` alone
        also bounds a stdio proxy's waits; the flags outside HTTP_MODE are read only by it)."""
        return (self.upstream is not None or self.listen is not None
                or self.session_header is not None or bool(self.given & HTTP_MODE))


HTTP_MODE = frozenset({
    "--store", "--store-ttl", "--store-prefix", "--store-unavailable", "--store-key-env",
    "--store-password-env", "--client-token-env", "--allow-host", "--allow-remote",
    "--jwks-file", "--jwks-url", "--jwt-issuer", "--jwt-audience", "--jwt-algorithms",
    "--jwks-refresh",
    "--session-idle", "--upstream-idle-timeout", "--max-connections",
    "--max-connections-per-peer", "--max-sessions", "--max-sessions-per-client",
    "--max-manifests", "--allow-origin", "--forward-header", "--header-env", "--cafile"})
"""The HTTP options that, given alone, make the command line an HTTP proxy's (and so are
checked against --listen or --upstream)."""


class Parser(argparse.ArgumentParser):
    """Reports a usage error as :class:`UsageError`, in this command's words."""

    words: tuple[str, ...] = ()  # the command line being parsed

    def error(self, message: str) -> Any:
        found = re.fullmatch(r"argument (?:\S+/)?(\S+): expected one argument", message)
        if found:
            raise UsageError(f"{found.group(1)} needs a value")
        found = re.fullmatch(r"argument (\S+): ignored explicit argument '(.*)'", message,
                             flags=re.DOTALL)
        if found:  # a flag given a value (--check=1): not an option this command has
            given = [f"{name}={found.group(2)}" for name in found.group(1).split("/")]
            raise UsageError(f"unknown option {next((w for w in self.words if w in given), given[-1])!r}")
        raise UsageError(message)


def build_parser() -> tuple[Parser, list[argparse.Action], list[argparse.Action]]:
    """The parser, and the actions of its two groups (in the order --help lists them)."""
    p = Parser(prog=PROG, add_help=False, allow_abbrev=False)
    p.add_argument("command", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return p, proxy_options(p), http_options(p)


def proxy_options(p: Parser) -> list[argparse.Action]:
    add = p.add_argument
    return [
        add("--annotations", action=Value, metavar="FILE",
            help="TOML or JSON annotation file naming the guarded tools; without it\n"
                 "the proxy guards nothing and relays every message unchanged"),
        add("--enforcement", action=Value, metavar="MODE", default="strict",
            convert=_one_of("strict", "warn"),
            help="strict (default): refuse violations; warn: record them, forward the\n"
                 "call unchanged"),
        add("--log", action=Value, metavar="FILE",
            help="append a JSON line for every guarded call and violation: the\n"
                 "guarded parameters, their conversions and violations (other\n"
                 "arguments by name only); created readable by its owner only (0600)"),
        add("--log-max-bytes", action=Value, metavar="N", convert=_size_or_zero,
            help="rotate the --log file before it would pass N bytes (or KiB, MiB,\n"
                 "GiB): FILE becomes FILE.1, FILE.1 FILE.2 and so on; default 64MiB,\n"
                 "0 never rotates. A record is never split between files"),
        add("--log-backups", action=Value, metavar="N", convert=_backups,
            help="rotated --log files kept (FILE.1 the newest ... FILE.N); the oldest\n"
                 "beyond N is deleted; default 4, 0 keeps none"),
        add("--manifest", action=Value, metavar="FILE",
            help="write the session ledger to FILE on exit, atomically (a temporary\n"
                 "file, fsync, rename) and readable by its owner only (0600)"),
        add("--max-message-size", action=Value, metavar="N", convert=_size,
            help="the largest JSON-RPC message (line) read from the client or the\n"
                 "server, in bytes or with a suffix (KiB, MiB, GiB); default 1GiB. A\n"
                 "longer line is drained to its newline and dropped, never buffered;\n"
                 "the request it was (or answered) gets an error naming the limit.\n"
                 "Also the largest HTTP request body --listen accepts (default 16MiB;\n"
                 "413 beyond) and upstream HTTP message relayed (default 64MiB)"),
        add("--drain-timeout", action=Value, metavar="SECONDS", default=30.0, convert=_seconds,
            help="when the client's input ends (e.g. requests piped from a file), how\n"
                 "long the upstream may take to answer the requests still pending\n"
                 "before its stdin is closed and it is stopped; default 30. Requests\n"
                 "still unanswered then get a JSON-RPC error saying so"),
        add("--strict-annotations", action=Flag,
            help="before starting, list the server's tools and refuse to start (exit 3)\n"
                 "if the annotation file names a tool or a parameter the server does\n"
                 "not list; without it such a declaration is warned about on stderr\n"
                 "(and in --log) when the proxy first relays tools/list"),
        add("--log-level", action=Value, metavar="LEVEL", default="INFO",
            help="DEBUG, INFO (default), WARNING or ERROR: what goes to stderr, through\n"
                 "the quantity_guard logger (refusals are WARNING, the proxy's life\n"
                 "cycle INFO, conversions DEBUG); in warn mode a summary of what would\n"
                 "have been refused is logged when a session ends"),
        add("--check", action=Flag,
            help="validate the annotation file against a live tools/list of COMMAND\n"
                 "or --upstream URL, print the report and exit (needs --annotations)"),
        add("--version", action=Flag, help="print the version and exit"),
        add("-h", "--help", action=Flag, help="print this help and exit"),
    ]


def http_options(p: Parser) -> list[argparse.Action]:
    add = p.add_argument
    return [
        add("--upstream", action=Value, metavar="URL",
            help="guard the remote MCP server at URL (http:// or https://) instead of\n"
                 "starting COMMAND; the client still talks to this process over stdio\n"
                 "unless --listen is given"),
        add("--listen", action=Value, metavar="[HOST:]PORT",
            help="serve Streamable HTTP to clients at http://HOST:PORT/mcp, in front of\n"
                 "COMMAND or --upstream URL; HOST defaults to 127.0.0.1 (loopback only)"),
        add("--allow-remote", action=Flag,
            help="(with --listen) allow HOST to be an address other than loopback\n"
                 "(e.g. 0.0.0.0). Without it such a --listen is refused: whoever\n"
                 "reaches the port could use the upstream and any --header-env\n"
                 "credential. Needs --client-token-env, and --allow-host for a wildcard\n"
                 "address; see docs/security.md"),
        add("--client-token-env", action=Value, metavar="ENV", dest="client_token_envs",
            append=True,
            help="(with --listen) clients must send \"Authorization: Bearer TOKEN\"\n"
                 "where TOKEN is the value of environment variable ENV (at least 16\n"
                 "characters; never on the command line); others get 401, before\n"
                 "their body is read. Repeat it to accept several tokens"),
        add("--allow-host", action=Value, metavar="NAME", dest="allow_hosts", append=True,
            help="(with --listen) also accept requests whose Host header is NAME (the\n"
                 "name clients use to reach the proxy); loopback names are always\n"
                 "accepted, any other Host gets 421 (DNS rebinding)"),
        add("--allow-origin", action=Value, metavar="ORIGIN", dest="allow_origins",
            append=True,
            help="(with --listen) also accept browser requests from ORIGIN; by default\n"
                 "only loopback origins are accepted, others get 403"),
        add("--forward-header", action=Value, metavar="NAME", dest="forward_headers",
            append=True,
            help="(with --listen and --upstream) pass the client's NAME header upstream;\n"
                 "nothing is forwarded unless named (e.g. Authorization)"),
        add("--header-env", action=Value, metavar="NAME=ENV", append=True, convert=_header_env,
            help="send header NAME with the value of environment variable ENV upstream\n"
                 "(never give secrets on the command line; values are never logged)"),
        add("--upstream-timeout", action=Value, metavar="SECONDS", default=300.0,
            convert=_seconds_or_none,
            help="the longest wait for the upstream's answer to each request: for an\n"
                 "--upstream URL, for the head of its response; for a COMMAND, for the\n"
                 "answer or a progress notification of the request. Default 300, 0 for\n"
                 "no limit. When it runs out the request gets a JSON-RPC error (and a\n"
                 "COMMAND a notifications/cancelled); an SSE client of --listen gets\n"
                 "keep-alive comments meanwhile"),
        add("--upstream-idle-timeout", action=Value, metavar="SECONDS", default=300.0,
            convert=_seconds_or_none,
            help="(with --upstream) the longest silence within a response stream of\n"
                 "the upstream (between two events); default 300, 0 for no limit. The\n"
                 "GET stream and subscriptions/listen streams are exempt"),
        add("--cafile", action=Value, metavar="FILE",
            help="trust only the certificate authorities in FILE for https upstreams\n"
                 "(verification is always on)"),
        *http_session_options(p),
        *store_options(p),
        *jwt_options(p),
    ]


def http_session_options(p: Parser) -> list[argparse.Action]:
    add = p.add_argument
    return [
        add("--max-sessions", action=Value, metavar="N", default=64, convert=_positive_int,
            help="(with --listen) sessions kept at once, each with its own ledger\n"
                 "and upstream (default 64). A 2025 session takes its place only once\n"
                 "the upstream accepted its initialize; when all are in use a new one\n"
                 "gets 503 and no live session is ended. With --manifest FILE, session\n"
                 "N writes FILE with -N before its extension, if it made a guarded call"),
        add("--max-manifests", action=Value, metavar="N", default=1000, convert=_manifests,
            help="(with --listen and --manifest FILE) keep the newest N per-session\n"
                 "manifests (FILE-N...), deleting older ones as sessions end; never\n"
                 "one of a session still open; default 1000, 0 keeps them all"),
        add("--session-idle", action=Value, metavar="SECONDS", default=3600.0,
            convert=_seconds_above_zero,
            help="(with --listen) end a session with nothing in flight after SECONDS\n"
                 "without a request (default 3600), freeing its place"),
        add("--max-sessions-per-client", action=Value, metavar="N", convert=_positive_int,
            help="(with --listen) sessions one client may hold: a client is its\n"
                 "credential (Authorization, or a --forward-header) or else its\n"
                 "address; default a quarter of --max-sessions, or all of it for\n"
                 "loopback clients without a credential (they cannot be told apart)"),
        add("--max-connections", action=Value, metavar="N", default=512,
            convert=_positive_int,
            help="(with --listen) connections open at once (default 512); one more\n"
                 "gets 503 and is closed. Keep it well below the process's open-file\n"
                 "limit: each session also holds its upstream's pipes or socket"),
        add("--max-connections-per-peer", action=Value, metavar="N", convert=_positive_int,
            help="(with --listen) connections open at once from one client address\n"
                 "(default: all of --max-connections on a loopback bind, an eighth of\n"
                 "it otherwise)"),
        add("--session-header", action=Value, metavar="NAME",
            help="(with --listen) group 2026-07-28 calls, which have no session, by the\n"
                 "value of the client's header NAME (e.g. X-Conversation-Id): one ledger\n"
                 "per value, at most --max-sessions values. Calls without it keep the\n"
                 "conversation's ledger by the trace id in params._meta (traceparent),\n"
                 "else by the client's credential and clientInfo (docs/gateway.md)"),
    ]


def store_options(p: Parser) -> list[argparse.Action]:
    add = p.add_argument
    return [
        add("--store", action=Value, metavar="URL",
            help="(with --listen) share the conversations' ledgers and the 2025\n"
                 "sessions with every proxy started with the same --store and\n"
                 "annotations: redis://HOST:PORT/DB, rediss://HOST:PORT/DB or\n"
                 "unix:///PATH?db=N (needs the store extra, the redis package); any\n"
                 "replica behind a load balancer serves any request (docs/gateway.md)"),
        add("--store-ttl", action=Value, metavar="SECONDS", default=3600.0,
            convert=_seconds_above_zero,
            help="(with --store) forget a conversation or session after SECONDS\n"
                 "without a read or a write (default 3600)"),
        add("--store-prefix", action=Value, metavar="TEXT", default="qg:",
            help="(with --store) the prefix of every key written (default qg:)"),
        add("--store-key-env", action=Value, metavar="ENV", default="QUANTITY_GUARD_STORE_KEY",
            help="(with --store) the key the replicas share, from environment variable\n"
                 "ENV (default QUANTITY_GUARD_STORE_KEY; at least 32 characters, e.g.\n"
                 "64 random hex digits): every record is authenticated with it\n"
                 "and key names are derived from it, so a record written without it is\n"
                 "never trusted and two gateways with different keys share nothing"),
        add("--store-password-env", action=Value, metavar="ENV",
            help="(with --store) the store's password, from environment variable ENV\n"
                 "(not in the URL, which the process list shows)"),
        add("--store-unavailable", action=Value, metavar="refuse|proceed", default="refuse",
            convert=_one_of("refuse", "proceed"),
            help="(with --store) when the store cannot be reached: refuse guarded calls\n"
                 "with the code store_unavailable (refuse, the default), or forward them\n"
                 "checked against this replica's memory only, with a warning (proceed)"),
    ]


def jwt_options(p: Parser) -> list[argparse.Action]:
    add = p.add_argument
    return [
        add("--jwks-file", action=Value, metavar="FILE", dest="jwks_files", append=True,
            help="(with --listen) verify every client's bearer JWT against the JSON\n"
                 "Web Key Set in FILE (read again every --jwks-refresh seconds); its\n"
                 "issuer and subject are the client, so a refreshed token keeps its\n"
                 "conversation on every replica. A token that does not verify gets 401\n"
                 "with the reason. Needs --jwt-issuer and --jwt-audience, and the jwt\n"
                 "extra (PyJWT with cryptography)"),
        add("--jwks-url", action=Value, metavar="URL", dest="jwks_urls", append=True,
            help="(with --listen) as --jwks-file, the key set read from the https URL"),
        add("--jwt-issuer", action=Value, metavar="ISS",
            help="(with a key set) the iss every token must carry"),
        add("--jwt-audience", action=Value, metavar="AUD",
            help="(with a key set) the audience every token's aud must hold (this proxy)"),
        add("--jwt-algorithms", action=Value, metavar="LIST",
            help="(with a key set) the accepted algorithms, comma-separated (default\n"
                 "RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512,EdDSA; never\n"
                 "none or HS*); exp, nbf and iat are checked with 30 s of leeway"),
        add("--jwks-refresh", action=Value, metavar="SECONDS", default=300.0,
            convert=_seconds_above_zero,
            help="(with a key set) read the key set again every SECONDS (default 300,\n"
                 "at least 30); a token naming an unknown key asks for an early read,\n"
                 "at most once every 30 s"),
    ]


def parse_command_line(argv: list[str]) -> tuple[Options, HTTPOptions]:
    """Options up to the first word that is not one (or ``--``); the rest is the upstream
    command. Only the values are checked here (see :func:`check_options`)."""
    parser, proxy, http_actions = build_parser()
    parser.words = tuple(argv)
    parsed, unknown = parser.parse_known_args(list(argv), argparse.Namespace(given=set()))
    if unknown:
        raise UsageError(f"unknown option {unknown[0]!r}")
    opts, http = Options(), HTTPOptions(given=parsed.given)
    command = list(parsed.command)
    opts.command = command[1:] if command[:1] == ["--"] else command
    for actions, into in ((proxy, opts), (http_actions, http)):
        for action in actions:
            setattr(into, action.dest, getattr(parsed, action.dest))
    http.client_token_env = (http.client_token_envs or [None])[-1]
    return opts, http


def check_options(opts: Options, *, remote: bool = False) -> None:
    """The proxy's options that need one another; ``remote``: the server is an --upstream
    URL, so there is no COMMAND."""
    from .logs import LEVELS
    if opts.log_level.upper() not in LEVELS:
        raise UsageError(f"--log-level must be one of {', '.join(LEVELS)}, not {opts.log_level!r}")
    for flag in ("log_max_bytes", "log_backups"):
        if getattr(opts, flag) is not None and not opts.log:
            raise UsageError(f"--{flag.replace('_', '-')} bounds the --log file, which is not given")
    if not opts.command and not remote:
        raise UsageError("no server command given")
    if not opts.annotations:
        for flag in ("log", "manifest", "check", "strict_annotations"):
            if getattr(opts, flag):
                raise UsageError(f"--{flag.replace('_', '-')} needs --annotations")
        if opts.enforcement != "strict":
            raise UsageError("--enforcement needs --annotations")


def parse_args(argv: list[str]) -> Options:
    """The proxy's options, checked (``--help`` and ``--version`` skip the checks)."""
    opts, _http = parse_command_line(argv)
    if not (opts.help or opts.version):
        check_options(opts)
    return opts


# ------------------------------------------------------------------------------- --help

_HEAD = """\
Run the MCP server COMMAND as a child process and relay JSON-RPC between it and this process's
stdin/stdout. Tools named in the annotation file are re-advertised with units in their schema,
their arguments are converted into the units the server expects (or refused with a repair
text), and their bare numeric results come back labelled. Everything else passes untouched.
The '--' before COMMAND is optional. 'annotate' prints a draft annotation file from the
server's own words (see '{prog} annotate --help').
"""

_EXIT_STATUS = """\
Diagnostics go to stderr only; stdout carries nothing but the JSON-RPC stream.

exit status:
  0    the client closed stdin and the server was stopped; or --check found no problem;
       or --help / --version
  1    the server exited or closed its stdout while the client was connected (each
       pending request was answered with a JSON-RPC error first); or --check could not
       list the server's tools
  2    usage error
  3    the annotation file (or the policy module) could not be loaded; or, with
       --strict-annotations, it names a tool or parameter the server does not list
  4    COMMAND could not be started
  5    --check found problems in the annotation file
  6    the --manifest file could not be written (the previous one, if any, is left whole),
       or a --log record could not be written (reported once; guarded calls went on); this
       status is given even when the proxy was stopped by a signal
  128+N  stopped by signal N (SIGHUP 129, SIGINT 130, SIGTERM 143); also 129 when the
       client process disappears
"""

_HELP_COLUMN = 25  # where each option's help text begins


def _option_lines(actions: list[argparse.Action]) -> str:
    out = []
    for action in actions:
        head = "  " + ", ".join(action.option_strings)
        if action.nargs != 0:
            head += f" {action.metavar}"
        lines = (action.help or "").splitlines()
        if len(head) < _HELP_COLUMN:
            out.append(head.ljust(_HELP_COLUMN) + lines[0])
        else:
            out += [head, " " * _HELP_COLUMN + lines[0]]
        out += [" " * _HELP_COLUMN + line for line in lines[1:]]
    return "\n".join(out) + "\n"


def help_text() -> str:
    """What ``--help`` prints: the usage, the proxy's options, the exit statuses, then the
    Streamable HTTP options."""
    _parser, proxy, http = build_parser()
    usage = [f"usage: {PROG} [options] [--] COMMAND [ARG...]"]
    usage += [f"       {PROG} {name} {sub.synopsis}" for name, sub in SUBCOMMANDS.items()]
    return ("\n".join(usage) + "\n\n" + _HEAD.format(prog=PROG) + "\noptions:\n"
            + _option_lines(proxy) + "\n" + _EXIT_STATUS + "\n"
            + "Streamable HTTP (remote servers and HTTP clients):\n" + _option_lines(http))
