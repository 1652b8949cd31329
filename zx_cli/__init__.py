"""The ``zx`` command line (``zx_cli.main``)."""


def main() -> None:
    """The ``zx`` entry point: ``zx_cli.main.main``, imported here. A Ctrl-C while the command line's modules
    were imported (its first ~40 ms, before ``zx_cli.main.main`` reports one itself) printed the traceback of
    a KeyboardInterrupt; it is "Aborted!", exit 1, as at any later moment. (A Ctrl-C in Python's own start,
    before this runs, is the interpreter's: "Fatal Python error: init_import_site" or a silent exit.)"""
    import sys

    from zx_cli import sigterm

    sigterm.take()  # SIGTERM as Ctrl-C from here (zx_cli.sigterm): it ended this first ~40 ms without a word
    try:
        from zx_cli.main import main as run
    except KeyboardInterrupt:
        sys.stderr.write("Aborted! (SIGTERM)\n" if sigterm.terminated() else "Aborted!\n")
        if sigterm.terminated():
            sigterm.end()
        sys.exit(1)
    run()
