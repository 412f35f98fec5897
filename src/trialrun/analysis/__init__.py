"""Analysis of stored runs: regrading, the judge's gold set, calibration and bias.

These read run folders through `trialrun.rundir` and grade through `trialrun.graders`,
so they sit above both (and above the judge client they calibrate).
"""

from trialrun.analysis._bias import bias_report
from trialrun.analysis._calibrate import (
    MARGIN,
    JudgeScore,
    calibrate_model,
    calibrate_recorded,
    score_judge,
)
from trialrun.analysis._extract import GoldFile, GoldTuple, extract_gold, load_gold, write_gold
from trialrun.analysis._regrade import RegradeReport, regrade, regrade_async

__all__ = [
    "MARGIN",
    "GoldFile",
    "GoldTuple",
    "JudgeScore",
    "RegradeReport",
    "bias_report",
    "calibrate_model",
    "calibrate_recorded",
    "extract_gold",
    "load_gold",
    "regrade",
    "regrade_async",
    "score_judge",
    "write_gold",
]
