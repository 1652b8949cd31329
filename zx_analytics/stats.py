"""Metagame statistics as Polars DataFrames, for the CLI, the HTTP API and notebooks.

    from zx_analytics.stats import Stats
    st = Stats("zx-store.duckdb")                 # a read-only connection
    st.winrates(by="deck", since="2026-11-01")    # polars.DataFrame
    st.winrates(by="archetype"); st.matchups(by="archetype", event="Tokyo Regional 2026")
    st.cards(deck="Red Dragons", seat="first")    # 17lands metrics: OH, GD, GIH, GNS, played, IWD
    st.mulligans(); st.archetypes(); st.meta(by="week", group="archetype")
    st.attacks(by="square"); st.life(); st.life(by="turn")
    st.sql("SELECT deck, count(*) FROM seats GROUP BY ALL")

Every method is a plain function of its filters returning a frame (no state kept between calls).

Definitions (also in docs/data-dictionary.md):
- Every rate ``r`` comes with its denominator (the count it is a share of), ``r_low`` and ``r_high``:
  the Wilson 95% interval. ``low_sample`` is true when any denominator in the row is below
  ``min_games`` (default 30): such rows are flagged, never hidden.
- Filters select the perspective side: ``since``/``until`` (the match date as written, inclusive),
  ``event``, ``deck``, ``player``, ``opp_deck``, ``seat`` (``first``/``second``), ``colours`` (the
  side's colour identity), ``archetype``, ``opp_archetype`` and ``game`` (exact values). A match
  without a date is left out when a date filter is given. A name that is not in the file at all is
  an ``UnknownName`` error that suggests the closest known names.
- Games are never mixed: with a ``game`` filter a method reads that game's matches; without one,
  on a file holding several games, it runs once per game and the frame gains a leading ``game``
  column (one game: the frame as it always was). A method that reads one game's own table
  (``attacks``, ``life`` by turn: Z/X's tables) reads only the games that fill it, and a ``game``
  filter naming another game is a ``NotThisGame`` error pointing at that game's own tables.
- A win rate counts finished matches only (a winner or a draw); a draw is a game without a win.
  Mirror pairings (same deck, archetype or colours) are left out of win rates by that key and of
  matchups, where they are 50% by construction. A mirror is the same known value on both sides: a
  deck without a name (its rows labelled ``NO_NAME``), or an unknown archetype or colour identity,
  is never one.
"""

from __future__ import annotations

import difflib
import functools
import math
import operator
import os
import re
import threading
import time
import unicodedata
from dataclasses import asdict, dataclass, fields
from datetime import date, datetime
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, TypeVar, cast

import duckdb
import orjson
import polars as pl

from zx_events.errors import ArgumentTypeError, Error, for_python

from .db import AnalyticsError, DamagedFile, QueryRefused, QueryTimeout, connect_reader, damaged, refusal, sql
from .derived import Derived
from .wilson import BY_ROW, with_rate

MIN_GAMES = 30
SQL_TIMEOUT = 60.0  # seconds: Stats.sql and zx sql --timeout
MAX_SQL_TIMEOUT = 86_400  # a day: the largest limit taken (None: no limit)
# User SQL DuckDB would read and plan for longer than any time limit, its memory past memory_limit, before
# the limit's interrupt() could stop it: refused before it runs (QueryRefused: too_long, too_costly). The characters
# of a query: the longest argument a Linux command line takes (128 KiB), zx sql's bound (1,000,000 values in
# an IN list, 7.9 MB, took 10 s and 2.6 GB past a 1 s limit); the UNION, INTERSECT and EXCEPT of one query
# (a plan and pipeline each: 14,000, a 266 KB query, took 15 s and 5 GB; 1,000 plan in a tenth of a second);
# and a CTE marked NOT MATERIALIZED, copied into each place that reads it as the query is planned (22 such
# CTEs, each read twice by the next, 1.2 KB, took 72 s and 8.7 GB past a 1 s limit)
MAX_SQL_LENGTH = 131_072
MAX_SQL_SET_OPERATIONS = 1_000
# and the tables one part of a query joins (a SELECT with its subqueries; each part of a UNION, INTERSECT or
# EXCEPT on its own): DuckDB orders them as it plans, in time that grows steeply with their number (seats joined
# to itself 160 times on equal match_no took 30 s to over 3 minutes past a 3 s limit; here 32 plan in 0.15 s at
# most, 64 in up to 1.1 s, 80 in 0.6 s as a chain)
MAX_SQL_TABLES = 32
_RELATIONS = {"BASE_TABLE", "TABLE_FUNCTION"}  # a table, a view, a CTE read; range(), unnest(), a read_* function
_SET_OPERATIONS = {"UNION", "INTERSECT", "EXCEPT"}
_WORD = re.compile(rb"\w*")
SEATS = ("first", "second")
# allow-lists: option value -> (SQL expression, output column)
WINRATE_KEYS = {"deck": ("deck", "deck"), "archetype": ("archetype", "archetype"), "colour": ("colours", "colours"),
                "player": ("nfc_normalize(name)", "player"), "first": ("seat", "seat")}  # (a name's forms: one row)
# the keys whose mirror pairings are left out of win rates (50% by construction); two players of one name
# (two people, or names anonymised alike) are no mirror, and two seats never are
WINRATE_MIRRORS = {"deck", "archetype", "colour"}
MATCHUP_KEYS = {"deck": "deck", "archetype": "archetype", "colour": "colours"}
# The label of a deck without a name (a header's deck_name is optional) in every statistic keyed or
# listing by deck (winrates, matchups, meta, archetypes' deck names). Such sides are one group, not one
# deck: two of them are no mirror (nor are two sides of an unknown archetype or colour identity, NULL,
# shown blank). NO_KEY: a key column -> the SQL literal of its NULL.
NO_NAME = "(no name)"
NO_KEY = {"deck": f"'{NO_NAME}'"}
# period -> (SQL expression, the label of a side without one: an event may be called "unknown", a week not)
META_PERIODS = {"week": ("strftime(played_on, '%G-W%V')", "unknown"), "month": ("month", "unknown"),
                "event": ("event", "(no event)")}
META_GROUPS = {"deck": "deck", "archetype": "archetype", "colour": "colours"}
ATTACK_KEYS = {"card": ("a.attacker_card", "card", "a.first_of_card"),
               "square": ("a.attacker_square", "square", "a.first_of_square"),
               "target": ("CASE WHEN a.target_kind = 'player' THEN 'player' ELSE a.target_card END", "target",
                          "a.first_of_target")}
# the same keys in the derived attack_seats (zx_analytics.derived), which holds each key as a column
DERIVED_ATTACK_KEYS = {"card": "a.card", "square": "a.square", "target": "a.target"}
# statement -> the same statement over the derived tables, when a Stats has them (zx_analytics.derived)
DERIVED_SQL = {"cards": "cards_derived", "attacks": "attacks_derived", "life_by_turn": "life_by_turn_derived"}
# statement -> the end it shares with its derived twin (its ``{end}``: SQL text of ours, no braces in it)
SHARED_END = {"cards": "cards_totals", "cards_derived": "cards_totals",
              "life_by_turn": "life_by_turn_games", "life_by_turn_derived": "life_by_turn_games"}
LIFE_KEYS = ("seat", "turn")
# 17lands' card metrics: (prefix, meaning)
CARD_METRICS = (("gih", "in hand: the opening hand kept, or drawn later"), ("oh", "in the opening hand kept"),
                ("gd", "drawn later, not in the opening hand"), ("gns", "in the deck, never in hand"),
                ("played", "played"), ("deck", "in the deck list"))
# filter -> its condition on a seats row. A statement gets the conditions of the filters given only
# (``Filters.where``): the conditions of the ``filtered_seats`` macro with every filter bound, NULL
# ones included, are not folded away and cost a comparison each per row and a tenth of a cold query
# a name matches as Unicode text, whichever normal form its log wrote it in: "José" typed (NFC) is the "José"
# of a log written as e + combining acute (NFD), which "no player named 'José'; did you mean 'José'?" refused
# (the value given is NFC already: Filters)
FILTER_SQL = {"since": "played_on >= CAST($since AS DATE)", "until": "played_on <= CAST($until AS DATE)",
              "event": "nfc_normalize(event) = $event", "deck": "nfc_normalize(deck) = $deck",
              "player": "nfc_normalize(name) = $player", "opp_deck": "nfc_normalize(opp_deck) = $opp_deck",
              "opponent": "nfc_normalize(opp_name) = $opponent",
              "seat": "seat = $seat", "colours": "nfc_normalize(colours) = $colours",
              "archetype": "nfc_normalize(archetype) = $archetype",
              "opp_archetype": "nfc_normalize(opp_archetype) = $opp_archetype", "game": "game = $game"}
NAMES = ("event", "deck", "player", "opp_deck", "colours", "archetype", "opp_archetype", "game", "opponent")  # text
# the filters of a share's field (archetypes, meta): the field is every side, whatever its deck, under the date, event,
# seat and game filters, and the player's (a coach filtering on one opponent reads that player's deck share: each
# deck was a few percent of the whole field, QA round 36; the dashboard's deck share is of the player's seats too)
FIELD_FILTERS = ("since", "until", "event", "seat", "game", "player", "opponent")  # (--opponent: the sides facing)
# filter -> (the seats column its values come from, what it is called in messages)
NAMED_FILTERS = {"event": ("event", "event"), "deck": ("deck", "deck"), "opp_deck": ("deck", "deck"),
                 "player": ("name", "player"), "opponent": ("name", "player"), "colours": ("colours", "colour identity"),
                 "archetype": ("archetype", "archetype"), "opp_archetype": ("archetype", "archetype"),
                 "game": ("game", "game")}


class UnknownName(Error, ValueError):
    """A filter names something the analytics file has never seen; says the closest known names (a
    ``zx_events.errors.Error``, and a ``ValueError`` as it always was)."""

    def __init__(self, kind: str, value: str, known: list[str], where: str = "the analytics file",
                 none: str | None = None, said: str | None = None) -> None:
        """``none``: what the message says when nothing is ``known`` (else "WHERE has no matches yet": a
        ``where`` such as "the X610Z matches" asks its own words, "the store has no X610Z matches yet");
        ``said``: what it says instead of "no KIND named ..." (an installed game the file has no match of)."""
        known = sorted({unicodedata.normalize("NFC", k) for k in known})  # a name in two normal forms: once
        self.kind, self.value, self.known, self.where, self.none = kind, value, known, where, none
        # the same name in another case or width first ("タロウ" typed, "ﾀﾛｳ" known: difflib saw no character in
        # common, and the hint never named it: QA round 34)
        key = unicodedata.normalize("NFKC", value).casefold()
        close = [k for k in known if unicodedata.normalize("NFKC", k).casefold() == key][:3]
        close += [k for k in difflib.get_close_matches(value, known, n=3, cutoff=0.5) if k not in close]
        if not close:  # a part of a name ("Dragons" for "Red Dragons")
            close = [k for k in sorted(known) if value.casefold() in k.casefold()][:3]
        self.suggestions = close  # whole; the message shows each cut to NAME_SHOWN characters
        if close:
            hint = "did you mean " + " or ".join(repr(_shown(c)) for c in close) + "?"
        elif known:
            some = sorted(known)[:8]
            hint = "known: " + ", ".join(repr(_shown(k)) for k in some) + (", ..." if len(known) > len(some) else "")
        else:
            hint = none or f"{where} has no matches yet"
        if said is not None:
            hint = "it holds matches of " + ", ".join(known) if known else f"{where} has no matches yet"
        super().__init__(f"{said}; {hint}" if said is not None else f"no {kind} named {_shown(value)!r} in {where}; "
                                                                    f"{hint}")


def _no_matches_of(game: str) -> str | None:
    """"the analytics file has no match of game x610z yet" for an installed game's key (a game of the store the file has not
    projected a match of: the store holds none, or ``zx serve --follow`` has not reached them), else None (not a
    game: "no game named ...")."""
    from zx_events import games as registry

    if game not in registry.keys():  # (not an installed game: the usual words)
        return None
    return f"the analytics file has no match of game {game} yet"  # (by the keys --game takes, as the known ones)


