"""PostgreSQL login roles for the tests of docs/deployment.md's grants: a role's name, the store's URL as it,
and the role made with its grants for one block (dropped with what it owns when the block ends)."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from typing import Iterator
from urllib.parse import urlparse


def new_role(prefix: str, url: str) -> tuple[str, str]:
    """The name of a role not made yet (``PREFIX_`` and 8 random hex digits) and ``url`` as that role."""
    role = f"{prefix}_{uuid.uuid4().hex[:8]}"
    u = urlparse(url)
    return role, u._replace(netloc=f"{role}@{u.hostname}:{u.port}").geturl()


@contextmanager
def granted(env: dict[str, str], role: str, *grants: str) -> Iterator[None]:
    """The login role ``role`` with USAGE on the store's schema and the ``grants`` (``SELECT ON {t}.x``: ``{t}``
    is the quoted schema), dropped with what it owns when the block ends."""
    from zx_events.store import connect_postgres

    schema = f'"{env["POSTGRES_SCHEMA"]}"'
    with connect_postgres(env) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'GRANT USAGE ON SCHEMA {schema} TO "{role}"')
        for grant in grants:
            conn.execute(f'GRANT {grant.format(t=schema)} TO "{role}"')
    try:
        yield
    finally:
        with connect_postgres(env) as conn:
            conn.execute(f'DROP OWNED BY "{role}"')
            conn.execute(f'DROP ROLE "{role}"')


READER = "SELECT ON {t}.matches_events, {t}.matches_snapshots"  # docs/deployment.md's reader, past USAGE
IMPORTER = ("USAGE ON ALL SEQUENCES IN SCHEMA {t}", "SELECT, INSERT ON {t}.matches_events, {t}.matches_snapshots",
            "UPDATE ON {t}.matches_events")  # docs/deployment.md's importer, past USAGE
