"""A TCP proxy on 127.0.0.1 to a test server: a real network path a test can lose (no mock of the
database): ``close()`` cuts every connection it forwards and refuses new ones, as a server that went
away looks to its clients. Used by the PostgreSQL tests of a server lost under a command and under
``zx serve``."""

from __future__ import annotations

import socket
import threading


class TcpProxy:
    """Forwards connections to ``target`` (host, port) from ``port`` (0: any free one): at most ``allow``
    of them (then it refuses the others, its listening socket closed), until ``close()``."""

    def __init__(self, target: tuple[str, int], port: int = 0, allow: int | None = None) -> None:
        self.target, self.allow = target, allow
        self.listener = socket.create_server(("127.0.0.1", port))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.open: list[socket.socket] = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        accepted = 0
        while self.allow is None or accepted < self.allow:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            accepted += 1
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                if self.closed:
                    client.close()
                    upstream.close()
                    return
                self.open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()
        self.listener.close()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        with self.lock:
            self.closed = True
            cut = list(self.open)
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept
        except OSError:
            pass
        self.listener.close()
        for s in cut:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
