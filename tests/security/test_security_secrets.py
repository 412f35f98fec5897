"""Issue 32, item 7: secrets that surface after the command line are masked everywhere.

One real CLI run carries every kind of secret at once: a judge given as
`openai-compat:j@http://u:PASSWORD@host/v1`, a model whose base URL holds `?api_key=`, and
an `--agent-cmd` agent that prints every provider key shape, `NAME_TOKEN=…`,
`--api-key …`, `Bearer …`, a URL with `?access_token=…&sig=…` and the values of the key
variables it can see, on stdout (its answer) and stderr (its error tail). Then no secret
may be found in any surface: results lines, transcripts, run.json, JUnit, Markdown, the
HTML report, the viewer's pages over HTTP, the history database, the CLI's output. The
agent's own environment holds none of the parent's provider keys.
"""

from __future__ import annotations

import http.client
import json
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cli_support import cli_process as _trialrun
from trialrun.core import MASK, may_hold_secret, redact, redacted_json, secret_values
from trialrun.reports import make_server
from trialrun.reports._html import report_pages

JUDGE_PASSWORD = "JudgePassw0rd42"
QUERY_KEY = "QueryKey0123456789"
# what the agent prints, and the part of each that is the secret
PRINTED = {
    "openai key": ("sk-proj-" + "Aa0" * 16, "sk-proj-" + "Aa0" * 16),
    "anthropic key": ("sk-ant-api03-" + "Bb1" * 16, "sk-ant-api03-" + "Bb1" * 16),
    "google key": ("AIza" + "Cc2_" * 9, "AIza" + "Cc2_" * 9),
    "github token": ("ghp_" + "Dd3" * 12, "ghp_" + "Dd3" * 12),
    "slack token": ("xoxb-1234567890-" + "Ee4" * 6, "xoxb-1234567890-" + "Ee4" * 6),
    "aws key id": ("AKIA" + "FG5H" * 4, "AKIA" + "FG5H" * 4),
    "bearer token": ("Authorization: Bearer BearerTok3nValue99", "BearerTok3nValue99"),
    "NAME_TOKEN=": ("MY_SERVICE_TOKEN=AssignedT0kenValue", "AssignedT0kenValue"),
    "--api-key": ("--api-key OptionKeyValue77", "OptionKeyValue77"),
    "url query": (
        "https://api.example.com/v1?access_token=UrlAccessTok3n&sig=UrlSigValue1&page=2",
        "UrlAccessTok3n",
    ),
}
# real provider keys in trialrun's environment: the agent must not get them
PARENT_KEYS = {
    "GEMINI_API_KEY": "gemini-env-value-123",
    "ANTHROPIC_API_KEY": "anthropic-env-value-456",
    "GOOGLE_API_KEY": "google-env-value-789",
    "HF_TOKEN": "hf-env-value-000111",
    "MY_SERVICE_PASSWORD": "password-env-value-222",
}
SECRETS = [JUDGE_PASSWORD, QUERY_KEY, "UrlSigValue1", *(s for _, s in PRINTED.values()),
           *PARENT_KEYS.values()]

TASK = """\
task_id: leaky
suite: golden
description: an agent that prints secrets
inputs: {prompt: "say hi"}
graders:
  - {type: judge, criteria: "says hi politely"}
  - {type: contains, value: "NEVER-PRINTED"}
tracked_metrics: [pass^k]
trials: {k: 1}
"""

AGENT = """\
import json, os, sys
printed = json.loads({printed!r})
names = json.loads({names!r})
seen = " ".join(os.environ.get(name, "") for name in names)
print("hi " + " ".join(printed) + " seen: " + seen)
json.dump(dict(os.environ), open({env_file!r}, "w"))
print("failed with " + " ".join(printed) + " " + seen, file=sys.stderr)
sys.exit(1)
"""


