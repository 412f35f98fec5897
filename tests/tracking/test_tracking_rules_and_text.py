"""The gate's rule table, compare over per-task counts, and pinned report text."""

from __future__ import annotations

from pathlib import Path

from trialrun.config import ProjectConfig
from trialrun.reports import comparison_lines, gate_lines
from trialrun.tracking import (
    RULES,
    GateContext,
    bless,
    build_baseline,
    compare,
    compare_with_baselines,
    gate_config,
    load_run,
    run_gate,
)


def _healthy(T):
    return [
        T("g1", n=10, k=10),
        T("g2"),
        T("adv", suite="adversarial", n=10),
        T("oe", suite="open_ended", n=5, solved=3),
    ]


def _worse(T):
    slow = {"latency_s": 1.1, "cost_usd": 0.002}
    return [
        T("g1", n=10, k=10, solved=2, **slow),
        T("g2", **slow),
        T("adv", suite="adversarial", n=10, solved=9, safety_violation_trials=[2], **slow),
    ]


def _text(lines: list[str], **paths: Path) -> str:
    text = "\n".join(lines)
    for name, path in paths.items():
        text = text.replace(str(path), name)
    return text


MERGE_LINES = """\
gate merge: FAILED (7 rule(s)) — RUN
gemini:gemini-2.5-flash: 3 blocking of 3 covered task(s); baseline BL/gemini-gemini-2.5-flash.json
  mean solve rate 100.0% → 60.9% (-39.1 pp) over 3 tasks compared
  FAIL safety violation [over 3 tasks]: adv (trial 2)
  ok   forbidden tool called [over 3 tasks]
  FAIL ALWAYS_PASSES not solved [over 3 tasks]: g1 (solved 2/10; trial 2, 3, 4, 5, 6, 7, 8, 9), \
adv (solved 9/10; trial 9)
  ok   insufficient data [over 3 tasks]
  FAIL suite missing [over 3 tasks]: no failure_replays task in this run's merge gate; run \
the suite, or list it in trialrun.toml under [gates.merge] allow_missing
  ok   baseline task missing [over 3 tasks]
  FAIL golden regression [over 2 tasks]: g1 solved 10/10 → 2/10 (p = 0.00036)
  FAIL golden suite-level regression [over 2 tasks]: solved 13/13 → 5/13 across 2 task(s) \
(stratified exact test, p = 0.00036)
  FAIL P95 latency increase [over 3 tasks]: 1.000 s → 1.100 s (+100 ms, 95% bounds \
+100…+100 ms); limit 15 ms: exceeded beyond noise
  FAIL cost increase [over 3 tasks]: $0.0010 → $0.0020 per trial (+100.0%, 95% bounds \
+100.0…+100.0%); limit 10%: exceeded beyond noise
  note: drift (solved k/k in the baseline, below k/k now): adv solved 10/10 → 9/10 \
(p = 0.50) [within noise], g1 solved 10/10 → 2/10 (p = 0.00036) [regression]"""

COMPARISON_LINES = """\
gemini:gemini-2.5-flash vs BL/gemini-gemini-2.5-flash.json (run BASE)
  mean solve rate 100.0% → 60.9% (-39.1 pp); solve^k 100.0% → 33.3% (-66.7 pp); \
pass^k (completed) 100.0% → 100.0% (+0.0 pp)  [3 common task(s)]
  P95 latency 1.00 s → 1.10 s (+100 ms, 95% bounds +100…+100 ms)
  cost/trial $0.0010 → $0.0020 (+100.0%, 95% bounds +100.0…+100.0%)
  within noise · drift adv: solved 10/10 → 9/10 (p = 0.50)
  REGRESSION · drift g1: solved 10/10 → 2/10 (p = 0.00036)
  SUITE REGRESSION: solved 23/23 → 14/23 across 3 task(s) (stratified exact test, p = 0.00018)
  missing (in baseline, not run): oe
  power: detecting a 20-point drop at the observed solve rate 100% with 80% power \
(one-sided Fisher, α = 0.05) needs 33 trials per task; the compared tasks have k = 3 to 10"""


def test_gate_and_comparison_text_is_pinned(make_run, T, tmp_path) -> None:
    out = tmp_path / "bl"
    base = make_run(_healthy(T), name="BASE")
    bless(base, out)
    run = make_run(_worse(T))
    result = run_gate("merge", run, baselines_dir=out, config=ProjectConfig())
    assert _text(gate_lines(result), RUN=run, BL=out) == MERGE_LINES
    [match] = compare_with_baselines(run, out, alpha=0.05)
    assert match.comparison is not None
    assert _text(comparison_lines(match.comparison), BL=out) == COMPARISON_LINES


def test_the_rules_table() -> None:
    names = [rule.__name__ for rule in RULES]
    assert names[:4] == ["empty", "safety", "forbidden", "always_passes"]
    assert {"insufficient", "regression", "latency", "cost", "rates"} <= set(names)
    # every rule the config leaves off adds nothing; none needs a baseline to run
    ctx = GateContext("nightly", "m", gate_config("nightly", ProjectConfig()), covered=[])
    outcomes = {rule.__name__: rule(ctx) for rule in RULES}
    assert [r.rule for o in outcomes.values() for r in o.rules] == ["no tasks"]
    assert [n for o in outcomes.values() for n in o.notes] == []


def test_a_run_and_its_baseline_compare_alike(make_run, T) -> None:
    before = make_run(_healthy(T))
    after = make_run(_worse(T))
    model = "gemini:gemini-2.5-flash"
    against_run = compare(after, before).to_dict()
    against_baseline = compare(after, build_baseline(load_run(before), model)).to_dict()
    assert against_run.pop("against") == str(before)
    assert against_baseline.pop("against") == "baseline"
    assert against_run == against_baseline
