import asyncio
import json

import pytest

from trialrun.errors import InfraError, ModelTimeout, UserError
from trialrun.models import CompletionParams, create_model


def write(tmp_path, text, name="s.yaml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


SCRIPT = """
tasks:
  t1:
    - tool_calls:
        - {name: read_file, arguments: {path: a.md}}
        - {name: list_files, arguments: {path: ""}}
    - content: first answer
    - content: retry answer
default:
  - content: default answer
"""


def complete(model, messages, task_id="t1"):
    return asyncio.run(model.complete(messages, [], CompletionParams(task_id=task_id)))


def test_plays_turns_by_assistant_count(tmp_path):
    model = create_model(f"scripted:{write(tmp_path, SCRIPT)}")
    assert model.provider == "scripted"
    c = complete(model, [{"role": "user", "content": "hi"}])
    assert c.text is None
    assert [(t.id, t.name, t.arguments) for t in c.tool_calls] == [
        ("call_0_0", "read_file", {"path": "a.md"}),
        ("call_0_1", "list_files", {"path": ""}),
    ]
    c = complete(model, [{"role": "user"}, {"role": "assistant"}, {"role": "tool"}])
    assert c.text == "first answer" and c.tool_calls == []
    c = complete(model, [{"role": "assistant"}] * 2)
    assert c.text == "retry answer"


def test_out_of_turns_returns_last_content(tmp_path):
    model = create_model(f"scripted:{write(tmp_path, SCRIPT)}")
    c = complete(model, [{"role": "assistant"}] * 7)
    assert c.text == "retry answer" and c.tool_calls == []


def test_default_and_unknown_task(tmp_path):
    model = create_model(f"scripted:{write(tmp_path, SCRIPT)}")
    assert complete(model, [], task_id="other").text == "default answer"
    assert complete(model, [], task_id=None).text == "default answer"


def test_empty_when_no_turns(tmp_path):
    model = create_model(f"scripted:{write(tmp_path, 'tasks: {x: [{content: a}]}')}")
    assert complete(model, [], task_id="nope").text == ""


def test_json_script_and_raw_argument_strings(tmp_path):
    data = {
        "default": [
            {
                "tool_calls": [
                    {"name": "f", "arguments": "{not json"},
                    {"name": "g", "arguments": "[1]"},
                    {"name": "h", "arguments": '{"a": 1}'},
                ]
            }
        ]
    }
    model = create_model(f"scripted:{write(tmp_path, json.dumps(data), 's.json')}")
    calls = complete(model, []).tool_calls
    assert "not valid JSON" in calls[0].arguments_error and calls[0].raw_arguments == "{not json"
    assert calls[1].arguments_error == "arguments must be a JSON object"
    assert calls[2].arguments == {"a": 1} and calls[2].arguments_error is None


def test_errors_and_usage(tmp_path):
    text = """
default:
  - {error: infra}
  - {error: timeout}
  - {content: x, usage: {prompt: 100, completion: 7}, cost_usd: 0.5}
"""
    model = create_model(f"scripted:{write(tmp_path, text)}")
    with pytest.raises(InfraError):
        complete(model, [])
    with pytest.raises(ModelTimeout):
        complete(model, [{"role": "assistant"}])
    c = complete(model, [{"role": "assistant"}] * 2)
    assert (c.usage.prompt, c.usage.completion, c.cost_usd) == (100, 7, 0.5)


@pytest.mark.parametrize(
    "text,where",
    [
        ("tasks: [1, 2]", "tasks"),
        ("other: 1", "top level"),
        ("tasks: {t: [{content: 3}]}", "tasks.t[0].content"),
        ("tasks: {t: [{tool_calls: [{arguments: {}}]}]}", "tasks.t[0].tool_calls[0]"),
        ("default: [{contnet: x}]", "default[0]"),
        ("default: [{content: x, delay_s: -1}]", "default[0].delay_s"),
        ("default: [{error: boom}]", "default[0].error"),
        ("default: 3", "default"),
    ],
)
def test_bad_shape_names_file_and_place(tmp_path, text, where):
    p = write(tmp_path, text)
    with pytest.raises(UserError) as exc:
        create_model(f"scripted:{p}")
    assert str(p) in str(exc.value) and where in str(exc.value)


def test_bad_yaml_and_missing_file(tmp_path):
    p = write(tmp_path, "tasks: {t: [\n  - content: x\n")
    with pytest.raises(UserError, match=rf"{p}:\d+: invalid YAML"):
        create_model(f"scripted:{p}")
    with pytest.raises(UserError, match="not found"):
        create_model(f"scripted:{tmp_path / 'missing.yaml'}")
    p = write(tmp_path, "{bad", "b.json")
    with pytest.raises(UserError, match=r"b.json:1: invalid JSON"):
        create_model(f"scripted:{p}")
    with pytest.raises(UserError, match="needs a script file"):
        create_model("scripted:")


def test_delay(tmp_path):
    model = create_model(f"scripted:{write(tmp_path, 'default: [{content: x, delay_s: 0.01}]')}")
    assert complete(model, []).text == "x"
