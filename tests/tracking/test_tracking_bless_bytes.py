"""`trialrun bless` writes the same bytes as before its baseline was streamed to disk.

The golden files were written by the version that built the whole baseline document in
memory (`json.dumps(..., indent=2)` of one dict); only `blessed_at` is pinned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from trialrun.rundir import Manifest, ResultLine, RunDir
from trialrun.rundir import _json as rundir_json
from trialrun.tracking import bless

MODELS = ("openai-compat:golden-model-2026-01-01", "gemini:gemini-2.5-flash-001")
TASK_IDS = ("alpha", "tâche-ü", "beta/ring", "gamma", "delta")
K = 3
GOLDEN = Path(__file__).parent / "data" / "golden_baselines"
BLESSED_AT = '  "blessed_at": "2026-01-01T00:00:00Z",'


def write_golden_run(out: Path) -> Path:
    """Five tasks × two models × k = 3, with an undetermined verdict and varied figures."""
    metas: list[dict[str, Any]] = [
        {"task_id": t, "suite": ("golden", "adversarial")[i % 2], "tier": f"T{1 + i % 3}",
         "tags": [f"tag{i % 2}"], "k": K, "metric": "pass^k"}
        for i, t in enumerate(TASK_IDS)
    ]
    manifest = Manifest(run_id="20260101T000000Z-golden", started_at="2026-01-01T00:00:00+00:00",
                        models=list(MODELS), trialrun_version="test", tasks=metas)
    run = RunDir.create(out, manifest.run_id or "golden", manifest, fsync=False)
    for m, model in enumerate(MODELS):
        for i, meta in enumerate(metas):
            for trial in range(K):
                ok = (i * 7 + trial * 3 + m) % 4 > 0
                solve: bool | None = None if (i, trial, m) == (3, 1, 0) else ok
                run.append(ResultLine(
                    task_id=str(meta["task_id"]), model=model, trial=trial, passed=True,
                    solve=solve, provider=model.partition(":")[0],
                    verdicts=[{"grader": "contains", "passed": ok}],
                    tool_calls=[{"name": "read_file", "arguments": {"path": "x"}, "ok": True}],
                    turns=1 + trial, tokens={"prompt": 300 + i, "cached": 0, "completion": 20},
                    cost_usd=0.0004 + 0.0001 * ((trial + i) % 3),
                    latency_s=0.123456789 * (1 + i) + 0.1 * trial + 0.01 * m,
                    extra={"suite": meta["suite"], "tier": meta["tier"]}), sync=False)
    run.close()
    return run.path


def pinned(text: str) -> str:
    """A baseline's text with its `blessed_at` (the time of blessing) pinned."""
    return "\n".join(
        BLESSED_AT if line.startswith('  "blessed_at": ') else line for line in text.split("\n")
    )


def test_blessed_files_are_byte_identical_to_the_golden_ones(tmp_path: Path) -> None:
    run = write_golden_run(tmp_path / "results")
    blessed = bless(run, tmp_path / "baselines", force=True,
                    reason="golden file: an undetermined verdict kept")
    assert sorted(b.path.name for b in blessed) == sorted(p.name for p in GOLDEN.iterdir())
    for b in blessed:
        written = pinned(b.path.read_bytes().decode("utf-8")).encode("utf-8")
        assert written == (GOLDEN / b.path.name).read_bytes(), b.path.name


def test_bless_never_encodes_the_whole_document_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each task entry is encoded and written in turn: no one encoding holds the file."""
    encoded: list[int] = []
    indented = rundir_json._indented

    def counting(data: Any) -> str:
        text = indented(data)
        encoded.append(len(text))
        return text

    monkeypatch.setattr(rundir_json, "_indented", counting)
    run = write_golden_run(tmp_path / "results")
    blessed = bless(run, tmp_path / "baselines", force=True, reason="golden")
    largest_file = max(len(b.path.read_text(encoding="utf-8")) for b in blessed)
    assert encoded and max(encoded) < largest_file / 2, (max(encoded), largest_file)
