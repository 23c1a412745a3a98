import click


@click.command()
@click.option("--count", default=3)
@click.option("--name", prompt="Your name")
def hello(count, name):
    for _ in range(count):
        click.echo(f"Hello {name}!")
