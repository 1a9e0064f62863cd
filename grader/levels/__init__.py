"""The three levels of grading: L0 deliverables, L1 static analysis, L2 engine execution."""

from ._l0 import SAFETY_CHECKS, check_deliverable, safe_to_run
from ._l2 import engine_settings, judge, not_run, run_l2

__all__ = ["SAFETY_CHECKS", "check_deliverable", "engine_settings", "judge", "not_run", "run_l2", "safe_to_run"]
