"""Shared receipts as data: the line a receipt travels as, who may have written it, and whether it counts
(design §4.6). Pure functions; `freshpass.ledger.notes` moves the lines through git.

A shared receipt is one line of canonical JSON — keys sorted, ASCII only (no raw control character, no U+2028),
no floats — so every writer spells the same receipt the same way, a note can be kept sorted and unique, and the
`digest` (SHA-256 of the canonical JSON of every other field) names it. Only what the ledger stores redacted is
shared, redacted again on the way out; the output, the cwd, the session and the details never leave the machine.

Everything read from a note is hostile: a line is accepted only as a JSON object of a known version whose every
field has its type and bounds, that names the content and the package root it was read for, and whose digest is
right. Accepted texts are still only shown (made safe by whoever prints them), never run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from freshpass.facts.model import KINDS, SHARED_ACTORS, SharedTrust
from freshpass.ledger.content import git_tree, is_git_content
from freshpass.ledger.redact import redact
from freshpass.ledger.store import SCOPES, STATUSES, Evidence, iso_time
from freshpass.ledger.summary import TestCounts

LINE_VERSION = 1
MAX_LINE_BYTES = 16 << 10  # one receipt; longer lines are skipped unread
MAX_NOTE_BYTES = 1 << 20  # one content's note; a larger note is not read at all
NOTES_REF = "refs/notes/freshpass"  # where shared receipts travel (`freshpass.ledger.notes` moves them)
MAX_SHOWN = 20  # shared receipts a status lists (newest first)
ACTOR_LABELS = {"ci": "CI", "person": "person", "agent": "agent"}

_ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z$")
_OBJECT_ID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_PROVIDER = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
_VERSION = re.compile(r"^[0-9A-Za-z.+-]{1,40}$")
MAX_TEXT = 4096  # command lines and reasons
MAX_URL = 512


class LineRejected(ValueError):
    """A note line that is not a shared receipt for this content; the message says why."""


@dataclass(frozen=True)
class Provenance:
    """Who ran it and where: the actor (`ci`, `person`, `agent`) and, in CI, the provider and job URL."""

    actor: str
    provider: str = ""
    job_url: str = ""


@dataclass(frozen=True)
class SharedReceipt:
    """One receipt as it travels through git (design §4.6). `line` is its canonical form, `digest` its name."""

    content: str  # "git:<tree>"
    root: str  # the package root relative to the repository's top level ("." for the top)
    command: str
    canonical_command: str
    kind: str
    scope: str
    status: str
    exit_code: int | None
    reason: str | None
    tests: TestCounts | None
    started_at: str  # ISO 8601, UTC, as every JSON output of freshpass
    finished_at: str
    duration_ms: int
    actor: str
    provider: str  # "" when it did not run in a CI service freshpass knows
    job_url: str
    commit: str  # the commit checked out where it ran ("" when unknown); informational
    freshpass: str  # the writer's version
    ignore: tuple[str, ...]  # the rules the content id was computed under
    ignore_prose: bool

    def fields(self) -> dict[str, Any]:
        """Every field but the digest, as JSON values."""
        return {
            "v": LINE_VERSION,
            "content": self.content,
            "root": self.root,
            "command": self.command,
            "canonical_command": self.canonical_command,
            "kind": self.kind,
            "scope": self.scope,
            "status": self.status,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "tests": None if self.tests is None else _tests_json(self.tests),
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "duration_ms": self.duration_ms,
            "actor": self.actor,
            "provider": self.provider,
            "job_url": self.job_url,
            "commit": self.commit,
            "freshpass": self.freshpass,
            "ignore": list(self.ignore),
            "ignore_prose": self.ignore_prose,
        }

    @cached_property
    def digest(self) -> str:
        return digest_of(self.fields())

    @cached_property
    def line(self) -> str:
        return canonical({**self.fields(), "digest": self.digest})

    @property
    def tree(self) -> str:
        tree = git_tree(self.content)
        return self.content if tree is None else tree

    @property
    def started_epoch(self) -> float:
        return _epoch(self.started_at)

    @property
    def finished_epoch(self) -> float:
        return _epoch(self.finished_at)


def _epoch(iso: str) -> float:
    """Epoch seconds of a time as shared lines spell it (validated: `2026-01-01T10:00:00.250Z`)."""
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def canonical(value: Mapping[str, Any]) -> str:
    """The one spelling of a JSON object: sorted keys, no spaces, ASCII only, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def digest_of(fields: Mapping[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical(fields).encode("ascii")).hexdigest()


def _tests_json(tests: TestCounts) -> dict[str, int]:
    return {"passed": tests.passed, "failed": tests.failed, "skipped": tests.skipped}


def normal_form(lines: Sequence[str]) -> str:
    """A note's text: its lines sorted bytewise, unique, without blank lines, each ending in a newline — so any
    union of two notes is the same text whichever side it started from."""
    unique = sorted({line for line in lines if line.strip()}, key=lambda line: line.encode("utf-8", "surrogateescape"))
    return "".join(f"{line}\n" for line in unique)


# ---- writing ------------------------------------------------------------------------------------------------------


def ci_provenance(environ: Mapping[str, str] | None = None) -> Provenance | None:
    """The CI service this process runs in, from the variables each service sets; None outside CI."""
    env = os.environ if environ is None else environ
    if env.get("GITHUB_ACTIONS") == "true":
        server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
        repository, run = env.get("GITHUB_REPOSITORY", ""), env.get("GITHUB_RUN_ID", "")
        url = f"{server}/{repository}/actions/runs/{run}" if repository and run else ""
        if url and env.get("GITHUB_RUN_ATTEMPT"):
            url += f"/attempts/{env['GITHUB_RUN_ATTEMPT']}"
        return Provenance("ci", "github-actions", url)
    for flag, provider, url_variable in (
        ("GITLAB_CI", "gitlab-ci", "CI_JOB_URL"),
        ("BUILDKITE", "buildkite", "BUILDKITE_BUILD_URL"),
        ("CIRCLECI", "circleci", "CIRCLE_BUILD_URL"),
    ):
        if env.get(flag) == "true":
            return Provenance("ci", provider, env.get(url_variable, ""))
    if env.get("JENKINS_URL"):
        return Provenance("ci", "jenkins", env.get("BUILD_URL", ""))
    if env.get("CI", "").lower() in ("true", "1"):
        return Provenance("ci")
    return None


def provenance_for(evidence: Evidence, actor: str | None, environ: Mapping[str, str] | None = None) -> Provenance:
    """Who a shared receipt says ran it: `actor` when given, else `ci` inside a CI service or for receipts recorded
    in one, `agent` for receipts an agent recorded, `person` otherwise."""
    found = ci_provenance(environ)
    if actor is None:
        actor = "ci" if found or evidence.actor == "ci" else ("agent" if evidence.actor == "agent" else "person")
    if actor not in SHARED_ACTORS:
        raise ValueError(f"actor {actor!r} is not one of {', '.join(SHARED_ACTORS)}")
    return Provenance(actor, found.provider if found else "", found.job_url if found else "")


def from_evidence(
    evidence: Evidence,
    *,
    root: str,
    provenance: Provenance,
    commit: str,
    version: str,
    ignore: Sequence[str],
    ignore_prose: bool,
) -> SharedReceipt:
    """The shared form of a ledger receipt: redacted texts only (again: redaction is idempotent), no output."""
    if not is_git_content(evidence.content_id):
        raise ValueError("only receipts of git content can be shared")
    job_url = redact(provenance.job_url) if provenance.job_url.startswith("https://") else ""
    return SharedReceipt(
        content=evidence.content_id,
        root=root,
        command=redact(evidence.command)[:MAX_TEXT],
        canonical_command=redact(evidence.canonical_command)[:MAX_TEXT],
        kind=evidence.kind,
        scope=evidence.scope,
        status=evidence.status,
        exit_code=evidence.exit_code,
        reason=redact(evidence.reason)[:MAX_TEXT] if evidence.reason else None,
        tests=None if evidence.tests is None else TestCounts(**evidence.tests),
        started_at=iso_time(evidence.started_at),
        finished_at=iso_time(evidence.finished_at),
        duration_ms=max(0, round(evidence.duration * 1000)),
        actor=provenance.actor,
        provider=provenance.provider if _PROVIDER.match(provenance.provider) else "",
        job_url=job_url[:MAX_URL],
        commit=commit if _OBJECT_ID.match(commit) else "",
        freshpass=version if _VERSION.match(version) else "",
        ignore=tuple(redact(glob)[:MAX_TEXT] for glob in ignore),
        ignore_prose=ignore_prose,
    )


# ---- reading ------------------------------------------------------------------------------------------------------


def parse_line(line: str, *, content: str, root: str) -> SharedReceipt:
    """The shared receipt a note line holds for `content` read at package root `root`; `LineRejected` says why a
    line is not one."""
    if len(line.encode("utf-8", "surrogateescape")) > MAX_LINE_BYTES:
        raise LineRejected(f"a line longer than {MAX_LINE_BYTES} bytes")
    try:
        data = json.loads(line)
    except ValueError:
        raise LineRejected("not JSON") from None
    if not isinstance(data, dict):
        raise LineRejected("not a JSON object")
    if data.get("v") != LINE_VERSION:
        raise LineRejected(f"format version {_shown(data.get('v'))}, not {LINE_VERSION}")
    expected = set(SharedReceipt.__dataclass_fields__) | {"v", "digest"}
    if set(data) != expected:
        differing = sorted(set(data) ^ expected)
        raise LineRejected(f"fields {', '.join(differing[:5])} missing or unknown")
    receipt = SharedReceipt(
        content=_text(data, "content", 80),
        root=_text(data, "root", MAX_TEXT),
        command=_text(data, "command", MAX_TEXT),
        canonical_command=_text(data, "canonical_command", MAX_TEXT),
        kind=_choice(data, "kind", KINDS),
        scope=_choice(data, "scope", SCOPES),
        status=_choice(data, "status", STATUSES),
        exit_code=_optional_int(data, "exit_code"),
        reason=None if data["reason"] is None else _text(data, "reason", MAX_TEXT),
        tests=_tests(data["tests"]),
        started_at=_time(data, "started_at"),
        finished_at=_time(data, "finished_at"),
        duration_ms=_count(data, "duration_ms"),
        actor=_choice(data, "actor", SHARED_ACTORS),
        provider=_matching(data, "provider", _PROVIDER, empty=True),
        job_url=_url(data["job_url"]),
        commit=_matching(data, "commit", _OBJECT_ID, empty=True),
        freshpass=_matching(data, "freshpass", _VERSION, empty=True),
        ignore=_globs(data["ignore"]),
        ignore_prose=_bool(data, "ignore_prose"),
    )
    if not _DIGEST.match(str(data["digest"])) or data["digest"] != receipt.digest:
        raise LineRejected("its digest does not match its fields (changed after it was written)")
    if receipt.content != content:
        raise LineRejected("it names other content (copied from another note)")
    if receipt.root != root:
        raise LineRejected(f"it ran in package {_shown(receipt.root)}, not {_shown(root)}")
    return receipt


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _text(data: Mapping[str, Any], name: str, limit: int) -> str:
    value = data[name]
    if not isinstance(value, str) or len(value) > limit:
        raise LineRejected(f"{name} is not a text of at most {limit} characters")
    return value


def _choice(data: Mapping[str, Any], name: str, allowed: Sequence[str]) -> str:
    value = data[name]
    if value not in allowed:
        raise LineRejected(f"{name} {_shown(value)} is not one of {', '.join(allowed)}")
    return str(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**53) < value < 2**53


def _optional_int(data: Mapping[str, Any], name: str) -> int | None:
    value = data[name]
    if value is not None and not _is_int(value):
        raise LineRejected(f"{name} is not a whole number")
    return value


def _count(data: Mapping[str, Any], name: str) -> int:
    value = data[name]
    if not _is_int(value) or value < 0:
        raise LineRejected(f"{name} is not a whole number ≥ 0")
    return int(value)


def _bool(data: Mapping[str, Any], name: str) -> bool:
    value = data[name]
    if not isinstance(value, bool):
        raise LineRejected(f"{name} is not true or false")
    return value


def _time(data: Mapping[str, Any], name: str) -> str:
    value = data[name]
    if not isinstance(value, str) or not _ISO_TIME.match(value):
        raise LineRejected(f"{name} is not a UTC time like 2026-01-01T10:00:00.000Z")
    return value


def _matching(data: Mapping[str, Any], name: str, pattern: re.Pattern[str], *, empty: bool) -> str:
    value = data[name]
    if not isinstance(value, str) or not ((empty and value == "") or pattern.match(value)):
        raise LineRejected(f"{name} {_shown(value)} is not valid")
    return value


def _url(value: Any) -> str:
    if value == "":
        return ""
    if not isinstance(value, str) or len(value) > MAX_URL or not re.match(r"^https://[^\s\"'<>\\]+$", value):
        raise LineRejected("job_url is not an https URL")
    return value


def _tests(value: Any) -> TestCounts | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"passed", "failed", "skipped"}:
        raise LineRejected("tests is not {passed, failed, skipped}")
    if not all(_is_int(count) and count >= 0 for count in value.values()):
        raise LineRejected("tests counts are not whole numbers ≥ 0")
    return TestCounts(value["passed"], value["failed"], value["skipped"])


