"""What every provider shares: the neutral conversation, turns, usage, errors, and HTTP with
retries over urllib.

The neutral conversation is a list of messages::

    {"role": "user", "content": "<text>"}
    {"role": "assistant", "content": "<text or ''>",
     "tool_calls": [{"id": "...", "name": "...", "arguments": {...} | "<raw JSON text>"}]}
    {"role": "tool", "results": [{"id": "...", "name": "...", "content": "<text>",
                                  "is_error": bool}]}

Each provider renders it into its own request and parses its response back into a ``Turn``.
"""
from __future__ import annotations

import json
import random
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
FATAL_STATUSES = frozenset({401, 403, 404})


class ProviderError(Exception):
    """A request that failed for a reason that is not the model's behaviour. The run is
    recorded as excluded with ``reason``, never as an outcome."""

    def __init__(self, reason: str, *, status: int | None = None, body: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.body = body[:2000]


class FatalProviderError(ProviderError):
    """A failure every run would share (no key, bad key, unknown model): stop the benchmark."""


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    requests: int = 0
    retries: int = 0

    def add(self, other: "Usage") -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.requests += other.requests
        self.retries += other.retries
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd

    def as_dict(self) -> dict:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 8),
                "requests": self.requests, "retries": self.retries}


@dataclass
class Turn:
    """One assistant response in neutral form."""
    text: str = ""
    tool_calls: list = field(default_factory=list)  # [{"id", "name", "arguments"}]
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str | None = None  # the model the provider reports having used

    def message(self) -> dict:
        msg: dict = {"role": "assistant", "content": self.text or ""}
        if self.tool_calls:
            msg["tool_calls"] = [dict(c) for c in self.tool_calls]
        return msg


@dataclass
class Pricing:
    """USD per million tokens, used when the provider does not report a cost itself."""
    input_per_mtok: float | None = None
    output_per_mtok: float | None = None

    def cost(self, usage: Usage) -> float | None:
        if self.input_per_mtok is None or self.output_per_mtok is None:
            return None
        return (usage.input_tokens * self.input_per_mtok
                + usage.output_tokens * self.output_per_mtok) / 1e6


# -- transport -------------------------------------------------------------------------------
def urllib_transport(url: str, headers: dict, body: bytes, timeout: float):
    """POST ``body``; return (status, headers, body bytes). HTTP errors are returned, not
    raised; network failures raise OSError."""
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as err:
        try:
            data = err.read()
        except OSError:
            data = b""
        return err.code, dict(err.headers.items()) if err.headers else {}, data


@dataclass
class HTTPClient:
    """POST JSON with retries: 429 and 5xx (and network errors) back off exponentially with
    jitter, honouring ``Retry-After``; 401/403/404 are fatal; other 4xx (402 payment required,
    400 bad request) fail the run at once."""
    transport: object = urllib_transport
    sleep: object = time.sleep
    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    timeout: float = 120.0
    rng: random.Random = field(default_factory=random.Random)

    def post_json(self, url: str, headers: dict, payload: dict) -> tuple[dict, int]:
        """(response JSON, retries used)."""
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json", **headers}
        last = "no attempt made"
        for attempt in range(self.max_attempts):
            retry_after = None
            try:
                status, resp_headers, data = self.transport(url, headers, body, self.timeout)
            except (OSError, socket.timeout) as err:  # URLError is an OSError
                status, resp_headers, data = None, {}, b""
                last = f"network error: {err}"
            else:
                text = data.decode("utf-8", "replace")
                if status is not None and 200 <= status < 300:
                    try:
                        parsed = json.loads(text)
                    except ValueError:
                        raise ProviderError(f"malformed response: not JSON ({text[:200]!r})",
                                            status=status, body=text) from None
                    error = parsed.get("error") if isinstance(parsed, dict) else None
                    code = _error_status(error)
                    if error and code in RETRY_STATUSES:  # OpenRouter: an error inside a 200
                        last = f"http {code} (in a 200 body): {_error_message(parsed, text)}"
                    elif error:
                        raise ProviderError(f"provider error: {_error_message(parsed, text)}",
                                            status=code or status, body=text)
                    else:
                        return parsed, attempt
                else:
                    message = _error_message(_try_json(text), text)
                    if status in FATAL_STATUSES:
                        raise FatalProviderError(f"http {status}: {message}", status=status,
                                                 body=text)
                    if status not in RETRY_STATUSES:
                        raise ProviderError(f"http {status}: {message}", status=status,
                                            body=text)
                    last = f"http {status}: {message}"
                    retry_after = _retry_after(resp_headers)
            if attempt + 1 < self.max_attempts:
                delay = min(self.max_delay, self.base_delay * (2 ** attempt))
                delay *= 0.5 + self.rng.random() / 2
                if retry_after is not None:
                    delay = max(delay, min(retry_after, self.max_delay * 5))
                self.sleep(delay)
        raise ProviderError(f"{last} (gave up after {self.max_attempts} attempts)")


def _try_json(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


def _error_status(error) -> int | None:
    if isinstance(error, dict):
        code = error.get("code")
        if isinstance(code, int):
            return code
        if isinstance(code, str) and code.isdigit():
            return int(code)
    return None


def _error_message(parsed, text: str) -> str:
    if isinstance(parsed, dict):
        error = parsed.get("error")
        if isinstance(error, dict):
            kind = error.get("type")
            msg = error.get("message") or json.dumps(error)[:300]
            return f"{kind}: {msg}" if kind else str(msg)
        if isinstance(error, str):
            return error
    return text.strip()[:300] or "(empty body)"


def _retry_after(headers: dict) -> float | None:
    for key, value in headers.items():
        if key.lower() == "retry-after":
            try:
                return max(0.0, float(value))
            except ValueError:
                return None
    return None


def tool_result_mcp(result: dict) -> dict:
    """A neutral tool result as the MCP CallToolResult the library's adapters wrap."""
    return {"content": [{"type": "text", "text": result.get("content", "")}],
            "isError": bool(result.get("is_error"))}


class HTTPProvider:
    """What the two HTTP providers share: their settings and one request-response turn.
    A subclass sets ``path``, ``build_request`` and ``parse_response`` (as staticmethods) and
    its ``headers()``."""

    scripted = False
    path = ""

    def __init__(self, model: str, *, api_key: str | None, base_url: str, http: HTTPClient | None,
                 max_tokens: int | None, temperature: float | None, pricing: Pricing | None) -> None:
        self.model = model
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.http = http or HTTPClient()
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.pricing = pricing or Pricing()

    @property
    def url(self) -> str:
        return f"{self.base_url}/{self.path}"

    def session(self, run):
        return self

    def complete(self, system: str, messages: list[dict], tools: list[dict]) -> Turn:
        payload = self.build_request(self.model, system, messages, tools,
                                     max_tokens=self.max_tokens, temperature=self.temperature)
        data, retries = self.http.post_json(self.url, self.headers(), payload)
        turn = self.parse_response(data)
        turn.usage.retries = retries
        if turn.usage.cost_usd is None:  # a cost the provider reported is kept
            turn.usage.cost_usd = self.pricing.cost(turn.usage)
        return turn
