"""The freshpass language server: one handler per LSP method, fanning out to feature modules.

`create_server()` builds a new server (there is no import-time singleton: tests and `--tcp` get fresh state). The
handlers here do the shared work once — resolve a URI to its root, keep settings, run the edit tracker — and every
behaviour a user sees lives in a `Feature` (server/feature.py): diagnostics, code lenses and actions, hovers,
verify runs, live status, and the agents' `freshpass/checkDone` (server/agents.py, when present).

Ground rules: a feature's failure is logged to the client (window/logMessage) and never shown as a popup; files
outside every root and non-`file:` URIs are ignored; the ledger is one connection owned by the server and closed on
shutdown/exit; nothing is ever printed (stdout is the protocol).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import signal
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes, urlsplit

from freshpass import __version__
from freshpass.facts.files import DOCUMENT_LIMIT, first_line, read_regular
from freshpass.facts.model import ProjectFacts
from freshpass.ledger.shared import SharedOptions
from freshpass.server.backend import Backend
from freshpass.server.feature import Feature
from freshpass.server.protocol import FreshpassProtocol
from freshpass.server.settings import Settings, parse_settings
from freshpass.server.state import DocumentRef, RootState
from freshpass.server.tracking import DEBOUNCE, Tracker, disk_stat
from freshpass.server.watcher import Watcher
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

logger = logging.getLogger(__name__)

# clientInfo.name of coding agents (lower case, compared by substring): they get `diagnostics.agentSeverity`. Crush's
# LSP library says `powernap`, Claude Code `Claude Code`; OpenCode sends none (its set-up says `agent: true`).
AGENT_CLIENT_NAMES = (
    "opencode", "crush", "powernap", "claude-code", "claude code", "codex", "aider", "goose", "amp-"
)  # fmt: skip
LSP_REQUEST_FAILED = -32803
CLIENT_REFRESH_TIMEOUT = 30.0  # seconds a client may take to acknowledge a refresh request
REGISTRATION_TIMEOUT = 5.0  # seconds a client may take to accept registrations before we stop waiting
SIGNAL_SHUTDOWN_TIMEOUT = 15.0  # seconds a signalled server spends tearing runs down before it leaves anyway


def is_agent_client(client_name: str, options: Mapping[str, Any]) -> bool:
    """An agent says so (`initializationOptions.agent: true`, which every documented set-up sends) or is known by the
    name its client sends (design §7.1)."""
    return options.get("agent") is True or any(name in client_name.lower() for name in AGENT_CLIENT_NAMES)


def trusted_from(options: Mapping[str, Any]) -> bool:
    """Workspace trust from initializationOptions: absent means trusted (clients without workspace trust), only
    the JSON value `true` otherwise. Anything else — "false", 0, null, "true" — fails closed."""
    return "trusted" not in options or options["trusted"] is True


def plain(value: Any) -> Any:
    """Custom params arrive as namedtuples (pygls' `Object`) with tuples for lists: turn them back into JSON."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if hasattr(value, "__attrs_attrs__"):
        from lsprotocol.converters import get_converter

        return get_converter().unstructure(value)
    return value


def uri_to_path(uri: str) -> Path | None:
    """The file system path of a `file:` URI; None for every other scheme (untitled:, git:, vscode-notebook:…).

    On POSIX the percent-escapes are the path's bytes: a directory name that is not UTF-8 (`caf%E9`) maps back to
    exactly that directory (pygls would replace the byte with U+FFFD, a path that does not exist)."""
    if not uri.startswith("file:"):
        return None
    path: str | None
    try:
        parts = urlsplit(uri)
        if os.name == "posix" and parts.netloc in ("", "localhost"):
            path = os.fsdecode(unquote_to_bytes(parts.path))
        else:
            path = to_fs_path(uri)
    except ValueError:  # "file://[": not a URI anyone can open
        return None
    return Path(os.path.abspath(path)) if path else None


class FreshpassServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "freshpass",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=FreshpassProtocol,  # every request is answered, even one pygls cannot structure
        )
        self.settings = Settings()
        self.session_id = ""
        self.is_agent = False
        self.trusted = True
        self.client_name = ""
        # The Python interpreter the editor selected (VS Code's Python extension): its environment runs the
        # project's commands (runner/environment.py).
        self.python_interpreter: str | None = None
        self.backend = Backend(self.log)
        self.backend.on_late_facts = self._late_facts
        self.tracker = Tracker(self)
        self.roots: dict[Path, RootState] = {}
        self.features: list[Feature] = []
        self.watcher: Watcher | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._shut_down = False
        self._signalled = False
        self._ready: asyncio.Event | None = None
        # Server → client refresh requests in flight, by method: [sending, asked again meanwhile].
        self._client_refreshes: dict[str, list[bool]] = {}
        self._background: set[asyncio.Future[None]] = set()
        self._folders_settled = asyncio.Event()
        self._folders_settled.set()
        self.exit_code = 1  # LSP: exit without a prior shutdown request is an error exit

    def shutdown(self) -> None:
        """Stop the transport without joining pygls' worker threads: one of them is blocked reading stdin, which
        the client keeps open after `exit`, and joining it would keep the process alive until the client gives up."""
        pool, self._thread_pool = self._thread_pool, None
        super().shutdown()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    async def wait_ready(self) -> None:
        """Handlers wait until `initialized` has found the roots, and until a workspace-folder change is applied: a
        didOpen or a request racing them must not find its file rootless."""
        if self._ready is None:
            self._ready = asyncio.Event()
        await self._ready.wait()
        await self._folders_settled.wait()

    def _set_ready(self) -> None:
        if self._ready is None:
            self._ready = asyncio.Event()
        self._ready.set()

    # ---- logging: the client's log, never a popup for something recoverable --------------------------------------

    def log(self, level: types.MessageType, message: str) -> None:
        logger.log(logging.WARNING if level <= types.MessageType.Warning else logging.INFO, "%s", message)
        try:
            self.window_log_message(types.LogMessageParams(type=level, message=message))
        except Exception:  # no transport yet (unit tests) or the client is gone
            logger.debug("cannot send a log message", exc_info=True)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls would show a popup; a failing handler is a log line. A request's deliberate error (bad params, no
        # such root) already went back to the caller and is not an internal error.
        if isinstance(error, JsonRpcException) and error.code != JsonRpcInternalError.CODE:
            return
        if self._shut_down:  # late answers to requests cancelled by shutdown: nothing anyone can act on
            logger.debug("after shutdown: %s", error)
            return
        self.log(types.MessageType.Error, f"freshpass: internal error ({source.__name__}): {error}")

    # ---- feature fan-out -----------------------------------------------------------------------------------------

    async def fan_out(self, hook: str, *args: Any) -> None:
        for feature in self.features:
            try:
                await getattr(feature, hook)(*args)
            except Exception as exc:
                logger.exception("%s.%s", feature.name, hook)
                self.log(types.MessageType.Error, f"freshpass: {feature.name} failed in {hook}: {exc!r}")

    def collect(self, hook: str, *args: Any) -> list[Any]:
        """Every feature's answer to a provider hook, concatenated (a single non-list answer counts as one item)."""
        results: list[Any] = []
        for feature in self.features:
            try:
                answer = getattr(feature, hook)(*args)
                if isinstance(answer, list):
                    results.extend(answer)
                elif answer is not None:
                    results.append(answer)
            except Exception as exc:
                logger.exception("%s.%s", feature.name, hook)
                self.log(types.MessageType.Error, f"freshpass: {feature.name} failed in {hook}: {exc!r}")
        return results

    # ---- client capabilities -------------------------------------------------------------------------------------

    def shared_options(self) -> SharedOptions:
        """How statuses treat shared receipts here: the `shared.*` settings, and never counted when untrusted."""
        return SharedOptions(self.settings.trust, workspace_trusted=self.trusted)

    def capability(self, dotted: str, default: Any = False) -> Any:
        from pygls.capabilities import get_capability

        try:
            return get_capability(self.client_capabilities, dotted, default)
        except Exception:
            return default

    # ---- roots ---------------------------------------------------------------------------------------------------

    def root_for_path(self, path: Path) -> RootState | None:
        """The deepest root holding `path`."""
        best: RootState | None = None
        for root in self.roots.values():
            if (path == root.path or root.path in path.parents) and (
                best is None or len(root.path.parts) > len(best.path.parts)
            ):
                best = root
        return best

    def locate(self, path: Path) -> tuple[RootState, Path] | None:
        """The root holding `path` and the path as that root spells it. Roots are stored resolved (symlinks
        followed); an editor may spell the same file through a symlinked directory, so try that too."""
        root = self.root_for_path(path)
        if root is None:
            resolved = path.resolve()
            if resolved != path:
                root, path = self.root_for_path(resolved), resolved
        return None if root is None else (root, path)

    def roots_holding(self, path: Path) -> list[tuple[RootState, str]]:
        """Every root holding `path` — its workspace root and the package it is in, when that package is known — with
        the path as each spells it: a change in a package changes the workspace root's content too."""
        located = self.locate(path)
        if located is None:
            return []
        deepest, path = located
        found = []
        root: RootState | None = deepest
        while root is not None:
            relative = root.relative(path)
            if relative is not None:
                found.append((root, relative))
            root = root.parent
        return found

    async def enter(self, uri: str) -> None:
        """Make sure the package a file is in has its own root (design §6): its status, lenses and diagnostics are
        the package's, as `freshpass run` and `freshpass status` in that directory see it."""
        from freshpass.facts.roots import PACKAGE_MARKERS, find_package_root

        path = uri_to_path(uri)
        located = None if path is None else self.locate(path)
        if located is None:
            return
        root, path = located
        workspace = root.parent or root
        if path.name in PACKAGE_MARKERS:
            workspace.package_of.clear()  # a package manifest came or went: packages may have moved
        directory = path.parent
        package = workspace.package_of.get(directory)
        if package is None:
            try:
                package = await asyncio.to_thread(find_package_root, path, workspace.path)
            except OSError:
                return
            workspace.package_of[directory] = package
        if package == workspace.path or package in self.roots or workspace.relative(package) is None:
            return
        state = RootState(path=package, parent=workspace)
        self.roots[package] = state
        await self.fan_out("on_root_added", state)
        self.tracker.request_refresh(state, delay=0)

    async def resolve_root(self, *, root: Any = None, uri: Any = None) -> RootState | None:
        """`find_root` for a request's `{root}` or `{uri}`, after giving the package it names its own root: a
        status, a verify or a done-check asked for a package directory is the package's, as in the terminal."""
        asked = uri or root
        if isinstance(asked, str) and asked:
            if asked.startswith("file:"):
                await self.enter(asked)
            elif Path(asked).is_absolute():
                await self.enter((Path(asked) / "_").as_uri())  # a name inside the directory: its package
        return self.find_root(root=root, uri=uri)

    def root_for_uri(self, uri: str) -> RootState | None:
        path = uri_to_path(uri)
        return None if path is None else self.root_for_path(path)

    def find_root(self, *, root: Any = None, uri: Any = None) -> RootState | None:
        """Resolve a `{root}` or `{uri}` argument; neither → the only/first root."""
        if isinstance(root, str) and root:
            as_path = uri_to_path(root) if root.startswith("file:") else Path(root)
            if as_path is None:
                return None
            wanted = Path(os.path.abspath(as_path))
            return self.roots.get(wanted) or self.root_for_path(wanted)
        if isinstance(uri, str) and uri:
            return self.root_for_uri(uri)
        return next(iter(self.roots.values()), None)

    async def add_folder(self, folder: Path) -> RootState | None:
        from freshpass.facts.roots import find_root

        def root_of(folder: Path) -> Path | None:
            if not folder.is_dir():
                return None
            # A folder inside a project belongs to that project's root; a folder that is no project is its own.
            found = find_root(folder)
            return Path(os.path.abspath(found)) if found is not None else folder

        path = await asyncio.to_thread(root_of, folder)
        if path is None:
            self.log(types.MessageType.Info, f"freshpass: workspace folder {folder} does not exist; ignored")
            return None
        if path in self.roots:
            return self.roots[path]
        root = RootState(path=path)
        self.roots[path] = root
        if self.watcher is not None:
            try:
                await asyncio.to_thread(self.watcher.add_root, path)  # every change may change the content id
            except Exception as exc:
                logger.exception("watching %s", path)
                self.log(types.MessageType.Warning, f"freshpass: cannot watch {path} for changes: {exc}")
        await self.fan_out("on_root_added", root)
        self.tracker.request_refresh(root, delay=0)
        return root

    async def remove_folder(self, folder: Path) -> None:
        for path, root in list(self.roots.items()):
            if path == folder or folder in path.parents or path in folder.parents:
                del self.roots[path]
                self.tracker.cancel(root)
                if self.watcher is not None:
                    self.watcher.remove_root(path)
                await self.fan_out("on_root_removed", root)

    # ---- documents -----------------------------------------------------------------------------------------------

    def document(self, uri: str) -> DocumentRef | None:
        """Resolve a URI: None for non-file URIs and files outside every root."""
        path = uri_to_path(uri)
        if path is None:
            return None
        located = self.locate(path)
        if located is None:
            return None
        root, path = located
        relative = root.relative(path)
        if relative is None:
            return None
        ref = DocumentRef(uri=uri, path=path, root=root, relative=relative)
        text_document = self.workspace.text_documents.get(uri)
        if text_document is not None:
            ref.text = text_document.source
            ref.first_line = ref.text.split("\n", 1)[0].rstrip("\r")
            ref.unsaved = self._buffer_differs_from_disk(ref.text, path)
        else:
            ref.first_line = _first_line_on_disk(path)
        return ref

    def open_documents(self, root: RootState) -> list[DocumentRef]:
        refs = []
        for uri in list(self.workspace.text_documents):
            ref = self.document(uri)
            if ref is not None and ref.root is root:
                refs.append(ref)
        return refs

    @staticmethod
    def _buffer_differs_from_disk(text: str, path: Path) -> bool:
        try:
            data = read_regular(path, DOCUMENT_LIMIT)
        except OSError:
            return True  # a buffer whose file does not exist (yet), or is no regular file, is not covered by anything
        try:
            return data.decode("utf-8") != text
        except UnicodeDecodeError:
            return True

    def position_units(self, uri: str, text: str) -> int:
        """The length of `text` in the client's position encoding (UTF-8 for Neovim, UTF-16 for VS Code)."""
        try:
            codec = self.workspace.position_codec
        except RuntimeError:
            return len(text)
        return int(codec.client_num_units(text))

    def line_zero_range(self, document: DocumentRef) -> types.Range:
        end = self.position_units(document.uri, document.first_line)
        return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=end))

    # ---- settings ------------------------------------------------------------------------------------------------

    def apply_settings(self, raw: Any, origin: str) -> bool:
        raw = plain(raw)
        if isinstance(raw, Mapping) and isinstance(raw.get("freshpass"), Mapping):
            raw = raw["freshpass"]
        result = parse_settings(raw, self.settings)
        for problem in result.problems:
            self.log(types.MessageType.Warning, f"freshpass: {origin}: {problem}")
        changed = result.settings != self.settings
        self.settings = result.settings
        return changed

    async def pull_configuration(self) -> bool:
        if not self.capability("workspace.configuration"):
            return False
        try:
            values = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="freshpass")])
            )
        except Exception as exc:
            self.log(types.MessageType.Info, f"freshpass: workspace/configuration failed: {exc}")
            return False
        if not values or values[0] is None:
            return False
        return self.apply_settings(values[0], "workspace/configuration")

    async def settings_changed(self) -> None:
        await self.fan_out("on_settings_changed")
        for root in self.roots.values():
            self.tracker.request_refresh(root, delay=0, facts=True)

    # ---- refreshes that features ask for -------------------------------------------------------------------------

    def ask_client_to_refresh(self, method: str, send: Callable[[], Awaitable[Any]]) -> None:
        """Send a server → client refresh request (`workspace/codeLens/refresh`, `workspace/diagnostic/refresh`)
        without waiting for the answer: a slow or silent client must never hold up the refresh pipeline that
        publishes everything else. At most one per method is in flight; asks meanwhile become one more send."""
        state = self._client_refreshes.setdefault(method, [False, False])
        if state[0]:
            state[1] = True
            return
        state[0] = True

        async def sending() -> None:
            try:
                while True:
                    state[1] = False
                    try:
                        await asyncio.wait_for(send(), timeout=CLIENT_REFRESH_TIMEOUT)
                    except Exception as exc:  # the client's problem, not a reason to stop serving
                        self.log(types.MessageType.Log, f"freshpass: {method} failed: {exc!r}")
                    if not state[1] or self._shut_down:
                        return
            finally:
                state[0] = False

        task = asyncio.ensure_future(sending())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def refresh_code_lenses(self) -> None:
        if self.capability("workspace.code_lens.refresh_support"):
            self.ask_client_to_refresh(
                types.WORKSPACE_CODE_LENS_REFRESH, lambda: self.workspace_code_lens_refresh_async(None)
            )

    def on_watcher_change(self, root_path: Path, paths: set[str] | None) -> None:
        """Called from watchdog threads."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._watcher_change, root_path, paths)

    def _watcher_change(self, root_path: Path, paths: set[str] | None) -> None:
        root = self.roots.get(root_path)
        if root is None or self._shut_down:
            return
        self.tracker.request_refresh(root, paths or set(), delay=DEBOUNCE, facts=paths is None)
        for package in [state for state in self.roots.values() if state.parent is root]:  # watched through root
            prefix = root.relative(package.path) or ""
            inside = None if paths is None else {p[len(prefix) + 1 :] for p in paths if p.startswith(prefix + "/")}
            if inside is None or inside:
                self.tracker.request_refresh(package, inside or set(), delay=DEBOUNCE, facts=inside is None)

    def _late_facts(self, root_path: Path, facts: ProjectFacts) -> None:
        """Facts whose detection outlasted a refresh's wait: use them now and refresh the root's status."""
        root = self.roots.get(root_path)
        if root is None or self._shut_down:
            return
        root.facts = facts
        self.tracker.request_refresh(root, delay=0)

    # ---- lifecycle -----------------------------------------------------------------------------------------------

    async def initialize(self, params: types.InitializeParams) -> None:
        self._loop = asyncio.get_running_loop()
        self._install_signal_handlers()
        options = plain(params.initialization_options)
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            self.log(
                types.MessageType.Warning,
                "freshpass: initializationOptions must be an object; ignored, and the workspace is treated as "
                "untrusted (nothing will be run)",
            )
            options = {"trusted": False}
        client = params.client_info.name if params.client_info else ""
        self.client_name = client
        self.is_agent = is_agent_client(client, options)
        session = options.get("sessionId")
        self.session_id = (
            session if isinstance(session, str) and session else f"lsp:{client or 'client'}:{uuid.uuid4().hex[:8]}"
        )
        # Editors that know about workspace trust (VS Code's Restricted Mode) say `trusted: false`: then nothing
        # is ever executed, whatever a lens or an agent asks; status and receipts still work. Only an absent
        # `trusted` (a client without workspace trust, such as Neovim) or exactly `true` is trusted: "false", 0,
        # null or any other value fails closed.
        self.trusted = trusted_from(options)
        if "trusted" in options and not isinstance(options["trusted"], bool):
            self.log(
                types.MessageType.Warning,
                f"freshpass: initializationOptions.trusted = {options['trusted']!r} is not true or false; "
                "treating the workspace as untrusted (nothing will be run)",
            )
        interpreter = options.get("pythonInterpreter")
        self.python_interpreter = interpreter if isinstance(interpreter, str) and interpreter.strip() else None
        if "pythonInterpreter" in options and interpreter is not None and not isinstance(interpreter, str):
            self.log(
                types.MessageType.Warning,
                f"freshpass: initializationOptions.pythonInterpreter = {interpreter!r} is not a path; ignored",
            )
        self.apply_settings(
            {k: v for k, v in options.items() if k not in ("sessionId", "agent", "trusted", "pythonInterpreter")},
            "initializationOptions",
        )
        self.watcher = Watcher(self.on_watcher_change, lambda message: self.log(types.MessageType.Warning, message))
        await self.fan_out("on_initialize", params)

    async def initialized(self) -> None:
        try:
            if await self.pull_configuration():
                await self.fan_out("on_settings_changed")
            await self.fan_out("on_initialized")
            await self.backend.open()
            for folder in self._initial_folders():
                await self.add_folder(folder)
            await self._register_dynamic_capabilities()
        finally:
            self._set_ready()
        if not self.roots:
            self.log(types.MessageType.Info, "freshpass: no workspace folder is a project; nothing to watch")

    async def _register_dynamic_capabilities(self) -> None:
        """Editors' own file events (VS Code) and configuration pushes, for clients that take registrations.

        The editor's watcher sees changes made in the editor and by its extensions; the server's own watcher covers
        everything else, so clients without dynamic registration (Neovim 0.11) lose nothing.
        """
        registrations: list[types.Registration] = []
        if self.capability("workspace.did_change_watched_files.dynamic_registration"):
            registrations.append(
                types.Registration(
                    id="freshpass-watched-files",
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(
                        watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
                    ),
                )
            )
        if self.capability("workspace.did_change_configuration.dynamic_registration"):
            registrations.append(
                types.Registration(
                    id="freshpass-configuration",
                    method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                    register_options=types.DidChangeConfigurationRegistrationOptions(section="freshpass"),
                )
            )
        if not registrations:
            return
        try:
            await asyncio.wait_for(
                self.client_register_capability_async(types.RegistrationParams(registrations=registrations)),
                REGISTRATION_TIMEOUT,
            )
        except Exception as exc:
            self.log(types.MessageType.Info, f"freshpass: the client refused registrations: {exc}")

    def _initial_folders(self) -> list[Path]:
        folders: list[Path] = []
        for folder in self.workspace.folders.values():
            path = uri_to_path(folder.uri)
            if path is not None:
                folders.append(path)
        if not folders and self.workspace.root_uri:
            path = uri_to_path(self.workspace.root_uri)
            if path is not None:
                folders.append(path)
        return folders

    def _install_signal_handlers(self) -> None:
        """SIGTERM, SIGHUP and SIGINT end the server the way `shutdown` + `exit` do: running verifies are cancelled
        and their process groups torn down before the process leaves (the default action would leave them)."""
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            try:
                loop.add_signal_handler(signum, self._on_signal, signum)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread (tests), or no signals
                return

    def _on_signal(self, signum: int) -> None:
        if self._signalled:
            return
        self._signalled = True
        logger.warning("freshpass: signal %d: stopping", signum)
        task = asyncio.ensure_future(self._leave(signum))
        self._background.add(task)

    async def _leave(self, signum: int) -> None:
        try:
            await asyncio.wait_for(self.shutdown_all(), SIGNAL_SHUTDOWN_TIMEOUT)
        except BaseException:
            logger.exception("shutting down after signal %d", signum)
        finally:
            logging.shutdown()
            os._exit(128 + signum)

    async def shutdown_all(self) -> None:
        if self._shut_down:
            return
        self._shut_down = True
        await self.fan_out("on_shutdown")
        for root in self.roots.values():
            self.tracker.cancel(root)
        for task in list(self._background):
            task.cancel()
        if self.watcher is not None:
            await asyncio.to_thread(self.watcher.stop)
        await self.backend.close()


def _first_line_on_disk(path: Path) -> str:
    try:
        line = first_line(path, 4096)  # never a FIFO or a device (`Makefile -> /dev/stdin`)
    except OSError:
        return ""
    return line.decode("utf-8", errors="replace").rstrip("\r\n")


def _relative_paths(server: FreshpassServer, uris: Iterable[str]) -> list[tuple[RootState, set[str]]]:
    by_root: dict[int, tuple[RootState, set[str]]] = {}
    for uri in uris:
        path = uri_to_path(uri)
        for root, relative in [] if path is None else server.roots_holding(path):
            by_root.setdefault(id(root), (root, set()))[1].add(relative)
    return list(by_root.values())


def _register_handlers(server: FreshpassServer) -> None:
    @server.feature(types.INITIALIZE)
    async def on_initialize(ls: FreshpassServer, params: types.InitializeParams) -> None:
        await ls.initialize(params)

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: FreshpassServer, params: types.InitializedParams) -> None:
        try:
            await ls.initialized()
        except Exception as exc:
            logger.exception("initialized")
            ls.log(types.MessageType.Error, f"freshpass: startup failed: {exc!r}")

    @server.feature(types.SHUTDOWN)
    async def on_shutdown(ls: FreshpassServer, params: None) -> None:
        ls.exit_code = 0
        await ls.shutdown_all()
        _cancel_pending_requests(ls)

    @server.feature(types.EXIT)
    async def on_exit(ls: FreshpassServer, params: None) -> None:
        await ls.shutdown_all()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def on_folders(ls: FreshpassServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        await ls.wait_ready()
        # Closed before the first suspension, so messages that arrived after this one wait for the new roots.
        ls._folders_settled.clear()
        try:
            for folder in params.event.removed:
                path = uri_to_path(folder.uri)
                if path is not None:
                    await ls.remove_folder(path)
            for folder in params.event.added:
                path = uri_to_path(folder.uri)
                if path is not None:
                    await ls.add_folder(path)
        except Exception as exc:
            logger.exception("didChangeWorkspaceFolders")
            ls.log(types.MessageType.Error, f"freshpass: workspace folder change failed: {exc!r}")
        finally:
            ls._folders_settled.set()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(ls: FreshpassServer, params: types.DidChangeConfigurationParams) -> None:
        await ls.wait_ready()
        try:
            changed = False
            settings = plain(params.settings)
            if isinstance(settings, Mapping) and isinstance(settings.get("freshpass"), Mapping):
                changed = ls.apply_settings(settings["freshpass"], "didChangeConfiguration")
            # Clients that use the pull model send an empty payload and expect us to ask.
            changed = await ls.pull_configuration() or changed
            if changed:
                await ls.settings_changed()
        except Exception as exc:
            logger.exception("didChangeConfiguration")
            ls.log(types.MessageType.Error, f"freshpass: reading settings failed: {exc!r}")

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def on_open(ls: FreshpassServer, params: types.DidOpenTextDocumentParams) -> None:
        await ls.wait_ready()
        await ls.enter(params.text_document.uri)
        document = ls.document(params.text_document.uri)
        if document is None:
            return
        stat = disk_stat(document.path)
        if stat is not None:
            document.root.disk_stat.setdefault(document.relative, stat)
        await ls.fan_out("on_document_changed", document)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def on_change(ls: FreshpassServer, params: types.DidChangeTextDocumentParams) -> None:
        await ls.wait_ready()
        document = ls.document(params.text_document.uri)
        if document is None:
            return
        # Agents write the file and then send didChange without didSave: if the disk moved, the content did.
        stat = disk_stat(document.path)
        if stat != document.root.disk_stat.get(document.relative):
            for root, relative in ls.roots_holding(document.path):
                ls.tracker.request_refresh(root, {relative}, delay=DEBOUNCE)
        await ls.fan_out("on_document_changed", document)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def on_save(ls: FreshpassServer, params: types.DidSaveTextDocumentParams) -> None:
        await ls.wait_ready()
        await ls.enter(params.text_document.uri)
        document = ls.document(params.text_document.uri)
        if document is None:
            return
        await ls.fan_out("on_document_saved", document)
        for root, relative in ls.roots_holding(document.path):
            ls.tracker.request_refresh(root, {relative}, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def on_close(ls: FreshpassServer, params: types.DidCloseTextDocumentParams) -> None:
        await ls.wait_ready()
        document = ls.document(params.text_document.uri)
        if document is not None:
            await ls.fan_out("on_document_changed", document)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def on_watched(ls: FreshpassServer, params: types.DidChangeWatchedFilesParams) -> None:
        await ls.wait_ready()
        for root, paths in _relative_paths(ls, (change.uri for change in params.changes)):
            ls.tracker.request_refresh(root, paths, delay=DEBOUNCE)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def on_code_lens(ls: FreshpassServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        await ls.wait_ready()
        document = ls.document(params.text_document.uri)
        if document is None or not ls.settings.code_lens_enabled:
            return None
        await _settled(ls, document.root)
        return ls.collect("code_lenses", document)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Source]),
    )
    async def on_code_action(
        ls: FreshpassServer, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command] | None:
        await ls.wait_ready()
        document = ls.document(params.text_document.uri)
        if document is None:
            return None
        await _settled(ls, document.root)
        return ls.collect("code_actions", document, params) or None

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: FreshpassServer, params: types.HoverParams) -> types.Hover | None:
        await ls.wait_ready()
        document = ls.document(params.text_document.uri)
        if document is None:
            return None
        await _settled(ls, document.root)
        parts = [part for part in ls.collect("hover", document, params) if part]
        if not parts:
            return None
        text = "\n\n".join(parts)
        formats = ls.capability("text_document.hover.content_format", []) or []
        kind = types.MarkupKind.Markdown if types.MarkupKind.Markdown in formats else types.MarkupKind.PlainText
        return types.Hover(contents=types.MarkupContent(kind=kind, value=text), range=ls.line_zero_range(document))

    @server.feature("freshpass/status")
    async def on_status(ls: FreshpassServer, params: Any) -> dict[str, Any]:
        await ls.wait_ready()
        args = plain(params) or {}
        if not isinstance(args, Mapping):
            raise JsonRpcInvalidParams("freshpass/status expects {uri} or {root}")
        root = await ls.resolve_root(root=args.get("root"), uri=args.get("uri"))
        if root is None:
            raise JsonRpcException(message="no freshpass root holds that uri/root", code=LSP_REQUEST_FAILED)
        await _first_refresh(root)
        await ls.tracker.settle(root)
        return root.status.to_json()

    @server.feature("freshpass/checkDone")
    async def on_check_done(ls: FreshpassServer, params: Any) -> Any:
        await ls.wait_ready()
        try:
            agents = importlib.import_module("freshpass.server.agents")
        except ModuleNotFoundError:
            agents = None
        check_done = getattr(agents, "check_done", None)
        if check_done is None:
            raise JsonRpcException(
                message="freshpass/checkDone is not available in this freshpass build (no server.agents module)",
                code=LSP_REQUEST_FAILED,
            )
        return await check_done(ls, plain(params) or {})


def _cancel_pending_requests(ls: FreshpassServer) -> None:
    """Cancel in-flight requests before pygls does.

    pygls 2.1.1's shutdown cancels them while iterating `_request_futures`, and each cancellation's callback removes
    its entry from that very dict ("dictionary changed size during iteration", an error answer to `shutdown`).
    Cancelling them here, over a copy, leaves pygls nothing to cancel.
    """
    protocol = ls.protocol
    current = protocol.msg_id
    this_task = asyncio.current_task()
    for msg_id, future in list(protocol._request_futures.items()):
        if msg_id != current and future is not this_task and not future.done():
            future.cancel()


async def _settled(ls: FreshpassServer, root: RootState) -> None:
    """Lenses, actions and hovers describe the root's status: let a refresh already running finish (tens of ms)
    instead of showing the status from before the edit that triggered it."""
    await _first_refresh(root)
    await ls.tracker.settle(root)


async def _first_refresh(root: RootState) -> None:
    """Providers answer from memory, but a root that was never refreshed has nothing to answer with yet."""
    if not root.refreshed.is_set():
        await root.refreshed.wait()


def _register_features(server: FreshpassServer, feature_classes: Iterable[type[Feature]]) -> None:
    for feature_class in feature_classes:
        feature = feature_class(server)
        server.features.append(feature)
        for name, command in feature.commands().items():
            server.command(name)(_wrap_command(server, feature, name, command))
        for method, handler in feature.requests().items():
            server.feature(method)(_wrap_request(server, handler))


def _wrap_command(server: FreshpassServer, feature: Feature, name: str, command: Any) -> Any:
    async def run(*arguments: Any) -> Any:
        await server.wait_ready()
        return await command(*[plain(argument) for argument in arguments])

    run.__name__ = f"{feature.name}_{name.replace('.', '_')}"
    return run


def _wrap_request(server: FreshpassServer, handler: Any) -> Any:
    async def answer(params: Any) -> Any:
        await server.wait_ready()
        return await handler(plain(params))

    return answer


def default_feature_classes() -> list[type[Feature]]:
    from freshpass.server.diagnostics import DiagnosticsFeature
    from freshpass.server.lenses import LensFeature
    from freshpass.server.live import LiveStatusFeature
    from freshpass.server.sharing import SharingFeature
    from freshpass.server.verify import VerifyFeature

    classes: list[type[Feature]] = [DiagnosticsFeature, LensFeature, VerifyFeature, LiveStatusFeature, SharingFeature]
    try:
        agents = importlib.import_module("freshpass.server.agents")
    except ModuleNotFoundError:
        return classes
    agents_feature = getattr(agents, "AgentsFeature", None)
    if isinstance(agents_feature, type) and issubclass(agents_feature, Feature):
        classes.append(agents_feature)
    return classes


def create_server(feature_classes: Iterable[type[Feature]] | None = None) -> FreshpassServer:
    """A new server with every feature registered; start it with `start_io()` or `start_tcp()`."""
    server = FreshpassServer()
    _register_handlers(server)
    _register_features(server, default_feature_classes() if feature_classes is None else feature_classes)
    return server
