"""bench providers: request and response shapes of both APIs against recorded example payloads
(tests/data/bench), retries and backoff, and provider failures recorded as excluded runs.
No network: a fake transport stands in for urllib."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.harness import suites
from bench.harness.episode import SYSTEM_PROMPT, RunSpec, run_one
from bench.harness.providers import (FatalProviderError, HTTPClient, Pricing, ProviderError,
                                     resolve)
from bench.harness.providers import anthropic as anth
from bench.harness.providers import openai_compat as oai

DATA = Path(__file__).parent / "data" / "bench"


def load(name):
    return json.loads((DATA / name).read_text())


class Transport:
    """Replays (status, headers, body) answers and records every request."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []

    def __call__(self, url, headers, body, timeout):
        self.requests.append({"url": url, "headers": headers, "body": json.loads(body)})
        if not self.answers:
            raise AssertionError("more requests than recorded answers")
        status, hdrs, payload = self.answers.pop(0)
        if isinstance(payload, Exception):
            raise payload
        return status, hdrs, json.dumps(payload).encode()


def ok(payload):
    return 200, {"Content-Type": "application/json"}, payload


def client(transport, sleeps=None, attempts=6):
    return HTTPClient(transport=transport, sleep=(sleeps.append if sleeps is not None
                                                  else lambda s: None),
                      max_attempts=attempts)


def spec(suite, task, condition, model):
    s = suites.load(suite)
    return RunSpec(s, s.task(task), condition, model, 0)


def replayed_run(recording, environ, task, condition, answers=slice(None)):
    """A run of the core suite's ``task`` under ``condition`` by the model of ``recording``, its
    provider answered by the recorded responses (``answers`` of them): (the transport, the run's
    record)."""
    rec = load(recording)
    transport = Transport([ok(r) for r in rec["responses"][answers]])
    provider = resolve(rec["model"], environ=environ, http=client(transport))
    return transport, run_one(spec("core", task, condition, rec["model"]), provider)


# -- OpenAI-compatible ---------------------------------------------------------------------
def test_openai_compatible_run_against_recorded_responses():
    transport, record = replayed_run("openai_runoff_baseline.json",
                                     {"OPENROUTER_API_KEY": "sk-or-test"}, "runoff", "baseline")

    first, second, third = (r["body"] for r in transport.requests)
    req = transport.requests[0]
    assert req["url"] == "https://openrouter.ai/api/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-or-test"
    assert req["headers"]["Content-Type"] == "application/json"
    assert first["model"] == "meta-llama/llama-3.3-70b-instruct"
    assert first["tool_choice"] == "auto"
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert first["messages"][0]["content"] == SYSTEM_PROMPT
    tools = {t["function"]["name"]: t for t in first["tools"]}
    assert all(t["type"] == "function" for t in first["tools"])
    # the baseline schema: a plain number, the unit only in the suite's prose
    assert tools["runoff_depth"]["function"]["parameters"]["properties"]["discharge"] == {
        "type": "number", "description": "Discharge in m3/s."}
    # the assistant turn goes back with its tool calls (arguments as a JSON string), then one
    # role=tool message per call, in order
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool",
                                                       "tool"]
    assistant = second["messages"][2]
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["read_discharge",
                                                                       "get_drainage_area"]
    assert isinstance(assistant["tool_calls"][0]["function"]["arguments"], str)
    assert second["messages"][3] == {"role": "tool", "tool_call_id": "call_Xq2mL8vB0r1tYc5dPz7s",
                                     "content": "1250.0"}
    assert third["messages"][-1]["content"] == "3.607214428857716"

    assert record["status"] == "ok" and record["outcome"] == "silent_error"
    assert record["hazards"][0]["fired"] and record["hazards"][0]["reached"]
    assert record["usage"] == {"input_tokens": 548 + 641 + 702, "output_tokens": 46 + 29 + 51,
                               "cost_usd": pytest.approx(0.0000720 + 0.0000791 + 0.0000903),
                               "requests": 3, "retries": 0}
    assert record["served_model"] == "meta-llama/llama-3.3-70b-instruct"
    assert record["scripted"] is False
    assert record["audit"] is not None


def test_openai_compatible_schema_only_sends_the_library_schema():
    rec = load("openai_runoff_baseline.json")
    transport = Transport([ok(rec["responses"][-1])])
    provider = resolve("llama3.3", base_url="http://localhost:11434/v1/", environ={},
                       http=client(transport))
    run_one(spec("core", "runoff", "schema_only", "llama3.3"), provider)
    req = transport.requests[0]
    assert req["url"] == "http://localhost:11434/v1/chat/completions"
    assert "Authorization" not in req["headers"]  # a local server needs no key
    discharge = {t["function"]["name"]: t for t in req["body"]["tools"]}["runoff_depth"][
        "function"]["parameters"]["properties"]["discharge"]
    assert "anyOf" in discharge and "cubic metres per second" in discharge["description"]
    assert "x-unit" not in json.dumps(req["body"])  # the adapter strips x-* for providers