NAME_SHOWN = 80  # characters of a name an error message shows (a log's name may be 1,000,000: one line of 180 KB)


def _shown(name: str) -> str:
    return name if len(name) <= NAME_SHOWN else name[:NAME_SHOWN - 1] + "…"


class BadArgument(Error, ValueError):
    """A statistic's argument of a value it does not take: a date that is not one, ``since`` after ``until``, a
    seat, a ``by`` or ``group`` it does not know, an empty name, a count out of its range. A
    ``zx_events.errors.Error`` (``except Error`` catches it), and a ``ValueError`` as it always was."""


class BadArgumentType(ArgumentTypeError):
    """A statistic's argument of another type than asked (``deck=5``, ``card=5``), or a filter it does not have
    (``oponent=``). A ``zx_events.errors.Error`` (``except Error`` catches it), and a ``TypeError`` as it always
    was (docs/analytics.md)."""


class NotThisGame(Error, ValueError):
    """A statistic that reads one game's own table, asked about another game (a ``zx_events.errors.Error``)."""


def table_owners(table: str) -> tuple[str, ...]:
    """The games whose rows module fills ``table`` (every game, for a shared table)."""
    from .tables import ROWS

    return tuple(key for key, rows in ROWS.items() if table in rows.COLUMNS)


def game_tables(game: str) -> tuple[str, ...]:
    """A game's own tables (besides the shared ones): what ``zx sql`` can ask about it."""
    from .tables import ROWS

    return tuple(getattr(ROWS[game], "SQL_TABLES", ())) if game in ROWS else ()


def unreadable(query: str) -> None:
    """``QueryError`` for SQL holding a character that is no text: a byte the terminal's encoding could not
    decode reaches Python as a lone surrogate, and DuckDB's parser raised a TypeError at it."""
    try:
        query.encode("utf-8")
    except UnicodeEncodeError as e:
        bad = query[e.start:e.end].encode("utf-8", "backslashreplace").decode("ascii")
        raise QueryError(f"SQL error: the query holds {bad} at character {e.start + 1}, a byte that is not text in "
                         f"this terminal's encoding (its locale): type it as a character, or as chr(N) in the SQL") \
            from None


def sql_tokens(query: str) -> list[tuple[int, Any]] | None:
    """``duckdb.tokenize(query)`` (each token's byte position and kind), or None for a query it cannot read:
    read once for ``too_costly`` and ``without_final_semicolons``."""
    try:
        return duckdb.tokenize(query)
    except (duckdb.Error, RuntimeError):
        return None


def without_final_semicolons(query: str, tokens: list[tuple[int, Any]] | None) -> str:
    """``query`` with the semicolons that end its last statement made spaces (``SELECT 1; -- the end``):
    DuckDB keeps them in the statement's text when a comment follows, and a result read through a
    projection or a limit (a date, time or interval column, ``zx sql``'s table) put that text inside
    ``SELECT ... FROM (\n...\n)``, a syntax error at the ``;``. The comments stay (a line comment ends
    before the parenthesis DuckDB closes on a line of its own). A query that does not tokenize (``tokens``
    None: ``sql_tokens``), or holds nothing but semicolons and comments, is returned as it is (DuckDB says
    what it makes of it)."""
    if tokens is None:
        return query
    data = query.encode("utf-8")  # (token positions count bytes)
    final = []
    for position, kind in reversed(tokens):
        if kind == duckdb.token_type.comment:
            continue
        if kind != duckdb.token_type.operator or data[position:position + 1] != b";":
            break
        final.append(position)
    else:
        return query
    for position in final:
        data = data[:position] + b" " + data[position + 1:]
    return data.decode("utf-8")


def too_long(query: str) -> None:
    """``QueryRefused`` for user SQL longer than ``MAX_SQL_LENGTH`` characters (before it is tokenized)."""
    if len(query) > MAX_SQL_LENGTH:
        raise QueryRefused(
            f"refused: the query is {len(query):,} characters long, more than the {MAX_SQL_LENGTH:,} user SQL may "
            f"be (what a command line takes): DuckDB reads and plans a query whole before its time limit can stop "
            f"it; give a long list of values as a parameter (Stats.sql(\"... WHERE list_contains($codes, card)\", "
            f"{{'codes': [...]}})), or ask in several queries")


def too_costly(query: str, tokens: list[tuple[int, Any]] | None) -> None:
    """``QueryRefused`` for user SQL holding more than ``MAX_SQL_SET_OPERATIONS`` UNION, INTERSECT or EXCEPT, or
    a CTE ``NOT MATERIALIZED`` (keywords: none in a string, a comment or a quoted name; ``tokens``: ``sql_tokens``,
    None for a query DuckDB cannot read, which it refuses itself): DuckDB reads and plans it before the time
    limit can stop it, with memory past its ``memory_limit``."""
    if tokens is None:
        return
    data = query.encode("utf-8")  # (token positions count bytes)
    # each token but comments: its word in capitals when a keyword, else None
    words = [_WORD.match(data, position).group().decode().upper() if kind == duckdb.token_type.keyword
             else None for position, kind in tokens if kind != duckdb.token_type.comment]
    if ["AS", "NOT", "MATERIALIZED"] in (words[i:i + 3] for i in range(len(words) - 2)):  # (a column so named: no)
        raise QueryRefused(
            "refused: the query marks a CTE NOT MATERIALIZED: DuckDB copies such a CTE into each place that "
            "reads it as it plans the query, before its time limit can stop it (22 of them, each read twice by "
            "the next, took 72 s and 8.7 GB past a 1 s limit); leave the hint out (DuckDB chooses)")
    n = sum(1 for w in words if w in _SET_OPERATIONS)
    if n > MAX_SQL_SET_OPERATIONS:
        raise QueryRefused(
            f"refused: the query holds {n:,} UNION, INTERSECT or EXCEPT, more than the {MAX_SQL_SET_OPERATIONS:,} "
            f"user SQL may: DuckDB plans each part before its time limit can stop the query (14,000 took 15 s "
            f"and 5 GB past a 1 s limit); give the rows as one VALUES list or a table function (range(), "
            f"unnest([...])), or ask in several queries")


def joined_tables(node: Any) -> int:
    """The most tables one part of a parsed query (DuckDB's ``json_serialize_sql``) joins: the tables, views, CTEs
    read and table functions of a SELECT, its FROM's subqueries and the subqueries of its expressions included
    (DuckDB flattens and decorrelates them into the SELECT's joins) and each CTE it defines; each branch of a set
    operation is a part of its own (planned apart). Walked without recursion: a parse 1,000 expressions deep (DuckDB's
    own limit) nests thousands of objects (QA round 38: past Python's recursion limit, "internal error:
    RecursionError")."""
    parts = [[0]]  # each part's count of tables: the query's, then each branch of a set operation
    stack: list[tuple[Any, list[int]]] = [(node, parts[0])]
    while stack:
        obj, part = stack.pop()
        if isinstance(obj, dict):
            if obj.get("type") == "SET_OPERATION_NODE":
                for key, value in obj.items():
                    if key in ("children", "left", "right"):
                        for child in value if isinstance(value, list) else [value]:
                            parts.append([0])
                            stack.append((child, parts[-1]))
                    else:
                        stack.append((value, part))
                continue
            if isinstance(obj.get("type"), str) and obj["type"] in _RELATIONS:  # (a sample's size holds a
                # dict under "type": TypeError, unhashable, in USING SAMPLE 10%)
                part[0] += 1
            stack.extend((value, part) for value in obj.values())
        elif isinstance(obj, list):
            stack.extend((value, part) for value in obj)
    return max(n for n, in parts)


def parsed(con: duckdb.DuckDBPyConnection, statement: Any) -> dict[str, Any] | None:
    """DuckDB's parse of the query part of one statement of user SQL (``json_serialize_sql``, run on ``con``: nothing
    of it is run), or None for a statement that has none (``checked``). DuckDB serialises SELECT statements only
    (SUMMARIZE, DESCRIBE and SHOW are SELECTs); the query part of the others is made one: of an EXPLAIN, the statement
    it explains; of a CALL, ``SELECT * FROM`` its table function; of a ``SET VARIABLE``, ``SELECT`` its value (which
    may hold subqueries, a plain SET's may not: DuckDB's binder). ``QueryRefused`` for a statement of another kind,
    or whose query part DuckDB cannot parse (a PIVOT that finds its columns first), or that zx cannot name."""
    kind = statement_kind(statement)
    text = statement.query
    if kind in CHANGES:
        raise QueryRefused(f"{_SANDBOX}statements that make or change anything are not run, temporary ones neither "
                           f"(they would change what later queries read) ({kind})")
    words = _keywords(text)
    if kind == "SELECT":
        return _serialised(con, text, kind)
    if kind == "EXPLAIN":
        inner = explained(text)
        if inner is None:
            raise QueryRefused(f"{_SANDBOX}an EXPLAIN of what zx cannot check is not run: EXPLAIN a query (SELECT)")
        return parsed(con, inner)
    if kind == "CALL" and words[:1] == ["CALL"]:  # CALL f(...) is SELECT * FROM f(...)
        return _serialised(con, run_as(statement), kind)
    if kind == "CALL" and words in (["CHECKPOINT"], ["FORCE", "CHECKPOINT"]):
        return None  # (read-only: nothing to write)
    if kind == "SET" and words[:1] == ["SET"] and "VARIABLE" in words[1:3]:
        value = _set_value(text)
        if value is None:
            raise QueryRefused(f"{_SANDBOX}a SET VARIABLE without a value zx can read is not run ({text.strip()!r})")
        return _serialised(con, "SELECT " + value, "SET VARIABLE")
    if kind == "SET":  # SET, RESET, USE: a value takes no subquery (DuckDB), settings are locked
        return None
    if kind == "PRAGMA" and words[:1] == ["PRAGMA"]:
        name = _pragma_name(text)
        if name not in ALLOWED_PRAGMAS:
            raise QueryRefused(
                f"{_SANDBOX}settings cannot be changed (SET, RESET, PRAGMA), and a PRAGMA runs only to read the "
                f"catalog ({', '.join(sorted(ALLOWED_PRAGMAS))}), not {name or text.strip()!r}")
        return None  # (a PRAGMA's values take no subquery: DuckDB)
    if kind in ("COPY", "EXPORT", "LOAD", "PRAGMA"):  # (IMPORT DATABASE and COPY FROM DATABASE are PRAGMAs)
        raise QueryRefused(f"{_SANDBOX}{_FILES} ({' '.join(words[:2]) or kind})")
    if kind == "MULTI":
        raise QueryRefused(
            f"{_SANDBOX}a PIVOT that finds its columns first runs a query of its own, which zx cannot check before "
            f"it runs: name them (PIVOT ... ON column IN ('a', 'b') USING count(*))")
    raise QueryRefused(f"{_SANDBOX}zx sql runs queries (SELECT, SUMMARIZE, DESCRIBE, SHOW, PIVOT, EXPLAIN, CALL of a "
                       f"table function), not {' '.join(words[:2]) or kind} statements")


