"""τ-bench environments on a small checkout in the published shapes
(tests/benchmarks/taubench_fixture): the layout, task files read without running them,
the tools' effects, and the reward with its reason."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trialrun.benchmarks.taubench import (
    TauDomain,
    load_domain,
    locate,
    output_found,
    read_tasks,
    score,
)
from trialrun.errors import UserError

FIXTURE = Path(__file__).parent / "taubench_fixture"


@pytest.fixture(scope="module")
def airline() -> TauDomain:
    return load_domain(FIXTURE, "airline")


@pytest.fixture(scope="module")
def retail() -> TauDomain:
    return load_domain(FIXTURE, "retail")


def replay(domain: TauDomain, index: int, **changed: Any) -> Any:
    """A fresh state with task `index`'s ground truth replayed (`changed` edits every
    action's arguments that have that key)."""
    state = domain.fresh_state()
    for action in domain.tasks[index].actions:
        if action.name != "transfer_to_human_agents":
            edits = {k: v for k, v in changed.items() if k in action.kwargs}
            arguments = {**action.kwargs, **edits}
            state.call(action.name, arguments)
    return state


@pytest.mark.parametrize(("name", "count"), [("airline", 3), ("retail", 2)])
def test_ground_truth_actions_score_one(name: str, count: int) -> None:
    domain = load_domain(FIXTURE, name)
    assert len(domain.tasks) == count
    for task in domain.tasks:
        state = replay(domain, task.task_id)
        reward = score(domain, task, state, [f"Done: {', '.join(task.outputs)}"])
        assert (reward.reward, reward.reason) == (1.0, "")


def test_one_wrong_argument_scores_zero_naming_the_record(airline: TauDomain) -> None:
    state = replay(airline, 2, nonfree_baggages=2)
    reward = score(airline, airline.tasks[2], state, [])
    assert reward.reward == 0.0
    assert not reward.data_matches
    assert "reservations/ZFA04Y: changed (nonfree_baggages, payment_history)" in reward.reason
    assert "users/mia_li_3668: changed (payment_methods)" in reward.reason


def test_an_action_left_out_names_the_missing_record(airline: TauDomain) -> None:
    reward = score(airline, airline.tasks[0], airline.fresh_state(), [])
    assert reward.reward == 0.0
    assert "reservations/HATHAT: missing" in reward.reason


def test_a_missing_output_scores_zero(retail: TauDomain) -> None:
    task = retail.tasks[0]
    state = replay(retail, 0)
    missing = score(retail, task, state, ["Your order is cancelled."])
    assert missing.reward == 0.0 and missing.data_matches
    assert missing.missing_outputs == ("536.65",)
    assert missing.reason == "missing output(s) in the replies: '536.65'"
    found = score(retail, task, state, ["hi", "A REFUND of $5,36.65 is on its way"])
    assert found.reward == 1.0


@given(
    output=st.text(st.characters(blacklist_characters=","), min_size=1, max_size=12),
    before=st.text(max_size=8),
    after=st.text(max_size=8),
    commas=st.lists(st.integers(0, 12), max_size=3),
)
def test_outputs_match_ignoring_case_and_commas_in_the_reply(
    output: str, before: str, after: str, commas: list[int]
) -> None:
    reply = output.upper() if output.upper().lower() == output.lower() else output
    for at in sorted(commas, reverse=True):
        reply = reply[:at] + "," + reply[at:]
    assert output_found(output, [before + reply + after])


def test_a_failed_tool_call_changes_nothing(airline: TauDomain) -> None:
    state = airline.fresh_state()
    before = state.digest()
    text = state.call(
        "book_reservation",
        {**airline.tasks[0].actions[0].kwargs, "payment_methods": [
            {"payment_id": "certificate_7504069", "amount": 150}
        ]},
    )
    assert text == "Error: payment amount does not add up, total price is 200, but paid 150"
    assert state.call("cancel_reservation", {"reservation_id": "NOPE"}) == (
        "Error: reservation not found"
    )
    assert state.call("no_such_tool", {}).startswith("Error: unknown tool 'no_such_tool'")
    assert state.call("cancel_reservation", {}) == (
        "Error: cancel_reservation: missing argument(s): reservation_id"
    )
    assert state.digest() == before


