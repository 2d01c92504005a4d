"""quantity-guard-mcp's command line as argparse reads it: the help is made from the parser's
options, the errors are the command's own words, the options that make it an HTTP proxy are
a table, and a subcommand is a row of another table."""
from __future__ import annotations

import argparse
import json

import pytest

from quantity_guard.mcp import cli
from quantity_guard.mcp.cli_options import (HTTP_MODE, SUBCOMMANDS, Subcommand, UsageError,
                                            build_parser, help_text, parse_args,
                                            parse_command_line)

COLUMN = 25  # where --help begins each option's text


def options_of_the_parser():
    _parser, proxy, http = build_parser()
    return proxy + http


@pytest.mark.parametrize("action", options_of_the_parser(), ids=lambda a: a.option_strings[-1])
def test_help_lists_every_option_with_its_metavar_and_its_text_at_one_column(action):
    lines = help_text().splitlines()
    head = "  " + ", ".join(action.option_strings)
    if action.nargs != 0:
        head += f" {action.metavar}"
    at = next(i for i, line in enumerate(lines) if line.startswith(head + " ") or line == head)
    text = action.help.splitlines()
    first = lines[at] if len(head) < COLUMN else lines[at + 1]
    assert first[COLUMN:] == text[0] and first[:COLUMN].rstrip() in ("", head)
    for n, line in enumerate(text[1:], 1):
        assert lines[at + n + (len(head) >= COLUMN)] == " " * COLUMN + line


def test_an_option_added_to_the_parser_appears_in_the_help(monkeypatch):
    from quantity_guard.mcp import cli_options

    def with_one_more(p):
        return [*proxy_options(p), p.add_argument("--extra-thing", action=cli_options.Value,
                                                  metavar="N", help="an option added\nin two lines")]

    proxy_options = cli_options.proxy_options
    monkeypatch.setattr(cli_options, "proxy_options", with_one_more)
    text = help_text()
    assert "  --extra-thing N        an option added\n" + " " * COLUMN + "in two lines\n" in text
    assert text.index("--extra-thing") < text.index("exit status:")
    assert parse_args(["--extra-thing", "7", "srv"]).extra_thing == "7"