def explained(text: str) -> Any:
    """The statement an ``EXPLAIN`` statement's text explains (one of ``duckdb.extract_statements``), or None where it
    cannot be told. Read from DuckDB's tokens (comments skipped): ``EXPLAIN``, then ``ANALYZE`` (or ``ANALYSE``), then
    a parenthesis that is an option list (``(FORMAT json)``, ``(ANALYZE, FORMAT json)``) or the statement's own
    (``EXPLAIN (SELECT 1) UNION ALL (SELECT 2)``, ``EXPLAIN (DESCRIBE seats)``). DuckDB tells which: the text from
    each place the statement may begin is a candidate when it is one statement, an option list when DuckDB parses it
    before a SELECT; exactly one must be (QA round 38: a regular expression took ``(SELECT 1)`` for options, and
    missed ANALYZE after a comment)."""
    data = text.encode("utf-8")  # (token positions count bytes)
    tokens = [(p, k) for p, k in sql_tokens(text) or [] if k != duckdb.token_type.comment]

    def word(i: int) -> str:
        return _WORD.match(data, tokens[i][0]).group().decode().upper() if i < len(tokens) else ""

    def is_(i: int, char: bytes) -> bool:
        return i < len(tokens) and tokens[i][1] == duckdb.token_type.operator and data[tokens[i][0]:][:1] == char

    def one(start: int, end: int | None = None) -> list[Any]:
        at = tokens[start][0] if start < len(tokens) else len(data)
        part = data[at:None if end is None else tokens[end][0]].decode("utf-8")
        try:
            return duckdb.extract_statements(part)
        except duckdb.Error:
            return []

    if word(0) != "EXPLAIN" or tokens[0][1] != duckdb.token_type.keyword:
        return None
    starts = [1]
    if word(1) in ("ANALYZE", "ANALYSE") and tokens[1][1] == duckdb.token_type.keyword:
        starts.append(2)
    found = []
    for start in starts:
        whole = one(start)
        if len(whole) == 1:
            found.append(whole[0])
        if is_(start, b"("):
            depth, close = 0, start
            for close in range(start, len(tokens)):
                depth += is_(close, b"(") - is_(close, b")")
                if depth == 0:
                    break
            options = data[tokens[start][0]:tokens[close][0] + 1].decode("utf-8")
            try:
                duckdb.extract_statements(f"EXPLAIN {options} SELECT 1")
            except duckdb.Error:
                continue  # (not an option list)
            after = one(close + 1)
            if depth == 0 and len(after) == 1:
                found.append(after[0])
    return found[0] if len(found) == 1 else None


_SANDBOX = "refused: zx sql is read-only and sandboxed: "
# DuckDB's statement kinds that read files or extensions (the sandbox refuses them: zx does before they run)
_FILES = "reading or writing files, attaching databases and installing or loading extensions are disabled"


def run_as(statement: Any, game: str | None = None) -> str:
    """The text a statement of user SQL runs as: a ``CALL f(...)`` as ``SELECT * FROM f(...)`` (the query zx checks
    of it: docs/security.md), whose rows DuckDB streams as they are fetched (QA round 38: ``CALL range(100000000)``
    held its whole result, 914 MB where the SELECT took 110 MB, and ``CALL range(1e11)`` ran into the memory cap);
    with a ``game`` chosen, ``SHOW TABLES`` as the names it shows, each once (the game's views, temporary, shadow
    the file's tables of the same names, and DuckDB listed both: every table twice); any other statement as it is
    written."""
    text = statement.query
    kind = statement_kind(statement)
    if kind == "CALL" and _keywords(text)[:1] == ["CALL"]:
        return "SELECT * FROM " + text[_after_word(text, "CALL"):]
    if game is not None and kind == "SELECT" and [(t.upper(), k) for t, k in _tokens(text)
                                                  if t != b";"] == [(b"SHOW", duckdb.token_type.keyword),
                                                                    (b"TABLES", duckdb.token_type.keyword)]:
        return "SELECT DISTINCT name FROM (SHOW TABLES) ORDER BY name" + (";" if text.rstrip().endswith(";") else "")
    return text


def to_run(query: str, statements: list[Any], game: str | None = None) -> str:
    """``query`` with each statement as it runs (``run_as``, ``game``: the one chosen): the statements' texts (each
    holds the semicolon that ends it) one after the other, or ``query`` itself where none is run otherwise."""
    texts = [run_as(statement, game) for statement in statements]
    if texts == [statement.query for statement in statements]:
        return query
    return "".join(texts)


def statement_kind(statement: Any) -> str:
    """The kind of one statement of user SQL (``duckdb.StatementType``'s name), or ``QueryRefused`` where Python's
    DuckDB cannot name it: ``UPDATE EXTENSIONS`` is kind 29 in DuckDB 2.0.1, unknown to its ``StatementType`` (it
    was "internal error: ValueError: 29 is not a valid StatementType")."""
    try:
        return statement.type.name
    except ValueError:
        words = " ".join(_keywords(statement.query)[:2])
        raise QueryRefused(f"{_SANDBOX}a statement of a kind zx cannot check is not run ({words or 'unnamed'}): zx "
                           f"sql runs queries (SELECT, SUMMARIZE, DESCRIBE, SHOW, PIVOT, EXPLAIN)") from None


def _serialised(con: duckdb.DuckDBPyConnection, text: str, kind: str) -> dict[str, Any]:
    try:
        # (every row fetched: a result left open on user SQL's cursor refused the query's relation after it)
        tree = json_loads(con.execute("SELECT json_serialize_sql(?)", [text]).fetchall()[0][0])
    except (duckdb.Error, TypeError, ValueError):
        tree = {"error": True}
    if tree.get("error"):
        try:  # DuckDB's own words for a query it cannot read
            duckdb.extract_statements(text)
        except duckdb.Error as e:
            raise QueryError(f"SQL error: {e}") from e
        raise QueryRefused(f"{_SANDBOX}zx cannot check the query of this {kind} statement before it runs")
    return tree


# a JSON text's tokens: punctuation, a string, or a bare literal (a number, true, false, null), after any white space
_JSON_TOKEN = re.compile(r'[ \t\n\r]*(?:([\[\]{},:])|("(?:[^"\\]|\\.)*")|([^ \t\n\r\[\]{},:"]+))', re.DOTALL)
_NOTHING = object()


