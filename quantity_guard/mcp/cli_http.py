"""``quantity-guard-mcp`` with Streamable HTTP: ``--upstream URL`` (a remote server instead of
COMMAND) and ``--listen [HOST:]PORT`` (serve HTTP clients). The stdio proxy never imports it."""
from __future__ import annotations

import copy
import itertools
import os
from collections.abc import Callable
from typing import Any

from .cli_options import (
    EXIT_CONFIG,
    EXIT_USAGE,
    PROG,
    HTTPOptions,
    Options,
    UsageError,
    check_options,
)
from .cli_runtime import (
    ConfigError,
    UpstreamError,
    apply_limits,
    build_policy,
    err,
    run_check,
    strict_preflight,
    version,
    with_policy,
)

__all__ = ["ManifestRetention", "http_main"]


class ManifestRetention:
    """``--listen --manifest FILE --max-manifests N``: the per-session manifests
    (``FILE-<n><ext>`` beside FILE) are kept to the newest ``N`` (by modification time; ``0``
    keeps them all). Pruned each time a session has closed (and written its manifest); a file
    of a session still open is never deleted, nor counted."""

    def __init__(self, manifest: str, keep: int) -> None:
        root, self.ext = os.path.splitext(os.path.abspath(manifest))
        self.folder, self.stem = os.path.dirname(root), os.path.basename(root) + "-"
        self.keep = keep
        self.live: set[str] = set()

    def opened(self, path: str) -> Callable[[], None]:
        """A session that will write ``path`` began; returns what to call once it closed."""
        path = os.path.abspath(path)
        self.live.add(path)

        def closed() -> None:
            self.live.discard(path)
            self.prune()
        return closed

    def prune(self) -> None:
        if not self.keep:
            return
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        found = []
        for name in names:
            if not (name.startswith(self.stem) and name.endswith(self.ext)):
                continue
            number = name[len(self.stem):len(name) - len(self.ext)]
            path = os.path.join(self.folder, name)
            if not number.isdigit() or path in self.live:
                continue
            try:
                found.append((os.stat(path).st_mtime_ns, int(number), path))
            except OSError:
                continue
        found.sort(reverse=True)
        for _, _, path in found[self.keep:]:
            try:
                os.unlink(path)
            except OSError as exc:
                err(f"could not delete the old manifest {path!r} beyond --max-manifests "
                     f"{self.keep} ({exc.strerror or exc})")


def _gateway(http: HTTPOptions, opts: Any, key: bytes | None = None,
             password: str | None = None) -> dict:
    """The store, the conversations' ledgers on it and the gateway's identity key, for
    ``--store`` (a store that cannot be opened or reached is a configuration error)."""
    from ..store import open_store
    from .gateway import MAX_CALLS, MAX_ENTRIES, Conversations
    from .identity import IdentityKey
    assert http.store is not None
    try:
        store = open_store(http.store, ttl=http.store_ttl, prefix=http.store_prefix,
                           max_calls=MAX_CALLS, on_unavailable=http.store_unavailable, warn=err,
                           key=key, password=password)
    except (ValueError, ImportError) as exc:
        raise ConfigError(f"error: --store: {exc}") from None
    try:
        store.client.ping()
        store.check_epoch()
    except store._errors as exc:
        raise ConfigError(f"error: --store: the shared store could not be reached "
                           f"({type(exc).__name__}: {exc}); start the proxy once the store is "
                           "reachable") from None
    identity = IdentityKey.derived(key) if key is not None else IdentityKey()
    conversations = Conversations(store=store, max_kept=4 * http.max_sessions,
                                  max_entries=MAX_ENTRIES, max_calls=MAX_CALLS)
    return {"store": store, "conversations": conversations, "identity": identity}



