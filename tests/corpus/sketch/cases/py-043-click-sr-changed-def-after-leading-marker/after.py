"""Command line entry points."""

import functools
import json
import sys

import click

from .config import load_config
from .store import open_store


def pass_store(f):
    """Open the store named in the config and pass it as the first argument."""

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        with open_store(load_config()) as store:
            return f(store, *args, **kwargs)

    return wrapper


@click.group()
@click.version_option()
def cli():
    """Manage the key-value store."""


@cli.command()
@click.argument("key")
@pass_store
def get(store, key):
    """Print the value stored under KEY."""
    value = store.get(key)
    if value is None:
        click.echo(f"no such key: {key}", err=True)
        sys.exit(1)
    click.echo(value)


@cli.command()
@click.argument("key")
@click.argument("value")
@pass_store
def put(store, key, value):
    """Store VALUE under KEY."""
    store.put(key, value)


@cli.command(name="list")
@pass_store
def list_keys(store, prefix=""):
    """List every key."""
    for key in sorted(store.keys()):
        if key.startswith(prefix):
            click.echo(key)


if __name__ == "__main__":
    cli()
