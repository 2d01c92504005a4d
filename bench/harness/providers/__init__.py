"""Choosing a provider for a ``--model``.

- ``scripted:<persona>``: a scripted agent (offline; not a result);
- with ``--base-url``: an OpenAI-compatible server (vLLM, llama.cpp, Ollama, OpenAI, OpenRouter);
  key from ``--api-key-env`` (default ``OPENAI_API_KEY``; optional for local servers);
- ``anthropic/<model>`` without ``--base-url``: the Anthropic Messages API, ``ANTHROPIC_API_KEY``;
- anything else without ``--base-url``: OpenRouter, ``OPENROUTER_API_KEY``.
"""
from __future__ import annotations

import os

from .anthropic import AnthropicMessages
from .base import FatalProviderError, HTTPClient, Pricing, ProviderError, Turn, Usage
from .openai_compat import OPENROUTER_URL, OpenAICompatible
from .scripted import PERSONAS, ScriptedAgent

__all__ = ["resolve", "ProviderError", "FatalProviderError", "HTTPClient", "Pricing", "Turn",
           "Usage", "ScriptedAgent", "PERSONAS", "is_scripted"]


def is_scripted(model: str) -> bool:
    return model.startswith("scripted:")


def resolve(model: str, *, base_url: str | None = None, api_key_env: str | None = None,
            http: HTTPClient | None = None, max_tokens: int | None = None,
            temperature: float | None = None, pricing: Pricing | None = None,
            environ=None):
    environ = os.environ if environ is None else environ
    if is_scripted(model):
        return ScriptedAgent(model.split(":", 1)[1])
    if base_url:
        env = api_key_env or "OPENAI_API_KEY"
        return OpenAICompatible(model, base_url=base_url, api_key=environ.get(env), http=http,
                                max_tokens=max_tokens, temperature=temperature, pricing=pricing)
    if model.startswith("anthropic/"):
        env = api_key_env or "ANTHROPIC_API_KEY"
        key = environ.get(env)
        if not key:
            raise FatalProviderError(f"{model} goes to the Anthropic Messages API, which needs "
                                     f"${env} (or use --base-url for an OpenAI-compatible "
                                     f"router such as OpenRouter)")
        return AnthropicMessages(model.split("/", 1)[1], api_key=key, http=http,
                                 max_tokens=max_tokens or 2048, temperature=temperature,
                                 pricing=pricing)
    env = api_key_env or "OPENROUTER_API_KEY"
    key = environ.get(env)
    if not key:
        raise FatalProviderError(f"{model} goes to OpenRouter ({OPENROUTER_URL}), which needs "
                                 f"${env}; or pass --base-url for another OpenAI-compatible "
                                 f"server")
    return OpenAICompatible(model, base_url=OPENROUTER_URL, api_key=key, http=http,
                            max_tokens=max_tokens, temperature=temperature, pricing=pricing)