def http_main(opts: Options, http: HTTPOptions) -> int:
    """The proxy with an --upstream URL or --listen: the options checked, then :func:`serve`."""
    try:
        apply_limits(opts)
        check_options(opts, remote=bool(http.upstream))
        _check_http_options(opts, http)
        static = _header_env_values(http)
        if http.upstream:
            from .http.client import parse_url
            try:
                parse_url(http.upstream)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            if http.cafile and not os.path.isfile(http.cafile):
                raise UsageError(f"--cafile {http.cafile!r}: no such file")
        listen, client_token, client_tokens, store_secrets = _listen_options(http)
    except UsageError as exc:
        err(f"error: {exc}\ntry '{PROG} --help'")
        return EXIT_USAGE
    from .logs import configure
    configure(opts.log_level)
    return serve(opts, http, listen, static, client_token, client_tokens, store_secrets)


def _check_http_options(opts: Options, http: HTTPOptions) -> None:
    """The HTTP options that need another, or go with only some."""
    if http.upstream and opts.command:
        raise UsageError("give either --upstream URL or a server COMMAND, not both")
    if not http.upstream and not opts.command:
        raise UsageError("no server: give a COMMAND or --upstream URL")
    if opts.check and http.listen:
        raise UsageError("--check lists the upstream's tools and exits; it does not go with --listen")
    if http.forward_headers and not (http.listen and http.upstream):
        raise UsageError("--forward-header passes an HTTP client's header to an HTTP upstream: it "
                         "needs both --listen and --upstream")
    from .http.wire import HOP_BY_HOP
    for name in http.forward_headers:
        if name.lower() in HOP_BY_HOP or name.lower().startswith("mcp-"):
            raise UsageError(f"--forward-header {name}: hop-by-hop, framing and MCP headers are "
                             "the proxy's own and are never forwarded")
    if http.session_header is not None:
        _check_session_header(http)
    if http.allow_origins and not http.listen:
        raise UsageError("--allow-origin needs --listen")
    if "--max-manifests" in http.given and not (http.listen and opts.manifest):
        raise UsageError("--max-manifests bounds the per-session manifests of --listen "
                         "--manifest FILE; it needs both")
    for flag in ("--max-connections", "--max-connections-per-peer", "--max-sessions",
                 "--max-sessions-per-client", "--session-idle", "--allow-remote",
                 "--client-token-env", "--allow-host"):
        if flag in http.given and not http.listen:
            raise UsageError(f"{flag} applies to the HTTP clients of --listen; it needs --listen")
    for flag in ("--store", "--store-ttl", "--store-prefix", "--store-unavailable",
                 "--store-key-env", "--store-password-env"):
        if flag in http.given and flag != "--store" and http.store is None:
            raise UsageError(f"{flag} configures --store, which is not given")
        if flag in http.given and not http.listen:
            raise UsageError(f"{flag} shares the ledgers of --listen's replicas; it needs --listen")
    _check_jwt_options(http)
    if http.cafile and not http.upstream:
        raise UsageError("--cafile needs --upstream")
    if "--upstream-idle-timeout" in http.given and not http.upstream:
        raise UsageError("--upstream-idle-timeout bounds the waits for an --upstream URL; none "
                         "is given")
    if http.header_env and not http.upstream:
        raise UsageError("--header-env sets headers sent to an --upstream URL; none is given")


def _check_session_header(http: HTTPOptions) -> None:
    if not http.listen:
        raise UsageError("--session-header groups the calls of HTTP clients: it needs --listen")
    from .http.wire import HOP_BY_HOP, HeaderError, check_header
    assert http.session_header is not None
    try:
        check_header(http.session_header, "x")
    except HeaderError as exc:
        raise UsageError(f"--session-header {http.session_header!r}: {exc}") from None
    if http.session_header.lower() in HOP_BY_HOP or http.session_header.lower().startswith("mcp-"):
        raise UsageError(f"--session-header {http.session_header}: hop-by-hop, framing and MCP "
                         "headers cannot group sessions; name a header the client sends for "
                         "its conversation (e.g. X-Conversation-Id)")


