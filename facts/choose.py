"""A person's choice of a check, written where the project keeps its freshpass configuration.

`choose(root, kind, command)` makes `command` the check of `kind`: it writes one entry
`{command = "...", kind = "..."}` first in the `verify` array of `[tool.freshpass]` in pyproject.toml (when the
project has a pyproject.toml and no `.freshpass.toml`), else of `.freshpass.toml` (created when missing). The entry
it replaces — the same kind at the same directory — goes; every other byte of the file stays as it was (tomlkit
round-trips a TOML document exactly, comments and layout included). Detection then reads the entry as explicit
configuration, so the choice is primary at once in every door (`basis: configured`), and the team and CI see the
same check once the file is committed.

Nothing is written when something is wrong, and the message says what to do: a configuration file that is a symlink,
a FIFO or a device, that does not parse, or whose `verify` is not an array of tables; a command that is not one
simple command (no `&&`, `|`, `;`, redirection or subshell); a kind that is not one of the kinds; a directory outside
the root. The file is replaced atomically, with its permissions kept: a reader never sees half of it.

`candidates(facts, kind)` lists what a person can choose from: the project's checks of that kind (the primary first,
with where each was declared and why it was chosen) and the narrower entry points detection set aside as such (a
run of one is still the project's own check). Writers, publishers, watchers and installers are never offered.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freshpass.facts.files import SMALL_FILE_LIMIT, FileTooLarge, NotRegularFile, read_regular
from freshpass.facts.model import KINDS, ProjectFacts
from freshpass.facts.shell import ShellSyntaxError, SimpleCommand, parse_line

PYPROJECT = "pyproject.toml"
CONFIG = ".freshpass.toml"
MAX_COMMAND_CHARS = 1000
# What a person may choose besides the project's checks: entry points that run part of a check are still its own.
_OFFERED_ASIDE = ("narrower", "package")
_NEW_CONFIG_HEADER = (
    "# freshpass: the checks this project runs (`freshpass facts` shows them; `freshpass facts --set` writes here).\n"
)


class ChoiceError(ValueError):
    """The choice cannot be written; nothing was changed. The message says why and what to do."""


@dataclass(frozen=True)
class Choice:
    """What `choose` wrote."""

    kind: str
    command: str
    cwd: str
    file: str  # relative to the root: pyproject.toml or .freshpass.toml
    created: bool  # the file did not exist before
    replaced: tuple[str, ...]  # the commands of the entries it replaced

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "command": self.command,
            "cwd": self.cwd,
            "file": self.file,
            "created": self.created,
            "replaced": list(self.replaced),
        }


@dataclass(frozen=True)
class ChoiceCandidate:
    """One command a person can choose for a kind, with where it comes from."""

    command: str
    cwd: str
    source: str
    basis: str  # configured/documented/declared/convention/ci; `narrower` for a set-aside part of a check
    primary: bool
    note: str = ""  # for people: why a set-aside one is narrower

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "cwd": self.cwd,
            "source": self.source,
            "basis": self.basis,
            "primary": self.primary,
            "note": self.note,
        }


def candidates(facts: ProjectFacts, kind: str) -> list[ChoiceCandidate]:
    """The checks of `kind` (the primary first) and then the narrower entry points set aside, without duplicates."""
    found: list[ChoiceCandidate] = []
    seen: set[tuple[str, str]] = set()
    primary = facts.primary(kind)
    for command in facts.commands_of_kind(kind):
        key = (command.command, command.cwd)
        if key in seen:
            continue
        seen.add(key)
        found.append(ChoiceCandidate(command.command, command.cwd, command.source, command.basis, command is primary))
    for aside in facts.set_aside:
        key = (aside.command, aside.cwd)
        if aside.kind != kind or aside.why not in _OFFERED_ASIDE or key in seen:
            continue
        seen.add(key)
        found.append(ChoiceCandidate(aside.command, aside.cwd, aside.source, "narrower", False, aside.reason))
    return found


def check_command(command: str) -> str:
    """`command`, stripped, when it is one simple command; else `ChoiceError` saying why."""
    text = command.strip()
    if not text:
        raise ChoiceError("the command is empty")
    if len(text) > MAX_COMMAND_CHARS:
        raise ChoiceError(f"the command is {len(text)} characters long; at most {MAX_COMMAND_CHARS} are accepted")
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        raise ChoiceError("the command holds a newline or a control character; give one command on one line")
    try:
        parsed = parse_line(text)
    except ShellSyntaxError as exc:
        raise ChoiceError(f"the command cannot be read as a shell command: {exc}") from None
    statements = parsed.statements
    if len(statements) != 1 or statements[0].background:
        raise ChoiceError(_not_simple(text, "it is a list of commands (`;`, `&` or a newline)"))
    pipelines = statements[0].body.pipelines
    if len(pipelines) != 1:
        raise ChoiceError(_not_simple(text, "it chains commands with `&&` or `||`"))
    pipeline = pipelines[0]
    if len(pipeline.commands) != 1 or pipeline.negated:
        raise ChoiceError(_not_simple(text, "it is a pipeline (`|`) or negated (`!`)"))
    only = pipeline.commands[0]
    if not isinstance(only, SimpleCommand):
        raise ChoiceError(_not_simple(text, "it runs a subshell `( … )`"))
    if only.redirects:
        raise ChoiceError(_not_simple(text, "it redirects input or output"))
    if not any(not _assignment(word.text) for word in only.words):
        raise ChoiceError(_not_simple(text, "it only sets variables and runs nothing"))
    return text


def _assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and name.isidentifier()


def _not_simple(text: str, why: str) -> str:
    return (
        f"`{text}` is not one simple command: {why}. freshpass runs an approved check as one command; put the steps "
        "in a script or a Make/just/npm target and choose that"
    )


def _check_cwd(cwd: str) -> str:
    text = (cwd or ".").strip().replace("\\", "/")
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if text.startswith("/") or ".." in parts or any(ord(ch) < 0x20 for ch in text):
        raise ChoiceError(f"the directory {cwd!r} must be relative to the root and inside it")
    return "/".join(parts) or "."


def config_file(root: Path) -> str:
    """Where a choice goes: `.freshpass.toml` when it exists or there is no pyproject.toml, else pyproject.toml."""
    if os.path.lexists(root / CONFIG) or not os.path.lexists(root / PYPROJECT):
        return CONFIG
    return PYPROJECT


def choose(root: Path, kind: str, command: str, cwd: str = ".") -> Choice:
    """Write `command` as the check of `kind` (run from `cwd`, relative to `root`); `ChoiceError` changes nothing."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    if kind not in KINDS:
        raise ChoiceError(f"{kind!r} is not a kind; choose one of {', '.join(KINDS)}")
    text_command = check_command(command)
    directory = _check_cwd(cwd)
    root = Path(os.path.abspath(root))
    if not root.is_dir():
        raise ChoiceError(f"{root} is not a directory")
    rel = config_file(root)
    path = root / rel
    original, mode = _read_config(path, rel)
    created = original is None
    try:
        document = tomlkit.parse(original or "")
    except (TOMLKitError, ValueError, RecursionError) as exc:
        raise ChoiceError(f"{rel} is not valid TOML ({exc}); fix it, then choose again") from None
    if original is not None and tomlkit.dumps(document) != original:
        raise ChoiceError(f"{rel} cannot be edited without changing its layout; add the entry by hand")
    if rel == PYPROJECT:
        table = _table(document, ("tool", "freshpass"), rel)
        where = "[tool.freshpass]"
    else:
        table = document
        where = rel
    replaced = _put_entry(table, kind, text_command, directory, rel, where)
    new_text = tomlkit.dumps(document)
    if created:
        new_text = _NEW_CONFIG_HEADER + new_text
    _check_written(new_text, rel, kind, text_command, directory)
    _replace(path, new_text, mode)
    return Choice(kind, text_command, directory, rel, created, replaced)