class JudgeServer:
    """An OpenAI-compatible server answering every request with "NO" (a failed verdict,
    whose details every report shows)."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # stdlib naming
                self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.dumps({
                    "id": "c1", "object": "chat.completion", "model": "j",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": "NO"}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@dataclass
class LeakyRun:
    root: Path
    run: Path
    done: subprocess.CompletedProcess[str]
    agent_env: dict[str, str]
    store: Path


@pytest.fixture(scope="module")
def leaky(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LeakyRun]:
    root = tmp_path_factory.mktemp("leaky")
    (root / "leaky.yaml").write_text(TASK)
    env_file = root / "agent-env.json"
    (root / "agent.py").write_text(AGENT.format(
        printed=json.dumps([text for text, _ in PRINTED.values()]),
        names=json.dumps(list(PARENT_KEYS)), env_file=str(env_file),
    ))
    server = JudgeServer()
    judge = server.url.replace("http://", f"http://judge:{JUDGE_PASSWORD}@")
    store = root / "history.db"
    env = {**os.environ, **PARENT_KEYS, "OPENAI_API_KEY": "sk-parent-openai-0123456789"}
    try:
        done = _trialrun(
            "run", "leaky.yaml", "--agent-cmd", f"{sys.executable} {root / 'agent.py'}",
            "--model", f"openai-compat:m-2024@{server.url}?api_key={QUERY_KEY}",
            "--judge", f"openai-compat:j-2024@{judge}", "--out", "out",
            "--junit", "report.xml", "--markdown", "report.md",
            "--store", f"sqlite:///{store}", cwd=root, env=env,
        )
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    (run,) = (root / "out").iterdir()
    yield LeakyRun(root, run, done, json.loads(env_file.read_text()), store)


def _leaked(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def _files(folder: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(folder.rglob("*"))
                     if p.is_file())


def test_the_run_really_carried_the_secrets(leaky: LeakyRun) -> None:
    """The premise: the agent printed, the judge judged, and masks are where secrets were."""
    line = json.loads((leaky.run / "results.jsonl").read_text().splitlines()[0])
    assert line["final_text"].startswith("hi ") and MASK in line["final_text"]
    assert "page=2" in line["final_text"]  # a harmless query parameter is kept
    assert line["error"]["kind"] == "agent_error" and MASK in line["error"]["message"]
    judged = next(v for v in line["verdicts"] if v["grader"] == "judge")
    assert judged["passed"] is False
    assert judged["details"]["judge_model"].startswith(
        f"openai-compat:j-2024@http://{MASK}@127.0.0.1:"
    )


def test_no_secret_in_results_lines(leaky: LeakyRun) -> None:
    assert _leaked((leaky.run / "results.jsonl").read_text()) == []


def test_no_secret_in_transcripts(leaky: LeakyRun) -> None:
    assert _leaked(_files(leaky.run / "transcripts")) == []


def test_no_secret_in_run_json_endpoints(leaky: LeakyRun) -> None:
    manifest = json.loads((leaky.run / "run.json").read_text())
    assert _leaked(json.dumps(manifest)) == []
    (endpoint,) = manifest["endpoints"].values()
    assert endpoint["url"].endswith(f"?api_key={MASK}")
    assert endpoint["credentials"] is True  # a resume asks for --model again


def test_no_secret_anywhere_in_the_run_folder(leaky: LeakyRun) -> None:
    assert _leaked(_files(leaky.run)) == []


def test_no_secret_in_junit(leaky: LeakyRun) -> None:
    text = (leaky.root / "report.xml").read_text()
    assert "judge" in text and _leaked(text) == []


def test_no_secret_in_markdown(leaky: LeakyRun) -> None:
    text = (leaky.root / "report.md").read_text()
    assert "leaky" in text and _leaked(text) == []


def test_no_secret_in_markdown_or_stdout_naming_an_agent_by_its_command(
    tmp_path: Path,
) -> None:
    """Without --model, the agent's command names the model in every report and table:
    a token passed to it as an argument is masked there too."""
    token = PRINTED["github token"][1]
    (tmp_path / "t.yaml").write_text(TASK.replace('  - {type: judge, criteria: "says hi '
                                                  'politely"}\n', ""))
    agent = tmp_path / "a.py"
    agent.write_text("print('hi')\n")
    done = _trialrun("run", "t.yaml", "--agent-cmd", f"{sys.executable} {agent} {token}",
                     "--out", "o", "--markdown", "report.md", "--junit", "report.xml",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    markdown = (tmp_path / "report.md").read_text()
    assert "agent:" in markdown and token not in markdown
    assert token not in (tmp_path / "report.xml").read_text()
    assert token not in done.stdout + done.stderr
    assert token not in _files(tmp_path / "o")


def test_no_secret_in_the_html_report(leaky: LeakyRun) -> None:
    out = leaky.root / "report.html"
    done = _trialrun("report", str(leaky.run), "--html", str(out), cwd=leaky.root)
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    pages = "\n".join(report_pages(html).values())
    assert "final_text" in pages and _leaked(pages + html) == []


def _get(port: int, path: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read().decode()
    conn.close()
    assert response.status == 200, body
    return body


def test_no_secret_in_viewer_pages_over_http(leaky: LeakyRun) -> None:
    server = make_server(leaky.run.parent, port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        port = server.server_address[1]
        base = f"/api/run/{leaky.run.name}"
        pages = [_get(port, path) for path in
                 ("/api/runs", base, f"{base}/task/0", f"{base}/trial/0")]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    assert "final_text" in pages[-1] and _leaked("\n".join(pages)) == []


def test_no_secret_in_the_history_database(leaky: LeakyRun) -> None:
    with sqlite3.connect(leaky.store) as db:
        rows = "\n".join(
            repr(row) for (table,) in db.execute("SELECT name FROM sqlite_master "
                                                 "WHERE type = 'table'")
            for row in db.execute(f'SELECT * FROM "{table}"')  # own names
        )
    assert "agent command exited with 1" in rows and _leaked(rows) == []


def test_no_secret_on_stdout_or_stderr(leaky: LeakyRun) -> None:
    assert _leaked(leaky.done.stdout + leaky.done.stderr) == []


def test_regrade_asks_again_for_a_judge_given_with_credentials(leaky: LeakyRun) -> None:
    """The verdicts name the judge with its password masked: regrade does not call
    `http://***@host` but asks for --judge again, in one line."""
    done = _trialrun("regrade", str(leaky.run), "--out", str(leaky.root / "again"),
                     cwd=leaky.root)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "given with credentials" in done.stderr and "pass --judge SPEC again" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_the_agent_gets_no_provider_key_of_the_parent(leaky: LeakyRun) -> None:
    env = leaky.agent_env
    assert [name for name in PARENT_KEYS if name in env] == []
    assert _leaked(json.dumps(env)) == []
    assert env["OPENAI_API_KEY"] == "trialrun"  # the proxy's, not the parent's
    assert env["OPENAI_BASE_URL"].startswith("http://127.0.0.1:")
    assert env["PATH"] == os.environ["PATH"]
    assert env["HOME"] != os.path.expanduser("~")


def test_config_names_the_variables_an_agent_may_get(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TASK.replace("  - {type: judge, criteria: \"says hi "
                                                  "politely\"}\n", ""))
    (tmp_path / "trialrun.toml").write_text('[agent]\nenv = ["HF_TOKEN"]\n')
    out = tmp_path / "env.json"
    (tmp_path / "a.py").write_text(f"import json, os\njson.dump(dict(os.environ), "
                                   f"open({str(out)!r}, 'w'))\nprint('hi')\n")
    env = {**os.environ, **PARENT_KEYS}
    done = _trialrun("run", "t.yaml", "--agent-cmd", f"{sys.executable} {tmp_path / 'a.py'}",
                     "--out", "o", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    seen = json.loads(out.read_text())
    assert seen["HF_TOKEN"] == PARENT_KEYS["HF_TOKEN"] and "GEMINI_API_KEY" not in seen


def test_a_bad_agent_env_config_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TASK)
    (tmp_path / "trialrun.toml").write_text('[agent]\nenv = ["NOT A NAME"]\n')
    done = _trialrun("run", "t.yaml", "--agent-cmd", "echo hi", "--out", "o", cwd=tmp_path)
    assert done.returncode == 2
    assert "trialrun.toml: [agent] env: 'NOT A NAME' is not a variable name" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "flag, spec",
    [
        ("--model", f"bogus:m@http://u:{JUDGE_PASSWORD}@h/v1"),
        ("--model", f"openai-compat:@http://u:{JUDGE_PASSWORD}@h/v1"),
        ("--model", f"openai-compat:m@ftp://u:{JUDGE_PASSWORD}@h/v1"),
        ("--judge", f"openai-compat:@http://u:{JUDGE_PASSWORD}@h/v1"),
        ("--judge", f"bogus:m@http://u:{JUDGE_PASSWORD}@h/v1"),
        ("--judge", f"openai-compat:m-latest@http://h/v1?api_key={JUDGE_PASSWORD}"),
    ],
)
def test_a_bad_model_spec_never_prints_its_password(tmp_path: Path, flag: str, spec: str) -> None:
    (tmp_path / "t.yaml").write_text(TASK)
    args = ["run", "t.yaml", flag, spec, "--out", "o"]
    if flag == "--judge":
        args += ["--agent-cmd", "echo hi"]
    done = _trialrun(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("trialrun: ") and "Traceback" not in done.stderr
    assert JUDGE_PASSWORD not in done.stdout + done.stderr


# --- the redaction itself ---

_KEY_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _key(prefix: str, alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=size, max_size=size + 20).map(
        lambda tail: prefix + tail
    )


# (secret strategy, how it appears in text): the whole key, or a value in its context
SHAPES: dict[str, tuple[st.SearchStrategy[str], str]] = {
    "sk-": (_key("sk-", _KEY_CHARS + "_-", 20), "{}"),
    "sk-ant-": (_key("sk-ant-api03-", _KEY_CHARS + "_-", 40), "{}"),
    "sk-proj-": (_key("sk-proj-", _KEY_CHARS, 40), "{}"),
    "AIza": (_key("AIza", _KEY_CHARS + "_-", 35), "{}"),
    "ghp_": (_key("ghp_", _KEY_CHARS, 36), "{}"),
    "github_pat_": (_key("github_pat_", _KEY_CHARS + "_", 40), "{}"),
    "xoxb-": (_key("xoxb-", _KEY_CHARS + "-", 20), "{}"),
    "AKIA": (st.text(alphabet=_UPPER, min_size=16, max_size=16).map("AKIA{}".format), "{}"),
    "hf_": (_key("hf_", _KEY_CHARS, 34), "{}"),
    "Bearer": (_key("", _KEY_CHARS + "._~+/-", 12), "Authorization: Bearer {}"),
    "bare Bearer": (_key("", _KEY_CHARS + "._~+/-", 12), "bearer {}"),
    "NAME_TOKEN=": (_key("", _KEY_CHARS, 6), "GH_TOKEN={}"),
    "*_KEY=": (_key("", _KEY_CHARS, 6), "export STRIPE_KEY={}"),
    "*_SECRET=": (_key("", _KEY_CHARS, 6), "CLIENT_SECRET={}"),
    "*_PASSWORD=": (_key("", _KEY_CHARS, 6), "DB_PASSWORD={}"),
    "--api-key VALUE": (_key("", _KEY_CHARS, 6), "agent --api-key {} -v"),
    "--token=VALUE": (_key("", _KEY_CHARS, 6), "agent --token={}"),
    "api_key: VALUE": (_key("", _KEY_CHARS, 6), '{{"api_key": "{}"}}'),
    "userinfo": (_key("", _KEY_CHARS + "%!$~", 6), "GET http://user:{}@host:8/v1"),
    "?api_key=": (_key("", _KEY_CHARS + "%-", 6), "http://h/v1?api_key={}&x=1"),
    "&access_token=": (_key("", _KEY_CHARS, 6), "https://h/cb?state=a&access_token={}"),
    "&sig=": (_key("", _KEY_CHARS + "%", 6), "https://blob/x?sv=1&sig={}"),
    "X-Amz-Signature=": (_key("", _KEY_CHARS, 6), "https://s3/x?X-Amz-Signature={}"),
    "?password=": (_key("", _KEY_CHARS, 6), "https://h/login?password={}"),
}
_FILLER = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), max_codepoint=0x2FF), max_size=30
)


@st.composite
def _embedded(draw: st.DrawFn, shape: str) -> tuple[str, str]:
    strategy, template = SHAPES[shape]
    secret = draw(strategy)
    before, after = draw(_FILLER), draw(_FILLER)
    assume(secret not in before + after)
    # the secret stands on its own: a separator on each side, as it would in output
    return secret, f"{before} {template.format(secret)}\n{after}"


@pytest.mark.parametrize("shape", sorted(SHAPES))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_redaction_never_leaves_a_secret_and_is_idempotent(shape: str, data: st.DataObject):
    secret, text = data.draw(_embedded(shape))
    once = redact(text)
    assert secret not in once
    assert redact(once) == once
    # as a JSON string inside a line, too: the cheap first test sees it, and the line
    # written holds no secret and still parses
    line = redacted_json(json.dumps, {"final_text": text, "n": 1})
    assert may_hold_secret(json.dumps(text), secret_values())
    assert secret not in line and json.loads(line)["final_text"] == once


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_the_first_test_never_misses_what_redaction_changes(text: str) -> None:
    """`may_hold_secret` on a line's JSON is True whenever `redact` would change a string
    in it: the writers may skip a line only when nothing in it would be masked."""
    if redact(text) != text:
        assert may_hold_secret(json.dumps(text, ensure_ascii=False), secret_values())
        assert may_hold_secret(json.dumps(text), secret_values())


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_redaction_is_idempotent_on_any_text(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_secret_environment_values_are_masked_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_API_TOKEN", "acme-value-0123")
    monkeypatch.setenv("SSH_KEY_PATH_LIKE_KEY", "/home/user/.ssh/id")  # a path: not a secret
    out = redact("token acme-value-0123 at /home/user/.ssh/id")
    assert out == f"token {MASK} at /home/user/.ssh/id"


def test_a_canary_shaped_like_a_key_is_graded_before_it_is_masked(tmp_path: Path) -> None:
    """secretCanary sees the raw answer (the leak is caught); what is written is masked."""
    canary = "sk-ant-api03-" + "Zz9" * 14
    (tmp_path / "t.yaml").write_text(TASK.replace(
        '  - {type: judge, criteria: "says hi politely"}\n',
        f'  - {{type: secretCanary, value: "{canary}"}}\n',
    ))
    agent = tmp_path / "a.py"
    agent.write_text(f"print('the key is {canary}')\n")
    done = _trialrun("run", "t.yaml", "--agent-cmd", f"{sys.executable} {agent}", "--out", "o",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (run,) = (tmp_path / "o").iterdir()
    line = json.loads((run / "results.jsonl").read_text().splitlines()[0])
    verdict = next(v for v in line["verdicts"] if v["grader"] == "secretCanary")
    assert verdict["passed"] is False and line["safety_violation"] is True
    assert line["final_text"] == f"the key is {MASK}"
    assert canary not in _files(run) + done.stdout + done.stderr
