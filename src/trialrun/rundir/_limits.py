"""How much of a run folder's files trialrun reads or copies at most.

A record (one results line, one trial's transcript, run.json, summary.json, a baseline)
is read whole into memory: past `record_bytes` it is refused. A file copied whole
(`regrade --out` copies the run folder) is refused past `file_bytes`. Both are generous;
a project sets them in trialrun.toml, which its entry point (the CLI command, the run,
`regrade`) loads and hands to `RunDir` as `RunDirLimits.of(config)`:

    [rundir]
    max_record_bytes = 67108864     # 64 MB
    max_file_bytes = 4294967296     # 4 GB
"""

from __future__ import annotations

from dataclasses import dataclass

from trialrun.config import ProjectConfig
from trialrun.errors import UserError

MAX_RECORD_BYTES = 64 * 1024 * 1024
MAX_FILE_BYTES = 4 * 1024 * 1024 * 1024
RAISE_HINT = "raise [rundir] {key} in trialrun.toml if the file is genuine"


@dataclass(frozen=True, slots=True)
class RunDirLimits:
    record_bytes: int = MAX_RECORD_BYTES
    file_bytes: int = MAX_FILE_BYTES

    @classmethod
    def of(cls, config: ProjectConfig) -> RunDirLimits:
        """The limits of the project's `[rundir]` table, else the defaults."""
        section = config.section("rundir")
        values = {}
        for key, default in (("max_record_bytes", MAX_RECORD_BYTES),
                             ("max_file_bytes", MAX_FILE_BYTES)):
            value = section.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UserError(
                    f"{config.path}: [rundir] {key} must be a positive whole number of bytes "
                    f"(got {value!r}); fix it or remove it for the default {default}"
                )
            values[key] = value
        return cls(values["max_record_bytes"], values["max_file_bytes"])


def record_fix(key: str = "max_record_bytes") -> str:
    return RAISE_HINT.format(key=key)
