"""Running commands: one process group per run, live output, timeouts, cancellation, nothing left behind."""

from freshpass.runner.process import OutputTail, ProcessResult, run_shell, shell_for_user

__all__ = ["OutputTail", "ProcessResult", "run_shell", "shell_for_user"]
