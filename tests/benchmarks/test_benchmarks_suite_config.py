"""Suite config parsing: errors name file, section, entry and field; unknown keys warn
once each; expansion to models × benchmarks with benchmark > model > defaults > built-in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trialrun.benchmarks import (
    Overrides,
    expand,
    is_suite_file,
    load_suite,
    model_slug,
    model_spec,
    suite_line,
)
from trialrun.errors import UserError

BASE = """
[meta]
name = "s"
[[models]]
name = "m.yaml"
provider = "scripted"
[[benchmarks]]
name = "supergpqa"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[meta]\nname='x'\n[[benchmarks]]\nname='supergpqa'\n",
         r"\[\[models\]\]: no models listed"),
        ("[meta]\nname='x'\n[[models]]\nname='a'\nprovider='scripted'\n",
         r"\[\[benchmarks\]\]: no benchmarks listed"),
        (BASE + "[[models]]\nprovider='scripted'\n", r"\[\[models\]\] #2: name: required"),
        (BASE.replace('provider = "scripted"', 'provider = "scripted"\ntemperature = "hot"'),
         r"\[\[models\]\] #1 \(m.yaml\): temperature: must be a number, got 'hot'"),
        (BASE + "max_samples = 0\n", r"\[\[benchmarks\]\] #1 \(supergpqa\): max_samples: must be"),
        (BASE + "backend = 'magic'\n",
         r"backend: unknown backend 'magic'; known: direct, agent, jarvis-direct, jarvis-agent"),
        (BASE.replace('name = "supergpqa"', 'name = "supergpq"'),
         r"name: unknown benchmark 'supergpq'; did you mean 'supergpqa'\? known: .*frames, gaia"),
        (BASE + "tools = ['file_read', 'browser']\n",
         r"tools: unknown tool 'browser'; known: .*calculator.*file_read.*web_search"),
        (BASE + "[run]\nseed = 'x'\n", r"\[run\]: seed: must be an integer"),
        ("[meta]\nname = \n", r"not valid TOML"),
        (BASE.replace('provider = "scripted"', 'provider = "nope"'),
         r"\[\[models\]\] #1 \(m.yaml\): provider: unknown provider 'nope'; known:"),
        (BASE.replace('provider = "scripted"', 'engine = "tpu"'),
         r"engine: unknown engine 'tpu'; known: cloud, ollama, vllm"),
        ("meta = 3\n[[models]]\nname='a'\n[[benchmarks]]\nname='x'\n",
         r"\[meta\]: must be a table"),
    ],
)
def test_errors_name_section_entry_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(UserError, match=message) as info:
        expand(load_suite(path))
    assert str(info.value).startswith(str(path)) or "TOML" in str(info.value)
    assert "\n" not in str(info.value)


def test_unknown_keys_warn_once_each(tmp_path: Path) -> None:
    text = (
        BASE
        + "[[models]]\nname='n.yaml'\nprovider='scripted'\nnum_gpus = 2\n"
        + "[judge]\nmodel='j.yaml'\nprovider='scripted'\nengine='vllm'\n[extras]\nx=1\n"
    ).replace('provider = "scripted"', 'provider = "scripted"\nnum_gpus = 1')
    suite = load_suite(write(tmp_path, text))
    warnings = suite.warnings
    assert sum("num_gpus" in w for w in warnings) == 1
    assert any("[[models]]: 'num_gpus' is not used by trialrun, ignored (in 2 entries)" in w
               for w in warnings)
    assert any("[judge]: 'engine' is not used by trialrun" in w for w in warnings)
    assert any("[extras]" in w for w in warnings)
    assert len(expand(suite)) == 2  # and it still runs


