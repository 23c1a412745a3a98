from typing import Protocol


class Reader(Protocol):
    def read(self) -> bytes: ...


class FileReader:
    def __init__(self, path):
        self.path = path

    def open(self):
        return open(self.path, "rb")

    def read(self) -> bytes:
        with self.open() as f:
            return f.read(1024)
