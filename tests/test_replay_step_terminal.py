"""``zx replay --step`` in a real terminal (a pseudo-terminal driven by python's pty module): the keys, the
end of input, the prompt and the title at the terminal's width, read again at each step."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MATCH = "hand-first-turns-001"  # examples/legal/first-turns.zxlog: 22 steps
PROMPT = re.compile(r"\[(\d+)/\d+\] ")  # (22 steps: MATCH's)
RIGHT, LEFT, UP, DOWN = "\x1b[C", "\x1b[D", "\x1b[A", "\x1b[B"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from click.testing import CliRunner

    from zx_cli.main import zx

    path = tmp_path_factory.mktemp("step") / "s.sqlite"
    r = CliRunner().invoke(zx, ["--store", str(path), "import", "--no-analytics",
                                str(ROOT / "examples" / "legal" / "first-turns.zxlog"),
                                str(ROOT / "examples" / "legal" / "rules-fidelity.zxlog")])  # (its steps of 2-5 events)
    assert r.exit_code == 0, r.output
    return path


def _size(fd: int, cols: int, rows: int = 200) -> None:
    """(200 lines by default: every step fits, the judge's too; the paging tests give 24)"""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class Terminal:
    """``zx --store STORE replay MATCH --step ARGS`` on a pseudo-terminal of ``cols`` columns (stdin, stdout and
    stderr; ``stderr``: a file instead). ``key`` types a key and waits for the next prompt (or the end)."""

    def __init__(self, store: Path, cols: int, *args: str, stderr: Path | None = None, rows: int = 200,
                 match: str = MATCH) -> None:
        self.master, slave = os.openpty()
        _size(slave, cols, rows)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm"}
        for name in ("COLUMNS", "LINES", "ZX_NO_TTY"):
            env.pop(name, None)
        self.err = open(stderr, "wb") if stderr else None
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from zx_cli.main import main; sys.argv[0] = 'zx'; main()",
             "--store", str(store), "replay", match, "--step", *args],
            stdin=slave, stdout=slave, stderr=self.err or slave, env=env, close_fds=True, start_new_session=True)
        os.close(slave)
        self.out = b""
        self.wait_prompt(1)

    @property
    def text(self) -> str:
        return self.out.decode("utf-8", "replace")

    def prompts(self) -> list[int]:
        text = self.text if self.err is None else Path(self.err.name).read_text("utf-8", "replace")
        return [int(m.group(1)) for m in PROMPT.finditer(text)]

    def _read(self, timeout: float) -> bool | None:
        """Read what comes within ``timeout`` seconds: True (something), None (nothing), False (the other side
        closed)."""
        if not select.select([self.master], [], [], timeout)[0]:
            return None
        try:
            chunk = os.read(self.master, 65536)
        except OSError:
            return False
        self.out += chunk
        return bool(chunk)

    def wait_prompt(self, n: int) -> None:
        """Read until the ``n``th prompt (then what follows it at once), the end, or 60 seconds."""
        deadline = time.monotonic() + 60
        while len(self.prompts()) < n and time.monotonic() < deadline:
            if self._read(0.1) is False or (self.proc.poll() is not None and self._read(0.1) is None):
                return
        while self._read(0.05):  # the rest of it, if any
            pass

    def key(self, key: str) -> None:
        n = len(self.prompts())
        os.write(self.master, key.encode())
        self.wait_prompt(n + 1)

    def resize(self, cols: int) -> None:
        _size(self.master, cols)
        self.proc.send_signal(signal.SIGWINCH)

    def end(self) -> int:
        """The exit status, after reading everything it wrote (killed after 60 s: still waiting)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = self._read(0.1)
            if got is False or (got is None and self.proc.poll() is not None):
                break
        try:
            return self.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"still running, waiting for a key:\n{self.text[-2000:]}") from None
        finally:
            os.close(self.master)
            if self.err:
                self.err.close()


def titles(text: str) -> list[str]:
    """Each step's title (the text of its rule line ``─── TITLE ───``)."""
    plain = re.sub(r"^.*\x1b\[K", "", re.sub(r"\x1b\[[0-9;]*m", "", text), flags=re.M)  # (a page's prompt wiped)
    return [m.group(1) for m in re.finditer(r"^─+ (.*?) ─+\r?$", plain, re.M)]


