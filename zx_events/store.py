"""Where matches are stored: ``--store`` / ``ZX_STORE`` to an ``eventsourcing`` environment.

- a file path (the default, ``zx-store.sqlite`` in the working directory): the embedded SQLite store;
- ``memory:``: in memory, for tests and dry runs;
- ``postgresql://USER[:PASSWORD]@HOST[:PORT]/DB``: a shared PostgreSQL (``eventsourcing.postgres``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

DEFAULT_STORE = "zx-store.sqlite"


@dataclass(frozen=True)
class StoreConfig:
    url: str
    kind: str  # sqlite, memory, postgres
    env: dict[str, str]

    @property
    def path(self) -> Path | None:
        return Path(self.env["SQLITE_DBNAME"]) if self.kind == "sqlite" else None

    @property
    def label(self) -> str:
        if self.kind == "postgres":
            u = urlparse(self.url)
            return f"postgresql://{u.username or ''}@{u.hostname}:{u.port or 5432}{u.path}"
        return self.url


def resolve_store(store: str | None = None) -> StoreConfig:
    url = store or os.environ.get("ZX_STORE") or DEFAULT_STORE
    if url in ("memory:", ":memory:"):
        return StoreConfig(url, "memory", {"PERSISTENCE_MODULE": "eventsourcing.popo"})
    if url.startswith(("postgresql://", "postgres://")):
        u = urlparse(url)
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": (u.path or "/").lstrip("/") or "postgres",
            "POSTGRES_HOST": u.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(u.port or 5432),
            "POSTGRES_USER": unquote(u.username or os.environ.get("PGUSER", "postgres")),
            "POSTGRES_PASSWORD": unquote(u.password or os.environ.get("PGPASSWORD", "")),
            "POSTGRES_CREATE_TABLE": "y",
        }
        return StoreConfig(url, "postgres", env)
    path = Path(url.removeprefix("sqlite://")).expanduser()
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    return StoreConfig(str(path), "sqlite", {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(path),
        "SQLITE_LOCK_TIMEOUT": "30",
        "CREATE_TABLE": "y",
    })