def json_loads(text: str) -> Any:
    """The value of a JSON text (DuckDB's parse of a query, ``json_serialize_sql``), however deeply it nests: orjson
    (fast) stops at 1,024 levels and Python's json at its recursion limit (QA round 38: ``SELECT 1 + 1 + ...`` of 340
    terms, 400 ``'a'`` joined by ``||``, ``abs(abs(...))`` 400 deep were "internal error: RecursionError" where DuckDB
    runs them to its own limit of 1,000 levels of expression, a parse 3,000 objects deep and more); deeper, it is
    read a token at a time on a stack of its own. ``ValueError`` for a text that is no JSON."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    stack: list[list[Any]] = []  # the open objects and arrays: [container, the key read, waiting for its value]
    value: Any = _NOTHING
    result: Any = _NOTHING
    at = 0
    end = len(text.rstrip(" \t\n\r"))
    while at < end:
        m = _JSON_TOKEN.match(text, at)
        if m is None:
            raise ValueError(f"not JSON at character {at}")
        at = m.end()
        punctuation, string, literal = m.groups()
        if punctuation in ("{", "["):
            stack.append([{} if punctuation == "{" else [], _NOTHING])
            continue
        if punctuation in ("}", "]"):
            if not stack or isinstance(stack[-1][0], dict) != (punctuation == "}"):
                raise ValueError(f"not JSON at character {at}: {punctuation} closes nothing")
            value = stack.pop()[0]
        elif punctuation is not None:  # , and : (a value's place is known by its container)
            continue
        else:
            value = orjson.loads(string if string is not None else literal)  # (one value: flat)
        if not stack:
            if result is not _NOTHING:
                raise ValueError(f"not JSON at character {at}: a second value")
            result = value
        elif isinstance(stack[-1][0], list):
            stack[-1][0].append(value)
        elif stack[-1][1] is _NOTHING:
            if not isinstance(value, str):
                raise ValueError(f"not JSON at character {at}: a key that is no string")
            stack[-1][1] = value
        else:
            stack[-1][0][stack[-1][1]] = value
            stack[-1][1] = _NOTHING
    if stack or result is _NOTHING:
        raise ValueError("not JSON: it ends inside a value")
    return result


def _tokens(text: str) -> list[tuple[bytes, Any]]:
    """Each token of ``text`` but comments: (its bytes, its kind)."""
    data = text.encode("utf-8")
    tokens = sql_tokens(text) or []
    ends = [p for p, _ in tokens[1:]] + [len(data)]
    return [(data[p:end].strip(), k) for (p, k), end in zip(tokens, ends) if k != duckdb.token_type.comment]


def _keywords(text: str) -> list[str]:
    """The leading keywords of ``text``, in capitals (``["SET", "VARIABLE"]``; a name or value ends them)."""
    words = []
    for token, k in _tokens(text):
        if k != duckdb.token_type.keyword:
            break
        words.append(_WORD.match(token).group().decode().upper())
    return words


def _after_word(text: str, word: str) -> int:
    """The character just after the first keyword ``word`` of ``text``."""
    data = text.encode("utf-8")
    for position, k in sql_tokens(text) or []:
        if k == duckdb.token_type.keyword and _WORD.match(data, position).group().decode().upper() == word:
            return len(data[:position + len(word)].decode("utf-8"))
    return len(text)


def _set_value(text: str) -> str | None:
    """The value of ``SET VARIABLE name = value`` (or ``TO value``), as text; None where there is none."""
    data = text.encode("utf-8")
    for position, k in sql_tokens(text) or []:
        token = _WORD.match(data, position).group().decode().upper()
        if (k == duckdb.token_type.operator and data[position:position + 1] == b"=") or \
                (k == duckdb.token_type.keyword and token == "TO"):
            at = position + (1 if k == duckdb.token_type.operator else 2)
            value = data[at:].decode("utf-8").strip()
            return value or None
    return None


def _pragma_name(text: str) -> str:
    tokens = _tokens(text)
    return tokens[1][0].decode("utf-8", "replace").strip('"').lower() if len(tokens) > 1 else ""


# a table named as a file is DuckDB's replacement scan of that file (FROM 'x.parquet', FROM "league.duckdb"): the
# sandbox's allowed paths let it read the analytics file itself through DuckDB's .duckdb reader (QA round 38: which
# only listed its tables' names, the file holding several; a file of one table would be read whole, past a game)
_FILE_NAME = re.compile(r"(?i).*(?:[/\\]|://|\.(?:duckdb|db|sqlite3?|parquet|csv|tsv|json|jsonl|ndjson|txt|arrow|"
                        r"feather|xlsx|gz|zst))$|.*[/\\]")


def parse_nodes(tree: Any) -> Iterable[dict[str, Any]]:
    """Every object (dict) of a parsed query (DuckDB's ``json_serialize_sql``), walked without recursion: a parse
    1,000 expressions deep nests thousands of objects (QA round 38: "internal error: RecursionError")."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
            yield node


def file_tables(tree: Any) -> list[str]:
    """The names of the tables a parsed query reads that name a file (``_FILE_NAME``), unqualified as a replacement
    scan is."""
    return [node["table_name"] for node in parse_nodes(tree)
            if node.get("type") == "BASE_TABLE" and isinstance(node.get("table_name"), str)
            and not node.get("schema_name") and not node.get("catalog_name") and _FILE_NAME.match(node["table_name"])]


def table_functions(tree: Any) -> list[str]:
    """The table functions and table macros a parsed query calls (``range``, ``query_table``, ``histogram``), each
    by its name as written (catalog and schema left out), lower case; ``?`` for one DuckDB does not name."""
    found = []
    for node in parse_nodes(tree):
        if node.get("type") == "TABLE_FUNCTION":
            function = node.get("function")
            name = function.get("function_name") if isinstance(function, dict) else None
            found.append(name.lower() if isinstance(name, str) else "?")
    return found


# The table functions (and table macros) user SQL may call, game or not: any other is refused before it runs
# (QA round 38: with a game chosen, json_execute_serialized_sql(json_serialize_sql('... FROM ' || 'store.seats')),
# read_duckdb('store.duckdb', table_name := 'seats'), histogram_values(store.main.matches, game) read every game's
# rows, and query() or json_execute_serialized_sql hid from the planning refusals a query that ran for minutes).
# Each reads no row of the file but what its own arguments give it, or the catalog's description of the file
# (names, columns, types; duckdb_tables' estimated_size counts every game's rows), or reads the tables by their
# names as the game's views shadow them (filtered_seats). Left out: every function that reads files (read_*, glob,
# parquet_*, sniff_csv: the sandbox refuses them too), runs SQL given as text or reads a table named in text
# (query, query_table, json_execute_serialized_sql, histogram, histogram_values, duckdb_table_sample, seq_scan,
# pragma_storage_info, pragma_metadata_info; read_duckdb: the file is open already, name its tables), and DuckDB's
# own switches and state (logging, profiling, secrets, extensions, checkpoints, memory, variables, summary: SUMMARIZE).
ALLOWED_TABLE_FUNCTIONS = {
    "range": "numbers from its arguments", "generate_series": "numbers from its arguments",
    "unnest": "a list's values", "json_each": "a JSON value's parts", "json_tree": "a JSON value's parts",
    "filtered_seats": "zx's macro over seats (under a game, the game's seats)",
    **{f"duckdb_{n}": "the catalog's description of the file" for n in (
        "columns", "constraints", "databases", "functions", "indexes", "keywords", "schemas", "tables", "types",
        "views")},
    "duckdb_settings": "the settings, locked (current_setting() reads each)",
    "pragma_table_info": "the catalog's description of the file",
    "pragma_show": "the catalog's description of the file",
    "pragma_version": "DuckDB's version", "pg_timezone_names": "the time zones", "icu_calendar_names": "the calendars",
}
# the PRAGMAs that run: each the pragma_ table function of the same name (or SHOW TABLES), on the list above
ALLOWED_PRAGMAS = {"table_info", "show", "show_tables", "show_tables_expanded", "version", "database_list"}
# functions refused with a word of their own: SQL given as text runs unchecked, the file is read already
_AS_TEXT_SQL = {"query", "query_table", "json_execute_serialized_sql", "histogram", "histogram_values",
                "duckdb_table_sample", "seq_scan", "pragma_storage_info", "pragma_metadata_info"}


def refuse_table_functions(tree: Any, con: duckdb.DuckDBPyConnection | None = None) -> None:
    """``QueryRefused`` for a parsed query calling a table function not in ``ALLOWED_TABLE_FUNCTIONS``. A name of no
    function of DuckDB's catalog (read on ``con``) is no refusal: DuckDB's binder says it does not exist and what
    name was meant, before anything runs (QA round 38: ``generate_serie(1, 3)`` was "refused: ... not one of those
    user SQL may call")."""
    known: set[str] | None = None
    for name in table_functions(tree):
        if name in ALLOWED_TABLE_FUNCTIONS:
            continue
        if con is not None and name != "?":
            if known is None:
                known = {r[0] for r in con.execute("SELECT DISTINCT lower(function_name) FROM duckdb_functions()")
                         .fetchall()}
            if name not in known:
                continue  # (DuckDB's own error: "Table Function with name ... does not exist! Did you mean ...")
        if name in _AS_TEXT_SQL:
            why = ("it runs SQL given as text, or reads a table named in text, which zx cannot check before it runs: "
                   "write that query itself (FROM seats ...; a histogram: GROUP BY)")
        elif name == "read_duckdb":
            why = "the analytics file is open already: name its tables (FROM seats)"
        elif name.startswith(("read_", "parquet_")) or name in ("glob", "sniff_csv"):
            why = _FILES
        else:
            why = "it is not one of those user SQL may call"
        raise QueryRefused(f"{_SANDBOX}{name}() is not run: {why}; the table functions user SQL may call: "
                           f"{', '.join(sorted(ALLOWED_TABLE_FUNCTIONS))}")


def checked(con: duckdb.DuckDBPyConnection, statements: list[Any]) -> list[dict[str, Any] | None]:
    """Each statement's parse (``parsed``, on ``con``; None for a statement without a query part), once every check
    of it has passed, before anything runs: its kind (``parsed``), the table functions it calls
    (``refuse_table_functions``), the tables one part joins (``too_many_tables``)."""
    trees = [parsed(con, statement) for statement in statements]
    for tree in trees:
        if tree is not None:
            refuse_table_functions(tree.get("statements"), con)
            named = file_tables(tree.get("statements"))
            if named:
                raise QueryRefused(f"{_SANDBOX}{_FILES} ({named[0]!r} names a file: the analytics file's tables are "
                                   f"named by their names, FROM seats)")
    too_many_tables(trees)
    return trees


def too_many_tables(trees: list[dict[str, Any] | None]) -> None:
    """``QueryRefused`` for a parsed statement (``parsed``: a SELECT, or the query part of another) one part of
    which joins more than ``MAX_SQL_TABLES`` tables (``joined_tables``): DuckDB orders a join's tables as it plans
    the query, before its time limit can stop it."""
    for tree in trees:
        if tree is None:
            continue
        n = joined_tables(tree.get("statements"))
        if n > MAX_SQL_TABLES:
            raise QueryRefused(
                f"refused: one part of the query joins {n} tables (its FROM, its subqueries and CTEs together; a "
                f"table named twice counts twice), more than the {MAX_SQL_TABLES} user SQL may: DuckDB orders a "
                f"join's tables as it plans the query, before its time limit can stop it (160 took 30 s to over 3 "
                f"minutes past a 3 s limit); join fewer tables at a time, or ask in several queries")


_ONE_GAME = ("refused: with a game chosen (zx sql --game, Stats.sql(game=...)) the tables hold only that game's rows "
             "under their own names, and the query could read past them: ")


def leaves_the_game(con: duckdb.DuckDBPyConnection, statements: list[Any], trees: list[dict[str, Any] | None]) -> None:
    """``QueryRefused`` for user SQL that could read past the one game ``Stats._only_game`` keeps, from DuckDB's
    parse of each statement (``trees``: ``checked``'s; ``con``: user SQL's cursor, whose database is named): the
    game's views shadow the tables' names alone, and ``s.seats`` or ``s.main.seats`` (the file's database, which
    DuckDB names after the file) read every game's rows (QA round 27). Refused: a table or function named in the
    file's database; a statement without a query part to show (SET, RESET, USE, PRAGMA). What reads a table or
    query given as text (``query_table``, ``query``, ``json_execute_serialized_sql``, ``read_duckdb``) is refused
    game or not (``refuse_table_functions``). What the views answer (``seats``, ``main.seats``, ``temp.seats``) and
    what reads no table of the file (``range()``, ``information_schema``) runs."""
    db = con.execute("SELECT current_database()").fetchall()[0][0]

    def in_file(*path: str | None) -> bool:
        named = [p for p in path if isinstance(p, str) and p]
        return bool(named) and named[0].casefold() == db.casefold()

    for statement, tree in zip(statements, trees):
        if tree is None:
            kind = " ".join(_keywords(statement.query)[:1]) or statement_kind(statement)
            raise QueryRefused(
                f"{_ONE_GAME}DuckDB shows the tables a query reads (a SELECT, SUMMARIZE, DESCRIBE, or an EXPLAIN of "
                f"one), not those of a {kind} statement: ask it without a game")
        for node in parse_nodes(tree.get("statements")):
            if node.get("type") == "BASE_TABLE" and in_file(node.get("catalog_name"), node.get("schema_name")):
                name = ".".join(p for p in (node.get("catalog_name"), node.get("schema_name"), node.get("table_name"))
                                if p)
            elif node.get("class") == "FUNCTION" and in_file(node.get("catalog"), node.get("schema")):
                name = ".".join(p for p in (node.get("catalog"), node.get("schema"), node.get("function_name")) if p)
            else:
                continue
            alone = name.rsplit(".", 1)[-1]
            raise QueryRefused(
                f"{_ONE_GAME}it names the file's database {db!r} ({name}), whose tables hold every game's rows: name "
                f"the table alone ({alone}), or ask without a game")


# DuckDB 2's advice for an arrow lambda (x -> x + 1), a setting zx cannot change (lock_configuration): zx's instead.
# (Not allowed either: ENABLE_SINGLE_ARROW would be set before the lock for every query, a deprecated syntax.)
_ARROW_ADVICE = re.compile(r"\n?Use SET lambda_syntax=\S* to revert to the deprecated behavior\.")


# and for an expression nested deeper than DuckDB takes (max_expression_depth, a setting zx cannot change either)
_DEPTH_ADVICE = re.compile(r' Use "SET max_expression_depth TO x" to increase the maximum expression depth\.')


def _advice(e: duckdb.Error) -> str:
    """DuckDB's words for user SQL it could not run, with what zx sql allows in place of advice it does not."""
    text = str(e)
    if isinstance(e, duckdb.BinderException) and "Deprecated lambda arrow (->)" in text:
        text = _ARROW_ADVICE.sub("\nWrite it lambda x: x + 1 (DuckDB's lambda syntax): zx sql cannot change settings "
                                 "(lambda_syntax) to take the arrow.", text)
    return _DEPTH_ADVICE.sub(" zx sql cannot change settings (max_expression_depth): nest the expression less deeply "
                             "(a long sum: sum() over unnest([...]); a long concatenation: concat(...) or "
                             "string_agg).", text)


def serialised(method: Any) -> Any:
    """A ``Stats`` method run under its lock (one call at a time on its connection: two threads' calls
    interleaved on it raised DuckDB's "connection is busy", answered one game's ``sql(game=...)`` views to
    the other's statistics, and left those views in place for good), and refused once it is closed. DuckDB's
    error that the file is damaged (cut short, a block overwritten: found only as a statement reads it) is
    ``DamagedFile``, with what to run (it was the raw ``_duckdb.IOException``)."""
    @functools.wraps(method)
    def run(self: "Stats", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            if self._closed:
                raise StatsClosed("this Stats was closed (close(), or the end of its with block): open a new one")
            try:
                return method(self, *args, **kwargs)
            except duckdb.Error as e:
                if not damaged(e):
                    raise
                raise DamagedFile(self._file(), e, python=for_python()) from e
    return run


# DuckDB's errors for user SQL it cannot run as written (QueryError, DuckDB's words): a syntax error, an unknown name,
# a wrong type or value, a value out of its type's range (an overflow), what DuckDB does not implement (parameters
# given to a statement before the last: it was DuckDB's raw NotImplementedException, QA round 38). Not among them,
# raised as they are: a damaged file (DamagedFile), no memory, an interruption, DuckDB's internal errors.
AS_WRITTEN = (duckdb.ParserException, duckdb.SyntaxException, duckdb.BinderException, duckdb.CatalogException,
              duckdb.ConversionException, duckdb.InvalidInputException, duckdb.InvalidTypeException,
              duckdb.TypeMismatchException, duckdb.OutOfRangeException, duckdb.NotImplementedException,
              duckdb.SequenceException, duckdb.SerializationException)


class StatsClosed(AnalyticsError):
    """A ``Stats`` used after ``close()``."""


class QueryError(AnalyticsError):
    """User SQL that DuckDB could not run as written: a syntax error, an unknown table or column, a
    wrong type (``str(e)``: ``SQL error: `` and DuckDB's words; the DuckDB error is its ``__cause__``)."""


# statements that make or change anything: refused in user SQL even where read-only allows them (the
# temporary catalog): a TEMP TABLE or VIEW named like a table, or a TEMP MACRO named like a macro, shadowed
# it for every later query of the same Stats, its statistics included; an open transaction held them all;
# ATTACH ':memory:' (READ_WRITE), which the sandbox allows, then USE of it and DETACH of the file's database,
# took the file away from every connection of the database (files and extensions are the sandbox's to
# refuse, in its own words: zx_analytics.db.refusal). What a statement still leaves on its connection (a TEMP
# table made under EXPLAIN ANALYZE, a search_path) ends with the call: user SQL runs on a cursor of its own
CHANGES = {"CREATE", "CREATE_FUNC", "DROP", "ALTER", "INSERT", "UPDATE", "DELETE", "MERGE_INTO", "TRANSACTION",
           "PREPARE", "EXECUTE", "ATTACH", "DETACH"}


_Method = TypeVar("_Method", bound=Callable[..., Any])


def by_game(reads: Callable[..., Iterable[str]] | None = None) -> Callable[[_Method], _Method]:
    """Run a ``Stats`` method per game unless its ``game`` filter names one (games are never mixed).

    ``reads(**kwargs)``: the game-own tables the call reads (its rows come only from the games that
    fill them); None: only shared tables. The method keeps its signature for a type checker (``-> Any``
    erased every statistic's parameters: ``st.winrates(byy=...)`` passed mypy, QA round 34)."""
    def wrap(method: _Method) -> _Method:
        @functools.wraps(method)
        def run(self: "Stats", *args: Any, **kwargs: Any) -> pl.DataFrame:
            tables = tuple(reads(*args, **kwargs)) if reads is not None else ()
            only: set[str] | None = None
            for t in tables:
                owners = set(table_owners(t))
                only = owners if only is None else only & owners
            def refuse(games: list[str]) -> NotThisGame:
                own = [t for g in games for t in game_tables(g)]
                return NotThisGame(
                    f"{method.__name__} reads the {', '.join(tables)} table{'s' if len(tables) > 1 else ''}, which "
                    f"only {', '.join(sorted(only or ())) or 'no game'} fills: no statistic of this kind for "
                    f"{', '.join(games)}" + (f"; ask its own tables {', '.join(own)} with zx sql" if own else ""))

            game = kwargs.get("game")
            if game is not None:
                if only is not None and game not in only:
                    raise refuse([game])
                return method(self, *args, **kwargs)
            held = present = self.games()
            if only is not None:
                present = [g for g in held if g in only]
                if held and not present:
                    raise refuse(held)
            if len(present) <= 1:
                return method(self, *args, **{**kwargs, "game": present[0] if present and only else None})
            frames = [method(self, *args, **{**kwargs, "game": g}) for g in present]
            frames = [f.select(pl.lit(g).alias("game"), pl.all()) for g, f in zip(present, frames)]
            return pl.concat(frames, how="diagonal_relaxed")
        return cast(_Method, serialised(run))
    return wrap


@dataclass(frozen=True)
class Filters:
    since: str | None = None
    until: str | None = None
    event: str | None = None
    deck: str | None = None
    player: str | None = None
    opp_deck: str | None = None
    seat: str | None = None
    colours: str | None = None
    archetype: str | None = None
    opp_archetype: str | None = None
    game: str | None = None
    opponent: str | None = None  # (last: a positional Filters(...) of before reads as it did)

    def __post_init__(self) -> None:
        for name in ("since", "until"):
            v = getattr(self, name)
            if v is None:
                continue
            if isinstance(v, date):  # a datetime.date (or datetime: its day) from Python, as its text
                v = (v.date() if isinstance(v, datetime) else v).isoformat()
                object.__setattr__(self, name, v)
            try:  # kept as YYYY-MM-DD: Python also reads 20260101 and 2026-W53-1, which SQL's CAST does not
                object.__setattr__(self, name, date.fromisoformat(v).isoformat())
            except (TypeError, ValueError):
                # (the words of zx stats and /api/matches; a datetime.date is named only to a Python caller)
                how = "YYYY-MM-DD" if isinstance(v, str) else "YYYY-MM-DD text or a datetime.date"
                raise BadArgument(f"{name}: {v!r} is not a date ({how})") from None
        if self.since and self.until and self.since > self.until:
            raise BadArgument(f"since {self.since} is after until {self.until}")
        if self.seat is not None and self.seat not in SEATS:
            raise BadArgument(f"seat must be first or second, got {self.seat!r}")
        for name in NAMES:
            v = getattr(self, name)
            if v is not None and not isinstance(v, str):  # deck=5 was AttributeError: no attribute 'casefold'
                raise BadArgumentType(f"{name} must be a name (a str), got {type(v).__name__} {v!r}")
            if v is not None and not v.strip():  # (it said "no player named ''; did you mean ...", QA round 37)
                raise BadArgument(f"{name}: {v!r} is empty: give a name, or None for no {name} filter")
            if v is not None:  # compared in NFC (FILTER_SQL)
                object.__setattr__(self, name, unicodedata.normalize("NFC", v))

    def params(self) -> dict[str, Any]:
        return asdict(self)

    def where(self, only: tuple[str, ...] | None = None) -> tuple[str, dict[str, Any]]:
        """The SQL condition on ``seats`` columns of the filters given (of ``only`` if named), and
        their values as named parameters: ``("TRUE", {})`` without any."""
        given = {k: v for k, v in asdict(self).items() if v is not None and (only is None or k in only)}
        return " AND ".join(FILTER_SQL[k] for k in given) or "TRUE", given

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


def _flag(df: pl.DataFrame, denominators: list[str], min_games: int) -> pl.DataFrame:
    """``low_sample``: any of the denominators (null: 0) is below ``min_games``. A DataFrame of at most
    ``BY_ROW`` rows row by row, as ``with_rate`` (the same values)."""
    if isinstance(df, pl.DataFrame) and df.height <= BY_ROW:
        columns = [df.get_column(c).to_list() for c in denominators]
        flags = [any((v if v is not None else 0) < min_games for v in row) for row in zip(*columns)]
        return df.with_columns(pl.Series("low_sample", flags, dtype=pl.Boolean))
    return df.with_columns(pl.any_horizontal([pl.col(c).fill_null(0) < min_games for c in denominators])
                           .alias("low_sample"))


def with_difference(df: pl.DataFrame, name: str, a: str, b: str) -> pl.DataFrame:
    """``name`` = rate ``a`` - rate ``b``, with Newcombe's (1998, method 10) 95% interval for a
    difference of independent proportions, built from the two Wilson intervals:
    low = d - sqrt((a - a_low)^2 + (b_high - b)^2), high = d + sqrt((a_high - a)^2 + (b - b_low)^2)."""
    if isinstance(df, pl.DataFrame) and df.height <= BY_ROW:  # row by row, as with_rate: the same values
        d_, low_, high_ = [], [], []
        names = (a, f"{a}_low", f"{a}_high", b, f"{b}_low", f"{b}_high")
        for ra_, la_, ha_, rb_, lb_, hb_ in zip(*(df.get_column(c).to_list() for c in names)):
            d = ra_ - rb_ if ra_ is not None and rb_ is not None else None
            d_.append(d)
            low_.append(None if d is None or la_ is None or hb_ is None else
                        d - math.sqrt((ra_ - la_) * (ra_ - la_) + (hb_ - rb_) * (hb_ - rb_)))
            high_.append(None if d is None or ha_ is None or lb_ is None else
                         d + math.sqrt((ha_ - ra_) * (ha_ - ra_) + (rb_ - lb_) * (rb_ - lb_)))
        return df.with_columns(pl.Series(c, v, dtype=pl.Float64)
                               for c, v in ((name, d_), (f"{name}_low", low_), (f"{name}_high", high_)))
    ra, la, ha, rb, lb, hb = (pl.col(c) for c in (a, f"{a}_low", f"{a}_high", b, f"{b}_low", f"{b}_high"))
    d = ra - rb
    return df.with_columns(d.alias(name),
                           (d - ((ra - la) ** 2 + (hb - rb) ** 2).sqrt()).alias(f"{name}_low"),
                           (d + ((ha - ra) ** 2 + (rb - lb) ** 2).sqrt()).alias(f"{name}_high"))


def _order(df: pl.DataFrame, first: list[str]) -> pl.DataFrame:
    """Columns in priority order (what a narrow table keeps): ``first``, then the rest."""
    return df.select([*first, *[c for c in df.columns if c not in first]])


class _ArrowStream:
    """Only a relation's Arrow C stream. ``pl.DataFrame(relation)`` itself probes the relation with
    ``hasattr`` for the interfaces it knows, and a DuckDB relation answers those probes with objects
    nanobind then reports as "leaked" on stderr at every exit; through this wrapper Polars sees the
    stream and nothing else."""

    __slots__ = ("relation",)

    def __init__(self, relation: Any) -> None:
        self.relation = relation

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.relation.__arrow_c_stream__(requested_schema)


# DuckDB type -> the Polars type of its column in ``_frame`` (through Arrow): a statistic's few
# hundred rows of these types are read as rows (``_rows``)
ROW_TYPES = {"VARCHAR": pl.String, "BIGINT": pl.Int64, "INTEGER": pl.Int32, "DOUBLE": pl.Float64,
             "BOOLEAN": pl.Boolean, "DATE": pl.Date}


def _rows(con: duckdb.DuckDBPyConnection, text: str, params: dict[str, Any] | None) -> pl.DataFrame:
    """The result of one statement as a DataFrame, the same frame as ``_frame(con.sql(...))``: run
    with ``execute`` and read as rows, which spares the relation API's second parse and bind and the
    Arrow stream (2-4 ms of CPU a cold statistic on the 10k-match file, for a few hundred rows).
    A column of another type than ``ROW_TYPES``: through Arrow instead."""
    cur = con.execute(text, params)
    columns = [(d[0], ROW_TYPES.get(str(d[1]))) for d in cur.description]
    if any(t is None for _, t in columns):
        cur.fetchall()
        return _frame(con.sql(text, params=params))
    return pl.DataFrame(cur.fetchall(), schema=columns, orient="row")


# DuckDB types a Polars frame cannot hold as they are (``Stats.sql``): refused (INTERVAL, UNION) or
# held as something else (BIT, BIGNUM and VARIANT as raw bytes, TIME WITH TIME ZONE without its offset)
_NOT_POLARS = re.compile(r"\b(INTERVAL|UNION|BIT|BIGNUM|VARINT|VARIANT|TIME WITH TIME ZONE|UHUGEINT)\b")
# HUGEINT (what sum() of integers gives) crosses Arrow as a Decimal(38, 0): 39-digit values lose their last
# digits; it is read as text and made an exact integer type again (_exact_integers; UHUGEINT's top half fits none:
# text)
# DuckDB types given as DuckDB's text by ``Stats.sql_rows``: Python has no value for them, or one
# that says something else (an infinite date or timestamp, an interval of months, a bit string)
_AS_TEXT = re.compile(r"(DATE|TIME|TIMESTAMP|INTERVAL|BIT|BIGNUM|VARINT|BLOB)(_[A-Z]+| WITH TIME ZONE)?")


# a date, time, timestamp or interval inside a list, struct or map: made text in its place (a list of dates a
# list of texts), so that an infinity or a year past 9999 in it is DuckDB's text, not a Rust panic in Polars
# nor 9999-12-31 in Python (the top-level columns: _AS_TEXT, _outside_python)
_TEMPORAL = re.compile(r"\b(?:TIMESTAMP WITH TIME ZONE|TIME WITH TIME ZONE|TIMESTAMP_(?:S|MS|NS)|TIMESTAMP|DATE|TIME|"
                       r"INTERVAL)\b")


def _leaves_as_text(t: str) -> str | None:
    """A nested type string ``t`` with its date and time leaves as VARCHAR (``DATE[]`` -> ``VARCHAR[]``),
    or None when it is not nested or holds none (a quoted field name is left alone)."""
    if "[" not in t and "(" not in t:
        return None
    new = "".join(p if p.startswith('"') else _TEMPORAL.sub("VARCHAR", p) for p in re.split(r'("(?:[^"]|"")*")', t))
    return new if new != t and not _TEMPORAL.fullmatch(t) else None


def _as_text(relation: Any, which: Any, at: Collection[int] = (), widen: Collection[int] = ()) -> Any:
    """``relation`` with each column whose type string ``which`` says, and each column at an index in
    ``at``, as VARCHAR (by position: a result may name two columns alike), each in ``widen`` as a
    TIMESTAMP, each other one nested with date or time leaves with them as text (``_leaves_as_text``),
    or ``relation`` itself when none is."""
    types = [str(t) for t in relation.types]
    text = {i for i, t in enumerate(types) if which(t)} | set(at)
    leaves = {i: n for i, n in ((i, _leaves_as_text(t)) for i, t in enumerate(types) if i not in text) if n}
    if not text and not widen and not leaves:
        return relation
    names = [str(c).replace('"', '""') for c in relation.columns]
    return relation.project(", ".join(f'CAST(#{i} AS VARCHAR) AS "{n}"' if i - 1 in text else
                                      f'CAST(#{i} AS TIMESTAMP) AS "{n}"' if i - 1 in widen else
                                      f'CAST(#{i} AS {leaves[i - 1]}) AS "{n}"' if i - 1 in leaves else f"#{i}"
                                      for i, n in enumerate(names, 1)))


# the dates and times Python holds (years 1 to 9999), in days and in seconds since 1970
_PY_DAYS = (-719_162, 2_932_896)
_PY_SECONDS = (-62_135_596_800, 253_402_300_800)
_PER_SECOND = {"ms": 10**3, "us": 10**6, "ns": 10**9}


def _outside_python(df: pl.DataFrame) -> list[int]:
    """The indexes of the date and timestamp columns of ``df`` holding a value Python's dates cannot
    hold: DuckDB's ``infinity`` or ``-infinity`` (Arrow carries them as the largest values of their
    type), a year before 1 or past 9999 (DuckDB's range is wider): Polars holds them but cannot print
    them (a Rust panic in ``print(df)`` or ``df.rows()``)."""
    out = []
    for i, dtype in enumerate(df.dtypes):
        if dtype == pl.Date:
            lo, hi = _PY_DAYS[0], _PY_DAYS[1] + 1
        elif isinstance(dtype, pl.Datetime):
            per = _PER_SECOND[dtype.time_unit or "us"]
            lo, hi = max(_PY_SECONDS[0] * per, -(2**63 - 1)), min(_PY_SECONDS[1] * per, 2**63 - 1)
        else:
            continue
        values = df.to_series(i).to_physical()
        if ((values < lo) | (values >= hi)).any():
            out.append(i)
    return out


def _frame_of(relation: Any) -> pl.DataFrame:
    if relation is None:  # a statement with no result
        return pl.DataFrame()
    types = [str(t) for t in relation.types]
    huge = [i for i, t in enumerate(types) if t == "HUGEINT"]
    # a TIMESTAMP_S crosses Arrow in milliseconds, its infinity as -1000 (a second before 1970): widened first
    widen = [i for i, t in enumerate(types) if t == "TIMESTAMP_S"]

    def text(t: str) -> bool:
        return t == "HUGEINT" or _NOT_POLARS.search(re.sub(r'"[^"]*"', "", t)) is not None
    df = _as_text(relation, text, widen=widen).pl()
    outside = _outside_python(df)
    if outside:  # rare (typed in a query, never projected): asked again with those columns as DuckDB's text
        df = _as_text(relation, text, at=outside, widen=[i for i in widen if i not in outside]).pl()
    return df.with_columns(_exact_integers(df.to_series(i)) for i in huge) if huge else df


_INT64 = (-(1 << 63), (1 << 63) - 1)
_DECIMAL38 = 10 ** 38 - 1


def _exact_integers(text: pl.Series) -> pl.Series:
    """A HUGEINT column (read as text: ``_frame_of``) as the narrowest type that holds every value exactly and that
    Arrow takes (``to_arrow()``, ``to_pandas()``: Polars' Int128 is refused, "unsupported format string
    '_pli128'"): Int64 (what a ``sum`` of integers nearly always fits), else a Decimal(38, 0) (DuckDB's own Arrow
    type for it), else, for a value of 39 digits, Int128 (Arrow holds none such: cast it to text first)."""
    values = text.cast(pl.Int128)
    low, high = values.min(), values.max()
    if low is None or (_INT64[0] <= low and high <= _INT64[1]):
        return values.cast(pl.Int64)
    if -_DECIMAL38 <= low and high <= _DECIMAL38:
        return values.cast(pl.Decimal(38, 0))
    return values


def _seconds(timeout: Any) -> float | None:
    """A time limit of ``Stats.sql*`` checked: None for no limit (None or 0, as ``zx sql --timeout 0``), else
    the seconds, 0..MAX_SQL_TIMEOUT."""
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))):
        raise BadArgumentType(f"timeout is a number of seconds (0..{MAX_SQL_TIMEOUT}), or None for no limit, not "
                        f"{type(timeout).__name__} {timeout!r}")  # ('5': unsupported operand for +; True: 1 s)
    if timeout is not None and not 0 <= timeout <= MAX_SQL_TIMEOUT:  # (nan too: it never stopped the query;
        # past the cap a timer overflowed the platform's time_t, a traceback from its thread)
        raise BadArgument(f"timeout must be 0..{MAX_SQL_TIMEOUT} seconds, or None for no limit, got {timeout!r}")
    return timeout or None


