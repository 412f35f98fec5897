"""Run inside the jail: one OpenJarvis scorer that executes the model's code, on one
answer. Reads `score.json` ({benchmark, record, answer}) from the working folder and
prints `[is_correct, metadata]` as one JSON line."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    from openjarvis.evals import cli  # type: ignore[import-untyped]
    from openjarvis.evals.core.types import EvalRecord  # type: ignore[import-untyped]

    given = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    scorer = cli._build_scorer(given["benchmark"], None, "")
    is_correct, metadata = scorer.score(EvalRecord(**given["record"]), given["answer"])
    sys.stdout.write("\n" + json.dumps([is_correct, metadata], default=str) + "\n")


if __name__ == "__main__":
    main()
