"""Per-attempt hardened containers for the agent's generation phase (docs/sandbox.md)."""

from .backend import (
    LABEL,
    LABEL_ATTEMPT,
    Limits,
    Profile,
    SandboxError,
    SandboxResult,
    cleanup,
    client,
    default_profile,
    pin_image,
    run_in_sandbox,
)
from .drivers import run_driver
from .image import AGENT_UID, ImageError, base_image, rootfs_tar

__all__ = ["AGENT_UID", "LABEL", "LABEL_ATTEMPT", "ImageError", "Limits", "Profile", "SandboxError",
           "SandboxResult", "base_image", "cleanup", "client", "default_profile", "pin_image", "rootfs_tar",
           "run_driver", "run_in_sandbox"]
