"""The integrations cost nothing until used: ``import quantity_guard`` (and importing an integration
module) imports no framework, and a missing framework is named with the package to install."""
from __future__ import annotations

import subprocess
import sys

import pytest

FRAMEWORKS = {  # integration module -> (framework module, package to install)
    "openai_agents": ("agents", "openai-agents"),
    "langchain": ("langchain_core", "langchain-core"),
    "pydantic_ai": ("pydantic_ai", "pydantic-ai-slim"),
    "fastmcp": ("fastmcp", "fastmcp"),
    "google_adk": ("google.adk", "google-adk"),
    "llama_index": ("llama_index", "llama-index-core"),
    "smolagents": ("smolagents", "smolagents"),
}


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("imports, heavy", [
    pytest.param("from quantity_guard.integrations import openai_agents, langchain, pydantic_ai, "
                 "fastmcp, google_adk\n",
                 ('agents', 'langchain_core', 'langgraph', 'pydantic_ai', 'fastmcp', 'pydantic', 'mcp',
                  'openai', 'google'),
                 id="openai_agents-langchain-pydantic_ai-fastmcp-google_adk"),
    pytest.param("from quantity_guard.integrations import llama_index, smolagents\n"
                 "from quantity_guard.integrations.smolagents import ToolRefused, LabelledValue\n",
                 ('llama_index', 'smolagents', 'pydantic', 'huggingface_hub', 'nltk', 'numpy', 'rich',
                  'PIL'),
                 id="llama_index-smolagents"),
])
def test_importing_the_package_and_the_integration_modules_imports_no_framework(imports, heavy):
    code = ("import sys, quantity_guard\n" + imports + f"heavy = {heavy!r}\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))")
    out = run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("integration", sorted(FRAMEWORKS))
def test_a_missing_framework_is_named_with_the_package_to_install(integration):
    module, package = FRAMEWORKS[integration]
    code = (f"import sys; sys.modules[{module!r}] = None  # as if not installed\n"
            "from quantity_guard import quantity_tool\n"
            f"from quantity_guard.integrations import {integration}, MissingFramework\n"
            "@quantity_tool(params={'d': {'unit': 'm**3/s'}})\n"
            "def t(d):\n    return d\n"
            "try:\n"
            f"    {integration}.wrap(t)\n"
            "except MissingFramework as err:\n"
            "    print(type(err).__mro__[1].__name__, err)\n")
    out = run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"ImportError quantity_guard.integrations.{integration} needs "
                                 f"{package}, which is not installed")
    assert out.stdout.rstrip().endswith(f"install it with: pip install {package}")


def test_wrap_refuses_what_is_not_a_guarded_tool():
    from quantity_guard.integrations import guarded_tools
    with pytest.raises(TypeError, match="wrap\\(\\) takes a @quantity_tool, a toolbox"):
        guarded_tools(lambda: 1)
    with pytest.raises(TypeError, match="is not a @quantity_tool"):
        guarded_tools([lambda: 1])


def test_the_litellm_guardrail_module_imports_no_litellm_and_names_what_to_install():
    code = ("import sys\n"
            "from quantity_guard.integrations import litellm as guard\n"
            "heavy = ('litellm', 'fastapi', 'mcp', 'pydantic', 'openai')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
            "sys.modules['litellm'] = None  # as if not installed\n"
            "from quantity_guard.integrations import MissingFramework\n"
            "try:\n"
            "    guard.QuantityGuardrail\n"
            "except MissingFramework as err:\n"
            "    print(err)\n")
    out = run(code)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.strip().splitlines()
    assert first == "[]"
    assert second.startswith("quantity_guard.integrations.litellm needs litellm, which is not "
                             "installed")
    assert second.endswith("install it with: pip install litellm")
