"""Running commands: one process group per run, live output, timeouts, cancellation, nothing left behind.

The package itself imports nothing: `freshpass.runner.terminal` (what every door prints through) must not pull in
asyncio and the process machinery. Its names load from `freshpass.runner.process` on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from freshpass.runner.process import OutputTail, ProcessResult, run_shell, shell_for_user

__all__ = ["OutputTail", "ProcessResult", "run_shell", "shell_for_user"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from freshpass.runner import process

        return getattr(process, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
