"""A member name written twice at the top of a client's message or in its params is found
(shape.duplicate_member), however the names are written: as themselves or with escapes, and
whether or not the same name occurs deeper in the message, where it is no duplicate."""
from __future__ import annotations

import json

from quantity_guard.mcp.shape import duplicate_member


def _first_twice(pairs_of_top) -> str | None:
    """What a reader keeping every member sees: the first name written twice, at the top, then
    in ``params``."""
    names = [k for k, _ in pairs_of_top]
    for i, k in enumerate(names):
        if k in names[:i]:
            return k
    params = [v for k, v in pairs_of_top if k == "params"]
    if params and isinstance(params[-1], list):
        inner = [k for k, _ in params[-1]]
        for i, k in enumerate(inner):
            if k in inner[:i]:
                return "params." + k
    return None


def test_a_name_written_twice_is_found_as_a_reader_of_every_member_finds_it():
    from hypothesis import example, given, settings
    from hypothesis import strategies as st

    names = st.sampled_from(["id", "method", "params", "name", "arguments", "a", "é", "x\ty"])
    leaves = st.one_of(st.integers(), st.text(max_size=6), st.none())
    members = st.lists(st.tuples(names, leaves), max_size=4)

    @settings(max_examples=400, deadline=None)
    @given(members, members, members, st.booleans())
    @example([("id", 1)], [("name", "a"), ("name", "b")], [], False)
    @example([("id", 1), ("id", 2)], [], [], False)
    @example([("id", 1)], [("a", 1)], [("a", 2)], False)  # "a" again, deeper: no duplicate
    @example([("id", 1)], [("a", 1)], [], True)
    def check(top, params, deeper, escaped):
        def obj(pairs):
            return "{" + ",".join(json.dumps(k, ensure_ascii=escaped) + ":" + v
                                  for k, v in pairs) + "}"
        inner = [(k, json.dumps(v)) for k, v in params] + [("arguments", obj(
            [(k, json.dumps(v)) for k, v in deeper]))]
        text = obj([(k, json.dumps(v)) for k, v in top] + [("params", obj(inner))])
        parsed = json.loads(text)
        pairs = json.loads(text, object_pairs_hook=list)
        assert duplicate_member(text, parsed) == _first_twice(pairs)

    check()
