"""No network to the Hugging Face hub is said at once: one connect probe, against a real
closed loopback port and a name that cannot resolve, instead of the client's five
retries 4–8 s apart. Offline mode and proxies skip the probe."""

from __future__ import annotations

import socket

import pytest

from trialrun.benchmarks import BENCHMARKS, BenchmarkDataset, _hub
from trialrun.errors import UserError

# the old path retried for about 24 s before the same kind of line; the probe needs none
pytestmark = pytest.mark.timeout(20)


@pytest.fixture(autouse=True)
def fresh_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_hub, "_answers", {})
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", *_hub._PROXIES):
        monkeypatch.delenv(name, raising=False)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends


def load_from_hub() -> None:
    dataset = BenchmarkDataset(BENCHMARKS.get("supergpqa")())  # m-a-p/SuperGPQA
    dataset.load(max_samples=1)


def test_a_closed_hub_port_is_one_line_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    port = closed_port()
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    with pytest.raises(UserError) as refused:
        load_from_hub()
    line = str(refused.value)
    assert line.startswith("dataset 'm-a-p/SuperGPQA': cannot reach the Hugging Face hub")
    assert f"127.0.0.1:{port}: Connection refused" in line
    assert "HF_HUB_OFFLINE=1" in line and "\n" not in line


def test_a_hub_name_that_does_not_resolve_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "https://hub.invalid")  # .invalid never resolves
    with pytest.raises(UserError, match=r"hub\.invalid: no such host"):
        load_from_hub()


def test_the_probe_asks_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    port = closed_port()
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    first = _hub.hub_unreachable()
    assert first is not None
    with socket.create_server(("127.0.0.1", port)):  # now open: the kept answer stands
        assert _hub.hub_unreachable() == first


def test_a_listening_hub_is_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.getsockname()[1]}")
        assert _hub.hub_unreachable() is None


@pytest.mark.parametrize(
    ("name", "value"),
    [("HF_HUB_OFFLINE", "1"), ("HF_DATASETS_OFFLINE", "true"), ("HTTPS_PROXY", "http://p:3128")],
)
def test_offline_mode_or_a_proxy_skips_the_probe(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv(name, value)
    assert _hub.hub_unreachable() is None  # the cache (or the proxy) answers instead


def test_the_probe_timeout_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    for raw, expected in (("0.5", 0.5), ("0", 5.0), ("nan", 5.0), ("999", 5.0), ("x", 5.0)):
        monkeypatch.setenv("TRIALRUN_HUB_TIMEOUT_S", raw)
        assert _hub.probe_timeout() == expected