# ---------------------------------------------------------------------- the end of input
def test_ctrl_d_ends_the_review_as_q_does(store):
    """Ctrl-D printed "Aborted!" and exited 1 (click.getchar raises EOFError for it): it ends the review as
    ``q`` does, exit 0."""
    term = Terminal(store, 80)
    term.key("n")
    term.key("\x04")
    assert term.end() == 0, term.text[-500:]
    assert "Aborted!" not in term.text
    assert term.prompts() == [0, 1]


def test_ctrl_c_still_aborts(store):
    term = Terminal(store, 80)
    term.key("\x03")
    assert term.end() == 1
    assert "Aborted!" in term.text


def test_a_terminal_that_closes_ends_the_review(store, tmp_path):
    """The terminal closed while --step waits for a key (SIGHUP ignored, as under nohup): the review ends, quietly,
    as at Ctrl-D (it read an empty key again and again, each taken for "next", to the end of the match)."""
    err = tmp_path / "stderr.txt"
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # (inherited by the child)
    try:
        term = Terminal(store, 80, stderr=err)
    finally:
        signal.signal(signal.SIGHUP, previous)
    os.close(term.master)
    term.master = os.open(os.devnull, os.O_RDONLY)  # (end() reads it and closes it)
    status = term.end()
    text = err.read_text("utf-8", "replace")
    assert status == 0, text[-2000:]
    assert term.prompts() == [0], text[-2000:]
    assert "Traceback" not in text and "Aborted!" not in text


# ---------------------------------------------------------------------- keys
def test_unknown_keys_do_nothing_but_name_the_keys(store):
    """``x``, ``o``, a function key were taken for "next": they stay on the step and say which keys work."""
    term = Terminal(store, 80)
    term.key("n")
    for key in ("x", "o", "\x1b[15~"):
        term.key(key)
    term.key("q")
    assert term.end() == 0
    assert term.prompts() == [0, 1, 1, 1, 1]
    assert len(titles(term.text)) == 2  # no step drawn again
    assert term.text.count("keys: n/space/enter next record · t next turn · p previous · q quit") == 3


def test_p_at_the_first_step_says_there_is_none_earlier(store):
    term = Terminal(store, 80)
    term.key("p")
    term.key("q")
    assert term.end() == 0
    assert term.prompts() == [0, 0]
    assert "no earlier step: this is the first one" in term.text
    assert len(titles(term.text)) == 1


def test_arrow_keys_step_right_down_next_left_up_back(store):
    term = Terminal(store, 80)
    for key in (RIGHT, DOWN, LEFT, UP, "\x1bOC"):  # (\x1bO.: a terminal in application cursor mode)
        term.key(key)
    term.key("q")
    assert term.end() == 0
    assert term.prompts() == [0, 1, 2, 1, 0, 1]


def test_keys_typed_ahead_are_each_a_key(store):
    """Keys read at once (typed ahead while a step is drawn, a key held down) are each taken in turn."""
    term = Terminal(store, 80)
    n = len(term.prompts())
    os.write(term.master, b"nnt")
    term.wait_prompt(n + 3)
    term.key("q")
    assert term.end() == 0
    assert term.prompts() == [0, 1, 2, 3]


# ---------------------------------------------------------------------- the width
def test_the_prompt_follows_a_resize(store):
    """The width was read once: after a resize to 60 columns the board was drawn at 60, the prompt kept its long
    form and wrapped."""
    term = Terminal(store, 120)
    term.key("n")
    term.resize(60)
    term.key("n")
    term.resize(120)
    term.key("n")
    term.key("q")
    assert term.end() == 0
    lines = [line for line in term.text.splitlines() if PROMPT.match(line.strip())]
    assert len(lines) == 4
    assert [len(line.strip()) <= 60 for line in lines] == [False, False, True, False], lines