def test_openai_parse_keeps_unparseable_arguments_raw():
    turn = oai.parse_response({"choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "runoff_depth", "arguments": "{discharge: 1250"}}]}}]})
    assert turn.tool_calls == [{"id": "c1", "name": "runoff_depth",
                                "arguments": "{discharge: 1250"}]
    assert turn.usage.cost_usd is None


def test_openai_price_flags_give_a_cost_when_the_provider_reports_none():
    payload = {"choices": [{"finish_reason": "stop", "message": {"role": "assistant",
                                                                 "content": "FINAL ANSWER: 1"}}],
               "usage": {"prompt_tokens": 1000, "completion_tokens": 100}}
    provider = oai.OpenAICompatible("m", base_url="http://x/v1", http=client(Transport([ok(payload)])),
                                    pricing=Pricing(3.0, 15.0))
    turn = provider.complete("s", [{"role": "user", "content": "q"}], [])
    assert turn.usage.cost_usd == pytest.approx((1000 * 3 + 100 * 15) / 1e6)


# -- Anthropic Messages ---------------------------------------------------------------------
def test_anthropic_run_against_recorded_responses():
    transport, record = replayed_run("anthropic_freeboard_guarded_repair.json",
                                     {"ANTHROPIC_API_KEY": "sk-ant-test"}, "freeboard", "guarded_repair")

    req = transport.requests[0]
    assert req["url"] == "https://api.anthropic.com/v1/messages"
    assert req["headers"]["x-api-key"] == "sk-ant-test"
    assert req["headers"]["anthropic-version"] == "2023-06-01"
    body = req["body"]
    assert body["model"] == "claude-haiku-4-5" and body["max_tokens"] == 2048
    assert body["system"] == SYSTEM_PROMPT
    assert body["messages"] == [{"role": "user",
                                 "content": suites.load("core").task("freeboard").question}]
    assert {t["name"] for t in body["tools"]} == {"get_levee_crest", "get_stage_forecast",
                                                  "get_datum_offset", "compute_freeboard"}
    assert all(set(t) == {"name", "description", "input_schema"} for t in body["tools"])

    second = transport.requests[1]["body"]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert second[1]["content"][0] == {"type": "text", "text": "I'll get the levee crest and "
                                                               "the forecast crest water surface."}
    assert second[1]["content"][1]["type"] == "tool_use"
    results = second[2]["content"]  # both results of the turn in one user message
    assert [r["tool_use_id"] for r in results] == ["toolu_01A9fK3mZp7Wq2Lc8VxN5rTb",
                                                   "toolu_01Hd4Rb6Ys1Vm9Ke3Qw7Xc2N"]
    assert json.loads(results[0]["content"][0]["text"]) == {"value": 32.0, "unit": "ft",
                                                            "datum": "NGVD29"}
    # the refusal goes back as an error result carrying the repair text
    refused = transport.requests[2]["body"]["messages"][-1]["content"][0]
    assert refused["is_error"] is True
    assert "no datum conversion was applied" in refused["content"][0]["text"]

    assert record["outcome"] == "correct" and record["success"]
    datum = record["hazards"][0]
    assert datum["fired"] and not datum["reached"]  # sent on the wrong datum, refused
    assert [v["code"] for v in record["violations"]] == ["unconverted_carry_over"]
    assert record["usage"]["input_tokens"] == 1534 + 1729 + 1941 + 2083 + 2201
    assert record["usage"]["cost_usd"] is None  # Anthropic reports tokens, not cost


def test_anthropic_guarded_run_ends_on_the_violation():
    transport, record = replayed_run("anthropic_freeboard_guarded_repair.json", {"ANTHROPIC_API_KEY": "k"},
                                     "freeboard", "guarded", answers=slice(2))
    assert record["outcome"] == "blocked" and record["end_reason"] == "blocked"
    assert len(transport.requests) == 2  # no third request: the violation ended the run
    assert record["transcript"]["calls"][-1]["ended_run"] is True


def test_anthropic_render_of_an_unparseable_openai_argument_string():
    msgs = anth.render_messages([{"role": "user", "content": "q"},
                                 {"role": "assistant", "content": "",
                                  "tool_calls": [{"id": "t", "name": "x", "arguments": "{bad"}]}])
    assert msgs[1]["content"] == [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]


# -- retries and failures -----------------------------------------------------------------
def test_429_honours_retry_after_then_succeeds():
    errors = load("errors.json")
    rec = load("anthropic_freeboard_guarded_repair.json")
    e = errors["anthropic_429"]
    sleeps: list = []
    transport = Transport([(e["status"], e["headers"], e["body"]), ok(rec["responses"][-1])])
    provider = anth.AnthropicMessages("m", api_key="k", http=client(transport, sleeps))
    turn = provider.complete("s", [{"role": "user", "content": "q"}], [])
    assert turn.text.endswith("FINAL ANSWER: 4.06 ft")
    assert sleeps and sleeps[0] >= 7.0
    assert turn.usage.retries == 1


def test_5xx_exhaustion_is_an_excluded_run_with_its_reason():
    e = load("errors.json")["anthropic_529"]
    sleeps: list = []
    transport = Transport([(e["status"], e["headers"], e["body"])] * 4)
    provider = resolve("anthropic/claude-opus-5", environ={"ANTHROPIC_API_KEY": "k"},
                       http=client(transport, sleeps, attempts=4))
    record = run_one(spec("core", "runoff", "baseline", "anthropic/claude-opus-5"), provider)
    assert record["status"] == "excluded" and "outcome" not in record
    assert "529" in record["excluded_reason"] and "overloaded_error" in record["excluded_reason"]
    assert "gave up after 4 attempts" in record["excluded_reason"]
    assert len(sleeps) == 3 and sleeps[0] < sleeps[1] < sleeps[2]  # exponential backoff


def test_402_is_excluded_at_once_without_retrying():
    e = load("errors.json")["openrouter_402"]
    transport = Transport([(e["status"], e["headers"], e["body"])])
    provider = resolve("moonshotai/kimi-k2", environ={"OPENROUTER_API_KEY": "k"},
                       http=client(transport))
    record = run_one(spec("core", "runoff", "baseline", "moonshotai/kimi-k2"), provider)
    assert record["status"] == "excluded"
    assert record["excluded_reason"].startswith("http 402: Insufficient credits")
    assert record["http_status"] == 402 and len(transport.requests) == 1


def test_400_is_excluded_with_the_provider_message():
    e = load("errors.json")["anthropic_400"]
    provider = anth.AnthropicMessages("m", api_key="k", http=client(
        Transport([(e["status"], e["headers"], e["body"])])))
    with pytest.raises(ProviderError, match="invalid_request_error: tools.2"):
        provider.complete("s", [{"role": "user", "content": "q"}], [])


def test_an_upstream_error_inside_a_200_is_retried():
    errors = load("errors.json")
    e = errors["openrouter_200_with_upstream_error"]
    final = load("openai_runoff_baseline.json")["responses"][-1]
    transport = Transport([(e["status"], e["headers"], e["body"]), ok(final)])
    provider = oai.OpenAICompatible("m", http=client(transport), api_key="k")
    turn = provider.complete("s", [{"role": "user", "content": "q"}], [])
    assert "FINAL ANSWER" in turn.text and len(transport.requests) == 2


def test_network_errors_are_retried():
    final = load("openai_runoff_baseline.json")["responses"][-1]
    transport = Transport([(None, {}, ConnectionResetError("reset by peer")), ok(final)])
    provider = oai.OpenAICompatible("m", http=client(transport), api_key="k")
    assert "FINAL ANSWER" in provider.complete("s", [{"role": "user", "content": "q"}], []).text


def test_401_is_fatal_not_excluded():
    e = load("errors.json")["openai_401"]
    provider = oai.OpenAICompatible("gpt-x", base_url="https://api.openai.com/v1", api_key="bad",
                                    http=client(Transport([(e["status"], e["headers"],
                                                            e["body"])])))
    with pytest.raises(FatalProviderError, match="Incorrect API key"):
        run_one(spec("core", "runoff", "baseline", "gpt-x"), provider)


def test_missing_keys_are_fatal_before_any_request():
    with pytest.raises(FatalProviderError, match="ANTHROPIC_API_KEY"):
        resolve("anthropic/claude-opus-5", environ={})
    with pytest.raises(FatalProviderError, match="OPENROUTER_API_KEY"):
        resolve("qwen/qwen3-235b-a22b", environ={})
    p = resolve("anthropic/claude-opus-5", base_url="https://openrouter.ai/api/v1",
                api_key_env="MY_KEY", environ={"MY_KEY": "k"})
    assert isinstance(p, oai.OpenAICompatible) and p.model == "anthropic/claude-opus-5"


def test_unknown_scripted_persona():
    with pytest.raises(ValueError, match="scripted:naive"):
        resolve("scripted:genius")
