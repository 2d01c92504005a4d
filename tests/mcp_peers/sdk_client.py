"""For tests that drive a server with the official MCP SDK client: import this module after
``pytest.importorskip("mcp")`` and ``pytest.importorskip("anyio")``."""
from __future__ import annotations

import anyio
from mcp import StdioServerParameters

from .driver import env


def stdio_params(argv: list[str], **extra_env: str) -> StdioServerParameters:
    """The SDK's description of the stdio server ``argv``, with the repository importable."""
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env(**extra_env))


def run(fn, *args, seconds: float = 120):
    """``fn(*args)`` (a coroutine function) on a fresh event loop, failed after ``seconds``."""
    async def bounded():
        with anyio.fail_after(seconds):
            return await fn(*args)

    return anyio.run(bounded)
