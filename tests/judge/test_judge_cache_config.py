"""The verdict cache file and the [judge] section of trialrun.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from trialrun.config import load_config
from trialrun.errors import UserError
from trialrun.judge import JudgeSettings, VerdictCache


def test_cache_round_trip_torn_line_and_other_writers(tmp_path: Path) -> None:
    a = VerdictCache(tmp_path)
    assert a.get("scripted:j", "h1") is None
    a.put("scripted:j", "h1", True, ["YES"])
    # another process (another cache object) sees the entry, and later ones on a miss
    b = VerdictCache(tmp_path)
    assert b.get("scripted:j", "h1")["value"] is True
    a.put("scripted:j", "h2", {"score": 4, "reasoning": "ok"}, ["ok\nSCORE: 4"])
    assert b.get("scripted:j", "h2")["value"] == {"score": 4, "reasoning": "ok"}
    # the key is (judge, prompt hash): another judge is a miss
    assert b.get("openai:gpt-4o-2024-08-06", "h1") is None
    # a torn last line and a damaged line are ignored, never a crash
    with open(a.path, "ab") as handle:
        handle.write(b'not json\n{"judge": "scripted:j", "prompt_sha')
    c = VerdictCache(tmp_path)
    assert len(c) == 2 and c.get("scripted:j", "h1")["raw_replies"] == ["YES"]


def test_judge_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRIALRUN_JUDGE_CACHE_DIR", raising=False)
    (tmp_path / "trialrun.toml").write_text(
        '[judge]\nmodel = "openai:gpt-4o-2024-08-06"\ncache_dir = "cache/j"\ntimeout_s = 30\n',
        encoding="utf-8",
    )
    s = JudgeSettings.from_config(load_config(start=tmp_path))
    assert s.model == "openai:gpt-4o-2024-08-06" and s.timeout_s == 30
    assert s.resolved_cache_dir() == tmp_path / "cache" / "j"
    monkeypatch.setenv("TRIALRUN_JUDGE_CACHE_DIR", str(tmp_path / "env"))
    assert s.resolved_cache_dir() == tmp_path / "env"
    monkeypatch.delenv("TRIALRUN_JUDGE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert JudgeSettings().resolved_cache_dir() == tmp_path / "xdg" / "trialrun" / "judge"
    (tmp_path / "trialrun.toml").write_text('[judge]\nmodle = "x"\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"trialrun.toml: \[judge\] modle"):
        JudgeSettings.from_config(load_config(start=tmp_path))
