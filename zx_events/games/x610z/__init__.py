"""X610Z on the zx-events engine (see docs/rules-x610z.md, docs/match-log-x610z.md)."""
