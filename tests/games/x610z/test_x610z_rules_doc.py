"""docs/rules-x610z.md is the list of the enforced X610Z clauses: every row of its table has a test
named after its number and a title (rules.RULES, which has no other), every clause the referee reports
is in it (or among the derived rules it names), and its count by section adds up to the table."""

import ast
import re
from collections import Counter
from pathlib import Path

from zx_events.games.x610z.rules import RULES, title

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "rules-x610z.md").read_text(encoding="utf-8")
ENGINE = ROOT / "zx_events" / "games" / "x610z"


def table() -> list[str]:
    section = DOC.split("## Checks, by section", 1)[1].split("\n## ", 1)[0]
    return [line.split("|")[1].strip() for line in section.splitlines() if re.match(r"\| \d{3}\.\d+[a-z]? \|", line)]


def counts() -> dict[str, tuple[int, list[str]]]:
    section = DOC.split("## How many, by section", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines():
        m = re.match(r"\| (\d)\. [^|]+\| (\d+) \| ([^|]*)\|", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), [c.strip() for c in m.group(3).split(",") if c.strip()])
    return out


def x610z_test_names() -> list[str]:
    out = []
    for p in (ROOT / "tests" / "games" / "x610z").glob("test_*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_x610z_"):
                out.append(node.name)
    return out


def test_x610z_every_enforced_clause_has_a_test_named_after_it():
    rows = table()
    assert len(rows) == len(set(rows)) == 67
    names = x610z_test_names()
    for clause in rows:
        assert any(f"_{clause.replace('.', '_')}_" in n for n in names), f"{clause}: no test named after it"


def test_x610z_the_count_by_section_is_the_table():
    rows = table()
    by = counts()
    assert Counter(r[0] for r in rows) == Counter({s: n for s, (n, _) in by.items()})
    assert sorted(c for _, cs in by.values() for c in cs) == sorted(rows)
    assert f"{len(rows)} clauses are enforced" in DOC


def test_x610z_every_clause_the_engine_reports_is_documented():
    text = "".join((ENGINE / f).read_text(encoding="utf-8") for f in ("referee.py", "checks.py", "decks.py", "setup.py"))
    cited = set(re.findall(r'"(\d{3}\.\d+[a-z]?)"', text))
    derived = DOC.split("the derived rules listed after the table:", 1)[1].split("\n\n", 1)[0]
    assert cited <= set(table()) | set(re.findall(r"\d{3}\.\d+[a-z]?", derived)), cited - set(table())


# calls whose clause argument is the cause of a derived rule the engine applies (a summon or permanent leaving play:
# 209.2f, 601.5, 602.5 ...), never a finding
_CAUSES = {"_leave_play", "_perm_left"}


def reported_clauses() -> set[str]:
    """The clauses the referee's code can report: every string constant of the engine's checking modules that is a
    clause number (``self.fail("212.1", ...)``, a check's ``("202.9", message)``, ``self._active("403.2", ...)``), but
    a cause argument of ``_CAUSES``. Comments and docstrings name clauses too, and are not code."""
    out: set[str] = set()
    for name in ("referee.py", "checks.py", "decks.py", "setup.py"):
        tree = ast.parse((ENGINE / name).read_text(encoding="utf-8"))
        causes = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in _CAUSES:
                causes |= {id(a) for a in ast.walk(node) if a is not node}
        out |= {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
                and re.fullmatch(r"\d{3}\.\d+[a-z]?", node.value) and id(node) not in causes}
    return out


def test_x610z_every_enforced_clause_is_one_the_engine_reports():
    """702.3 was counted among the enforced clauses, with a row of the table and a title, though no code reported
    it (the engine applies it: the Draw Phase ends with the draw): a clause listed as reported that no code
    reports is among the derived rules, not the table."""
    assert sorted(set(table()) - reported_clauses()) == []
    derived = DOC.split("the derived rules listed after the table:", 1)[1].split("\n\n", 1)[0]
    assert "702.3" in derived and "702.3" not in table()


def test_x610z_every_enforced_clause_has_a_title_and_only_they_do():
    """304.3a and 209.2a were reported with an empty title (`zx audit --format json`, a bundle's README
    "rule 304.3a ()"); 106.3 and 701.2, which the engine never reports, had one."""
    rows = table()
    assert [c for c in rows if not title(c).strip()] == []
    assert sorted(RULES) == sorted(rows)


def test_x610z_every_count_of_the_enforced_clauses_is_the_table():
    """README said "56 enforced clauses" in one place and 57 in another (the table has 57): every
    figure of X610Z's enforced clauses in README.md and this doc is the table's."""
    rows = len(table())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    x610z = [m for m in re.finditer(r"(\d+) (?:enforced )?clauses", readme) if "X610Z" in readme[m.start() - 80:m.end()]
             or "x610z" in readme[m.start() - 80:m.end()]]
    figures = [int(m.group(1)) for m in x610z] + [int(n) for n in re.findall(r"(\d+) clauses are enforced", DOC)]
    assert len(figures) >= 3 and set(figures) == {rows}, figures
