"""Inside a jail without network: `python -I -S _loopback_bridge.py SOCKET PORT -- ARGV…`.

Listens on the jail's own 127.0.0.1:PORT (the proxy's port, so the agent's URLs stay the
same), forwards each connection to the proxy's UNIX socket bound in from the host, runs
ARGV and exits with its code. So a jailed agent reaches the proxy and nothing else: the
jail has its own network namespace, with only a loopback interface. Standard library only.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            upstream.close()
            continue
        threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()


def main(argv: list[str]) -> int:
    path, port, separator, *command = argv
    if separator != "--" or not command:
        print("usage: _loopback_bridge.py SOCKET PORT -- ARGV…", file=sys.stderr)
        return 2
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(port)))
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