def test_expansion_and_precedence(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("tasks: {}\n")
    text = """
[meta]
name = "prec"
[defaults]
temperature = 0.3
max_tokens = 500
[judge]
model = "j.yaml"
provider = "scripted"
[run]
output_dir = "out"
seed = 7
max_workers = 3
[[models]]
name = "a.yaml"
provider = "scripted"
temperature = 0.5
[[models]]
name = "gpt-4o-2024-08-06"
engine = "cloud"
max_tokens = 900
[[benchmarks]]
name = "supergpqa"
backend = "jarvis-direct"
temperature = 0.9
max_samples = 5
split = "train"
[[benchmarks]]
name = "gaia"
backend = "jarvis-agent"
tools = ["file_read", "calculator"]
judge_model = "scripted:judge2.yaml"
"""
    suite = load_suite(write(tmp_path, text))
    pairs = expand(suite)
    assert suite_line(suite, pairs) == "Suite: prec — 2 model(s) x 2 benchmark(s) = 4 run(s)"
    by = {(p.model_name, p.benchmark): p for p in pairs}
    a_sg, a_gaia = by[("a.yaml", "supergpqa")], by[("a.yaml", "gaia")]
    g_sg, g_gaia = by[("gpt-4o-2024-08-06", "supergpqa")], by[("gpt-4o-2024-08-06", "gaia")]
    assert a_sg.temperature == 0.9 and g_sg.temperature == 0.9  # benchmark wins
    assert a_gaia.temperature == 0.5  # then the model
    assert g_gaia.temperature == 0.3  # then [defaults]
    assert g_gaia.max_tokens == 900 and a_gaia.max_tokens == 500
    assert a_sg.model_spec == f"scripted:{(tmp_path / 'a.yaml').resolve()}"
    assert g_sg.model_spec == "openai:gpt-4o-2024-08-06"
    assert (a_sg.backend, a_gaia.backend) == ("direct", "agent")
    assert a_gaia.tools == ["file_read", "calculator"]
    assert a_sg.judge_spec == "scripted:j.yaml" and a_gaia.judge_spec == "scripted:judge2.yaml"
    assert (a_sg.seed, a_sg.max_samples, a_sg.split, a_sg.max_workers) == (7, 5, "train", 3)
    # output_dir is under the working directory (as OpenJarvis), not beside the suite file
    assert a_sg.records_path == Path("out") / "supergpqa_a.yaml.jsonl"
    assert g_sg.summary_path == Path("out") / "supergpqa_gpt-4o-2024-08-06.summary.json"
    over = expand(suite, Overrides(temperature=0.0, max_tokens=64, seed=1, max_samples=2))
    assert {(p.temperature, p.max_tokens, p.seed, p.max_samples) for p in over} == {
        (0.0, 64, 1, 2)
    }


def test_output_dir_is_under_the_working_directory_not_the_suite_file(tmp_path: Path) -> None:
    # OpenJarvis: output_dir = "results/" is where you run from; beside the TOML, the
    # README's demo wrote its results into examples/
    suites, work = tmp_path / "suites", tmp_path / "work"
    suites.mkdir()
    work.mkdir()
    os.chdir(work)  # the autouse fixture restores the working directory
    text = BASE.replace("[[models]]", '[run]\noutput_dir = "out/"\n[[models]]')
    (pair,) = expand(load_suite(write(suites, text)))
    assert pair.records_path.resolve() == work / "out" / "supergpqa_m.yaml.jsonl"
    assert not (suites / "out").exists()


def test_built_in_defaults(tmp_path: Path) -> None:
    (pair,) = expand(load_suite(write(tmp_path, BASE)))
    assert (pair.temperature, pair.max_tokens, pair.seed) == (0.0, 2048, 42)
    assert pair.output_dir == Path("results")  # under the working directory, as run --out
    assert pair.judge_spec is None and pair.backend == "direct"


def test_overrides_are_checked(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, BASE))
    with pytest.raises(UserError, match=r"--temperature 3: must be between 0 and 2"):
        expand(suite, Overrides(temperature=3))
    with pytest.raises(UserError, match=r"--max-samples 0: must be at least 1"):
        expand(suite, Overrides(max_samples=0))


@pytest.mark.parametrize(
    ("entry", "spec"),
    [
        ({"name": "qwen3:8b", "engine": "ollama"}, "ollama:qwen3:8b"),
        ({"name": "Qwen/Qwen3-8B", "engine": "vllm"},
         "openai-compat:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1"),
        ({"name": "q", "engine": "llamacpp", "base_url": "http://127.0.0.1:9/v1"},
         "openai-compat:q@http://127.0.0.1:9/v1"),
        ({"name": "claude-sonnet-4-20250514", "engine": "cloud"},
         "anthropic:claude-sonnet-4-20250514"),
        ({"name": "gemini-2.5-flash", "engine": "cloud"}, "gemini:gemini-2.5-flash"),
        ({"name": "o3-2025-04-16"}, "openai:o3-2025-04-16"),
        ({"name": "ollama:llama3"}, "ollama:llama3"),
        ({"name": "qwen3:8b"}, "ollama:qwen3:8b"),  # OpenJarvis's default engine: ollama
        ({"name": "m", "provider": "openai-compat", "base_url": "http://127.0.0.1:1/v1"},
         "openai-compat:m@http://127.0.0.1:1/v1"),
    ],
)
def test_engines_and_providers_map_to_specs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: dict, spec: str
) -> None:
    monkeypatch.delenv("VLLM_BASE_URL", raising=False)
    name = entry.pop("name")
    assert model_spec(name, where="w", base=tmp_path, **entry) == spec


def test_engine_base_url_from_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_BASE_URL", "http://127.0.0.1:7/v1")
    assert model_spec("m", where="w", base=tmp_path, engine="vllm") == (
        "openai-compat:m@http://127.0.0.1:7/v1"
    )
    with pytest.raises(UserError, match="cannot tell the provider of 'mystery'"):
        model_spec("mystery", where="w", base=tmp_path)


def test_slug_and_suite_shape(tmp_path: Path) -> None:
    assert model_slug("Qwen/Qwen3-8B:q4") == "Qwen-Qwen3-8B-q4"
    assert is_suite_file(write(tmp_path, BASE))
    task = tmp_path / "task.toml"
    task.write_text('task_id = "t"\n')
    assert not is_suite_file(task)
    assert not is_suite_file(tmp_path / "missing.toml")


def test_a_pair_listed_twice_is_refused(tmp_path: Path) -> None:
    text = BASE + '[[benchmarks]]\nname = "supergpqa"\nsplit = "test"\n'
    same = r"supergpqa × m.yaml: writes the same files \(supergpqa_m.yaml.jsonl\)"
    with pytest.raises(UserError, match=same):
        expand(load_suite(write(tmp_path, text)))
    colliding = BASE.replace('"m.yaml"', '"m/yaml"') + '[[models]]\nname = "m:yaml"\n'
    with pytest.raises(UserError, match=r"as supergpqa × m/yaml"):
        expand(load_suite(write(tmp_path, colliding + 'provider = "scripted"\n')))


def test_an_openjarvis_agent_name_runs_the_built_in_backend(tmp_path: Path) -> None:
    text = BASE + 'backend = "jarvis-agent"\nagent = "orchestrator"\ntools = ["calculator"]\n'
    (pair,) = expand(load_suite(write(tmp_path, text)))
    assert pair.agent is None and pair.backend == "agent"
    assert "agent 'orchestrator' is not a Python agent" in pair.notes[0]
