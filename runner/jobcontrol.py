"""Job control as a shell does it, for a command run in the user's terminal (`freshpass run`)."""

from __future__ import annotations

import os


class Terminal:
    """Job control as a shell does it: the command's process group owns the terminal while it runs.

    Otherwise a command that reads the terminal (a debugger prompt, an interactive test) would be stopped by
    SIGTTIN, and Ctrl-C would reach only freshpass. With the terminal handed over, Ctrl-C goes straight to the
    command's group, exactly as without freshpass.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.handed = False

    @classmethod
    def of(cls, fd: int | None) -> Terminal | None:
        """The terminal on `fd` (the command's stdin), when we are its foreground job."""
        if fd is None:
            return None
        try:
            if not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
                return None  # no terminal, or we are not its foreground job ourselves
        except (OSError, ValueError, AttributeError):
            return None
        return cls(fd)

    def _set_foreground(self, pgid: int) -> None:
        import signal

        # A background group calling tcsetpgrp gets SIGTTOU; ignoring it is how shells take the terminal back.
        previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        try:
            os.tcsetpgrp(self.fd, pgid)
        finally:
            signal.signal(signal.SIGTTOU, previous)

    def hand_to(self, pgid: int) -> None:
        import signal

        try:
            self._set_foreground(pgid)
        except OSError:
            return
        self.handed = True
        # It may have touched the terminal before it owned it, and been stopped for that: wake it.
        try:
            os.killpg(pgid, signal.SIGCONT)
        except OSError:
            pass

    def take_back(self) -> None:
        if self.handed:
            try:
                self._set_foreground(os.getpgrp())
            except OSError:
                pass
            self.handed = False
