"""The three levels of grading: L0 deliverables, L1 static analysis, L2 engine execution."""

from ._l0 import L0Limits, L0Result, check_deliverable
from ._l2 import L2Result, run_l2

__all__ = ["L0Limits", "L0Result", "L2Result", "check_deliverable", "run_l2"]
