"""The ``zx`` command line (``zx_cli.main``)."""


def main() -> None:
    """The ``zx`` entry point: ``zx_cli.main.main``, imported here. A Ctrl-C while the command line's modules
    were imported (its first ~40 ms, before ``zx_cli.main.main`` reports one itself) printed the traceback of
    a KeyboardInterrupt; it is "Aborted!", exit 1, as at any later moment. (A Ctrl-C in Python's own start,
    before this runs, is the interpreter's: "Fatal Python error: init_import_site" or a silent exit.)"""
    import sys

    try:
        from zx_cli.main import main as run
    except KeyboardInterrupt:
        sys.stderr.write("Aborted!\n")
        sys.exit(1)
    run()
