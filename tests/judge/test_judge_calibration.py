"""Calibration numbers against hand computation; `calibrate --recorded` loads no model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import cli_process as run_cli
from trialrun.analysis import calibrate_recorded, load_gold, score_judge

# A hand-made gold file: (automated_verdict, human_label).
# 1-4: judge YES, human YES  → tp = 4
# 5:   judge YES, human NO   → fp = 1
# 6:   judge NO,  human YES  → fn = 1
# 7-9: judge NO,  human NO   → tn = 3
# 10:  judge failed (null), human YES → judge_failed = 1 (left out of n)
# 11-12: unlabelled → skipped_unlabelled = 2
ROWS = [
    (True, "YES"),
    (True, "YES"),
    (True, "YES"),
    (True, "YES"),
    (True, "NO"),
    (False, "YES"),
    (False, "NO"),
    (False, "NO"),
    (False, "NO"),
    (None, "YES"),
    (True, None),
    (False, None),
]
# n = 9; agreement = (tp + tn) / n = 7/9
# human YES = tp + fn = 5 of 9, human NO = 4 → majority_baseline = 5/9
# judge YES = tp + fp = 5 of 9 → p_e = (5/9)(5/9) + (4/9)(4/9) = 41/81
# κ = (7/9 − 41/81) / (1 − 41/81) = (22/81) / (40/81) = 22/40 = 0.55
# precision_yes = 4/5, recall_yes = 4/5, f1_yes = 0.8
# precision_no = tn/(tn+fn) = 3/4, recall_no = tn/(tn+fp) = 3/4, f1_no = 0.75
EXPECTED = {
    "judge": "recorded",
    "n": 9,
    "agreement": 7 / 9,
    "kappa": 0.55,
    "majority_baseline": 5 / 9,
    "confusion": {"tp": 4, "fp": 1, "tn": 3, "fn": 1},
    "precision_yes": 0.8,
    "recall_yes": 0.8,
    "f1_yes": 0.8,
    "precision_no": 0.75,
    "recall_no": 0.75,
    "f1_no": 0.75,
    "skipped_unlabelled": 2,
    "judge_failed": 1,
}


def gold_doc() -> dict:
    tuples = [
        {
            "id": f"t{i}",
            "task_id": f"task-{i}",
            "user_message": f"question {i}",
            "criteria": "answers the question",
            "response": f"answer {i}",
            "automated_verdict": verdict,
            "judge_error": None if verdict is not None else "judge timed out",
            "human_label": label,
        }
        for i, (verdict, label) in enumerate(ROWS, 1)
    ]
    return {
        "version": 1,
        "generated_at": "2025-01-01T00:00:00Z",
        "source": {"run_id": "r1", "git_sha": None, "provider": "scripted", "model": "x"},
        "tuples": tuples,
    }


@pytest.fixture
def gold_file(tmp_path: Path) -> Path:
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(gold_doc()), encoding="utf-8")
    return path


def assert_matches(actual: dict, expected: dict) -> None:
    for key, value in expected.items():
        if isinstance(value, float):
            assert actual[key] == pytest.approx(value), key
        else:
            assert actual[key] == value, key


def test_recorded_scores_match_hand_computation(gold_file: Path) -> None:
    score = calibrate_recorded(load_gold(gold_file))
    assert_matches(score.as_dict(), EXPECTED)
    # 7/9 = 0.778 beats 5/9 + 0.05 = 0.606: no baseline warning, but the failed tuple is told
    assert not any("majority" in w for w in score.warnings)
    assert any("no verdict on 1" in w for w in score.warnings)


def test_always_yes_judge_on_imbalanced_labels_is_flagged() -> None:
    # 8 human YES, 2 human NO; judge always YES: tp = 8, fp = 2, tn = fn = 0
    # agreement = 8/10 = majority baseline 8/10 → warning
    # p_e = 1·0.8 + 0·0.2 = 0.8 → κ = (0.8 − 0.8)/(1 − 0.8) = 0
    # precision_no = 0/0 → null; recall_no = 0/2 = 0; f1_no null (precision undefined)
    pairs = [(True, True)] * 8 + [(True, False)] * 2
    s = score_judge("always-yes", pairs)
    assert s.confusion == {"tp": 8, "fp": 2, "tn": 0, "fn": 0}
    assert s.agreement == pytest.approx(0.8)
    assert s.majority_baseline == pytest.approx(0.8)
    assert s.kappa == pytest.approx(0.0)
    assert s.precision_yes == pytest.approx(0.8) and s.recall_yes == pytest.approx(1.0)
    assert s.f1_yes == pytest.approx(2 * 0.8 / 1.8)
    assert s.precision_no is None and s.recall_no == 0.0 and s.f1_no is None
    assert any("does not clearly beat" in w for w in s.warnings)


def test_kappa_undefined_when_everyone_says_yes() -> None:
    s = score_judge("j", [(True, True)] * 3)
    assert s.agreement == 1.0 and s.kappa is None and s.majority_baseline == 1.0


def test_perfect_disagreement_kappa_is_minus_one() -> None:
    # tp = tn = 0, fp = fn = 2: p_o = 0, p_e = 0.5·0.5 + 0.5·0.5 = 0.5 → κ = −0.5/0.5 = −1
    s = score_judge("j", [(True, False)] * 2 + [(False, True)] * 2)
    assert s.kappa == pytest.approx(-1.0) and s.agreement == 0.0


def test_cli_calibrate_recorded_json(gold_file: Path, tmp_path: Path) -> None:
    proc = run_cli("judge", "calibrate", str(gold_file), "--recorded", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    doc = json.loads(proc.stdout)
    assert set(doc) == {"judges", "warnings"}
    assert_matches(doc["judges"][0], EXPECTED)
    assert doc["warnings"] == ["recorded: no verdict on 1 labelled tuple(s)"]


def test_calibrate_recorded_loads_no_model(gold_file: Path, tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from trialrun.cli import main\n"
        f"sys.argv = ['trialrun', 'judge', 'calibrate', {str(gold_file)!r}, '--recorded', "
        "'--json']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "heavy = [m for m in ('llama_cpp', 'openai', 'anthropic', 'google.genai', "
        "'trialrun.models.builtin', 'trialrun.models.scripted') if m in sys.modules]\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY []" in proc.stderr
    assert json.loads(proc.stdout)["judges"][0]["judge"] == "recorded"


def test_cli_calibrate_table(gold_file: Path, tmp_path: Path) -> None:
    proc = run_cli("judge", "calibrate", str(gold_file), "--recorded", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "recorded" in proc.stdout and "0.550" in proc.stdout  # κ
    assert "77.8%" in proc.stdout and "55.6%" in proc.stdout  # agreement, baseline


def test_cli_calibrate_with_scripted_judges(
    gold_file: Path, tmp_path: Path, write_script, monkeypatch: pytest.MonkeyPatch
) -> None:
    # judge A agrees with every human label (labelled tuples are task-1 … task-10);
    # judge B answers YES always.
    labels = {f"task-{i}": label for i, (_, label) in enumerate(ROWS, 1) if label}
    perfect = write_script({"tasks": {t: [{"content": lab}] for t, lab in labels.items()}})
    always = write_script({"default": [{"content": "YES"}]})
    monkeypatch.setenv("TRIALRUN_JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    proc = run_cli(
        "judge",
        "calibrate",
        str(gold_file),
        "--recorded",
        "--judge",
        f"scripted:{perfect}",
        "--judge",
        f"scripted:{always}",
        "--json",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    judges = json.loads(proc.stdout)["judges"]
    assert [j["judge"] for j in judges] == ["recorded", f"scripted:{perfect}", f"scripted:{always}"]
    # perfect: 10 labelled (6 YES, 4 NO) → tp 6, tn 4, κ 1
    assert judges[1]["confusion"] == {"tp": 6, "fp": 0, "tn": 4, "fn": 0}
    assert judges[1]["kappa"] == pytest.approx(1.0) and judges[1]["judge_failed"] == 0
    # always YES: tp 6, fp 4; majority baseline 6/10 = agreement → warned
    assert judges[2]["confusion"] == {"tp": 6, "fp": 4, "tn": 0, "fn": 0}
    assert judges[2]["majority_baseline"] == pytest.approx(0.6)
    assert any(
        w.startswith(f"scripted:{always}: agreement") for w in json.loads(proc.stdout)["warnings"]
    )


def test_calibrate_refuses_unpinned_judge_and_bad_labels(gold_file: Path, tmp_path: Path) -> None:
    proc = run_cli(
        "judge", "calibrate", str(gold_file), "--judge", "gemini:gemini-pro-latest", cwd=tmp_path
    )
    assert proc.returncode == 2 and "pinned" in proc.stderr
    assert "Traceback" not in proc.stderr
    doc = gold_doc()
    doc["tuples"][0]["human_label"] = "MAYBE"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    proc = run_cli("judge", "calibrate", str(bad), "--recorded", cwd=tmp_path)
    assert proc.returncode == 2
    assert "tuples.0.human_label" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("judge", "calibrate", str(gold_file), cwd=tmp_path)
    assert proc.returncode == 2 and "--recorded" in proc.stderr
