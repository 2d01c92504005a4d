"""A third-party-style MCP server built with the SDK's FastMCP API (``MCPServer``, the name
FastMCP has in mcp 2.x), for the proxy's real-server tests. Run: python mcpserver_tools.py

Its tools mirror the shapes that broke a guarding proxy (issue #12):
  fetch_text(text, max_length: StrictInt = 5000)  optional integer with a default; strict pydantic
  wait(milliseconds: StrictInt)                   required integer count of milliseconds
  add(a, b) -> float                              outputSchema {"result": number}
  calculate(expression) -> str                    outputSchema {"result": string}: "5.5", "(0.5, 4)"
  is_equal(a, b) -> bool                          outputSchema {"result": boolean}
  sentence(a, b) -> str, no outputSchema          prose: "The sum of 2 and 3.5 is 5.5."
  reading(site) -> Reading                        outputSchema {distance: number, note: string}
"""
from __future__ import annotations

from pydantic import BaseModel, StrictInt

from mcp.server.mcpserver import MCPServer

app = MCPServer("mcpserver-tools")


class Reading(BaseModel):
    distance: float
    note: str


@app.tool()
def fetch_text(text: str, max_length: StrictInt = 5000) -> str:
    """Return at most max_length characters of text."""
    return text[:max_length]


@app.tool()
def wait(milliseconds: StrictInt) -> str:
    """Pretend to wait; say for how long."""
    return f"waited {milliseconds} ms ({type(milliseconds).__name__})"


@app.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


_OPS = {"+": lambda a, b: a + b, "divmod": lambda a, b: divmod(a, b), "==": lambda a, b: a == b}


@app.tool()
def calculate(a: float, op: str, b: float) -> str:
    """Apply +, divmod or == to a and b; the result as text."""
    return str(_OPS[op](a, b))


@app.tool()
def is_equal(a: float, b: float) -> bool:
    """Whether a equals b."""
    return a == b


@app.tool(structured_output=False)
def sentence(a: float, b: float) -> str:
    """The sum of a and b in words."""
    return f"The sum of {a:g} and {b:g} is {a + b:g}."


@app.tool()
def reading(site: str) -> Reading:
    """A distance reading at a site."""
    return Reading(distance=12.5, note=f"site {site}")


if __name__ == "__main__":
    app.run()
