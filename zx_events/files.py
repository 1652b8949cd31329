"""Files a command is given to read: only regular files, opened without waiting, read within a limit.

A path given to read may be a named pipe (FIFO), a device (``/dev/zero``), a socket, or a link to one:
opening a FIFO for reading waits for a writer, and a device never ends. ``open_regular`` opens the path
without waiting (``O_NONBLOCK``, which does nothing more on a regular file), asks the open file what it is
(``fstat``: the file read, whatever a link named) and refuses anything but a regular file before a byte is
read. ``Capped`` reads a stream (a zip's member) and fails past a number of bytes, whatever its header said.
"""

from __future__ import annotations

import io
import os
import stat
from typing import BinaryIO


SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file
DUCKDB_MAGIC = b"DUCK"  # bytes 8-11 of every DuckDB database file (after its header's checksum)


def database_kind(path: str | os.PathLike) -> str | None:
    """``duckdb`` or ``sqlite`` when ``path`` is a regular file that begins as a database of that kind does (its
    first 16 bytes); else None (another file, nothing there, one that cannot be read, or no regular file, which
    is never opened: a FIFO would wait for its writer)."""
    if not_regular(path) is not None:
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        return None
    return "duckdb" if head[8:12] == DUCKDB_MAGIC else "sqlite" if head == SQLITE_MAGIC else None


def kind(mode: int) -> str:
    """What a file of ``mode`` is, in words: ``a named pipe (FIFO)``, ``a device``..."""
    return ("a folder" if stat.S_ISDIR(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a special file")


class NotRegular(OSError):
    """The path is not a regular file (``what``: its kind in words); nothing was read from it."""

    def __init__(self, path: str, what: str) -> None:
        super().__init__(f"{path} is {what}, not a regular file")
        self.filename = path
        self.what = what


def not_regular(path: str | os.PathLike) -> str | None:
    """``a named pipe (FIFO)``, ``a device``... when ``path`` (followed through links) is there and is no
    regular file; None otherwise (a regular file, or nothing there: opening it says so). Never opens it."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) else kind(mode)


def open_regular(path: str | os.PathLike) -> tuple[BinaryIO, int]:
    """``path`` opened for reading in binary and its size; ``NotRegular`` (an ``OSError``) when it is not a
    regular file, after links, without reading it or waiting for a FIFO's writer. Other ``OSError`` as ``open``."""
    what = not_regular(path)  # (before opening: a FIFO opened with O_NONBLOCK would still be opened)
    if what is not None:
        raise NotRegular(os.fspath(path), what)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)  # what was opened (the path may have changed since the stat)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(os.fspath(path), kind(st.st_mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), st.st_size
    except BaseException:
        os.close(fd)
        raise


class TooBig(ValueError):
    """A stream ran past its limit (``limit`` bytes)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit:,} bytes")
        self.limit = limit


class Capped(io.RawIOBase):
    """``stream`` read as it is, until more than ``limit`` bytes came out of it: then ``TooBig``. A zip
    member's header says its size, and a crafted one lies: what counts is what decompresses."""

    def __init__(self, stream: BinaryIO, limit: int) -> None:
        self.stream, self.limit, self.count = stream, limit, 0

    def readable(self) -> bool:
        return True

    def _counted(self, data: bytes) -> bytes:
        self.count += len(data)
        if self.count > self.limit:
            raise TooBig(self.limit)
        return data

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:  # (never the whole stream at once: a block at a time, counted)
            parts = []
            while chunk := self.read(1 << 20):
                parts.append(chunk)
            return b"".join(parts)
        return self._counted(self.stream.read(min(size, self.limit + 1 - self.count)))

    def read1(self, size: int = -1) -> bytes:
        size = 1 << 20 if size is None or size < 0 else size
        return self._counted(self.stream.read(min(size, self.limit + 1 - self.count)))

    def readinto(self, b) -> int:
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)


def read_capped(stream: BinaryIO, limit: int) -> bytes:
    """All of ``stream``, at most ``limit`` bytes; ``TooBig`` past it (never more than ``limit`` + 1 read)."""
    return Capped(stream, limit).read()


def read_limited(path: str | os.PathLike, limit: int) -> tuple[bytes | None, int]:
    """(the bytes of the regular file ``path``, its size), or (None, its size) when it holds more than ``limit``
    bytes: asked of the open file before a byte is read, and never more than ``limit`` + 1 read (a file that grew
    since: its size then). ``NotRegular`` and other ``OSError`` as ``open_regular``."""
    f, size = open_regular(path)
    with f:
        if size > limit:
            return None, size
        try:
            return read_capped(f, limit), size
        except TooBig:  # (it grew past the limit since: its size now)
            return None, max(os.fstat(f.fileno()).st_size, limit + 1)
