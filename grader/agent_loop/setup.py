"""A models.toml entry (grader/models_file.py) as the loop driver runs it: the loop's command line in its image and
the gateway to the entry's endpoint.  Everything the loop does differently per model is on its command line, so
sandbox.json keeps it."""

from __future__ import annotations

from grader.models_file import ModelEntry
from grader.sandbox.gateway import Gateway, parse_gateway

from .image import SCRIPT


def loop_gateway(entry: ModelEntry) -> Gateway:
    """The metered gateway to the entry's endpoint, pricing the entry's model (and any model whose name it
    prefixes: a dated snapshot the provider answers with) at the entry's list prices."""
    assert entry.endpoint is not None and entry.model is not None
    prices = {entry.model.name: list(entry.prices)} if entry.prices else {}
    return parse_gateway(entry.endpoint.url, key_env=entry.endpoint.key_env, key_header=entry.endpoint.key_header,
                         prices=prices)


def loop_command(entry: ModelEntry) -> tuple[str, ...]:
    """The loop's command in its container (its base URL is $GRADER_GATEWAY_URL)."""
    assert entry.endpoint is not None and entry.model is not None and entry.loop is not None
    command = ["python3", SCRIPT, "--model", entry.model.name, "--max-steps", str(entry.loop.max_steps),
               "--command-timeout", str(entry.loop.command_seconds)]
    if entry.prices is not None:
        command += ["--price-in", repr(entry.prices[0]), "--price-out", repr(entry.prices[1]),
                    "--max-cost", repr(entry.loop.max_cost_usd)]
    if entry.model.reasoning_mode != "default":
        command += ["--reasoning-effort", entry.model.reasoning_mode]
    if entry.endpoint.extra_body != "{}":
        command += ["--extra-body", entry.endpoint.extra_body]
    return tuple(command)
