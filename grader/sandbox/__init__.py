"""Per-attempt hardened containers for the agent's generation phase (docs/sandbox.md)."""

from grader._containers import LABEL, ContainerError, ImageError, client

from .agent import AgentConfig, AgentConfigError, ModelInfo, load_agent_config
from .backend import (
    LABEL_ATTEMPT,
    ImageVolumesError,
    Limits,
    Profile,
    SandboxError,
    SandboxResult,
    cleanup,
    default_profile,
    pin_image,
    run_in_sandbox,
)
from .drivers import AgentSetup, agent_setup, run_driver
from .gateway import Gateway, GatewayError, parse_gateway
from .image import AGENT_UID, base_image, rootfs_tar
from .usage import USAGE_FILE, Usage, parse_usage, read_usage

__all__ = ["AGENT_UID", "LABEL", "LABEL_ATTEMPT", "USAGE_FILE", "AgentConfig", "AgentConfigError", "AgentSetup",
           "ContainerError", "Gateway", "GatewayError", "ImageError", "ImageVolumesError", "Limits", "ModelInfo",
           "Profile", "SandboxError", "SandboxResult", "Usage", "agent_setup", "base_image", "cleanup", "client",
           "default_profile", "load_agent_config", "parse_gateway", "parse_usage", "pin_image", "read_usage",
           "rootfs_tar", "run_driver", "run_in_sandbox"]
