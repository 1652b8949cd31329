"""The web side of zx-events: the replay viewer page (viewer.py) and its static files; the read-only
JSON API, match browser and metagame dashboard of ``zx serve`` (app.py, api.py, pages.py, dashboard.py).

``zx_web.app.create_app(store, judge=False)`` builds the ASGI application that ``zx serve`` runs under
uvicorn; ``zx_web.dashboard`` draws the charts (also for ``zx report``). See docs/serve.md.
"""
