"""A TCP gate in front of a real service: closing it is that service going down for the processes
behind it (refused connections, dropped sockets), with nothing mocked on either side."""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path


class TcpGate:
    """Listens on 127.0.0.1:port and forwards each connection to `upstream` (host, port) or a Unix
    socket path. `close()` refuses new connections and cuts the open ones; `open()` lets them in."""

    def __init__(self, upstream: tuple[str, int] | Path) -> None:
        self.upstream = upstream
        self.port = 0
        self._listener: socket.socket | None = None
        self._links: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.open()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def open(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def close(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            links, self._links = self._links, set()
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for link in links:
            with contextlib.suppress(OSError):
                link.shutdown(socket.SHUT_RDWR)
            link.close()

    def _connect_upstream(self) -> socket.socket:
        if isinstance(self.upstream, Path):
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(str(self.upstream))
            return upstream
        return socket.create_connection(self.upstream)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed
            try:
                upstream = self._connect_upstream()
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:
                    client.close()
                    upstream.close()
                    return
                self._links.update((client, upstream))
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
            with self._lock:
                self._links.discard(source)
                self._links.discard(target)