def _whole(name: str, value: Any, least: int, unit: str, none: str | None = None) -> int | None:
    """A whole-number argument of the Python API (``min_games``, ``limit``, ``batch``) checked, as ``_seconds``
    checks a time limit: a ``TypeError`` that says what to give for another type (text, a float, a bool: no count
    here; ``None`` unless ``none`` says what it means), a ``ValueError`` that says the range below ``least``.
    ``min_games='5'`` was "'<' not supported between instances of 'str' and 'int'", ``limit='3'`` DuckDB's
    "limit(): incompatible function arguments", ``limit=-1`` every row, ``min_games=2.5`` and ``True`` taken."""
    if value is None and none is not None:
        return None
    instead = f", or None for {none}" if none is not None else ""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):  # (an int, or numpy's: operator.index)
        raise BadArgumentType(f"{name} is a whole number of {unit} ({least} or more){instead}, not "
                        f"{type(value).__name__} {value!r}")
    value = operator.index(value)
    if value < least:
        raise BadArgument(f"{name} must be {least} or more {unit}{instead}, got {value!r}")
    return value


def _timed_out(timeout: float) -> QueryTimeout:
    """The Python API's words (``zx sql`` says its own: ``QueryTimeout.seconds``, ``--timeout``)."""
    e = QueryTimeout(f"the query ran longer than {timeout:g} s and was stopped "
                     f"(raise the limit with timeout=SECONDS, None for none)")
    e.seconds = timeout
    return e


