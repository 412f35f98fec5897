"""How a run's trigger is told: explicit, `TRIALRUN_TRIGGER`, a CI service's variables."""

from __future__ import annotations

import pytest

from trialrun.errors import UserError
from trialrun.history._git import detect_trigger


def test_local_when_nothing_says_otherwise() -> None:
    assert detect_trigger() == "local"


@pytest.mark.parametrize("value", ["true", "1", "yes"])
def test_ci_variable_means_ci(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    assert detect_trigger() == "ci"


@pytest.mark.parametrize("value", ["", "0", "false", "no"])
def test_ci_variable_switched_off_means_local(monkeypatch: pytest.MonkeyPatch,
                                              value: str) -> None:
    monkeypatch.setenv("CI", value)
    assert detect_trigger() == "local"


def test_scheduled_github_run_is_nightly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "schedule")
    assert detect_trigger() == "nightly"


def test_explicit_beats_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("TRIALRUN_TRIGGER", "nightly")
    assert detect_trigger() == "nightly"
    assert detect_trigger("Local") == "local"


def test_unknown_trigger_is_a_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRIALRUN_TRIGGER", "weekly")
    with pytest.raises(UserError, match="unknown trigger; use one of"):
        detect_trigger()
