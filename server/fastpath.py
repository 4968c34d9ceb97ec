"""Answering a save from memory, before the authoritative snapshot finishes.

A full content snapshot costs a few git processes (~10 ms); an editor expects its diagnostics about as fast as any
language server publishes them. For a saved file in a git root the answer is usually decidable at once: hash the
file the way git does (`blob <size>\\0<bytes>`) and compare it with the file's blob in the reference tree — the
receipt's tree, or the server's first snapshot when there is no receipt — through one long-lived
`git cat-file --batch-check` process. The authoritative refresh still runs right after and corrects anything the
fast answer could not know (ignore rules, clean filters, modes), so the fast path only ever makes diagnostics
arrive sooner, never makes them wrong for long. Roots with `.gitattributes` (filters, eol conversion) skip it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from pathlib import Path

from freshpass.ledger.content import git_tree
from freshpass.ledger.git import GitError, IsolatedGit, find_repository

logger = logging.getLogger(__name__)

CACHE_LIMIT = 10_000


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class BlobLookup:
    """`<tree>:<path>` → blob id, answered by one persistent `git cat-file --batch-check` per repository."""

    def __init__(self, toplevel: Path) -> None:
        self.toplevel = toplevel
        self._process: asyncio.subprocess.Process | None = None
        self._isolated: IsolatedGit | None = None
        self._lock = asyncio.Lock()
        # Trees are immutable, so `<tree>:<path>` answers never go stale; bounded to keep memory flat.
        self._cache: dict[tuple[str, str], str | None] = {}

    async def _start(self) -> asyncio.subprocess.Process:
        if self._process is None or self._process.returncode is not None:
            if self._isolated is None:
                # The repository's own configuration is never read (freshpass.ledger.git): no include, no hook.
                repository = find_repository(self.toplevel)
                if repository is None:
                    raise OSError(f"{self.toplevel} is no longer a git work tree")
                isolated = IsolatedGit(repository, index=False)
                try:
                    await asyncio.to_thread(isolated.open)
                except GitError as exc:
                    raise OSError(str(exc)) from None
                self._isolated = isolated
            self._process = await asyncio.create_subprocess_exec(
                "git",
                "cat-file",
                "--batch-check",
                cwd=str(self.toplevel),
                env=self._isolated.env(),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
            )
        return self._process

    async def blob(self, tree: str, path: str) -> str | None:
        if "\n" in path:
            return None
        key = (tree, path)
        if key in self._cache:
            return self._cache[key]
        answer = await self._ask(tree, path)
        if len(self._cache) >= CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = answer
        return answer

    async def _ask(self, tree: str, path: str) -> str | None:
        async with self._lock:
            try:
                process = await self._start()
                assert process.stdin is not None and process.stdout is not None
                process.stdin.write(f"{tree}:{path}\n".encode("utf-8", "surrogateescape"))
                await process.stdin.drain()
                line = await asyncio.wait_for(process.stdout.readline(), 2.0)
            except (OSError, asyncio.TimeoutError, AssertionError):
                await self.close()
                return None
        fields = line.decode("utf-8", "replace").split()
        if len(fields) == 3 and fields[1] == "blob":
            return fields[0]
        return None  # "missing" (not in that tree: new, deleted or ignored) or not a blob

    async def close(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(Exception):
                await process.wait()

    async def shutdown(self) -> None:
        """Stop the process and remove the private git directory (the server is going away)."""
        await self.close()
        isolated, self._isolated = self._isolated, None
        if isolated is not None:
            isolated.close()


tree_of = git_tree  # the tree a `git:` content id names (`freshpass.ledger.content.git_tree`)
