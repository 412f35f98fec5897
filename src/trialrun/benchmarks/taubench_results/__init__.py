"""Reading τ-bench's published results: a results file (a list of `{task_id, trial,
reward, info, traj}`) as a trialrun run folder, optionally rescored in trialrun's own
τ-bench environment (`trialrun import tau-bench`).

    done = import_results("gpt-4o-airline.json", "runs/gpt-4o-airline")
    done = import_results(path, out, rescore_in=RescoreSource(Path("tau-bench")))
    done.rescore_json()   # {"trials": 200, "agree": …, "disagreements": […], …}
"""

from trialrun.benchmarks.taubench_results._convert import RECORDED_GRADER, Naming
from trialrun.benchmarks.taubench_results._import import (
    ImportResult,
    RescoreSource,
    import_results,
)
from trialrun.benchmarks.taubench_results._leaderboard import solve_curve
from trialrun.benchmarks.taubench_results._naming import ImportNaming, name_import
from trialrun.benchmarks.taubench_results._rescore import Rescored
from trialrun.benchmarks.taubench_results._stream import iter_entries
from trialrun.benchmarks.taubench_results._trial import TauTrial, read_trial

__all__ = [
    "RECORDED_GRADER",
    "ImportNaming",
    "ImportResult",
    "Naming",
    "RescoreSource",
    "Rescored",
    "TauTrial",
    "import_results",
    "iter_entries",
    "name_import",
    "read_trial",
    "solve_curve",
]
