"""Issue 32, item 6: the bwrap jail hides the host.

A jailed command grader once reached a host UNIX socket (docker.sock, dbus), read
/etc/shadow and files under /root. Inside the jail now: a private /run, /tmp and
/dev/shm, no host UNIX socket (by path or, without the network, abstract), no
/etc/shadow, no /root or /home beyond the Python it runs, and the workspace writable.
Skipped where bwrap does not work.
"""

from __future__ import annotations

import ast
import asyncio
import os
import secrets
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from trialrun.sandbox import jail_available, run_contained

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not jail_available(), reason="bwrap is not installed or does not work here"),
]


def jailed(code: str, workspace: Path, *, network: bool = False) -> tuple[int | None, str]:
    """Run Python `code` in the jail; its exit code and stdout+stderr."""
    out = asyncio.run(run_contained([sys.executable, "-c", code], str(workspace), 60,
                                    jail=True, network=network))  # fmt: skip
    return out.exit_code, (out.stdout + out.stderr).decode(errors="replace")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture(params=["/run", "/tmp"])
def host_socket(request: pytest.FixtureRequest) -> Iterator[str]:
    """A listening UNIX socket on the host, as docker.sock or dbus's would be."""
    path = os.path.join(request.param, f"trialrun-host-{secrets.token_hex(6)}.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)
    try:
        yield path
    finally:
        server.close()
        os.unlink(path)


def test_a_host_unix_socket_is_not_reachable(host_socket: str, workspace: Path) -> None:
    assert os.path.exists(host_socket)
    code = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        f"try: s.connect({host_socket!r})\n"
        "except OSError as e: print('refused', e.errno); sys.exit(0)\n"
        "print('CONNECTED'); sys.exit(1)\n"
    )
    code_, output = jailed(code, workspace)
    assert (code_, "CONNECTED" in output) == (0, False), output


def test_an_abstract_unix_socket_of_the_host_is_not_reachable(workspace: Path) -> None:
    name = f"\0trialrun-host-{secrets.token_hex(6)}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(name)
    server.listen(1)
    code = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        f"try: s.connect({name!r})\n"
        "except OSError: sys.exit(0)\n"
        "print('CONNECTED'); sys.exit(1)\n"
    )
    try:
        code_, output = jailed(code, workspace)
    finally:
        server.close()
    assert code_ == 0, output


@pytest.mark.parametrize("secret", ["/etc/shadow", "/etc/gshadow", "/etc/ssl/private"])
def test_host_secrets_under_etc_are_not_visible(secret: str, workspace: Path) -> None:
    if not os.path.exists(secret):
        pytest.skip(f"{secret} does not exist on this host")
    code_, output = jailed(f"import os; print(os.path.lexists({secret!r}))", workspace)
    assert (code_, output.strip()) == (0, "False"), output


def test_nothing_of_root_or_home_beyond_the_python_is_visible(workspace: Path) -> None:
    """A file in /root (the admin's home) and the homes under /home are not there; only
    the folders of the running Python (which may live under /root, as a pyenv does) are."""
    planted = Path("/root") / f".trialrun-secret-{secrets.token_hex(6)}"
    try:
        planted.write_text("host secret\n")
    except OSError:
        pytest.skip("cannot write under /root here (not root)")
    code = (
        "import os\n"
        f"print(os.path.exists({str(planted)!r}))\n"
        "homes = os.listdir('/home') if os.path.isdir('/home') else []\n"
        "print(homes)\n"
        "root = os.listdir('/root') if os.path.isdir('/root') else []\n"
        "print(sorted(root))\n"
    )
    try:
        code_, output = jailed(code, workspace)
    finally:
        planted.unlink()
    lines = output.strip().splitlines()
    assert code_ == 0 and lines[:2] == ["False", "[]"], output
    python_home = os.path.realpath(sys.base_prefix)
    seen_in_root = ast.literal_eval(lines[2])
    for name in seen_in_root:  # only the ancestors of the running Python
        assert python_home.startswith(f"/root/{name}/"), (name, output)


def test_run_tmp_and_shm_are_private_and_writable(workspace: Path) -> None:
    marks = []
    for folder in ("/run", "/tmp", "/dev/shm"):
        if not os.path.isdir(folder):
            continue
        mark = Path(folder) / f"trialrun-host-{secrets.token_hex(6)}"
        mark.write_text("host\n")
        marks.append(mark)
    code = (
        "import os\n"
        f"marks = {[str(m) for m in marks]!r}\n"
        "print([m for m in marks if os.path.exists(m)])\n"
        "for d in ('/run', '/tmp', '/dev/shm'):\n"
        "    open(os.path.join(d, 'mine'), 'w').write('x')\n"
        "print('wrote')\n"
    )
    try:
        code_, output = jailed(code, workspace)
    finally:
        for mark in marks:
            mark.unlink()
    assert (code_, output.split()) == (0, ["[]", "wrote"]), output
    assert not any(Path(d, "mine").exists() for d in ("/run", "/tmp", "/dev/shm"))


def test_the_workspace_is_writable_and_outside_is_not(workspace: Path, tmp_path: Path) -> None:
    code = (
        "import os\n"
        "open('made-here', 'w').write('ok')\n"
        "for path in ('/usr/trialrun-x', '/etc/trialrun-x', '/trialrun-x'):\n"
        "    try: open(path, 'w')\n"
        "    except OSError: continue\n"
        "    print('WROTE', path)\n"
    )
    code_, output = jailed(code, workspace)
    assert code_ == 0 and "WROTE" not in output, output
    assert (workspace / "made-here").read_text() == "ok"


def test_what_a_command_needs_still_works(workspace: Path) -> None:
    """Users and groups resolve, the dynamic loader, shell tools, TLS roots and this
    Python's own packages are there."""
    code = (
        "import os, pwd, ssl, subprocess, psutil\n"
        "print(pwd.getpwuid(os.getuid()).pw_name)\n"
        "print(subprocess.run(['sh', '-c', 'ls / >/dev/null && echo shell'],"
        " capture_output=True, text=True).stdout.strip())\n"
        "print(bool(ssl.create_default_context().get_ca_certs()) or"
        " os.path.isdir(ssl.get_default_verify_paths().capath or '/nonexistent'))\n"
    )
    code_, output = jailed(code, workspace)
    import pwd

    assert code_ == 0, output
    assert output.split() == [pwd.getpwuid(os.getuid()).pw_name, "shell", "True"], output


def test_an_agent_jail_keeps_loopback_to_the_host(workspace: Path) -> None:
    """A jailed `--agent-cmd` keeps the network: it reaches the recording proxy on the
    host's loopback, while the filesystem is hidden as for graders."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    code = (
        "import os, socket\n"
        f"socket.create_connection(('127.0.0.1', {port}), timeout=10).close()\n"
        "print('reached', os.path.exists('/etc/shadow'))\n"
    )
    try:
        code_, output = jailed(code, workspace, network=True)
    finally:
        server.close()
    assert (code_, output.strip()) == (0, "reached False"), output
