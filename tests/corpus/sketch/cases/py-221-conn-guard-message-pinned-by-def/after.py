import socket
import struct

HEADER = struct.Struct("!I")


class ConnectionClosed(Exception):
    pass


class Connection:
    def __init__(self, host, port):
        self.host = host
        self.port = port
        self._sock = None

    def connect(self):
        self._sock = socket.create_connection((self.host, self.port))

    def send(self, payload):
        if self._sock is None:
            raise ConnectionClosed("not connected")
        self._sock.sendall(HEADER.pack(len(payload)) + payload)

    def recv(self):
        if self._sock is None:
            raise ConnectionClosed("connection is not open")
        (size,) = HEADER.unpack(self._read(HEADER.size))
        return self._read(size)

    def _read(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self._sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionClosed("peer closed the connection")
            buf += chunk
        return buf

    def close(self):
        if self._sock is None:
            return
        self._sock.close()
        self._sock = None
