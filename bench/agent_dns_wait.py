"""What gemini-cli waits on where the network is down but the resolver does not say so.

Issue 26 saw gemini-cli take 31 s wall (2.4 s CPU) for a one-tool task offline. Here a
DNS server that reads every query and never answers stands in for such a network: it
listens on 127.0.0.77:53 and the agent sees it through a bind-mounted /etc/resolv.conf
(bubblewrap, sharing the host's network: swept mode, not trialrun's jail). The server
records the names asked for, so the report says what the CLI waited on.

Configurations, each `--runs` times, against a recording proxy answering with the
scripted model of examples/agents/gemini-good.yaml (the CLI writes note.md):
  issue   the settings the issue's try had: an API key and folder trust off, nothing else
          (usage statistics on, the self-relaunch on)
  preset  trialrun's gemini-cli preset (settings.json and environment as a trial has them)
and `trialrun run --agent gemini-cli` of examples/agents/create_note.json, swept
(TRIALRUN_JAIL=off) and jailed, under the same resolver.
Each configuration runs max(--runs, --repeats, 3) times; min/median/max with the load.
Needs root (port 53), bwrap and gemini. Usage: python bench/agent_dns_wait.py [--runs 3]
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _repeat import Series, add_repeats_arg, load_now

from trialrun.agents._proxy import RecordingProxy
from trialrun.agents.preset import base_env
from trialrun.agents.presets import LaunchContext, find_binary, get_preset
from trialrun.models import create_model

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "examples" / "agents" / "gemini-good.yaml"
TASK = ROOT / "examples" / "agents" / "create_note.json"
PROMPT = "Create a file note.md containing 'buy milk'."
DNS_HOST = "127.0.0.77"
ISSUE_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}}
}


class SilentResolver:
    """UDP and TCP port 53 on DNS_HOST: every query read, its name kept, none answered."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind((DNS_HOST, 53))
        self.tcp = socket.socket()
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind((DNS_HOST, 53))
        self.tcp.listen(64)
        self._held: list[socket.socket] = []
        threading.Thread(target=self._udp, daemon=True).start()
        threading.Thread(target=self._tcp, daemon=True).start()

    def _udp(self) -> None:
        while True:
            data, _ = self.udp.recvfrom(4096)
            self.names.append(_qname(data[12:]))

    def _tcp(self) -> None:
        while True:
            conn, _ = self.tcp.accept()
            self._held.append(conn)  # open, silent


def _qname(data: bytes) -> str:
    labels, i = [], 0
    while i < len(data) and data[i]:
        labels.append(data[i + 1 : i + 1 + data[i]].decode("ascii", "replace"))
        i += 1 + data[i]
    return ".".join(labels)


def _resolv(folder: Path) -> Path:
    path = folder / "resolv.conf"
    path.write_text(f"nameserver {DNS_HOST}\n")
    return path


def _wrap(resolv: Path) -> list[str]:
    return ["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(resolv), "/etc/resolv.conf"]


async def bare(config: str, resolv: Path) -> tuple[float, float]:
    """One run of the gemini binary: (wall s, CPU s of its process tree)."""
    preset = get_preset("gemini-cli")
    assert preset is not None
    found = find_binary(preset)
    assert found is not None
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as ws:
        model = create_model(f"scripted:{SCRIPT}")
        async with RecordingProxy(model, task_id="agent-create-note") as proxy:
            launch = preset.launch(LaunchContext(PROMPT, Path(home), Path(ws), proxy.root_url))
            env = base_env(Path(home)) | launch.env
            if config == "issue":
                settings = Path(home) / ".gemini" / "settings.json"
                settings.write_text(json.dumps(ISSUE_SETTINGS))
                env = {
                    k: v
                    for k, v in env.items()
                    if k not in ("GEMINI_CLI_NO_RELAUNCH", "CI", "NO_UPDATE_NOTIFIER")
                }
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = await asyncio.create_subprocess_exec(
                *_wrap(resolv), found.binary, *launch.args, cwd=ws, env=env,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
            await proc.wait()
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert (Path(ws) / "note.md").exists(), f"{config}: gemini-cli did not write the file"
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def trialrun_trial(jail: bool, resolv: Path) -> float:
    """`trialrun run --agent gemini-cli` under the silent resolver: wall s (set-up in)."""
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        if not jail:
            env["TRIALRUN_JAIL"] = "off"
        start = time.perf_counter()
        done = subprocess.run(
            [*_wrap(resolv), sys.executable, "-m", "trialrun", "run", str(TASK), "--agent",
             "gemini-cli", "-m", f"scripted:{SCRIPT}", "--out", out, "-k", "1"],
            capture_output=True, text=True, env=env, cwd=ROOT,
        )  # fmt: skip
        wall = time.perf_counter() - start
        assert done.returncode == 0, done.stderr[-600:]
        line = json.loads(next(Path(out).glob("*/results.jsonl")).read_text().splitlines()[0])
        assert line["solve"] is True, line["verdicts"]
    return wall


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    add_repeats_arg(parser)
    args = parser.parse_args()
    times = max(args.runs, args.repeats, 3)
    preset = get_preset("gemini-cli")
    if os.geteuid() != 0 or shutil.which("bwrap") is None or preset is None:
        print("needs root (a resolver on port 53) and bwrap; skipped")
        return 0
    if find_binary(preset) is None:
        print("gemini-cli is not installed (trialrun agents install gemini-cli); skipped")
        return 0
    resolver = SilentResolver()
    report: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as folder:
        resolv = _resolv(Path(folder))
        for config in ("issue", "preset"):
            asked = len(resolver.names)
            wall, cpu = Series(f"{config}: gemini alone, wall", "s"), Series("CPU", "s")
            for _ in range(times):
                load = load_now()
                run_wall, run_cpu = asyncio.run(bare(config, resolv))
                wall.add(run_wall, load)
                cpu.add(run_cpu, load)
            names = sorted(set(resolver.names[asked:]))
            report[config] = {"wall_s": wall.as_json(), "cpu_s": cpu.as_json(),
                              "looked_up": names}  # fmt: skip
            print(f"{wall.line('.2f')}; {cpu.line('.2f')}; "
                  f"looked up: {', '.join(names) or 'nothing'}")  # fmt: skip
        for jail in (False, True):
            mode = "jailed" if jail else "swept"
            asked = len(resolver.names)
            wall = Series(f"trialrun run, {mode}, one trial (set-up in), wall", "s")
            for _ in range(times):
                load = load_now()
                wall.add(trialrun_trial(jail, resolv), load)
            names = sorted(set(resolver.names[asked:]))
            report[f"trialrun_{mode}"] = {"wall_s": wall.as_json(), "looked_up": names}
            print(f"{wall.line('.2f')}; looked up: {', '.join(names) or 'nothing'}")
    print(json.dumps({"runs": times, "cores": os.cpu_count(), "configs": report}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
