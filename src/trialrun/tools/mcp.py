"""Tool pack `mcp`: the tools of a stdio MCP server, through the `mcp` SDK.

    environment:
      tools:
        - mcp: {command: ["python", "-m", "my_server"], env: {TOKEN: "x"}}

Options: `command` (list or string, required), `env` (added to the environment), `cwd`,
`lifetime` — `run` (default: one server process for the whole run) or `trial` (a fresh
server per trial, started in the trial's workspace; `{workspace}` in command/env/cwd is
replaced by its path) — `prefix` (prepended to tool names) and `timeout_s` (per call).

The MCP client sessions live on one background event loop in a daemon thread, whatever
loop the trials run on: the SDK's streams are bound to the task that opened them, so
each session is held open by one long-lived task there and calls are handed over with
`run_coroutine_threadsafe`. A tool error, a server crash or a timeout is a failed tool
result the agent sees, never a crashed trial.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import shlex
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.tools._tool import Tool, ToolContext, ToolError, check_timeout
from trialrun.tools._toolbox import tool_pack

DEFAULT_CALL_TIMEOUT_S = 60.0
START_TIMEOUT_S = 60.0
_OPTIONS = {"command", "env", "cwd", "lifetime", "prefix", "timeout_s"}


class _Loop:
    """One background event loop for every MCP session of the process."""

    _instance: _Loop | None = None
    _guard = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="trialrun-mcp", daemon=True
        )
        self.thread.start()

    @classmethod
    def get(cls) -> _Loop:
        with cls._guard:
            if cls._instance is None:
                cls._instance = cls()
                atexit.register(_shutdown_all)
            return cls._instance

    def submit(self, coro: Any) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)


class _Session:
    def __init__(
        self, session: Any, stop: asyncio.Event, task: asyncio.Task[Any], errlog: Any
    ) -> None:
        self.session = session
        self.stop = stop
        self.task = task
        self.errlog = errlog


def _stderr_tail(errlog: Any) -> str:
    try:
        errlog.flush()
        errlog.seek(0)
        lines = errlog.read().strip().splitlines()
        return " ".join(lines[-3:])[-400:]
    except Exception:
        return ""


def _command(options: dict[str, Any]) -> list[str]:
    """The server's argv, checked with the other options (nothing started)."""
    unknown = set(options) - _OPTIONS
    if unknown:
        raise UserError(
            f"tool pack mcp: unknown option(s) {sorted(unknown)}; allowed: {sorted(_OPTIONS)}"
        )
    command = options.get("command")
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as exc:
            raise UserError(f"tool pack mcp: command: {exc}; check its quotes") from None
    if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
        raise UserError('tool pack mcp: give command: ["program", "arg", …] in its options')
    if any("\0" in c for c in command):
        raise UserError("tool pack mcp: command: an argument holds a NUL character; remove it")
    env = options.get("env") or {}
    if not isinstance(env, dict):
        raise UserError("tool pack mcp: env must be a mapping of names to strings")
    if options.get("lifetime", "run") not in ("run", "trial"):
        raise UserError(f"tool pack mcp: lifetime {options['lifetime']!r}: use 'run' or 'trial'")
    if "timeout_s" in options:
        check_timeout(options["timeout_s"], "tool pack mcp: timeout_s")
    return command


def _check_options(options: dict[str, Any]) -> None:
    _command(options)