def _listen_options(http: HTTPOptions) -> tuple[Any, str | None, list, tuple]:
    """--listen's address, its client tokens and the --store secrets (all None without it)."""
    listen = None
    client_token = None
    client_tokens: list = []
    store_secrets: tuple = (None, None)
    if http.listen:
        from .http.listen import is_loopback_host, parse_listen
        try:
            listen = parse_listen(http.listen)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        client_token = _client_token(http)
        client_tokens = [_client_token(http, env) for env in http.client_token_envs[:-1]]
        if http.store is not None:
            store_secrets = _store_secrets(http)
        if not is_loopback_host(listen[0]):
            if not http.allow_remote:
                raise UsageError(
                    f"--listen {http.listen} binds {listen[0]}, which is not loopback: whoever "
                    "reaches that port could call the upstream's tools, with any --header-env "
                    "credential. To expose the proxy on purpose add --allow-remote, "
                    "--client-token-env ENV (clients must send that bearer token) and "
                    "--allow-host NAME (the name clients use); see docs/security.md")
            if client_token is None and not (http.jwks_files or http.jwks_urls):
                raise UsageError("--allow-remote needs --client-token-env ENV (or a key set to "
                                 "verify bearer JWTs, --jwks-url URL): an exposed proxy "
                                 "authenticates its clients")
            if listen[0] in ("0.0.0.0", "::", "") and not http.allow_hosts:
                raise UsageError(f"--listen {http.listen} binds every address: name the host "
                                 "clients use with --allow-host NAME (other Host headers are "
                                 "refused, against DNS rebinding)")
    return listen, client_token, client_tokens, store_secrets


def serve(opts: Options, http: HTTPOptions, listen: Any, static: list[tuple[str, str]],
          client_token: str | None, client_tokens: list, store_secrets: tuple) -> int:
    """Run the HTTP proxy the checked options describe: the listener of --listen, or the
    stdio client's bridge to the --upstream URL."""
    if listen is not None:
        from .http.listen import run_listener
        refused, gateway = _before_listening(opts, http, static, store_secrets)
        if refused is not None:
            return refused
        new_policy = session_policies(opts, http)
        return run_listener(listen, new_policy, command=opts.command or None, upstream=http.upstream,
                            headers=static, forward_headers=http.forward_headers,
                            allow_origins=http.allow_origins, cafile=http.cafile,
                            max_sessions=http.max_sessions, session_header=http.session_header,
                            upstream_timeout=http.upstream_timeout,
                            upstream_idle_timeout=http.upstream_idle_timeout,
                            max_connections=http.max_connections,
                            max_connections_per_peer=http.max_connections_per_peer,
                            max_sessions_per_client=http.max_sessions_per_client,
                            session_idle=http.session_idle, client_token=client_token,
                            client_tokens=[t for t in client_tokens if t is not None],
                            allow_hosts=http.allow_hosts, max_message=opts.max_message_size, log=err,
                            **gateway)

    def bridge(policy: Any, wire: tuple[int, int]) -> int:
        from .guard import Guard
        from .http.upstream import run_stdio_to_http
        assert http.upstream is not None
        if opts.check:
            return run_check(opts, policy, wire[1], _http_fetcher(http, static),
                             http.upstream)
        if opts.strict_annotations:
            refused = strict_preflight(opts, policy, _http_fetcher(http, static), http.upstream)
            if refused is not None:
                return refused
        return run_stdio_to_http(http.upstream, Guard(policy), client_in=wire[0], client_out=wire[1],
                                 headers=static, cafile=http.cafile, drain_timeout=opts.drain_timeout,
                                 upstream_timeout=http.upstream_timeout,
                                 upstream_idle_timeout=http.upstream_idle_timeout,
                                 max_message=opts.max_message_size)

    return with_policy(opts, bridge)