def _globs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > 256:
        raise LineRejected("ignore is not a list of globs")
    if not all(isinstance(glob, str) and len(glob) <= MAX_TEXT for glob in value):
        raise LineRejected("ignore is not a list of globs")
    return tuple(value)


# ---- trust --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SharedOptions:
    """How a status treats shared receipts: the editor's trust settings (`shared.*`; when they trust no one, the
    user's config file, then the project's `[tool.freshpass.shared]` as the default branch has it committed:
    `freshpass.ledger.anchors`) and whether the workspace is trusted (an untrusted workspace shows shared receipts
    and counts none)."""

    trust: SharedTrust | None = None
    workspace_trusted: bool = True

    def policy(self, project: SharedTrust | None) -> SharedTrust:
        """The user's settings when they trust anyone, else `project` (the default branch's committed settings)."""
        if self.trust is not None and self.trust.actors:
            return self.trust
        return project if project is not None else SharedTrust()

    def judged(self, views: Sequence[SharedView]) -> list[SharedView]:
        if self.workspace_trusted:
            return list(views)
        return [SharedView(view.receipt, view.signature, False, "the workspace is not trusted") for view in views]


@dataclass(frozen=True)
class Signature:
    """What git says of the signatures on the notes commits that vouch for a line (design §4.6)."""

    state: str  # good | unknown-key | bad | none | unchecked
    signer: str | None = None  # the principal of a good signature by an allowed key

    def describe(self) -> str:
        return {
            "good": f"signed by {self.signer}",
            "unknown-key": "signed by a key that is not in the allowed signers",
            "bad": "its signature does not verify",
            "none": "unsigned",
            "unchecked": "signature not checked",
        }[self.state]