AIRLINE_VALUES = st.sampled_from(
    ["ZFA04Y", "HATHAT", "mia_li_3668", "nobody", "HAT001", "HAT003", "HAT004", "2024-05-20",
     "2024-05-21", "2024-05-25", "economy", "business", "gift_card_1027364",
     "certificate_7504069", "credit_card_4421486", "yes", "no", 0, 1, 2, 50, 200, 210, -5,
     1e9, None, [], {}]
)
FLIGHTS = st.lists(
    st.fixed_dictionaries(
        {"flight_number": st.sampled_from(["HAT001", "HAT003", "HAT004", "HAT999", 7]),
         "date": st.sampled_from(["2024-05-20", "2024-05-25", "2024-05-21", None])}
    ),
    max_size=2,
)
PAYMENTS = st.lists(
    st.fixed_dictionaries(
        {"payment_id": st.sampled_from(["certificate_7504069", "gift_card_1027364",
                                        "credit_card_4421486", "nope", 3]),
         "amount": st.sampled_from([0, 50, 150, 200, 250, "200", None])}
    ),
    max_size=2,
)
PASSENGERS = st.lists(
    st.fixed_dictionaries({"first_name": st.just("Mia"), "last_name": st.just("Li"),
                           "dob": st.sampled_from(["1990-04-05", 19900405])}),
    max_size=2,
)


def _arguments(draw: Any, domain: TauDomain, name: str) -> dict[str, Any]:
    tool = next(t for t in domain.tools if t.name == name)
    out: dict[str, Any] = {}
    for key in tool.parameters["properties"]:
        if draw(st.integers(0, 9)) == 0:
            continue  # a missing argument now and then
        special = {"flights": FLIGHTS, "payment_methods": PAYMENTS, "passengers": PASSENGERS}
        out[key] = draw(special.get(key, AIRLINE_VALUES))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_refused_airline_call_leaves_the_database_as_it_was(data: st.DataObject) -> None:
    domain = load_domain(FIXTURE, "airline")
    state = domain.fresh_state()
    for _ in range(3):
        name = data.draw(st.sampled_from([t.name for t in domain.tools]))
        before = state.digest()
        outcome = state.invoke(name, _arguments(data.draw, domain, name))
        assert outcome.ok or outcome.text.startswith("Error: ")
        if not outcome.ok:
            assert state.digest() == before, outcome.text


