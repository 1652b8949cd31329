"""The fast accept in front of each record kind's fastjsonschema validator (games.schema): whatever
it takes, fastjsonschema takes; whatever it does not take goes to fastjsonschema, whose answer stands."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import fastjsonschema
import pytest

from zx_events import games
from zx_events.games.schema import _with_fast_accept

ROOT = Path(__file__).resolve().parent.parent
ODD = [0, 1, -1, 2.0, 2.5, True, False, None, "", "P1", "a1", "R01-001", "x\n", "b3", [], ["R01-001"], [""], [1],
       {}, {"square": "a1"}, {"R01-001": 1}, {"": 1}, "draw", 10**30]


def _records(game: str) -> list[dict]:
    suffix = games.get(game).log_suffix
    out = []
    for path in sorted(ROOT.glob(f"examples/**/*{suffix}")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
    return out


def _variants(rec: dict):
    yield rec
    for key in list(rec):
        less = dict(rec)
        del less[key]
        yield less
        for odd in ODD:
            yield {**rec, key: odd}
        value = rec[key]
        if isinstance(value, list) and value:
            for odd in ODD:
                yield {**rec, key: [odd, *value[1:]]}
        if isinstance(value, dict) and value:
            first = next(iter(value))
            for odd in ODD:
                yield {**rec, key: {**value, first: odd}}
            yield {**rec, key: {**value, "unknown": 1}}
    yield {**rec, "unknown": 1}


@pytest.mark.parametrize("game", ["zx", "x610z"])
def test_what_the_fast_accept_takes_fastjsonschema_takes(game):
    fmt = games.get(game).log_format
    taken = checked = 0
    seen: dict[tuple, int] = {}
    for rec in _records(game):
        name = fmt.def_name(rec)
        shape = (name, tuple(sorted(rec)))
        if name is None or seen.get(shape, 0) >= 3:  # a few records of each kind and set of keys
            continue
        seen[shape] = seen.get(shape, 0) + 1
        schema = fmt._inline(fmt.defs[name])
        slow = fastjsonschema.compile({"$schema": fmt.schema["$schema"], **schema})
        asked = []

        def spy(d, asked=asked, slow=slow):
            asked.append(1)
            return slow(d)

        fast = _with_fast_accept(schema, spy, name)
        for variant in _variants(rec):
            variant = copy.deepcopy(variant)
            asked.clear()
            try:
                fast(variant)
            except fastjsonschema.JsonSchemaException:
                assert asked, (name, variant)  # only fastjsonschema refuses
                continue
            checked += 1
            if not asked:
                taken += 1
                slow(copy.deepcopy(variant))  # raises if the fast accept took a record it should not
    assert taken > 100 and checked > taken / 2


def test_a_record_kind_with_a_keyword_the_fast_accept_does_not_know_is_fastjsonschema_alone():
    schema = {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}

    def slow(d):
        return d

    assert _with_fast_accept(schema, slow, "x") is slow