class McpServer:
    """One configured server (command + env); sessions keyed by lifetime."""

    def __init__(self, options: dict[str, Any]) -> None:
        command = _command(options)
        env = options.get("env") or {}
        self.command: list[str] = command
        self.env = {str(k): str(v) for k, v in env.items()}
        self.cwd = options.get("cwd")
        self.lifetime = options.get("lifetime", "run")
        if self.lifetime not in ("run", "trial"):
            raise UserError(f"tool pack mcp: lifetime '{self.lifetime}': use 'run' or 'trial'")
        self.prefix = str(options.get("prefix") or "")
        self.timeout_s = float(options.get("timeout_s", DEFAULT_CALL_TIMEOUT_S))
        self._sessions: dict[str, _Session] = {}
        self._starting: dict[str, asyncio.Future[Any]] = {}
        self.tools: list[Any] = []

    @property
    def label(self) -> str:
        return " ".join(self.command)

    def _params(self, workspace: str | None) -> Any:
        # the optional `mcp` extra, loaded when an MCP pack is used
        from mcp import StdioServerParameters

        def fill(text: str) -> str:
            return text.replace("{workspace}", workspace) if workspace else text

        cwd = fill(str(self.cwd)) if self.cwd else workspace
        return StdioServerParameters(
            command=fill(self.command[0]),
            args=[fill(a) for a in self.command[1:]],
            env={**os.environ, **{k: fill(v) for k, v in self.env.items()}},
            cwd=cwd,
        )

    # -- on the background loop ------------------------------------------------------
    async def _hold(self, key: str, workspace: str | None, ready: asyncio.Future[Any]) -> None:
        # the optional `mcp` extra, loaded when an MCP pack is used
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        stop = asyncio.Event()
        errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        try:
            params = self._params(workspace)
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                task = asyncio.current_task()
                assert task is not None  # _hold runs as a task
                entry = _Session(session, stop, task, errlog)
                self._sessions[key] = entry
                if not ready.done():
                    ready.set_result(entry)
                await stop.wait()
        except BaseException as exc:  # startup failure, crash, or cancellation
            if not ready.done():
                tail = _stderr_tail(errlog)
                detail = f"{type(exc).__name__}: {exc}".strip()
                ready.set_exception(RuntimeError(f"{detail}{'; stderr: ' + tail if tail else ''}"))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._sessions.pop(key, None)
            errlog.close()

    async def _session(self, key: str, workspace: str | None) -> _Session:
        entry = self._sessions.get(key)
        if entry is not None and not entry.task.done():
            return entry
        pending = self._starting.get(key)
        if pending is None or pending.done() and pending.exception() is not None:
            if self.lifetime == "trial":
                await self._close_stale()
            pending = asyncio.get_running_loop().create_future()
            self._starting[key] = pending
            asyncio.get_running_loop().create_task(self._hold(key, workspace, pending))
        try:
            return await asyncio.wait_for(asyncio.shield(pending), START_TIMEOUT_S)
        finally:
            if pending.done():
                self._starting.pop(key, None)

    async def _close_stale(self) -> None:
        """Trial sessions whose workspace is gone (the trial ended) are shut down."""
        for key, entry in list(self._sessions.items()):
            if key != "run" and not Path(key).exists():
                entry.stop.set()

    async def _close(self, key: str) -> None:
        entry = self._sessions.get(key)
        if entry is not None:
            entry.stop.set()
            try:
                await asyncio.wait_for(entry.task, 10)
            except (TimeoutError, asyncio.CancelledError, Exception):
                entry.task.cancel()

    async def close_all(self) -> None:
        for key in list(self._sessions):
            await self._close(key)

    async def _list(self) -> list[Any]:
        if self.lifetime == "run":
            session = await self._session("run", str(self.cwd) if self.cwd else None)
            return list((await session.session.list_tools()).tools)
        scratch = tempfile.mkdtemp(prefix="trialrun-mcp-")
        try:
            session = await self._session(scratch, scratch)
            return list((await session.session.list_tools()).tools)
        finally:
            await self._close(scratch)
            with contextlib.suppress(OSError):
                os.rmdir(scratch)

    async def _call(
        self, key: str, workspace: str | None, name: str, arguments: dict[str, Any]
    ) -> Any:
        entry = await self._session(key, workspace)
        return await entry.session.call_tool(name, arguments)

    # -- from any thread / loop ---------------------------------------------------------
    def list_tools(self) -> list[Any]:
        future = _Loop.get().submit(self._list())
        try:
            self.tools = future.result(START_TIMEOUT_S + 5)
        except Exception as exc:
            raise UserError(
                f"tool pack mcp: could not start or list the tools of `{self.label}` ({exc}); "
                "check the command runs an MCP stdio server"
            ) from None
        return self.tools

    async def call(self, ctx: ToolContext, name: str, arguments: dict[str, Any]) -> str:
        workspace: str | None
        if self.lifetime == "trial":
            key = workspace = str(ctx.workspace)
        else:
            key, workspace = "run", (str(self.cwd) if self.cwd else None)
        future = _Loop.get().submit(self._call(key, workspace, name, arguments))
        try:
            result = await asyncio.wait_for(asyncio.wrap_future(future), self.timeout_s)
        except TimeoutError:
            raise ToolError(
                f"{name}: the MCP server did not answer within {self.timeout_s:g}s"
            ) from None
        except Exception as exc:
            raise ToolError(f"{name}: MCP call failed: {type(exc).__name__}: {exc}") from None
        text = _result_text(result)
        if getattr(result, "is_error", None) or getattr(result, "isError", None):
            raise ToolError(text or f"{name} failed")
        return text


def _result_text(result: Any) -> str:
    parts: list[str] = []
    for item in getattr(result, "content", None) or []:
        text = getattr(item, "text", None)
        if text is not None:
            parts.append(str(text))
        else:
            kind = getattr(item, "type", type(item).__name__)
            parts.append(f"[{kind} content]")
    if not parts:
        structured = getattr(result, "structured_content", None) or getattr(
            result, "structuredContent", None
        )
        if structured is not None:
            parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts)


_SERVERS: dict[str, McpServer] = {}


def _shutdown_all() -> None:
    instance = _Loop._instance
    if instance is None:
        return
    for server in list(_SERVERS.values()):
        with contextlib.suppress(Exception):
            instance.submit(server.close_all()).result(15)
    instance.loop.call_soon_threadsafe(instance.loop.stop)


def _make_tool(server: McpServer, spec: Any) -> Tool:
    name = str(spec.name)
    schema = getattr(spec, "input_schema", None) or getattr(spec, "inputSchema", None) or {}
    schema = dict(schema) if isinstance(schema, dict) else {}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})

    async def call(ctx: ToolContext, **arguments: Any) -> str:
        return await server.call(ctx, name, arguments)

    return Tool(
        name=server.prefix + name,
        description=str(getattr(spec, "description", None) or name),
        parameters=schema,
        fn=call,
        takes_context=True,
        # the server's own per-call timeout answers first, with its clearer message
        timeout_s=server.timeout_s + 5,
    )


@tool_pack("mcp", _check_options)
def mcp_pack(options: dict[str, Any]) -> list[Tool]:
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UserError(
            "tool pack mcp: the mcp SDK is not installed; pip install -e '.[mcp]'"
        ) from None
    key = json.dumps(options, sort_keys=True, default=str)
    server = _SERVERS.get(key)
    if server is None:
        server = McpServer(options)
        server.list_tools()
        _SERVERS[key] = server
    return [_make_tool(server, spec) for spec in server.tools]