def test_a_narrow_terminal_keeps_the_step_turn_and_seat_in_the_title(store):
    """At 40 columns the title was cut at its end (``hand-first-turns-001 · step 0 · seq…``): the turn, the
    phase and the seat were gone. The match id gives way first, then ``seq``, then the phase."""
    term = Terminal(store, 40, "--as", "P2")
    term.key("t")
    term.key("q")
    assert term.end() == 0
    assert titles(term.text) == ["step 0 · turn 0 · Setup · as P2", "step 3 · turn 1 (P1) · as P2"]


def test_the_match_id_is_elided_in_the_middle_when_some_of_it_fits(store):
    term = Terminal(store, 75, "--as", "P2")
    term.key("t")
    term.key("q")
    assert term.end() == 0
    assert titles(term.text) == ["hand-first-turns-001 · step 0 · seq 1/32 · turn 0 · Setup · as P2",
                                 "hand-fir…rns-001 · step 3 · seq 4/32 · turn 1 (P1) · Draw Phase · as P2"]


def test_the_title_is_unchanged_where_it_fits(store):
    term = Terminal(store, 200, "--as", "P2")
    term.key("t")
    term.key("q")
    assert term.end() == 0
    assert titles(term.text) == ["hand-first-turns-001 · step 0 · seq 1/32 · turn 0 · Setup · as P2",
                                 "hand-first-turns-001 · step 3 · seq 4/32 · turn 1 (P1) · Draw Phase · as P2"]


# ---------------------------------------------------------------------- a step taller than the terminal
SGR = re.compile(r"\x1b\[[0-9;]*m")
MORE_PROMPT = re.compile(r"\[(\d+)/\d+\] more \((\d+) lines?\): [^\r\n]*?(?:\r\x1b\[K|$)")


def _pages(text: str) -> list[list[str]]:
    """What the terminal showed, cut at each prompt: each page's lines (styles left out)."""
    plain = SGR.sub("", text).replace("\r\n", "\n")
    pages = [[]]
    for line in plain.split("\n"):
        for i, part in enumerate(re.split(r"\[\d+/\d+\] [^\n]*?(?:\r\x1b\[K|$)", line)):
            if i:
                pages.append([])
            if part:
                pages[-1].append(part)
    return pages


def test_a_step_taller_than_the_terminal_is_shown_a_page_at_a_time(store):
    """A judge's setup step (both deck lists: 80 lines at 80 columns) scrolled its title, record and events off
    an 80x24 terminal before the prompt. It is shown as more(1) shows a file: 23 lines, then a prompt that says
    how many lines are left; space, enter or down shows the next page; the last page ends at the usual prompt."""
    term = Terminal(store, 80, rows=24)
    term.key(" ")
    term.key("\r")
    term.key(DOWN)
    text = SGR.sub("", term.text)
    left = [int(m.group(2)) for m in MORE_PROMPT.finditer(text)]
    pages = _pages(term.text)
    assert len(left) >= 2 and left == sorted(left, reverse=True), text[-3000:]
    assert all(len(page) <= 23 for page in pages[:len(left)]), [len(p) for p in pages]
    assert pages[0][0].startswith("───── hand-first-turns-001 · step 0 ")  # the title on the first page
    assert pages[0][1].startswith("line 1: ")  # then its record
    shown = [line for page in pages[:len(left) + 1] for line in page]
    # every line of the step once, in order: as --to prints it (a pipe: no styles) at the same width
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    drawn = subprocess.run([sys.executable, "-c", "import sys; from zx_cli.main import main; sys.argv[0] = 'zx'; main()",
                            "--store", str(store), "replay", MATCH, "--to", "1"],
                           capture_output=True, text=True, env=env, check=True).stdout.splitlines()
    assert [line.rstrip() for line in shown] == [line.rstrip() for line in drawn]
    assert left[0] == len(drawn) - 23
    term.key("q")
    assert term.end() == 0


