"""L1, static analysis: `emmylua_ls` over LSP with stubs generated from the engine's API registry, and Lua 5.4's
own compiler for syntax.  Pass = no diagnostic of error severity (docs/l1.md)."""

from ._errors import L1SetupError
from ._policy import ERROR_CODES
from ._pool import analyse, server, shutdown
from ._result import Diagnostic, L1Result, Linter
from ._server import L1Server

__all__ = [
    "ERROR_CODES",
    "Diagnostic",
    "L1Result",
    "L1Server",
    "L1SetupError",
    "Linter",
    "analyse",
    "server",
    "shutdown",
]
