"""The ``zx`` command (placeholder until the CLI lands)."""
import click


@click.group()
def zx() -> None:
    """zx: replay, audit and analyse Z/X matches."""


def main() -> None:
    zx()