UNCHECKED = Signature("unchecked")


@dataclass(frozen=True)
class SharedView:
    """A shared receipt as a status shows it: the receipt, its signature, and whether it counts (and why not)."""

    receipt: SharedReceipt
    signature: Signature = UNCHECKED
    counted: bool = False
    why: str | None = None  # why it does not count

    def to_json(self) -> dict[str, Any]:
        """An entry of the status JSON's `shared` list (design §4.5–4.6)."""
        data = {key: value for key, value in self.receipt.fields().items() if key not in ("v", "content", "root")}
        data.pop("ignore")
        data.pop("ignore_prose")
        data.update(
            digest=self.receipt.digest,
            signature=self.signature.state,
            signer=self.signature.signer,
            counted=self.counted,
            why=self.why,
        )
        return data

    def evidence(self, root: str) -> SharedEvidence:
        """The receipt as the evidence of a status it stands in (design §4.6): no id in this ledger."""
        receipt = self.receipt
        tests = receipt.tests
        return SharedEvidence(
            id=0,
            created_at=receipt.finished_epoch,
            root=root,
            command=receipt.command,
            canonical_command=receipt.canonical_command,
            kind=receipt.kind,
            scope=receipt.scope,
            status=receipt.status,
            content_id=receipt.content,
            started_at=receipt.started_epoch,
            finished_at=receipt.finished_epoch,
            duration=receipt.duration_ms / 1000,
            exit_code=receipt.exit_code,
            reason=receipt.reason,
            actor=receipt.actor,
            tests_passed=None if tests is None else tests.passed,
            tests_failed=None if tests is None else tests.failed,
            tests_skipped=None if tests is None else tests.skipped,
            view=self,
        )