def session_policies(opts: Options, http: HTTPOptions) -> Callable[[], Any]:
    """``new_policy()`` for --listen: a policy (and so a ledger) per session; with --manifest,
    session N writes FILE with ``-N`` before its extension (``manifest-3.json``), and once it
    has, the oldest of those beyond --max-manifests are deleted (never a live session's)."""
    numbers = itertools.count(1)
    retention = ManifestRetention(opts.manifest, http.max_manifests) if opts.manifest else None
    first: list = []

    def new_policy() -> Any:
        if not opts.annotations:
            return None
        session_opts = copy.copy(opts)
        if opts.manifest:
            root, ext = os.path.splitext(opts.manifest)
            session_opts.manifest = f"{root}-{next(numbers)}{ext}"
        policy = build_policy(session_opts)
        if retention is not None and session_opts.manifest:
            policy.on_close = retention.opened(session_opts.manifest)
        if hasattr(policy, "write_empty_manifest"):
            policy.write_empty_manifest = False  # one file per session that made a guarded call
        # what the upstream's listing declared is shared by every session: a listing
        # seen on one connection applies to calls made on another
        if first and callable(getattr(policy, "share_listing", None)):
            policy.share_listing(first[0])
        else:
            first.append(policy)
        return policy
    return new_policy


def _before_listening(opts: Options, http: HTTPOptions, static: list[tuple[str, str]],
                      store_secrets: tuple) -> tuple[int | None, dict[str, Any]]:
    """The annotation file loaded once (a bad one fails early), --strict-annotations' check
    and the --store gateway: ``(exit status or None to go on, the gateway's arguments)``."""
    try:
        if opts.annotations:  # fail early on a bad annotation file
            check_opts = copy.copy(opts)
            check_opts.manifest = None
            check_opts.log = None
            checked = build_policy(check_opts)
            if opts.strict_annotations:
                refused = strict_preflight(
                    opts, checked, _http_fetcher(http, static) if http.upstream else None,
                    http.upstream or "")
                if refused is not None:
                    return refused, {}
    except ConfigError as exc:
        err(str(exc))
        return EXIT_CONFIG, {}
    gateway: dict[str, Any] = {}
    try:
        if http.store is not None:
            gateway = _gateway(http, opts, *store_secrets)
        if http.jwks_files or http.jwks_urls:
            gateway["jwt"] = _jwt_verifier(http)
    except ConfigError as exc:
        err(str(exc))
        return EXIT_CONFIG, {}
    if "jwt" in gateway:
        gateway["jwt"].start()
    return None, gateway


def _check_jwt_options(http: HTTPOptions) -> None:
    """The key set options (--jwks-file, --jwks-url, --jwt-*), checked together."""
    given = sorted(f for f in http.given if f.startswith(("--jwks-", "--jwt-")))
    if not given:
        return
    if not http.listen:
        raise UsageError(f"{given[0]} verifies the bearer tokens of --listen's clients; it needs "
                         "--listen")
    if not http.jwks_files and not http.jwks_urls:
        raise UsageError(f"{given[0]} configures a key set, which is not given: add --jwks-file "
                         "FILE or --jwks-url URL")
    if not http.jwt_issuer or not http.jwt_audience:
        raise UsageError("a key set needs --jwt-issuer ISS and --jwt-audience AUD: the issuer "
                         "and the audience (this proxy) every token must name")
    for url in http.jwks_urls:
        if not url.lower().startswith("https://"):
            raise UsageError(f"--jwks-url {url}: give an https URL (a key set read in clear "
                             "could be replaced on the way), or --jwks-file FILE")
    if http.client_token_envs:
        raise UsageError("--client-token-env and a key set both check the Authorization header: "
                         "give one of them")
    from .jwt_identity import MIN_REFRESH, check_algorithms
    if http.jwks_refresh < MIN_REFRESH:
        raise UsageError(f"--jwks-refresh must be at least {MIN_REFRESH} seconds (the key set's "
                         f"server is asked at most that often), not {http.jwks_refresh:g}")
    if http.jwt_algorithms is not None:
        try:
            check_algorithms(http.jwt_algorithms.split(","))
        except ValueError as exc:
            raise UsageError(f"--jwt-algorithms: {exc}") from None


