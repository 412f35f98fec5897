"""The pytest plugin (entry point `pytest11`): `@eval_test` items, their policies and
options, task-file collection, failure output, and the session's history record."""

from __future__ import annotations

import os
import re
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pluggy import Result

from trialrun.errors import UserError
from trialrun.testing._session import CaseInfo, SessionRecord, outcome_of, utc_now
from trialrun.testing._spec import MARKER, EvalSpec, default_model

# Loaded in every pytest session of a project that installs trialrun: the run machinery
# (trialrun.run, SQLAlchemy) is imported only once an eval or a task file is collected.
if TYPE_CHECKING:
    from trialrun.testing._rig import Rig

RIG = pytest.StashKey["Rig"]()
SESSION = pytest.StashKey[SessionRecord]()
MESSAGE = pytest.StashKey[str]()
CASE = "_trialrun_case"
GATED = ("USUALLY_PASSES", "USUALLY_FAILS")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("trialrun", "trialrun behavioural evals")
    group.addoption("--run-evals", action="store_true",
                    help="Run USUALLY_PASSES and USUALLY_FAILS evals too (or RUN_EVALS=1).")
    group.addoption("--eval-model", action="append", default=[], metavar="SPEC",
                    help="Model spec for evals (repeat: one test item per model).")
    group.addoption("--eval-k", type=int, default=None, metavar="K",
                    help="Trials per eval, each its own item named [model-trial].")
    group.addoption("--eval-policy", choices=("always", "usually", "all"), default="all",
                    help="Only ALWAYS_PASSES evals, only USUALLY_* ones, or all (default).")
    group.addoption("--eval-log", default=None, metavar="DIR",
                    help="Keep every eval's run folder (transcripts) under DIR.")
    group.addoption("--eval-store", default=None, metavar="URL",
                    help="History store for this session (default: as `trialrun history`).")
    group.addoption("--eval-trigger", default=None, metavar="ci|nightly|local",
                    help="The session's trigger in the history (default: ci when $CI is set).")
    group.addoption("--no-eval-history", action="store_true",
                    help="Do not record this session in the history.")
    group.addoption("--eval-strict", action="store_true",
                    help="Run USUALLY_FAILS evals as plain tests (no xfail).")
    parser.addini("trialrun_tasks", "Collect trialrun task files given on the command line "
                  "(true/false).", default="true")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Assertions are rewritten in test modules only, not in trialrun itself.

    pytest marks every package of a distribution that declares a `pytest11` entry point for
    assertion rewriting: installed from a wheel, each trialrun module imported in a session
    (the runner, the graders, ...) would be recompiled by pytest. Test modules and conftests
    are rewritten by pytest's own rules (`python_files`, the command line), so taking the
    mark off trialrun leaves them as they are. Called as this plugin registers, before any
    conftest imports trialrun; the few modules that import this one were loaded already.
    pytest has no public call to take a mark off: the hook's set of marked names is read
    with a fallback, so a pytest without it changes nothing."""
    marked = getattr(pluginmanager.rewrite_hook, "_must_rewrite", None)
    if isinstance(marked, set) and "trialrun" in marked:
        marked.discard("trialrun")
        decided = getattr(pluginmanager.rewrite_hook, "_marked_for_rewrite_cache", None)
        if isinstance(decided, dict):
            decided.clear()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}(spec): a trialrun behavioural eval")
    config.stash[SESSION] = SessionRecord(started_at=utc_now())


def run_evals(config: pytest.Config) -> bool:
    flag = os.environ.get("RUN_EVALS", "").strip().lower()
    return bool(config.getoption("run_evals")) or flag in ("1", "true", "yes", "on")


def _spec(item: Any) -> EvalSpec | None:
    marker = item.get_closest_marker(MARKER) if hasattr(item, "get_closest_marker") else None
    return marker.args[0] if marker else None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker(MARKER)
    if marker is None or CASE not in metafunc.fixturenames:
        return
    spec: EvalSpec = marker.args[0]
    config = metafunc.config
    models = config.getoption("eval_model") or [spec.model or default_model()]
    k = config.getoption("eval_k") or spec.k
    cases = [(m, t) for m in models for t in range(k)]
    metafunc.parametrize(CASE, cases, ids=[f"{m}-{t}" for m, t in cases])


@pytest.fixture
def _trialrun_case() -> tuple[str, int]:
    return (default_model(), 0)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:150] or "eval"


@pytest.fixture
def rig(request: pytest.FixtureRequest, _trialrun_case: tuple[str, int],
        tmp_path_factory: pytest.TempPathFactory) -> Rig:
    """The eval's trial: workspace (`read`, `exists`, `diff`), `tool_calls`, `called`,
    `transcript`, `result`, and `run(prompt)` for a follow-up turn."""
    # the pytest plugin is imported by every pytest session: run machinery loads on use
    from trialrun.testing._rig import ProviderError, Rig

    spec = _spec(request.node)
    if spec is None:
        raise pytest.UsageError("the `rig` fixture needs @eval_test(…) on the test")
    model, trial = _trialrun_case
    log = request.config.getoption("eval_log")
    if log:
        out = Path(log) / _safe(request.node.nodeid)
        out.mkdir(parents=True, exist_ok=True)
    else:
        out = tmp_path_factory.mktemp("eval")
    name = _safe(getattr(request.node, "originalname", request.node.name))
    rig = Rig(spec, name if name[0].isalnum() else f"t{name}", model, out, out / "seed")
    request.node.stash[RIG] = rig
    try:
        rig.start()
    except ProviderError as exc:
        pytest.skip(str(exc))
    except UserError as exc:
        pytest.fail(f"trialrun: {exc}", pytrace=False)
    return rig


@pytest.fixture
def result(rig: Rig) -> str:
    """The agent's final answer."""
    return rig.result


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Any:
    if file_path.suffix not in (".yaml", ".yml", ".json", ".toml"):
        return None
    # the pytest plugin is imported by every pytest session: run machinery loads on use
    from trialrun.testing._tasks import TaskFile, wanted

    if wanted(file_path, parent.config):
        return TaskFile.from_parent(parent, path=file_path)
    return None