@dataclass(frozen=True)
class SharedEvidence(Evidence):
    """A counted shared receipt standing in a status as its evidence (design §4.6). It has no id in this machine's
    ledger: `id` is 0 here and null on the wire, and `shared` says who ran it and where."""

    view: SharedView | None = None

    @property
    def provenance(self) -> dict[str, Any]:
        """Who ran it and where: the `shared` object of the status JSON's `evidence`."""
        receipt = self.view.receipt if self.view is not None else None
        return {
            "actor": self.actor,
            "provider": receipt.provider if receipt else "",
            "job_url": receipt.job_url if receipt else "",
            "commit": receipt.commit if receipt else "",
            "signer": self.view.signature.signer if self.view is not None else None,
        }

    def status_json(self) -> dict[str, Any]:
        return {**super().status_json(), "id": None, "shared": self.provenance}

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "id": None, "shared": self.provenance}


def shared_of(evidence: Evidence | None) -> SharedEvidence | None:
    """`evidence` when it is a shared receipt standing in a status, else None."""
    return evidence if isinstance(evidence, SharedEvidence) else None


def judge(receipt: SharedReceipt, signature: Signature, trust: SharedTrust) -> SharedView:
    """Whether a shared receipt counts under `trust`, and if not, why (said to people and agents)."""
    if not trust.actors:
        return SharedView(receipt, signature, False, "shared receipts do not count here (shared.trust is off)")
    if receipt.actor not in trust.actors:
        counted = ", ".join(trust.actors)
        return SharedView(receipt, signature, False, f"shared.trust counts receipts by {counted}, not {receipt.actor}")
    if trust.signers:
        if signature.state == "good" and signature.signer in trust.signers:
            return SharedView(receipt, signature, True)
        wanted = ", ".join(trust.signers)
        return SharedView(receipt, signature, False, f"{signature.describe()}; shared.signers requires {wanted}")
    return SharedView(receipt, signature, True)


