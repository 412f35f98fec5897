"""Suite-wide: CLI runs the tests start record nothing in a history store unless a test
asks for one (`TRIALRUN_HISTORY=off`; the history tests pass `--store` or unset it)."""

from __future__ import annotations

import os

os.environ.setdefault("TRIALRUN_HISTORY", "off")