def _read_config(path: Path, rel: str) -> tuple[str | None, int | None]:
    """The text and permission bits of the configuration file, or (None, None) when it does not exist yet."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        raise ChoiceError(f"cannot read {rel}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise ChoiceError(f"{rel} is a symbolic link; freshpass does not write through one. Edit the file it points to")
    try:
        data = read_regular(path, SMALL_FILE_LIMIT, follow_symlinks=False)
    except (NotRegularFile, FileTooLarge) as exc:
        raise ChoiceError(f"{rel} {exc.strerror}; nothing was written") from None
    except OSError as exc:
        raise ChoiceError(f"cannot read {rel}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ChoiceError(f"{rel} is not UTF-8 text, which TOML must be; nothing was written") from None
    return text, stat.S_IMODE(info.st_mode)


def _table(document: Any, keys: tuple[str, ...], rel: str) -> Any:
    """The table at `keys`, created when missing (after the file's content)."""
    import tomlkit

    node = document
    for depth, key in enumerate(keys):
        if key not in node:
            node[key] = tomlkit.table(is_super_table=True)  # only its `[[…verify]]` header is written
        node = node[key]
        if not isinstance(node, dict):
            raise ChoiceError(f"[{'.'.join(keys[: depth + 1])}] in {rel} is not a table; fix it, then choose again")
    return node


def _put_entry(table: Any, kind: str, command: str, cwd: str, rel: str, where: str) -> tuple[str, ...]:
    """Put `{command, kind[, cwd]}` first in `table.verify`, removing the entries of the same kind and directory."""
    import tomlkit

    entry = {"command": command, "kind": kind}
    if cwd != ".":
        entry["cwd"] = cwd
    verify = table.get("verify")
    if verify is None:
        array = tomlkit.aot()
        array.append(tomlkit.item(entry))
        table.append("verify", array)
        return ()
    if not isinstance(verify, list):
        raise ChoiceError(f"verify in {where} of {rel} is not an array; fix it, then choose again")
    replaced: list[str] = []
    for index in range(len(verify) - 1, -1, -1):
        item = verify[index]
        entry_kind, entry_cwd, entry_command = "test", ".", item
        if isinstance(item, dict):
            entry_kind = item.get("kind", "test")
            entry_cwd = _normal_cwd(item.get("cwd", "."))
            entry_command = item.get("command")
        elif not isinstance(item, str):
            continue  # detection reports it; it is not this choice's to remove
        if entry_kind == kind and entry_cwd == cwd:
            replaced.insert(0, str(entry_command))
            del verify[index]
    if isinstance(verify, tomlkit.items.AoT):
        verify.insert(0, tomlkit.item(entry))
    else:
        inline = tomlkit.inline_table()
        inline.update(entry)
        verify.insert(0, inline)
    return tuple(replaced)


def _normal_cwd(value: Any) -> str:
    if not isinstance(value, str):
        return "\0"  # matches no choice
    parts = [part for part in value.replace("\\", "/").split("/") if part not in ("", ".")]
    return "/".join(parts) or "."


def _check_written(text: str, rel: str, kind: str, command: str, cwd: str) -> None:
    """What is about to be written reads back, as detection reads it, with the choice first of its kind."""
    import tomli

    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as exc:  # tomlkit wrote something tomli refuses: write nothing
        raise ChoiceError(f"editing {rel} would leave it unreadable ({exc}); add the entry by hand") from None
    section = data.get("tool", {}).get("freshpass", {}) if rel == PYPROJECT else data
    verify = section.get("verify") if isinstance(section, dict) else None
    first = next(
        (
            entry
            for entry in (verify if isinstance(verify, list) else [])
            if isinstance(entry, (dict, str))
            and (entry.get("kind", "test") if isinstance(entry, dict) else "test") == kind
        ),
        None,
    )
    if not isinstance(first, dict) or first.get("command") != command or _normal_cwd(first.get("cwd", ".")) != cwd:
        raise ChoiceError(f"editing {rel} would not make `{command}` the {kind} check; add the entry by hand")


def _replace(path: Path, text: str, mode: int | None) -> None:
    """Write `text` to `path` atomically (a temporary file in the same directory, then a rename)."""
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(temporary, mode if mode is not None else 0o644)
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise ChoiceError(f"cannot write {path.name}: {exc.strerror or exc}") from None
