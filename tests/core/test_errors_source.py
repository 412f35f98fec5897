"""Issue 29: a UserError keeps its problem, place, value and source apart; `describe()`
joins them into the one line the CLI prints, and a caller that knows a better place
relabels with `at(...)`, never by editing text."""

from __future__ import annotations

import os
import pickle
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trialrun.config import load_config
from trialrun.core import FileRefused, open_fd
from trialrun.errors import ConfigError, ToolError, UserError
from trialrun.judge import check_judge_spec
from trialrun.models import create_model
from trialrun.sandbox import resolve_inside
from trialrun.tasks import load_tasks
from trialrun.tasks._problems import Problem

words = st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=12)


def test_the_fields_and_the_line_they_make() -> None:
    err = UserError("GEMINI_API_KEY is not set; export it", place="--model",
                    value="gemini:flash")  # fmt: skip
    assert (err.problem, err.place, err.value, err.source, err.line, err.exit_code) == (
        "GEMINI_API_KEY is not set; export it", "--model", "gemini:flash", None, None, 2
    )
    assert err.describe() == "--model gemini:flash: GEMINI_API_KEY is not set; export it"
    assert str(err) == err.describe()
    task = UserError("must be a table", place="tasks[3].environment.budgets",
                     source=Path("tasks/a.yaml"), line=7)  # fmt: skip
    assert task.describe() == "tasks/a.yaml:7: tasks[3].environment.budgets: must be a table"


def test_a_plain_message_reads_as_before() -> None:
    err = UserError("no valid tasks to run", 3)
    assert str(err) == err.describe() == err.problem == "no valid tasks to run"
    assert err.exit_code == 3 and err.args == ("no valid tasks to run",)


def test_at_relabels_the_place_and_keeps_the_rest() -> None:
    err = UserError("unknown provider 'scriptd'", 4, place="--model", value="scriptd:x")
    judge = err.at("--judge")
    assert judge.describe() == "--judge scriptd:x: unknown provider 'scriptd'"
    assert (judge.problem, judge.exit_code, judge.value) == (err.problem, 4, "scriptd:x")
    assert err.place == "--model"  # the original is untouched
    config = err.at("[judge] model", source="trialrun.toml")
    assert config.describe() == "trialrun.toml: [judge] model scriptd:x: unknown provider 'scriptd'"
    assert err.at(value=None).describe() == "--model: unknown provider 'scriptd'"


def test_a_new_source_drops_the_old_line() -> None:
    err = UserError("bad", place="x", source="a.yaml", line=3)
    assert err.at(source="b.yaml").describe() == "b.yaml: x: bad"
    assert err.at(source="b.yaml", line=9).describe() == "b.yaml:9: x: bad"


def test_at_keeps_the_subclass() -> None:
    refused = FileRefused("a FIFO, not a regular file", source="/w/pipe", kind="a FIFO")
    moved = refused.at(source="'pipe'")
    assert isinstance(moved, FileRefused) and moved.kind == "a FIFO"
    assert str(moved) == "'pipe': a FIFO, not a regular file"


def test_config_error_names_the_file_and_key() -> None:
    err = ConfigError("must be a number", place="[judge] timeout_s", source=None)
    assert isinstance(err, UserError) and err.exit_code == 2
    assert err.describe() == "trialrun.toml: [judge] timeout_s: must be a number"
    at_file = ConfigError("bad", place="[run] executor", source=Path("/p/trialrun.toml"))
    assert at_file.describe() == "/p/trialrun.toml: [run] executor: bad"


@given(problem=words, place=st.none() | words, value=st.none() | words,
       source=st.none() | words, exit_code=st.integers(1, 9))  # fmt: skip
def test_pickling_keeps_every_part(problem: str, place: str | None, value: str | None,
                                   source: str | None, exit_code: int) -> None:  # fmt: skip
    """Errors cross process boundaries (worker processes, Ray) whole."""
    for err in (
        UserError(problem, exit_code, place=place, value=value, source=source),
        ConfigError(problem, place=place, source=source, value=value, exit_code=exit_code),
        FileRefused(problem, source=source or "f", kind=value),
    ):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and back.__dict__ == err.__dict__
        assert str(back) == str(err)


