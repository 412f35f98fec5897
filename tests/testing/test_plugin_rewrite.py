"""The plugin rewrites assertions in test modules only, never in trialrun's own modules.

pytest marks every package of a distribution with a `pytest11` entry point for rewriting.
An editable install lists no package files, so the test installs, beside it, a distribution
shaped like trialrun's wheel (its RECORD lists `trialrun/__init__.py`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def _wheel_shaped_dist(site: Path) -> None:
    info = site / "trialrun_wheel_probe-0.dist-info"
    info.mkdir(parents=True)
    metadata = "Metadata-Version: 2.1\nName: trialrun-wheel-probe\nVersion: 0\n"
    (info / "METADATA").write_text(metadata)
    (info / "RECORD").write_text("trialrun/__init__.py,,\ntrialrun_wheel_probe.py,,\n")
    (info / "entry_points.txt").write_text("[pytest11]\nwheel_probe = trialrun_wheel_probe\n")
    (site / "trialrun_wheel_probe.py").write_text('"""An empty pytest plugin."""\n')


def test_trialrun_modules_are_not_rewritten_test_modules_are(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = pytester.path / "site"
    _wheel_shaped_dist(site)
    path = os.pathsep.join([str(site), str(SRC), os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", path)
    pytester.makepyfile(test_probe='''
        import trialrun.rundir._rundir
        import trialrun.runner


        def test_trialrun_is_imported_as_python_compiles_it():
            assert "@py_builtins" not in vars(trialrun.rundir._rundir)
            assert "@py_builtins" not in vars(trialrun.runner)


        def test_this_test_module_is_rewritten():
            assert "@py_builtins" in globals()
    ''')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