def test_n_p_t_and_q_work_from_a_page_prompt(store):
    """At a page's prompt ``n`` goes to the next record (the rest of the step is not shown), ``p`` back, ``q``
    quits; any other key names the keys of a page's prompt."""
    term = Terminal(store, 80, rows=24)
    term.key("n")
    term.key("x")
    term.key("p")
    term.key("q")
    assert term.end() == 0
    text = SGR.sub("", term.text)
    assert [int(m.group(1)) for m in MORE_PROMPT.finditer(text)] == [0, 1, 1, 0]
    assert [t.split(" · ")[1] for t in titles(term.text)] == ["step 0", "step 1", "step 0"]
    assert "keys: space/enter · n next record · t turn · p back · q quit" in text


def test_a_step_that_fits_gets_no_page_prompt(store):
    """From P2's seat P1's deck is a count: a step of the first turn fits 24 lines."""
    term = Terminal(store, 80, "--as", "P2", "--turn", "1", rows=40)
    term.key("n")
    term.key("q")
    assert term.end() == 0
    assert not MORE_PROMPT.search(SGR.sub("", term.text))
    assert term.prompts()[:2] == [3, 4]


def test_an_event_inside_a_step_pages_the_parts_of_that_step_as_a_step(store):
    """``--step --event N`` with N inside a step: the step cut after N, then the rest of it, were printed whole
    (scrolling off a terminal of 24 lines, the judge's deck lists among them) and the next step drawn under them
    before any key. They are paged as a step is, their prompts are that step's, and the next step waits for ``n``."""
    match = "rules-fidelity-605-6-lethal-startup"  # step 20: events 22-24 (examples/legal/rules-fidelity.zxlog)
    term = Terminal(store, 100, "--event", "22", rows=24, match=match)
    for _ in range(20):  # space to the parts' last page
        if term.prompts()[-1:] != [20] or not MORE_PROMPT.search(SGR.sub("", term.text).rsplit("\n", 1)[-1]):
            break
        term.key(" ")
    text = SGR.sub("", term.text)
    left = [(int(m.group(1)), int(m.group(2))) for m in MORE_PROMPT.finditer(text)]
    assert len(left) >= 2 and [at for at, _ in left] == [20] * len(left), text[-3000:]
    assert [n for _, n in left] == sorted((n for _, n in left), reverse=True)
    pages = _pages(term.text)
    assert all(len(page) <= 23 for page in pages[:len(left)]), [len(p) for p in pages]
    assert term.prompts()[-1] == 20 and "step 21" not in text, text[-3000:]  # the usual prompt, of the same step
    shown = [line for page in pages[:len(left) + 1] for line in page]
    # every line of both parts once, in order: as --to prints them (a pipe: no styles) at the same width
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    drawn = subprocess.run([sys.executable, "-c", "import sys; from zx_cli.main import main; sys.argv[0] = 'zx'; main()",
                            "--store", str(store), "replay", match, "--event", "22", "--to", "24"],
                           capture_output=True, text=True, env=env, check=True).stdout.splitlines()
    assert [t.split(" · ")[1:3] for t in titles("\n".join(drawn))] == [["step 20", "seq 22/44"],
                                                                         ["step 20", "seq 24/44"]]
    drawn = [line for line in drawn if line.strip()]  # (a page's lines: the blank line between the parts left out)
    assert [line.rstrip() for line in shown] == [line.rstrip() for line in drawn]
    term.key("n")
    assert term.prompts()[-1] == 21 and [t.split(" · ")[1] for t in titles(term.text)][-1] == "step 21"
    term.key("q")
    assert term.end() == 0
