"""LLM-as-judge: blind prompts, strict reply contracts, a verdict cache, calibration
against human labels, a bias report and regrading of stored runs.

The graders themselves (`judge`, `llmRubric`, `pairwise`) live in `trialrun.graders`.
"""

from trialrun.judge._bias import bias_report
from trialrun.judge._cache import VerdictCache, cache_for
from trialrun.judge._calibrate import (
    MARGIN,
    JudgeScore,
    calibrate_model,
    calibrate_recorded,
    score_judge,
)
from trialrun.judge._client import JudgeOutcome, ask, judge_identity, judge_spec
from trialrun.judge._extract import GoldFile, GoldTuple, extract_gold, load_gold, write_gold
from trialrun.judge._prompt import (
    PAIRWISE_VERDICTS,
    Prompt,
    pairwise_prompt,
    parse_pairwise,
    parse_score,
    parse_yes_no,
    rubric_prompt,
    yes_no_prompt,
)
from trialrun.judge._regrade import RegradeReport, regrade, regrade_async
from trialrun.judge._settings import (
    NO_JUDGE_MESSAGE,
    JudgeSettings,
    check_judge_spec,
    configure,
    create_judge,
    current_settings,
    resolve_judge_spec,
)

__all__ = [
    "MARGIN",
    "NO_JUDGE_MESSAGE",
    "PAIRWISE_VERDICTS",
    "GoldFile",
    "GoldTuple",
    "JudgeOutcome",
    "JudgeScore",
    "JudgeSettings",
    "Prompt",
    "RegradeReport",
    "VerdictCache",
    "ask",
    "bias_report",
    "cache_for",
    "calibrate_model",
    "calibrate_recorded",
    "check_judge_spec",
    "configure",
    "create_judge",
    "current_settings",
    "extract_gold",
    "judge_identity",
    "judge_spec",
    "load_gold",
    "pairwise_prompt",
    "parse_pairwise",
    "parse_score",
    "parse_yes_no",
    "regrade",
    "regrade_async",
    "resolve_judge_spec",
    "rubric_prompt",
    "score_judge",
    "write_gold",
    "yes_no_prompt",
]