RETAIL_VALUES = st.sampled_from(
    ["#W2611340", "#W4435622", "#W0", "james_li_5688", "gift_card_1725971", "paypal_3207110",
     "no longer needed", "ordered by mistake", "x", 0, 1.5, None, [], ["6469567736"],
     ["6469567736", "6469567736"], ["3453331371"], ["2439754078"], ["8426249116"], [3]]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_refused_retail_call_leaves_the_database_as_it_was(data: st.DataObject) -> None:
    domain = load_domain(FIXTURE, "retail")
    state = domain.fresh_state()
    for _ in range(3):
        tool = data.draw(st.sampled_from(list(domain.tools)))
        arguments = {
            key: data.draw(RETAIL_VALUES)
            for key in tool.parameters["properties"]
            if data.draw(st.integers(0, 9)) > 0
        }
        before = state.digest()
        outcome = state.invoke(tool.name, arguments)
        if not outcome.ok:
            assert state.digest() == before, outcome.text


def test_each_fresh_state_is_its_own_copy(airline: TauDomain) -> None:
    first = replay(airline, 1)
    assert first.tables["reservations"]["ZFA04Y"]["status"] == "cancelled"
    assert "status" not in airline.fresh_state().tables["reservations"]["ZFA04Y"]
    # the database never shares objects with the arguments it was given
    arguments = {**airline.tasks[0].actions[0].kwargs}
    state = airline.fresh_state()
    state.call("book_reservation", arguments)
    state.call("cancel_reservation", {"reservation_id": "HATHAT"})
    assert airline.tasks[0].actions[0].kwargs["payment_methods"] == [
        {"payment_id": "certificate_7504069", "amount": 200}
    ]


def test_tool_effects_follow_the_documented_rules(airline: TauDomain, retail: TauDomain) -> None:
    state = airline.fresh_state()
    state.call("book_reservation", dict(airline.tasks[0].actions[0].kwargs))
    user = state.tables["users"]["mia_li_3668"]
    assert "certificate_7504069" not in user["payment_methods"]  # a certificate is used up
    assert user["reservations"] == ["ZFA04Y", "HATHAT"]
    assert state.tables["reservations"]["HATHAT"]["flights"][0]["price"] == 200
    assert state.call("send_certificate", {"user_id": "mia_li_3668", "amount": 100}) == (
        "Certificate certificate_3221322 added to user mia_li_3668 with amount 100."
    )
    onestop = state.call("search_onestop_flight",
                         {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"})
    assert '"HAT002"' in onestop and '"HAT003"' in onestop
    assert state.call("calculate", {"expression": "(200 + 10) * 3 / 4"}) == "157.5"
    assert state.call("calculate", {"expression": "__import__('os')"}).startswith("Error: ")
    shop = retail.fresh_state()
    shop.call("cancel_pending_order", {"order_id": "#W2611340", "reason": "no longer needed"})
    card = shop.tables["users"]["james_li_5688"]["payment_methods"]["gift_card_1725971"]
    assert card["balance"] == 553.65  # refunded to the gift card at once, to the cent


def test_task_files_are_read_as_published() -> None:
    tasks = read_tasks(FIXTURE / "tau_bench/envs/airline/tasks_test.py")
    assert [t.task_id for t in tasks] == [0, 1, 2]
    assert tasks[1].outputs == ("210",)
    assert [a.name for a in tasks[1].actions] == ["get_reservation_details", "cancel_reservation"]
    assert tasks[0].actions[0].kwargs["flights"] == [
        {"flight_number": "HAT001", "date": "2024-05-20"}
    ]


def test_a_task_file_is_never_executed(tmp_path: Path) -> None:
    canary = tmp_path / "ran"
    bad = tmp_path / "tasks_test.py"
    bad.write_text(
        "from tau_bench.types import Task\n"
        f"TASKS = [\n    Task(user_id='u', instruction=open({str(canary)!r}, 'w').name,"
        " actions=[], outputs=[]),\n]\n",
        encoding="utf-8",
    )
    with pytest.raises(UserError) as caught:
        read_tasks(bad)
    message = str(caught.value)
    assert message.startswith(f"{bad}:3: task 0: `open(")
    assert message.endswith(
        "` is not a literal, Task(...) or Action(...); task files are read, never run"
    )
    assert not canary.exists()


def test_a_bad_checkout_is_one_line_naming_path_and_fix(tmp_path: Path) -> None:
    with pytest.raises(UserError) as caught:
        locate(tmp_path / "nowhere", "airline")
    assert str(caught.value) == (
        f"τ-bench checkout {tmp_path / 'nowhere'}: no such folder; point at a clone "
        "(git clone https://github.com/sierra-research/tau-bench)"
    )
    with pytest.raises(UserError, match=r"no tau_bench/envs/ folder \(not a τ-bench checkout\)"):
        locate(tmp_path, "airline")
    copy = tmp_path / "copy"
    shutil.copytree(FIXTURE, copy)
    (copy / "tau_bench/envs/airline/wiki.md").unlink()
    with pytest.raises(UserError, match=r"no policy file \(tau_bench/envs/airline/wiki.md\)"):
        locate(copy, "airline")
    with pytest.raises(UserError) as caught:
        locate(FIXTURE, "retail", "train")
    assert "no tau_bench/envs/retail/tasks_train.py; retail publishes the split(s) dev, test" in (
        str(caught.value)
    )
    with pytest.raises(UserError, match="unknown; known: airline, retail"):
        locate(FIXTURE, "telecom")


def test_another_split_is_read_from_its_own_file() -> None:
    dev = load_domain(FIXTURE, "retail", "dev")
    assert dev.split == "dev" and len(dev.tasks) == 2
