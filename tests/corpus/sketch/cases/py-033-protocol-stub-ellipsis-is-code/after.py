"""Storage backends used by the cache layer."""

from __future__ import annotations

from typing import Iterator, Protocol, runtime_checkable


@runtime_checkable
class Backend(Protocol):
    """What the cache needs from a storage backend."""

    def get(self, key: str) -> bytes | None:
        ...

    def set(self, key: str, value: bytes, ttl: int | None = None) -> None:
        ...

    def delete(self, key: str) -> bool:
        ...

    def keys(self) -> Iterator[str]:
        ...

    def clear(self) -> None:
        ...


class MemoryBackend:
    """A dict-backed backend for tests."""

    def __init__(self) -> None:
        self._data: dict[str, bytes] = {}

    def get(self, key: str) -> bytes | None:
        return self._data.get(key)

    def set(self, key: str, value: bytes, ttl: int | None = None) -> None:
        self._data[key] = value

    def delete(self, key: str) -> bool:
        return self._data.pop(key, None) is not None

    def keys(self) -> Iterator[str]:
        return iter(list(self._data))

    def clear(self) -> None:
        self._data.clear()
