"""The `[judge]` section of trialrun.toml and the judge-model choice.

```toml
[judge]
model = "gemini:gemini-2.5-flash"   # a pinned id; never -latest / -preview
cache_dir = ".trialrun/judge-cache"  # default ~/.cache/trialrun/judge
cache = true                         # false: always call the judge
timeout_s = 120                      # per judge call
max_tokens = 1024                    # optional cap per judge reply
constrained = true                   # send the reply constraint (grammar / schema)
```

Precedence for the judge model: `--judge SPEC` on the command line, else `[judge] model`,
else none (judge verdicts are then skipped, passed = None). There is no silent default:
`--judge local` selects the embedded GGUF model, pinned by its sha256.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trialrun.config import ProjectConfig
from trialrun.core import model_name, redact
from trialrun.errors import ConfigError, UserError
from trialrun.models import (
    MODEL_PROVIDERS,
    Completion,
    CompletionParams,
    Message,
    Model,
    ProviderSettings,
    ToolSpec,
    create_model,
    is_unpinned,
    parse_model_spec,
)

CACHE_ENV = "TRIALRUN_JUDGE_CACHE_DIR"
NO_JUDGE_MESSAGE = (
    "no judge model configured: pass --judge SPEC or set [judge] model in trialrun.toml"
)


class _JudgeSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    cache_dir: str | None = None
    cache: bool = True
    timeout_s: float = Field(120.0, gt=0, le=86_400, allow_inf_nan=False)  # at most a day
    max_tokens: int | None = Field(None, ge=1)
    constrained: bool = True


@dataclass(slots=True)
class JudgeSettings:
    model: str | None = None
    cache_dir: Path | None = None
    cache: bool = True
    timeout_s: float = 120.0
    max_tokens: int | None = None
    constrained: bool = True  # send each prompt's reply constraint to the provider
    temperature: float = 0.0  # a suite's [judge] temperature; 0 unless one is written

    @classmethod
    def from_config(cls, config: ProjectConfig) -> JudgeSettings:
        """The `[judge]` section of `config` (loaded by the caller's entry point)."""
        raw = config.section("judge")
        try:
            section = _JudgeSection.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "judge"
            raise ConfigError(
                f"{err['msg']}; "
                "allowed keys: model, cache_dir, cache, timeout_s, max_tokens, constrained",
                place=f"[judge] {where}", source=config.path,
            ) from None
        cache_dir = None
        if section.cache_dir:
            cache_dir = Path(section.cache_dir).expanduser()
            if not cache_dir.is_absolute():
                cache_dir = config.root / cache_dir
        return cls(
            model=section.model,
            cache_dir=cache_dir,
            cache=section.cache,
            timeout_s=section.timeout_s,
            max_tokens=section.max_tokens,
            constrained=section.constrained,
        )

    def resolved_cache_dir(self) -> Path:
        """`$TRIALRUN_JUDGE_CACHE_DIR`, else `[judge] cache_dir`, else ~/.cache/trialrun/judge."""
        env = os.environ.get(CACHE_ENV)
        if env:
            return Path(env).expanduser()
        if self.cache_dir is not None:
            return self.cache_dir
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(base) / "trialrun" / "judge"


@dataclass(slots=True)
class JudgeModel:
    """A judge model with the settings its calls use (timeout, cache, constraint), so the
    settings travel with the judge from the entry point that read them to every grader and
    scorer that asks it; two runs in one process with different settings never mix."""

    model: Model
    settings: JudgeSettings
    provider: str = field(init=False, default="")
    model_id: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.provider = str(getattr(self.model, "provider", "") or "")
        self.model_id = str(getattr(self.model, "model_id", "") or "")

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> Completion:
        return await self.model.complete(messages, tools, params)

    async def aclose(self) -> None:
        close = getattr(self.model, "aclose", None)
        if close is not None:
            await close()

    def __getattr__(self, name: str) -> Any:  # anything else a judge's caller reads
        if name in ("model", "settings", "provider", "model_id"):  # unset (a copy): no loop
            raise AttributeError(name)
        return getattr(self.model, name)


def settings_of(judge: Any) -> JudgeSettings:
    """The settings a judge call uses: the judge's own, else the defaults (never a file)."""
    return judge.settings if isinstance(judge, JudgeModel) else JudgeSettings()


def check_judge_spec(spec: str) -> str:
    """Refuse unpinned judge ids (a judge that changes under you makes verdicts drift).
    A message never shows the spec's credentials."""
    try:
        return _checked_judge_spec(spec)
    except UserError as exc:
        raise exc.shown_with(redact) from None


def _checked_judge_spec(spec: str) -> str:
    try:
        parsed = parse_model_spec(spec)
    except UserError as exc:  # the models package names the flag --model; here it is --judge
        raise (exc.at("--judge") if exc.place == "--model" else exc) from None
    if parsed.provider not in MODEL_PROVIDERS.names():
        hint = MODEL_PROVIDERS.suggest(parsed.provider)
        did = f" (did you mean '{hint}'?)" if hint else ""
        raise UserError(
            f"unknown provider '{parsed.provider}'{did}; "
            f"known: {', '.join(MODEL_PROVIDERS.names())}",
            place="--judge", value=parsed.text,
        )
    if is_unpinned(parsed.model_id) or is_unpinned(parsed.text):  # never the base URL
        raise UserError(
            f"judge models must be pinned; '{model_name(parsed.model_id)}' is "
            "a moving -latest/-preview/:latest alias: name a dated or versioned model id instead",
            place="--judge", value=spec,
        )
    return parsed.text


def resolve_judge_spec(cli_spec: str | None, settings: JudgeSettings) -> str | None:
    """`--judge` wins over `[judge] model`; None when neither is set. Unpinned ids → UserError."""
    spec = cli_spec or settings.model
    return check_judge_spec(spec) if spec else None


def self_judge_warning(spec: str) -> str:
    """The line a run shows when its judge is also a model under test (allowed where the
    seed allows it: benchmark suites)."""
    return (
        f"judge {redact(spec)} is also a model under test: a model tends to prefer its own "
        "answers (self-preference), so its scores on its own runs may be inflated; a "
        "different judge model avoids this"
    )


def create_judge(
    spec: str, settings: JudgeSettings, providers: ProviderSettings | None = None
) -> JudgeModel:
    """Create the judge model for `spec` after checking it is pinned, bound to `settings`;
    `providers`: the project's settings for model clients (None: the defaults)."""
    model = create_model(check_judge_spec(spec), flag="--judge", settings=providers)
    return JudgeModel(model, settings)


def split_judge_variant(spec: str) -> tuple[str, bool | None]:
    """`SPEC?constrained=false` → (SPEC, False): one judge measured in two settings
    (`trialrun judge calibrate --judge local --judge 'local?constrained=false'`)."""
    base, sep, query = spec.partition("?")
    if not sep:
        return spec, None
    key, _, value = query.partition("=")
    if key != "constrained" or value.lower() not in ("true", "false"):
        raise UserError(
            f"--judge {redact(spec)}: unknown setting '{redact(query)}'; the only one is "
            "?constrained=true or ?constrained=false"
        )
    return base, value.lower() == "true"