def test_a_subcommand_row_is_in_the_usage_and_runs_its_module(monkeypatch, tmp_path, capsys):
    (tmp_path / "probe_command.py").write_text(
        "def main(argv):\n    print('probe got', argv)\n    return 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(SUBCOMMANDS, "probe", Subcommand("[--say WORD]", "probe_command"))
    assert "\n       quantity-guard-mcp probe [--say WORD]\n" in help_text()
    assert cli.main(["probe", "--say", "hi", "--annotations"]) == 7
    assert capsys.readouterr().out == "probe got ['--say', 'hi', '--annotations']\n"


def test_annotate_runs_as_a_subcommand(tmp_path, capsys):
    listing = tmp_path / "tools.json"
    listing.write_text(json.dumps({"tools": [{"name": "runoff", "inputSchema": {
        "type": "object", "properties": {"flow_cfs": {"type": "number"}}}}]}))
    assert cli.main(["annotate", "--tools-json", str(listing)]) == cli.EXIT_OK
    out = capsys.readouterr()
    assert "[tools.runoff.params]" in out.out and 'flow_cfs = { unit = "cfs" }' in out.out


def test_a_subcommand_name_after_the_options_is_the_server_command():
    assert parse_args(["--annotations", "a.toml", "annotate", "-x"]).command == ["annotate", "-x"]


@pytest.mark.parametrize("argv, message", [
    (["--check=1", "srv"], "unknown option '--check=1'"),
    (["--allow-remote=yes", "srv"], "unknown option '--allow-remote=yes'"),
    (["-h=1"], "unknown option '-h=1'"),
    (["--help=1"], "unknown option '--help=1'"),
    (["--annot", "a.toml", "srv"], "unknown option '--annot'"),  # no abbreviations
    (["--annotations", "a.toml", "--bogus", "srv"], "unknown option '--bogus'"),
    (["--log"], "--log needs a value"),
    (["--annotations", "a.toml", "--log=", "srv"], "--log needs a value"),
    (["--upstream"], "--upstream needs a value"),
    (["--max-sessions", "0", "srv"], "--max-sessions must be a positive integer, not '0'"),
    (["--store-unavailable", "maybe", "srv"], "--store-unavailable must be refuse or proceed"),
    (["--header-env", "AB", "srv"], "--header-env needs NAME=ENVVAR"),
])
def test_usage_errors_are_the_commands_own_words(argv, message, capsys):
    assert cli.main(argv) == cli.EXIT_USAGE
    err = capsys.readouterr()
    assert err.out == ""
    assert err.err.startswith(f"quantity-guard-mcp: error: {message}")
    assert err.err.endswith("\ntry 'quantity-guard-mcp --help'\n")


def test_a_repeated_option_keeps_the_last_value_and_a_list_option_keeps_each():
    opts, http = parse_command_line(["--log-level", "DEBUG", "--log-level", "ERROR",
                                     "--allow-origin", "http://a", "--allow-origin", "http://b",
                                     "--client-token-env", "ONE", "--client-token-env", "TWO",
                                     "--header-env", "A=X", "srv"])
    assert opts.log_level == "ERROR" and opts.command == ["srv"]
    assert http.allow_origins == ["http://a", "http://b"]
    assert http.client_token_envs == ["ONE", "TWO"] and http.client_token_env == "TWO"
    assert http.header_env == [("A", "X")]


def test_options_take_their_values_in_either_form_and_are_converted():
    spaced = parse_command_line(["--max-message-size", "2MiB", "--session-idle", "1.5",
                                 "--upstream-timeout", "0", "--max-sessions", "3", "srv"])
    joined = parse_command_line(["--max-message-size=2MiB", "--session-idle=1.5",
                                 "--upstream-timeout=0", "--max-sessions=3", "srv"])
    for opts, http in (spaced, joined):
        assert opts.max_message_size == 2 << 20
        assert (http.session_idle, http.upstream_timeout, http.max_sessions) == (1.5, None, 3)


def test_a_negative_number_is_a_value_and_is_refused_as_one():
    with pytest.raises(UsageError, match=r"--drain-timeout must be a number of seconds .* not '-1'"):
        parse_args(["--drain-timeout", "-1", "srv"])


@pytest.mark.parametrize("flag", sorted(HTTP_MODE))
def test_an_http_mode_option_alone_is_checked_against_listen_or_upstream(flag, capsys):
    _parser, _proxy, http = build_parser()
    action = next(a for a in http if flag in a.option_strings)
    value = [] if action.nargs == 0 else [{"--store-unavailable": "proceed",
                                           "--header-env": "X-A=QG_UNSET"}.get(flag, "5")]
    argv = [flag, *value, "srv"]
    assert parse_command_line(argv)[1].active
    assert cli.main(argv) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "error: " + flag in err and any(f in err for f in ("--listen", "--upstream", "--store"))


@pytest.mark.parametrize("argv", [["--upstream-timeout", "5", "srv"], ["--drain-timeout", "5", "srv"],
                                  ["--annotations", "a.toml", "srv"]])
def test_other_options_leave_a_stdio_proxy(argv):
    assert not parse_command_line(argv)[1].active


@pytest.mark.parametrize("argv", [["--upstream", "http://x/mcp"], ["--listen", "8000", "srv"],
                                  ["--session-header", "X-C", "srv"]])
def test_upstream_listen_and_session_header_make_an_http_proxy(argv):
    assert parse_command_line(argv)[1].active


def test_the_parser_is_argparse_with_no_abbreviations_and_no_builtin_help():
    parser, _proxy, _http = build_parser()
    assert isinstance(parser, argparse.ArgumentParser)
    assert not parser.allow_abbrev and not parser.add_help
