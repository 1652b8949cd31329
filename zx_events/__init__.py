"""zx-events: match logs of trading card games (Z/X, X610Z) checked against their rules and stored as events.

The Python API (docs/replay.md, "From Python"; docs/analytics.md, "In a notebook"):

- ``zx_events.application.MatchService(STORE, create=False)``: a store of matches; ``summaries()`` lists them,
  ``import_logs`` checks and stores logs (``zx_events.logformat.reader.read_log(PATH)`` reads a file's).
- ``zx_events.replay``: a stored match's state and views at any event, turn or step, as a seat sees it
  (``view_at``, ``steps``, ``load_history``), and ``verify_match``, its digest chain checked.
- ``zx_events.matchlist``: the match list's filters, as ``zx matches`` keeps them (``kept``, ``MatchFilters``).
- ``zx_events.audit``: a log or stored match re-checked by the rules engine; ``zx_events.bundle``: dispute bundles.
- ``zx_analytics``: the statistics over the analytics file the store is projected into.

Every error raised for what a script gives or zx finds is a ``zx_events.errors.Error``.
"""
