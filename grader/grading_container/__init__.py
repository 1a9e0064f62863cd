"""Grading in a fresh container of the grader image: `grader grade --in-container` (docs/sandbox.md)."""

from .image import grader_image
from .pool import GradingPool, WarmContainer
from .run import GradingError, check_verdict, grade_in_container, probe_grading_container

__all__ = ["GradingError", "GradingPool", "WarmContainer", "check_verdict", "grade_in_container", "grader_image",
           "probe_grading_container"]
