"""The Anthropic Messages API over urllib (``POST /v1/messages``).

The system prompt is top level; tool calls are ``tool_use`` content blocks; every result of one
assistant turn goes back in a single user message of ``tool_result`` blocks, wrapped by the
library's adapter (``is_error`` set for refusals).
"""
from __future__ import annotations

from quantity_guard.adapters import wrap_result

from .base import HTTPClient, HTTPProvider, Pricing, ProviderError, Turn, Usage, tool_result_mcp

ANTHROPIC_URL = "https://api.anthropic.com/v1"
ANTHROPIC_VERSION = "2023-06-01"


def render_messages(messages: list[dict]) -> list[dict]:
    out: list[dict] = []
    for m in messages:
        role = m["role"]
        if role == "user":
            out.append({"role": "user", "content": m["content"]})
        elif role == "assistant":
            blocks: list[dict] = []
            if m.get("content"):
                blocks.append({"type": "text", "text": m["content"]})
            for c in m.get("tool_calls") or []:
                args = c["arguments"] if isinstance(c["arguments"], dict) else {}
                blocks.append({"type": "tool_use", "id": c["id"], "name": c["name"],
                               "input": args})
            out.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            out.append({"role": "user",
                        "content": [wrap_result("anthropic", r["id"], tool_result_mcp(r))
                                    for r in m["results"]]})
        else:
            raise ValueError(f"unknown role {role!r}")
    return out


def build_request(model: str, system: str, messages: list[dict], tools: list[dict], *,
                  max_tokens: int = 2048, temperature: float | None = None) -> dict:
    body: dict = {"model": model, "max_tokens": max_tokens, "system": system,
                  "messages": render_messages(messages)}
    if tools:
        body["tools"] = tools
    if temperature is not None:
        body["temperature"] = temperature
    return body


def parse_response(data: dict) -> Turn:
    if data.get("type") == "error":
        raise ProviderError(f"provider error: {data.get('error')}")
    content = data.get("content")
    if not isinstance(content, list):
        raise ProviderError("malformed response: no content blocks")
    texts, calls = [], []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            texts.append(block.get("text", ""))
        elif kind == "tool_use":
            args = block.get("input")
            calls.append({"id": block.get("id", f"toolu_{len(calls)}"),
                          "name": block.get("name", ""),
                          "arguments": args if isinstance(args, dict) else {}})
    usage = data.get("usage") or {}
    inputs = int(usage.get("input_tokens") or 0) + int(
        usage.get("cache_creation_input_tokens") or 0) + int(
        usage.get("cache_read_input_tokens") or 0)
    return Turn(text="\n".join(t for t in texts if t), tool_calls=calls,
                stop_reason=data.get("stop_reason"),
                usage=Usage(input_tokens=inputs, output_tokens=int(usage.get("output_tokens") or 0),
                            requests=1),
                model=data.get("model"))


class AnthropicMessages(HTTPProvider):
    tool_format = "anthropic"
    path = "messages"
    build_request = staticmethod(build_request)
    parse_response = staticmethod(parse_response)

    def __init__(self, model: str, *, api_key: str | None, base_url: str = ANTHROPIC_URL,
                 http: HTTPClient | None = None, max_tokens: int = 2048,
                 temperature: float | None = None, pricing: Pricing | None = None) -> None:
        super().__init__(model, api_key=api_key, base_url=base_url, http=http,
                         max_tokens=max_tokens, temperature=temperature, pricing=pricing)
        self.name = "anthropic-messages"

    def headers(self) -> dict:
        return {"x-api-key": self.api_key or "", "anthropic-version": ANTHROPIC_VERSION}

