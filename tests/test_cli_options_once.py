"""An option a command takes once, given twice, is a usage error on every zx command (QA round 35): click kept
the last value, and ``zx stats winrates --player A --player B`` answered for B alone, ``zx matches --deck X
--deck Y`` for Y. Options meant to repeat (``--catalog``, ``zx view --as``) and plain flags stay allowed."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from analytics_support import imported_store
from zx_cli.main import LAZY_COMMANDS, zx


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return str(imported_store(tmp_path_factory.mktemp("once")))  # (its analytics file beside it)


@pytest.mark.parametrize("args, option", [
    (["matches", "--deck", "Red Dragons", "--deck", "Blue Control"], "--deck"),
    (["matches", "--player=Aki", "--player", "Ren"], "--player"),
    (["matches", "--format", "json", "--format", "csv"], "--format"),
    (["stats", "winrates", "--player", "Aki", "--player", "Ren"], "--player"),
    (["stats", "winrates", "--colours", "red", "--colour", "blue"], "--colours"),
    (["stats", "matchups", "--min-games", "1", "--min-games", "2"], "--min-games"),
    (["replay", "m1", "--as", "P1", "--as", "P2"], "--as"),
    (["import", "--analytics", "--no-analytics", "x.zxlog"], "--analytics/--no-analytics"),
    (["audit", "--store", "a.sqlite", "--store", "b.sqlite"], "--store"),
    (["--store", "a.sqlite", "--store", "b.sqlite", "matches"], "--store"),
    (["serve", "--port", "8000", "--port", "99999"], "--port"),  # (before: refused for 99999, served on none)
    (["sql", "SELECT 1", "--format", "csv", "--format", "json"], "--format"),
])
def test_an_option_given_twice_is_a_usage_error(store, args, option):
    r = CliRunner().invoke(zx, ["--store", store, *args] if args[0] != "--store" else args)
    assert r.exit_code == 2, r.output
    assert r.output.splitlines()[-1] == f"Error: {option} is given more than once: give it once"


def test_the_filter_given_once_still_answers(store):
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--deck", "Blue Control", "--format", "json"])
    assert r.exit_code == 0 and [m["match"] for m in json.loads(r.stdout)] == ["m1", "m2", "m3"]


def test_options_meant_to_repeat_and_plain_flags_stay_allowed(store, tmp_path):
    r = CliRunner().invoke(zx, ["--store", store, "view", "m1", "--as", "P1", "--as", "P2", "-o", str(tmp_path / "v.html")])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(zx, ["--store", store, "matches", "--violations", "--violations"])
    assert r.exit_code == 0, r.output


def commands(group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from commands(command, ctx, (*path, name))


def test_every_command_refuses_each_option_it_takes_once_given_twice():
    """Every command, the lazy ones as loaded, and every option of each: the parser the command makes refuses
    the second occurrence of one it takes once, and takes one meant to repeat as often as given."""
    from zx_cli.options import given_once, option_name

    ctx = click.Context(zx, info_name="zx")
    seen = 0
    for path, command in [(("zx",), zx), *commands(zx, ctx)]:
        sub = click.Context(command, info_name=path[-1], parent=ctx)
        for param in command.get_params(sub):
            if not isinstance(param, click.Option) or param.is_eager and param.name in ("help", "version"):
                continue
            name = param.opts[0]
            given = [name] if param.is_flag or param.count else [name, "1"]
            parser = command.make_parser(sub)
            if given_once(param):
                with pytest.raises(click.UsageError, match=f"^{option_name(param)} is given more than once"):
                    parser.parse_args(given + given)
                seen += 1
            else:
                parser.parse_args(given + given)
    assert seen > 60 and set(LAZY_COMMANDS) <= set(zx.commands)