def _jwt_verifier(http: HTTPOptions) -> Any:
    """The bearer JWT verifier of the key set options, its keys read (exit 3 otherwise)."""
    from .jwt_identity import JWTVerifier
    assert http.jwt_issuer and http.jwt_audience
    try:
        return JWTVerifier(
            issuer=http.jwt_issuer, audience=http.jwt_audience,
            files=http.jwks_files, urls=http.jwks_urls, refresh=http.jwks_refresh, log=err,
            algorithms=http.jwt_algorithms.split(",") if http.jwt_algorithms else None)
    except (ImportError, ValueError) as exc:
        raise ConfigError(f"error: the JWT key set: {exc}") from None


def _http_fetcher(http: HTTPOptions, static: list[tuple[str, str]]) -> Any:
    """A ``fetch()`` of the --upstream URL's tools, as ``_check`` and ``strict_preflight``
    take it."""
    def fetch() -> tuple[list[dict], str]:
        from .http.client import UpstreamError as HTTPUpstreamError
        from .http.upstream import fetch_tools_http
        assert http.upstream is not None
        try:
            return fetch_tools_http(http.upstream, headers=static, cafile=http.cafile,
                                    client_info={"name": PROG, "version": version()}), "legacy"
        except HTTPUpstreamError as exc:
            raise UpstreamError(str(exc)) from None
    return fetch


def _store_secrets(http: HTTPOptions) -> tuple[bytes, str | None]:
    """The --store-key-env key and the --store-password-env password (checked; never printed)."""
    key = os.environ.get(http.store_key_env, "").strip()
    if len(key) < 32 or any(c.isspace() or not c.isprintable() for c in key):
        raise UsageError(f"--store needs the key the replicas share in environment variable "
                         f"{http.store_key_env} (--store-key-env ENV): at least 32 visible "
                         f"characters, e.g. export {http.store_key_env}=\"$(openssl rand -hex 32)\""
                         + ("; the value is not shown" if key else ""))
    password = None
    if http.store_password_env is not None:
        password = os.environ.get(http.store_password_env)
        if not password:
            raise UsageError(f"--store-password-env {http.store_password_env}: the environment "
                             "variable is not set")
    return key.encode("utf-8"), password


def _client_token(http: HTTPOptions, env: str | None = None) -> str | None:
    """The --client-token-env token (checked; never printed): the last one given, or ``env``'s."""
    env = env or http.client_token_env
    if env is None:
        return None
    if any(name.lower() == "authorization" for name in http.forward_headers):
        raise UsageError("--client-token-env takes the client's Authorization header for the proxy "
                         "itself, so it cannot also be forwarded: give the upstream its credential "
                         "with --header-env Authorization=ENV")
    value = os.environ.get(env)
    if value is None:
        raise UsageError(f"--client-token-env {env}: the environment variable is not set")
    if len(value.strip()) < 16 or any(c.isspace() or not c.isprintable() for c in value.strip()):
        raise UsageError(f"--client-token-env {env}: the token must be at least 16 "
                         "visible characters without spaces (e.g. from `openssl rand -hex 32`); "
                         "the value is not shown")
    return value.strip()


def _header_env_values(http: HTTPOptions) -> list[tuple[str, str]]:
    """The --header-env headers with their values (checked; the values are never printed)."""
    from .http.wire import HeaderError, check_header
    out = []
    for name, envvar in http.header_env:
        if name.lower() in ("host", "content-length", "transfer-encoding", "connection"):
            raise UsageError(f"--header-env cannot set {name}: the proxy writes it")
        value = os.environ.get(envvar)
        if value is None:
            raise UsageError(f"--header-env {name}={envvar}: the environment variable {envvar} is not set")
        try:
            check_header(name, value)
        except HeaderError:
            raise UsageError(f"--header-env {name}={envvar}: the header name or the variable's value "
                             "cannot be sent (a line break or control character, or not Latin-1); "
                             "the value is not shown") from None
        out.append((name, value))
    return out
