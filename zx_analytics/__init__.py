"""zx-events' analytics: the store projected into a DuckDB file, and statistics over it (docs/analytics.md).

- ``zx_analytics.projection.update(svc, PATH)``: brings the analytics file at PATH up to date with the store of the
  ``MatchService`` ``svc`` (``rebuild=True`` makes it again from the store; ``catalogs=``: catalog files given).
- ``zx_analytics.stats.Stats(PATH)``: win rates, matchups, archetypes, the metagame, cards, attacks, life,
  mulligans (each a ``polars.DataFrame``, under the same filters as ``zx stats``), and sandboxed SQL (``sql``).
- ``zx_analytics.export.export_parquet(con, DIR)``: the Parquet export of ``zx export`` (``matches=``: some).

Every error raised for what a script gives or the file holds is a ``zx_events.errors.Error``.
"""
