"""What the bwrap jail shows of the host: the bind flags for everything a command sees.

Nothing of the host is visible unless listed here. Read-only: the system folders
(`SYSTEM_DIRS`, a merged-/usr link kept a link), the `/etc` files programs read to run
(`ETC_FILES`: the loader's cache, users and groups, name resolution, TLS roots,
alternatives, time zone — never shadow files or private keys), and the installations a
command needs: the running Python (its prefixes and import path, e.g. a pyenv under
/root, a venv or an editable checkout) and Node (`node` on PATH). Private and empty: /tmp,
/run, /dev (a minimal one, its own /dev/shm), /proc of the jail's own pid namespace. So no
/root, /home, /var, /srv or /mnt, and no host UNIX socket (docker.sock, dbus: they live in
/run, /var/run, /tmp); the workspace is the only writable host path.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
ETC_FILES = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
    "passwd", "group", "nsswitch.conf",
    "hosts", "host.conf", "resolv.conf", "gai.conf", "services", "protocols",
    "ssl/certs", "ssl/openssl.cnf", "ca-certificates", "ca-certificates.conf",
    "pki/tls/certs", "pki/ca-trust", "crypto-policies",
    "alternatives", "localtime", "timezone", "locale.alias", "mime.types",
    "os-release", "debian_version",
)  # fmt: skip
PRIVATE_DIRS = ("/tmp", "/run")  # empty tmpfs: nothing of the host's, a socket least of all
_NEVER_WHOLE = ("/", "/root", "/home", "/etc", "/var", "/tmp", "/run", "/proc", "/sys", "/dev")


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _system_flags() -> list[str]:
    flags: list[str] = []
    for folder in SYSTEM_DIRS:
        if os.path.islink(folder):  # merged /usr: /bin -> usr/bin
            flags += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            flags += ["--ro-bind", folder, folder]
    return flags


def _etc_flags() -> list[str]:
    flags: list[str] = []
    for name in ETC_FILES:
        path = os.path.join("/etc", name)
        if os.path.exists(path):  # the source followed (resolv.conf may link into /run)
            flags += ["--ro-bind", os.path.realpath(path), path]
    return flags


def _node_prefix() -> str | None:
    node = shutil.which("node")
    if node is None:
        return None
    return os.path.dirname(os.path.dirname(os.path.realpath(node)))


@functools.cache
def installations() -> tuple[str, ...]:
    """The Python and Node folders a command needs that the system folders don't cover:
    the fewest folders, none a home or another whole host folder (`_NEVER_WHOLE`)."""
    candidates = [
        sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
        *(p for p in sys.path if p), _node_prefix(),
    ]  # fmt: skip
    homes = {os.path.realpath(os.path.expanduser("~")), *_NEVER_WHOLE}
    if os.path.isdir("/home"):
        homes.update(os.path.join("/home", name) for name in os.listdir("/home"))
    system = [os.path.realpath(f) for f in SYSTEM_DIRS if os.path.isdir(f)]
    found = set()
    for candidate in candidates:
        if not candidate:
            continue
        path = os.path.realpath(candidate)
        if not os.path.isdir(path) or path in homes or any(_under(h, path) for h in homes):
            continue  # a home, or a folder holding one (a script run from ~): not whole
        if any(_under(path, s) for s in system):
            continue
        found.add(path)
    kept = sorted(found)
    return tuple(p for p in kept if not any(p != q and _under(p, q) for q in kept))


def view_flags() -> list[str]:
    """bwrap flags for the host view (the module docstring), before the workspace bind."""
    flags = _system_flags()
    flags += ["--dev", "/dev", "--proc", "/proc"]
    for folder in PRIVATE_DIRS:
        flags += ["--tmpfs", folder]
    flags += _etc_flags()
    for folder in installations():
        flags += ["--ro-bind", folder, folder]
    return flags
