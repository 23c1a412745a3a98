from typing import Protocol


class Store(Protocol):
    def get(self, key: str) -> bytes:
        """Return the value."""

    def put(self, key: str, value: bytes) -> None:
        """Store the value."""


def helper():
    return 1
