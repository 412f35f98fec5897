"""The judge client: blind prompts, strict reply contracts, a verdict cache and the
`[judge]` settings.

The judge graders (`judge`, `llmRubric`, `pairwise`) live in `trialrun.graders`;
calibration, the bias report and regrading of stored runs in `trialrun.analysis`.
"""

from trialrun.judge._cache import VerdictCache, cache_for
from trialrun.judge._client import JudgeOutcome, ask, judge_identity, judge_spec
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
from trialrun.judge._settings import (
    NO_JUDGE_MESSAGE,
    JudgeModel,
    JudgeSettings,
    check_judge_spec,
    create_judge,
    resolve_judge_spec,
    self_judge_warning,
    settings_of,
    split_judge_variant,
)

__all__ = [
    "NO_JUDGE_MESSAGE",
    "PAIRWISE_VERDICTS",
    "JudgeOutcome",
    "JudgeModel",
    "JudgeSettings",
    "Prompt",
    "VerdictCache",
    "ask",
    "cache_for",
    "check_judge_spec",
    "create_judge",
    "judge_identity",
    "judge_spec",
    "pairwise_prompt",
    "parse_pairwise",
    "parse_score",
    "parse_yes_no",
    "resolve_judge_spec",
    "rubric_prompt",
    "self_judge_warning",
    "settings_of",
    "split_judge_variant",
    "yes_no_prompt",
]