def _frame(relation: Any) -> pl.DataFrame:
    """A DataFrame from the relation's Arrow stream: the same frame as ``.pl()`` without importing
    pyarrow (which ``.pl()`` goes through: half a second of a zx stats start-up on the shared machine)."""
    return pl.DataFrame(_ArrowStream(relation))


class Stats:
    """Read-only statistics over one analytics file (or an open DuckDB connection).

    One call at a time: a ``Stats`` used from several threads runs their calls one after another on its
    connection (a server makes one per request, over a cursor of its own); after ``close()`` every call
    raises ``StatsClosed``. User SQL (``sql``, ``sql_rows``, ``sql_each``) runs on a cursor of its own,
    closed after the call: nothing it leaves there (a temporary table, a ``search_path``) reaches a later
    call.

    ``derived``: the derived tables of that connection (``zx_analytics.derived.build``, at the file's
    position: a server's), from which cards, attacks and life by turn are counted, and the games and
    filter values it already read; the answers are those without."""

    def __init__(self, source: str | Path | duckdb.DuckDBPyConnection, min_games: int = MIN_GAMES,
                 derived: Derived | None = None) -> None:
        if not isinstance(source, (str, os.PathLike, duckdb.DuckDBPyConnection)):
            raise BadArgumentType(f"source must be the analytics file's path (a str or Path) or an open DuckDB "
                                  f"connection, got {type(source).__name__} {source!r}")
        min_games = _whole("min_games", min_games, 1, "games")
        if not isinstance(source, duckdb.DuckDBPyConnection):
            from .paths import not_a_file

            refused = not_a_file(source)  # (a URL said "no analytics file at s3:/...: run zx analytics update")
            if refused is not None:
                raise AnalyticsError(refused)
        self.con = source if isinstance(source, duckdb.DuckDBPyConnection) else connect_reader(Path(source))
        if not isinstance(source, duckdb.DuckDBPyConnection):  # (a server's connection: zx_web.backend checks it)
            from .db import refuse_other_version

            try:
                refuse_other_version(self.con, source)  # its figures are another projection's
            except BaseException:
                self.con.close()
                raise
        self.min_games = min_games
        self.derived = derived
        self._lock = threading.RLock()
        self._closed = False
        self._cursor: duckdb.DuckDBPyConnection | None = None  # user SQL's, during its call (_sql)
        self._source = None if isinstance(source, duckdb.DuckDBPyConnection) else os.fspath(source)

    def _file(self) -> str:
        """The analytics file read: its path as given, or the one an open connection reads."""
        if self._source is not None:
            return self._source
        try:
            (path,) = self.con.execute("SELECT path FROM duckdb_databases() WHERE database_name = "
                                       "current_database()").fetchone()
            return str(path)
        except (duckdb.Error, TypeError):
            return "(an open connection's)"

    def __repr__(self) -> str:  # (a notebook showed <analytics.stats.Stats object at 0x...>)
        what = "an open DuckDB connection" if self._source is None else repr(self._source)
        return f"Stats({what}, min_games={self.min_games}{', closed' if self._closed else ''})"

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self.con.close()

    def interrupt(self) -> None:
        """Stop the statement a call runs now, from another thread (``zx sql``'s Ctrl-C:
        ``zx_analytics.db.ctrl_c_interrupts``); it raises ``duckdb.InterruptException``. Not serialised: the
        call it stops holds the lock. DuckDB's ``interrupt()`` of the connection does not reach the cursor
        user SQL runs on."""
        for con in (self.con, self._cursor):
            if con is not None:
                try:
                    con.interrupt()
                except duckdb.Error:  # closed already (the call ended)
                    pass

    @serialised
    def position(self) -> tuple[int, str] | None:
        """(the last store notification projected, the store it was projected from), or None."""
        try:
            rows = self.con.execute("SELECT position, store FROM projection_position").fetchall()
        except duckdb.Error:
            return None
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    def __enter__(self) -> "Stats":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ filters
    @serialised
    def games(self) -> list[str]:
        """The games the file holds matches of (sorted)."""
        if self.derived is not None:
            return list(self.derived.games)
        return sorted(r[0] for r in self.con.execute("SELECT DISTINCT game FROM seats WHERE game IS NOT NULL")
                      .fetchall())

    @serialised
    def known(self, column: str) -> list[str]:
        """The distinct non-null values of a ``seats`` column (from the NAMED_FILTERS allow-list)."""
        if column not in {c for c, _ in NAMED_FILTERS.values()}:
            raise BadArgument(f"not a filter column: {column!r}")
        if self.derived is not None:
            return list(self.derived.known[column])
        return [r[0] for r in self.con.execute(f"SELECT DISTINCT {column} FROM seats WHERE {column} IS NOT NULL")
                .fetchall()]

    @serialised
    def filters(self, **given: Any) -> Filters:
        """Check the filters: dates and seat (ValueError), names the file has seen (UnknownName)."""
        unknown = set(given) - set(Filters.names())
        if unknown:
            name = sorted(unknown)[0]
            close = difflib.get_close_matches(name, Filters.names(), n=1, cutoff=0.6) if isinstance(name, str) else []
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise BadArgumentType(f"unknown filter {name!r}: {hint}the filters are {', '.join(Filters.names())}")
        f = Filters(**given)
        checked: dict[str, set[str]] = {}
        for name, (column, kind) in NAMED_FILTERS.items():
            v = getattr(f, name)
            if v is None:
                continue
            if column not in checked:
                checked[column] = {unicodedata.normalize("NFC", k): k for k in self.known(column)}
            if v not in checked[column]:
                raise UnknownName(kind, v, sorted(checked[column].values()), said=_no_matches_of(v) if
                                  name == "game" else None)
        return f

    @serialised
    def card_codes(self, card: str) -> list[str]:
        """The cards named by ``card``: its code, or every code of that name (any case, any Unicode normal
        form: a catalog's "ドラゴン" written decomposed (NFD) is the one typed, NFC; a shipped catalog gives one
        card two codes, R01-003 and R01-019, and the name kept only the last); UnknownName otherwise."""
        if not isinstance(card, str):  # (card=5 was AttributeError: no attribute 'strip', inside)
            raise BadArgumentType(f"card must be a card's code or name (a str), got {type(card).__name__} {card!r}")

        def folded(text: str) -> str:
            return unicodedata.normalize("NFC", text).casefold()

        rows = self.con.execute("SELECT DISTINCT code, name FROM card_catalog").fetchall()
        seen = {r[0] for r in self.con.execute("SELECT DISTINCT card FROM card_games").fetchall()}
        by_code = {folded(c): c for c, _ in rows} | {folded(c): c for c in seen}
        by_name: dict[str, set[str]] = {}
        for c, n in rows:
            if n:
                by_name.setdefault(folded(n), set()).add(c)
        key = folded(card.strip())
        if key in by_code:
            return [by_code[key]]
        if key in by_name:
            return sorted(by_name[key])
        raise UnknownName("card", card, sorted({n for _, n in rows if n} | seen))

    def _query(self, name: str, filters: Filters, extra: dict[str, Any] | None = None, own_tables: bool = False,
               **identifiers: str) -> pl.DataFrame:
        """``zx_analytics/sql/<name>.sql`` with ``{where}`` the filters' condition (``{field_where}``:
        that of the field filters), the other ``identifiers`` (allow-listed SQL) and ``extra`` values;
        over the derived tables when the Stats has them (``DERIVED_SQL``), unless ``own_tables``.

        Eager: a statistic's few hundred rows get their rates and flags row by row (``with_rate``,
        ``with_difference``, ``_flag``: BY_ROW), where planning a Polars query of their expressions cost
        more than the work itself; a larger frame gets the same values from the expressions."""
        where, params = filters.where()
        field_where, field_params = filters.where(FIELD_FILTERS)
        if self.derived is not None and name in DERIVED_SQL and not own_tables:
            name, identifiers = DERIVED_SQL[name], {**identifiers, "derived": self.derived.catalog}
        if name in SHARED_END:
            identifiers["end"] = sql(SHARED_END[name])
        text = sql(name).format(where=where, field_where=field_where, **identifiers)
        return _rows(self.con, text, {**params, **field_params, **(extra or {})} or None)

    def _names(self) -> pl.DataFrame:
        """Each card code's name: every name its catalogs give it, in alphabetical order (card_names.sql)."""
        return _rows(self.con, sql("card_names"), None)

    @serialised
    def sql(self, query: str, params: Any = None, *, timeout: float | None = SQL_TIMEOUT,
            limit: int | None = None, game: str | None = None) -> pl.DataFrame:
        """Any SQL over the tables, views and macros of the file: read-only and sandboxed (no files,
        other databases, settings or extensions: ``QueryRefused``), interrupted after ``timeout``
        seconds (``QueryTimeout``; at most ``MAX_SQL_TIMEOUT``; None or 0: no limit, as ``zx sql --timeout 0``,
        in ``sql_rows`` and ``sql_each`` too); ``limit``: at most that many rows (0 or more; None: every row).
        ``game``: every table (and the macros over them) reads only that game's matches (``_only_game``), and a
        query that could read past them (the file's database named: ``store.seats``) is ``QueryRefused``
        (``leaves_the_game``).

        A column of a type Polars cannot hold as DuckDB gives it (an INTERVAL or a UNION, which it
        refuses; a BIT, a BIGNUM, a VARIANT or a TIME WITH TIME ZONE, which it holds as raw bytes or
        without the offset), alone or inside a list or struct, comes as DuckDB's text of it, and so does
        a date or timestamp column holding ``infinity``, ``-infinity`` or a year Python cannot hold, and
        each date or time inside a list, struct or map."""
        return self._sql(query, params, timeout, limit, _frame_of, game)

    @serialised
    def sql_rows(self, query: str, params: Any = None, *, timeout: float | None = SQL_TIMEOUT,
                 limit: int | None = None, game: str | None = None) -> tuple[list[str], list[tuple]]:
        """``sql``'s result as its column names and rows of DuckDB's own Python values, exact for
        every type (``zx sql``): a HUGEINT an int of every digit, a UNION its value, a MAP a dict, a
        DECIMAL a ``Decimal``. A column of a type that has no such value, or whose value would say
        something else (a date, time, timestamp or interval, which Python cannot hold when infinite
        or counted in months; a BIT, a BIGNUM, a BLOB), comes as DuckDB's text of it ("infinity",
        "1 year 2 months", "101", "\\xFF"), and so does each date or time inside a list, struct or map.
        Fetched as ``sql_each`` fetches: the time limit covers fetching the rows too (it covered the query
        alone: 50,000,000 rows came whole after 5 s and 4.7 GB past a 1 s limit)."""
        rows: list[tuple] = []
        columns = self.sql_each(query, lambda _, batch: rows.extend(batch), params, timeout=timeout, limit=limit,
                                game=game)
        return columns, rows

    @serialised
    def sql_each(self, query: str, consume: Any, params: Any = None, *, timeout: float | None = SQL_TIMEOUT,
                 limit: int | None = None, game: str | None = None, batch: int = 10_000) -> list[str]:
        """``sql_rows`` a batch of rows at a time: ``consume(columns, rows)`` is called with each batch as it is
        fetched, so a result of millions of rows is never held whole; the time limit covers fetching
        and consuming too (between batches). Returns the column names."""
        def fetch(relation: Any) -> list[str]:
            if relation is None:
                return []
            relation = _as_text(relation, lambda t: _AS_TEXT.fullmatch(t) is not None)
            columns = [str(c) for c in relation.columns]
            # (a relation keeps no result: the connection's, fetched in parts; its text keeps the placeholders)
            cur = self._cursor  # the call's (_sql)
            cur.execute(relation.sql_query(), params)
            while True:
                if deadline is not None and time.monotonic() > deadline:  # (the limit's, whatever the clock
                    # says of _sql's own start, read a moment later: an InterruptException here was compared
                    # with it, and now and then left as "SQL error: the time limit passed while ...")
                    raise _timed_out(timeout)
                rows = cur.fetchmany(batch)
                if not rows:
                    return columns
                consume(columns, rows)

        batch = _whole("batch", batch, 1, "rows")  # (0 fetched no row: the result was empty)
        timeout = _seconds(timeout)  # (0: no limit, as zx sql --timeout 0: it stopped sql_each at once, not sql)
        deadline = None if timeout is None else time.monotonic() + timeout
        return self._sql(query, params, timeout, limit, fetch, game)

    def _only_game(self, con: duckdb.DuckDBPyConnection, game: str) -> list[str]:
        """Shadow every table of the file, on ``con`` (user SQL's cursor), by a temporary view of the same
        name holding only ``game``'s rows: by its ``game`` column, else by ``match_no`` (the game's matches),
        ``card_catalog`` by the catalogs its matches name. A query naming a table (or the ``filtered_seats``
        macro) then sees one game. Returns the views made (gone with the cursor: on the Stats' own
        connection, views a failed DROP left behind answered one game's rows to every later statistic)."""
        from zx_events import games as registry

        if not isinstance(game, str):  # (game=1 was AttributeError: no attribute 'casefold', inside)
            raise BadArgumentType(f"game must be a game's key (a str: {', '.join(registry.keys())}), got "
                            f"{type(game).__name__} {game!r}")
        if game not in registry.keys():
            raise UnknownName("game", game, list(registry.keys()), "the installed games")
        self.filters(game=game)  # a game the file holds no match of: UnknownName
        db = con.execute("SELECT current_database()").fetchone()[0].replace('"', '""')
        columns: dict[str, set[str]] = {}
        for table, column in con.execute(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = 'main' AND table_catalog = current_database()").fetchall():
            columns.setdefault(table, set()).add(column)
        made = []
        lit = "'" + game + "'"  # a registered game key (checked above): letters and digits
        for table, cols in sorted(columns.items()):
            src = f'"{db}".main."{table}"'
            if "game" in cols:
                where = f"game = {lit}"
            elif "match_no" in cols:
                where = f'match_no IN (SELECT match_no FROM "{db}".main.matches WHERE game = {lit})'
            elif table == "card_catalog":
                where = f'catalog IN (SELECT DISTINCT catalog FROM "{db}".main.matches WHERE game = {lit})'
            else:
                continue  # the projection's own bookkeeping
            con.execute(f'CREATE OR REPLACE TEMP VIEW "{table}" AS SELECT * FROM {src} WHERE {where}')
            made.append(table)
        return made

    def _sql(self, query: str, params: Any, timeout: float | None, limit: int | None, fetch: Any,
             game: str | None = None) -> Any:
        if not isinstance(query, str):
            raise BadArgumentType(f"query must be SQL text (a str), got {type(query).__name__} {query!r}")
        limit = _whole("limit", limit, 0, "rows", none="every row")
        unreadable(query)
        too_long(query)
        tokens = sql_tokens(query)
        too_costly(query, tokens)
        try:
            statements = duckdb.extract_statements(query)
        except duckdb.Error as e:
            raise QueryError(f"SQL error: {_advice(e)}") from e
        trees = checked(self.con, statements)  # (refused: what zx cannot check before it runs)
        run = to_run(query, statements, game)
        query = without_final_semicolons(run, tokens if run is query else sql_tokens(run))
        timer = None
        began = time.monotonic()
        timeout = _seconds(timeout)
        # a cursor of its own, closed after the call: whatever the statements leave on their connection (a
        # TEMP table made under EXPLAIN ANALYZE, a search_path, sql(game=...)'s views) ends with it
        cur = self._cursor = self.con.cursor()
        try:
            if game is not None:
                self._only_game(cur, game)
                leaves_the_game(cur, statements, trees)  # (the views shadow names alone: s.seats is the file's)
            if timeout:  # (None or 0: no limit, as zx sql --timeout 0; a 0 s timer's interrupt came before
                # the statement started and was lost, while sql_each's deadline stopped it at once)
                timer = threading.Timer(timeout, cur.interrupt)
                timer.daemon = True
                timer.start()
            rel = cur.sql(query, params=params)
            if rel is None:
                return fetch(None)
            return fetch(rel.limit(limit) if limit is not None else rel)
        except duckdb.InterruptException:
            if not timeout or time.monotonic() - began < timeout:
                raise  # not the time limit: Ctrl-C (the CLI's ordinary interrupt)
            raise _timed_out(timeout) from None
        except duckdb.Error as e:
            reason = refusal(e)
            if reason is not None:
                raise QueryRefused(reason) from None
            if isinstance(e, AS_WRITTEN):
                raise QueryError(f"SQL error: {_advice(e)}") from e  # as written (a damaged file, no memory: as raised)
            raise
        finally:
            if timer is not None:
                timer.cancel()
                # and ended: a timer thread still alive as the process exits aborted it now and then, in DuckDB
                # ("terminate called after throwing an instance of ''", a connection the caller gave)
                timer.join()
            self._cursor = None
            cur.close()

    # ------------------------------------------------------------------ win rates
    @by_game()
    def winrates(self, by: str = "deck", **filters: Any) -> pl.DataFrame:
        """Win rate per deck, archetype, colour identity, player name, or seat (first or second)."""
        if by not in WINRATE_KEYS:
            raise BadArgument(f"by must be one of {', '.join(WINRATE_KEYS)}, got {by!r}")
        expr, label = WINRATE_KEYS[by]
        mirror = f"NOT coalesce({expr} = opp_{expr}, FALSE)" if by in WINRATE_MIRRORS else "TRUE"
        df = self._query("winrates", self.filters(**filters), key=expr, none=NO_KEY.get(expr, "NULL"), mirror=mirror)
        df = with_rate(df, "win_rate", "wins", "games")
        df = _flag(df, ["games"], self.min_games).rename({"key": label})
        if by == "first":  # the seats in their order, first then second, whichever played more games (a --player
            return df.sort(label)  # who went second more often was listed second first, QA round 36)
        return df.sort(["games", label], descending=[True, False], nulls_last=True)

    @by_game()
    def matchups(self, by: str = "deck", **filters: Any) -> pl.DataFrame:
        """Deck (or archetype, colours) against deck: the win rate of each against each other (both orientations)."""
        if by not in MATCHUP_KEYS:
            raise BadArgument(f"by must be one of {', '.join(MATCHUP_KEYS)}, got {by!r}")
        df = self._query("matchups", self.filters(**filters), key=MATCHUP_KEYS[by],
                         none=NO_KEY.get(MATCHUP_KEYS[by], "NULL"))
        df = _flag(with_rate(df, "win_rate", "wins", "games"), ["games"], self.min_games)
        label = "deck" if by == "deck" else MATCHUP_KEYS[by]
        df = df.rename({"key": label})
        return df.sort([label, "opponent"], nulls_last=True)

    # ------------------------------------------------------------------ archetypes and the metagame
    @by_game()
    def archetypes(self, **filters: Any) -> pl.DataFrame:
        """Every archetype (colour identity + signature cards, from the deck lists): its share of the
        field (seats), its win rate (mirrors left out) and the deck names seen under it."""
        df = self._query("archetypes", self.filters(**filters), no_name=NO_KEY["deck"])
        df = with_rate(df, "share", "seats", "field")
        df = _flag(with_rate(df, "win_rate", "wins", "games"), ["games"], self.min_games).rename({"key": "archetype"})
        df = _order(df, ["archetype", "seats", "share", "share_low", "share_high", "games", "win_rate", "win_rate_low",
                         "win_rate_high", "decks", "colours", "deck_names"])
        return df.sort(["seats", "archetype"], descending=[True, False], nulls_last=True)

    @by_game()
    def meta(self, by: str = "week", group: str = "deck", **filters: Any) -> pl.DataFrame:
        """The metagame per period (ISO week, month or event): each deck's (archetype's, colours') share
        of the field (the seats of the period under the date, event, seat, game and player filters: with a
        player, of that player's seats) and its win rate in the period (mirrors left out), each with its
        Wilson interval."""
        if by not in META_PERIODS:
            raise BadArgument(f"by must be one of {', '.join(META_PERIODS)}, got {by!r}")
        if group not in META_GROUPS:
            raise BadArgument(f"group must be one of {', '.join(META_GROUPS)}, got {group!r}")
        period, no_period = META_PERIODS[by]
        df = self._query("meta", self.filters(**filters), period=period, no_period=f"'{no_period}'",
                         key=META_GROUPS[group], none=NO_KEY.get(META_GROUPS[group], "NULL"))
        df = with_rate(df, "share", "seats", "field")
        df = _flag(with_rate(df, "win_rate", "wins", "games"), ["games"], self.min_games)
        label = "deck" if group == "deck" else META_GROUPS[group]
        df = df.rename({"period": by, "key": label})
        df = _order(df, [by, label, "seats", "share", "share_low", "share_high", "games", "win_rate", "win_rate_low",
                         "win_rate_high"])
        return df.sort([by, "seats", label], descending=[False, True, False], nulls_last=True)

    # ------------------------------------------------------------------ mulligans
    @by_game()
    def mulligans(self, **filters: Any) -> pl.DataFrame:
        """Opening hands (402: four cards, one optional mulligan) by seat and hand size: the keep
        rate, and the win rate of kept and of mulliganed hands."""
        df = self._query("mulligans", self.filters(**filters))
        df = with_rate(df, "keep_rate", "kept", "games")
        df = with_rate(df, "kept_win_rate", "kept_wins", "kept_games")
        df = with_rate(df, "mulligan_win_rate", "mulligan_wins", "mulligan_games")
        df = _flag(df, ["games", "kept_games", "mulligan_games"], self.min_games)
        # each rate after its counts: kept (hands kept, finished or not) and keep_rate, then kept_games (the finished
        # games of those, kept_win_rate's count) and its rate (kept came last: read as kept_games again, QA round 36)
        df = _order(df, ["seat", "hand_size", "games", "kept", "keep_rate", "keep_rate_low", "keep_rate_high",
                         "kept_games", "kept_wins",
                         "kept_win_rate", "kept_win_rate_low", "kept_win_rate_high", "mulligan_games",
                         "mulligan_wins", "mulligan_win_rate", "mulligan_win_rate_low", "mulligan_win_rate_high"])
        return df.sort(["seat", "hand_size"])

    # ------------------------------------------------------------------ attacks
    @by_game(lambda by="card", **_: ("attacks",))
    def attacks(self, by: str = "card", **filters: Any) -> pl.DataFrame:
        """Attacks per attacker card, attacker Square or target (a card, or ``player``).

        ``success_rate``: the share of attacks that destroyed the target Z/X or damaged the player;
        ``games``: the games (match and side) with such an attack."""
        if by not in ATTACK_KEYS:
            raise BadArgument(f"by must be one of {', '.join(ATTACK_KEYS)}, got {by!r}")
        expr, label, first = ATTACK_KEYS[by]
        if self.derived is not None:
            expr = DERIVED_ATTACK_KEYS[by]
        df = self._query("attacks", self.filters(**filters), key=expr, first=first)
        df = _flag(with_rate(df, "success_rate", "successes", "attacks"), ["attacks"], self.min_games)
        if by != "square":
            df = df.join(self._names(), left_on="key", right_on="code", how="left")
            df = df.select(["key", "name", *[c for c in df.columns if c not in ("key", "name")]])
        df = df.rename({"key": label})
        return df.sort(["attacks", label], descending=[True, False], nulls_last=True)

    # ------------------------------------------------------------------ life
    @by_game(lambda by="seat", **_: ("life",) if by == "turn" else ())
    def life(self, by: str = "seat", **filters: Any) -> pl.DataFrame:
        """Life damage by seat (first or second player), or by turn and seat.

        By seat: ``damage_per_turn`` = Life damage taken per turn of the opponent;
        ``ignition_rate`` = share of damage points whose revealed card was played by its IG (null, as ``ignitions``,
        for a game without Ignition: X610Z);
        ``comeback_rate`` = share of finished matches the seat won after being behind on Life at
        the end of some turn. By turn: damage per game that reached that turn, and the ignition rate."""
        if by not in LIFE_KEYS:
            raise BadArgument(f"by must be one of {', '.join(LIFE_KEYS)}, got {by!r}")
        f = self.filters(**filters)
        if by == "seat":
            df = self._query("life_by_seat", f)
            df = df.with_columns(pl.when(pl.col("opponent_turns") > 0)
                                 .then(pl.col("damage") / pl.col("opponent_turns")).alias("damage_per_turn"))
            df = with_rate(df, "ignition_rate", "ignitions", "damage")
            games = [filters["game"]] if filters.get("game") else self.games()
            if games and not set(games) & set(table_owners("ignitions")):  # a game without Ignition (X610Z): no rate
                # of 0% with an interval, as if measured, but none (its seats' life_ignitions are always 0)
                df = df.with_columns([pl.lit(None, dtype=df.schema[c]).alias(c) for c in df.columns
                                      if c.startswith("ignition")])
            df = with_rate(df, "comeback_rate", "comebacks", "behind_games")
            df = _flag(df, ["games", "damage", "behind_games"], self.min_games).rename({"key": "seat"})
            return df.sort("seat")
        df = self._query("life_by_turn", f)
        df = df.with_columns((pl.col("damage") / pl.col("games")).alias("damage_per_game"))
        df = _flag(with_rate(df, "ignition_rate", "ignitions", "damage"), ["games", "damage"], self.min_games)
        df = df.rename({"key": "seat"}).select(["turn", "seat", *[c for c in df.columns if c not in ("turn", "key", "seat")]])
        return df.sort(["turn", "seat"])

    # ------------------------------------------------------------------ cards
    @by_game()
    def cards(self, card: str | None = None, **filters: Any) -> pl.DataFrame:
        """Per card, the 17lands metrics over finished games (a game counts once per card and side,
        however many copies):

        ``gih`` (Games In Hand: the opening hand kept after any mulligan, or drawn later: Draw Phase
        or an effect) = ``oh`` (in the Opening Hand) + ``gd`` (Games Drawn: drawn later, not in the
        opening hand); ``gns`` (Games Not Seen: in the deck list, never in hand); ``played`` (played
        from hand or Dynamis, or free by its IG); ``deck`` (in the deck list at all). Each has
        ``X_games``, ``X_wins``, ``X_wr`` and its Wilson interval. ``iwd`` (Improvement When Drawn)
        = ``gih_wr`` - ``gns_wr``, with Newcombe's interval for a difference. ``card`` (a code, or a
        name) keeps that card; a name of several codes (a reprint: R01-003 and R01-019) is one row for
        the name, ``card`` its codes joined by ``/``, a game counted once per side whichever of its codes
        it held (17lands counts by name; per code, one game could be GNS for one code and GD for the other).
        Without ``card`` every code is a row of its own."""
        f = self.filters(**filters)
        codes = None if card is None else self.card_codes(card)
        # the card filter is left out of the statement when not asked for: a bound NULL is not folded
        # away and costs a comparison per card game (3x the query at 100,000 matches)
        if codes is None:
            df = self._query("cards", f, card="TRUE", games="card_games")
        elif len(codes) > 1:  # from card_games (the derived card_seats hold a row per code)
            df = self._query("cards", f, {"cards": codes, "label": "/".join(codes)}, own_tables=True, card="TRUE",
                             games=sql("card_games_by_name"))
            # the names of its codes, as card_names.sql gives a code's: each once, in alphabetical order
            name = self.con.execute("SELECT string_agg(DISTINCT name, ' / ' ORDER BY name) FROM card_catalog "
                                    "WHERE list_contains($cards, code)", {"cards": codes}).fetchone()[0]
            df = df.with_columns(pl.lit(name, dtype=pl.String).alias("name"))
        elif self.derived is not None:
            df = self._query("cards", f, {"cards": codes},
                             card=f"k // 32 IN (SELECT card_id FROM {self.derived.catalog}.card_ids "
                                  f"WHERE list_contains($cards, card))")
        else:
            df = self._query("cards", f, {"cards": codes}, card="list_contains($cards, g.card)", games="card_games")
        if "name" not in df.columns:
            df = df.join(self._names(), left_on="key", right_on="code", how="left")
        for m, _ in CARD_METRICS:
            df = with_rate(df, f"{m}_wr", f"{m}_wins", f"{m}_games")
        df = with_difference(df, "iwd", "gih_wr", "gns_wr")
        df = _flag(df, ["gih_games", "gns_games"], self.min_games).rename({"key": "card"})
        first = ["card", "name"]
        for m in ("gih", "iwd", "oh", "gd", "gns", "played", "deck"):
            first += [f"{m}_games"] if m != "iwd" else []
            r = "iwd" if m == "iwd" else f"{m}_wr"
            first += [r, f"{r}_low", f"{r}_high"]
        df = _order(df, first)
        return df.sort(["gih_games", "card"], descending=[True, False])


FILTERS_DOC = """

        ``filters``: keyword arguments, each optional, as ``zx stats``' options: ``since``, ``until`` (the match
        date, YYYY-MM-DD or a ``datetime.date``, inclusive), ``event``, ``player``, ``deck`` (the player's, with
        ``player``), ``opponent`` (the seats facing that player), ``opp_deck`` (the deck faced), ``seat``
        (``first`` or ``second``), ``colours``, ``archetype``, ``opp_archetype``, ``game``. A name the file has
        never seen is ``UnknownName`` (naming the closest), a bad value ``BadArgument``, a filter of another name
        ``BadArgumentType``."""
for _name in ("winrates", "matchups", "archetypes", "meta", "mulligans", "attacks", "life", "cards"):  # (help())
    getattr(Stats, _name).__doc__ = (getattr(Stats, _name).__doc__ or "").rstrip() + FILTERS_DOC
del _name
