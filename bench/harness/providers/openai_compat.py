"""OpenAI-compatible chat completions over urllib: OpenAI, OpenRouter, vLLM, llama.cpp's
``llama-server``, Ollama (``/v1``), and anything else that serves ``POST /chat/completions``.

Tools are sent in the chat-completions ``tools`` format the library's ``toolbox`` emits
(non-strict: several local servers reject ``strict``). Tool results are wrapped by the
library's adapter (``role: tool``; errors prefixed ``Error:``).
"""
from __future__ import annotations

import json

from quantity_guard.adapters import wrap_result

from .base import HTTPClient, HTTPProvider, Pricing, ProviderError, Turn, Usage, tool_result_mcp

OPENROUTER_URL = "https://openrouter.ai/api/v1"


def render_messages(system: str, messages: list[dict]) -> list[dict]:
    out: list[dict] = [{"role": "system", "content": system}]
    for m in messages:
        role = m["role"]
        if role == "user":
            out.append({"role": "user", "content": m["content"]})
        elif role == "assistant":
            msg: dict = {"role": "assistant", "content": m.get("content") or None}
            calls = m.get("tool_calls") or []
            if calls:
                msg["tool_calls"] = [
                    {"id": c["id"], "type": "function",
                     "function": {"name": c["name"],
                                  "arguments": c["arguments"] if isinstance(c["arguments"], str)
                                  else json.dumps(c["arguments"], ensure_ascii=False)}}
                    for c in calls]
            out.append(msg)
        elif role == "tool":
            for r in m["results"]:
                out.append(wrap_result("openai", r["id"], tool_result_mcp(r)))
        else:
            raise ValueError(f"unknown role {role!r}")
    return out


def build_request(model: str, system: str, messages: list[dict], tools: list[dict], *,
                  max_tokens: int | None = None, temperature: float | None = None) -> dict:
    body: dict = {"model": model, "messages": render_messages(system, messages)}
    if tools:
        body["tools"] = tools
        body["tool_choice"] = "auto"
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if temperature is not None:
        body["temperature"] = temperature
    return body


def parse_response(data: dict) -> Turn:
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ProviderError(f"malformed response: no choices ({json.dumps(data)[:200]})")
    message = choices[0].get("message") or {}
    content = message.get("content")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    calls = []
    for i, c in enumerate(message.get("tool_calls") or []):
        fn = c.get("function") or {}
        args = fn.get("arguments")
        if isinstance(args, str):
            try:
                parsed = json.loads(args) if args.strip() else {}
                args = parsed if isinstance(parsed, dict) else args
            except ValueError:
                pass  # kept as the raw text: the tool answers with an error the model can read
        elif args is None:
            args = {}
        calls.append({"id": c.get("id") or f"call_{i}", "name": fn.get("name", ""),
                      "arguments": args})
    usage = data.get("usage") or {}
    cost = usage.get("cost")
    return Turn(text=content or "", tool_calls=calls,
                stop_reason=choices[0].get("finish_reason"),
                usage=Usage(input_tokens=int(usage.get("prompt_tokens") or 0),
                            output_tokens=int(usage.get("completion_tokens") or 0),
                            cost_usd=float(cost) if isinstance(cost, (int, float)) else None,
                            requests=1),
                model=data.get("model"))


class OpenAICompatible(HTTPProvider):
    """``complete(system, messages, tools) -> Turn`` against ``{base_url}/chat/completions``."""

    tool_format = "openai"
    path = "chat/completions"
    build_request = staticmethod(build_request)
    parse_response = staticmethod(parse_response)

    def __init__(self, model: str, *, base_url: str = OPENROUTER_URL, api_key: str | None = None,
                 http: HTTPClient | None = None, max_tokens: int | None = None,
                 temperature: float | None = None, pricing: Pricing | None = None) -> None:
        super().__init__(model, api_key=api_key, base_url=base_url, http=http,
                         max_tokens=max_tokens, temperature=temperature, pricing=pricing)
        self.name = f"openai-compatible:{self.base_url}"

    def headers(self) -> dict:
        headers = {}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        if "openrouter.ai" in self.base_url:
            headers["X-Title"] = "quantity-guard bench"
        return headers