@given(problem=words, place=words, value=st.none() | words, source=st.none() | words)
def test_describe_is_the_parts_in_order(problem: str, place: str, value: str | None,
                                        source: str | None) -> None:  # fmt: skip
    line = UserError(problem, place=place, value=value, source=source).describe()
    label = f"{place} {value}" if value else place
    assert line == (f"{source}: " if source else "") + f"{label}: {problem}"
    moved = UserError(problem, place=place, value=value, source=source).at("--other")
    assert moved.problem == problem and moved.describe().endswith(f": {problem}")


def test_the_model_flag_is_relabelled_through_the_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError) as caught:
        create_model("openai:gpt-4o-mini")
    assert caught.value.place == "--model" and caught.value.value == "openai:gpt-4o-mini"
    assert caught.value.problem.startswith("OPENAI_API_KEY is not set")
    with pytest.raises(UserError) as caught:
        create_model("openai:gpt-4o-mini", flag="inputs.user.model")
    assert caught.value.place == "inputs.user.model"
    assert str(caught.value).startswith("inputs.user.model openai:gpt-4o-mini: OPENAI_API_KEY")
    with pytest.raises(UserError) as caught:
        create_model("scriptd:x", flag="--judge")
    assert (caught.value.place, caught.value.value) == ("--judge", "scriptd:x")


def test_a_spec_with_credentials_stays_redacted_in_every_part() -> None:
    with pytest.raises(UserError) as caught:
        create_model("nope:m@http://user:hunter2@host/v1", flag="--judge")
    assert caught.value.place == "--judge"
    assert "hunter2" not in caught.value.describe() and "hunter2" not in (caught.value.value or "")


def test_the_judge_check_names_the_judge_flag() -> None:
    with pytest.raises(UserError) as caught:
        check_judge_spec("openai:gpt-4o-latest")
    assert caught.value.place == "--judge" and "must be pinned" in caught.value.problem
    with pytest.raises(UserError) as caught:
        check_judge_spec("  ")
    assert caught.value.place == "--judge" and caught.value.problem.startswith("empty model spec")


def test_the_workspace_wording_comes_from_the_caller(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^refused: '\.\./x' is outside the workspace$"):
        resolve_inside(tmp_path, "../x", root_name="the workspace")
    with pytest.raises(ToolError, match=r"^refused: '\.\./x' is outside the vault$"):
        resolve_inside(tmp_path, "../x")
    with pytest.raises(ToolError, match="not the workspace root"):
        resolve_inside(tmp_path, "", allow_root=False, root_name="the workspace")


def test_a_refused_file_keeps_its_path_and_kind_apart(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    assert stat.S_ISFIFO((tmp_path / "pipe").stat().st_mode)
    with pytest.raises(FileRefused) as caught:
        open_fd(tmp_path / "pipe", fix="give a regular file")
    assert caught.value.source == tmp_path / "pipe" and caught.value.kind == "a FIFO"
    assert caught.value.problem == "a FIFO, not a regular file; give a regular file"
    assert str(caught.value) == f"{tmp_path / 'pipe'}: {caught.value.problem}"


def test_a_config_key_error_has_file_and_place(tmp_path: Path) -> None:
    path = tmp_path / "trialrun.toml"
    path.write_text('[run]\nexecuter = "ray"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert (caught.value.source, caught.value.place) == (path, "[run] executer")
    path.write_text("[run\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.source == path and caught.value.place is None
    assert caught.value.problem.startswith("invalid TOML")


def test_a_task_problem_becomes_an_error_with_file_line_and_field(tmp_path: Path) -> None:
    problem = Problem(tmp_path / "a.yaml", 7, "tasks.3.environment.budgets", "must be a table")
    err = problem.as_error("nothing was run")
    assert (err.source, err.line, err.place) == (tmp_path / "a.yaml", 7,
                                                 "tasks.3.environment.budgets")  # fmt: skip
    assert err.describe() == f"{str(problem)}; nothing was run"
    (tmp_path / "b.yaml").write_text("task_id: [\n", encoding="utf-8")
    loaded = load_tasks([tmp_path / "b.yaml"])
    assert loaded.problems and loaded.problems[0].as_error("x").source == tmp_path / "b.yaml"
