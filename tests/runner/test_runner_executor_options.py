"""Bad executor options (`--executor`, `--ray-address`, `--processes`, their trialrun.toml
keys) are one line on stderr, exit 2, no traceback, and nothing is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "tasks"
GOOD = f"scripted:{ROOT / 'examples' / 'scripts' / 'good.yaml'}"


@pytest.mark.parametrize(
    ("args", "config", "needle"),
    [
        (["--executor", "nope"], None, "--executor nope: unknown executor; use one of: local, ray"),
        ([], '[run]\nexecutor = "nope"\n', "trialrun.toml: [run] executor: unknown executor"),
        (["--ray-address", "127.0.0.1:1"], None, "--ray-address: only with --executor ray"),
        (["--executor", "ray", "--ray-address", "127.0.0.1:1"], None,
         "--ray-address 127.0.0.1:1: nothing answers there"),
        (["--processes", "0"], None, "--processes: 0 is not a number of processes; give 1 to 256"),
        (["--processes", "two"], None, "--processes: 'two' is not a number of processes"),
        (["--processes", "2", "--executor", "ray"], None,
         "--processes: only with the local executor"),
        ([], "[run]\nprocesses = 0\n", "trialrun.toml: [run] processes: 0 is not a number"),
        ([], "[run]\nprocesses = true\n", "trialrun.toml: [run] processes: True is not a"),
    ],
)  # fmt: skip
def test_a_bad_executor_option_is_one_line(tmp_path, args, config, needle):
    if config:
        (tmp_path / "trialrun.toml").write_text(config)
    done = subprocess.run([sys.executable, "-m", "trialrun", "run", str(EXAMPLES), "-m", GOOD,
                           "--out", "o", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=240)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and needle in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "o").exists()  # refused before anything was written