def _policy(item: Any) -> str | None:
    spec = _spec(item)
    if spec is not None:
        return spec.policy
    return getattr(item, "trialrun_policy", None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    view = config.getoption("eval_policy")
    running = run_evals(config)
    strict = config.getoption("eval_strict")
    record = config.stash[SESSION]
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        policy = _policy(item)
        if policy is None:
            keep.append(item)
            continue
        if (view == "always" and policy != "ALWAYS_PASSES") or (
            view == "usually" and policy not in GATED
        ):
            dropped.append(item)
            continue
        keep.append(item)
        if policy in GATED and not running:
            item.add_marker(pytest.mark.skip(
                reason=f"{policy} eval: runs only with RUN_EVALS=1 or pytest --run-evals"))
            continue
        if policy == "USUALLY_FAILS" and not strict:
            item.add_marker(pytest.mark.xfail(
                reason="USUALLY_FAILS: a known gap, reported and never blocking", strict=False))
        record.cases[item.nodeid] = _case(item, policy)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def _case(item: Any, policy: str) -> CaseInfo:
    # the pytest plugin is imported by every pytest session: run machinery loads on use
    from trialrun.core import model_label
    from trialrun.testing._identity import history_test_id

    if hasattr(item, "trialrun_policy"):  # a task file's item
        return CaseInfo(item.task.task_id, model_label(item.model), 0, policy, "task",
                        str(item.path),
                        item.config.getoption("eval_k") or int(item.task.trials.k or 1))
    model, trial = item.callspec.params[CASE]
    spec = _spec(item)
    k = item.config.getoption("eval_k") or (spec.k if spec else 1)
    # the history's names: a path from the project (not pytest's rootdir), a model
    # without its base URL
    return CaseInfo(history_test_id(item.path, item.nodeid), model_label(model), trial,
                    policy, "pytest", str(item.path), k)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Result[pytest.TestReport], None]:
    outcome = yield
    report = outcome.get_result()
    rig = item.stash.get(RIG, None)
    if rig is not None and report.when == "call" and report.failed:
        report.sections.append(("trialrun eval: tool calls and final answer", rig.describe()))
    if rig is not None and rig.run_dirs and report.when == "call":
        item.config.stash[SESSION].folders[item.nodeid] = str(rig.run_dirs[-1])
    trials = getattr(item, "trials", None) if hasattr(item, "trialrun_policy") else None
    if trials and report.when == "call":
        record = item.config.stash[SESSION]
        record.task_trials[item.nodeid] = trials


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    record = _RECORD.get("session")
    if record is None:
        return
    found = outcome_of(report)
    if found is not None:
        record.note(report.nodeid, *found)


# the running session's record (logreport hooks get no config); one session per process
_RECORD: dict[str, SessionRecord] = {}


def pytest_sessionstart(session: pytest.Session) -> None:
    _RECORD["session"] = session.config.stash[SESSION]


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    record = config.stash[SESSION]
    _RECORD.pop("session", None)
    if not record.outcomes or config.getoption("no_eval_history"):
        return
    url = config.getoption("eval_store")
    try:
        # the pytest plugin is imported by every pytest session: run machinery loads on use
        from trialrun.config import load_config
        from trialrun.history import recording_enabled

        project = load_config()  # the session's one look: whether to record, and where
        if url is None and not recording_enabled(project):
            return
        config.stash[MESSAGE] = record.record(url, config.getoption("eval_trigger"), project)
    except Exception as exc:  # the test results stand whatever the store does
        config.stash[MESSAGE] = f"trialrun: session not recorded in the history: {exc}"


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    message = config.stash.get(MESSAGE, None)
    if message:
        terminalreporter.write_line(message)
