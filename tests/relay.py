"""A TCP relay on 127.0.0.1 whose connections a test can cut, as a network that drops would.

Shared by the SSH tests (a cut SSH connection) and the evening test (a cut game connection).
"""

from __future__ import annotations

import socket
import struct
import threading


class CuttableRelay:
    """A TCP relay from an ephemeral port to ``target_port`` whose connections the test can cut (RST
    both ways: no FIN, no goodbye); new connections (a client reconnecting) are relayed as before."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.pairs: list[tuple[socket.socket, socket.socket]] = []  # in accept order; cut ones stay listed
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                near, _ = self.listener.accept()
            except OSError:
                return
            try:
                far = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                near.close()
                continue
            with self._lock:
                self.pairs.append((near, far))
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(1 << 16):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self, index: int | None = None) -> None:
        """Reset connection number ``index`` (in accept order), or every connection relayed so far."""
        with self._lock:
            pairs = self.pairs[:] if index is None else [self.pairs[index]]
        for pair in pairs:
            for sock in pair:
                try:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    sock.close()
                except OSError:
                    pass

    def close(self) -> None:
        self.listener.close()
        self.cut()