# ---- in a status --------------------------------------------------------------------------------------------------


def uncounted_passes(views: Sequence[SharedView], kinds: Sequence[str]) -> str:
    """For someone told the content is not verified: a shared pass of one of `kinds` on this very content that does
    not count, and why (an empty text when there is none)."""
    for view in views:
        receipt = view.receipt
        if view.counted or receipt.status != "passed" or receipt.kind not in kinds:
            continue
        where = f" in {ACTOR_LABELS.get(receipt.actor, 'an unknown place')}"
        provider = f" ({receipt.provider})" if receipt.provider else ""
        return (
            f"A shared receipt says `{receipt.command}` passed ({receipt.scope}){where}{provider} on this "
            f"content, but it does not count: {view.why}."
        )
    return ""


def label(entry: Mapping[str, Any], ago: str) -> str:
    """`✓ full · CI · 2 h ago` for an entry of the status JSON's `shared` list (or a counted `evidence`)."""
    symbol = (
        "✗ failed" if entry.get("status") != "passed" else ("✓ full" if entry.get("scope") == "full" else "◐ targeted")
    )
    actor = entry.get("actor") or (entry.get("shared") or {}).get("actor")
    return f"{symbol} · {ACTOR_LABELS.get(str(actor), str(actor))} · {ago}"


__all__ = [
    "SHARED_ACTORS",
    "LineRejected",
    "Provenance",
    "SharedEvidence",
    "SharedReceipt",
    "SharedTrust",
    "SharedView",
    "Signature",
    "canonical",
    "ci_provenance",
    "from_evidence",
    "judge",
    "label",
    "normal_form",
    "parse_line",
    "provenance_for",
    "shared_of",
    "uncounted_passes",
]
