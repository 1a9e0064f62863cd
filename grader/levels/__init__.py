"""The three levels of grading: L0 deliverables, L1 static analysis, L2 engine execution."""

from ._l0 import check_deliverable
from ._l2 import engine_settings, judge, not_run, run_l2

__all__ = ["check_deliverable", "engine_settings", "judge", "not_run", "run_l2"]
