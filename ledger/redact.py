"""Secrets never reach the ledger: what freshpass stores is redacted first (pure functions, no I/O).

A receipt keeps the command line, the reason and the head and tail of the output, and `freshpass log --json`,
`freshpass run --json` and the server's `freshpass.receipts` hand them to anyone who asks; the ledger outlives the
terminal by 30 days. Commands and their output routinely carry credentials (`GITHUB_TOKEN=… pytest`, a test
that prints its config, `curl -H "Authorization: Bearer …"`). `Ledger.record` passes every text it stores —
command, canonical command, reason, output head and tail, and every string inside `details` — through `redact()`.
`EvidenceDraft.set_output` redacts the whole output before cutting it into head and tail, so a secret is not split
across the cut. What is replaced, in this order:

1. PEM private key blocks (`-----BEGIN … PRIVATE KEY-----` to its END line, or to the end of the text when
   the END was cut off) → `[REDACTED:private-key]`.
2. HTTP credentials: the value after `Authorization:` / `Proxy-Authorization:` (any scheme: `Bearer`, `Basic`,
   `token`, …) → `Authorization: Bearer [REDACTED]`.
3. URL user info: the password in `scheme://user:password@host` → `scheme://user:[REDACTED]@host`.
4. Known token shapes, wherever they appear → `[REDACTED:<kind>]`: GitHub (`ghp_ gho_ ghu_ ghs_ ghr_`,
   `github_pat_`), GitLab (`glpat-`), npm (`npm_`), AWS access key ids (`AKIA…`, `ASIA…`), Slack (`xoxa- xoxb-
   xoxp- xoxr- xoxs-`), Stripe (`sk_live_ rk_live_ sk_test_ rk_test_`), OpenAI-style (`sk-…` of 20+ characters
   with a digit), Google API keys (`AIza…`), JSON Web Tokens (`eyJ….eyJ….…`).
5. The literal values of this process's environment variables whose names say secret (rule 6's names), when
   at least 8 characters long and not a path or a boolean → `[REDACTED:$NAME]`.
6. `NAME=value` (also `export NAME=value`, `"NAME": "value"`) where NAME contains TOKEN, SECRET, PASSWORD,
   PASSWD, API_KEY/APIKEY, PRIVATE_KEY, CREDENTIAL, ACCESS_KEY or AUTHORIZATION, or ends in PASS, AUTH or KEY as
   a word (`DB_PASS`, `NPM_AUTH`, `SSH_KEY`, `signingKey`; case-insensitive, `_`, `-` or `.` separating words), and does
   not end in FILE, PATH, DIR, ENV, STDIN, CMD, COMMAND, TYPE, NAME, ID or URL → `NAME=[REDACTED]`; quoted values
   lose their content, keep their quotes. A value that is a reference (`$TOKEN`, `${TOKEN}`) is kept.
7. Command-line flags named like rule 6 (`--password=x`, `--token x`, `--api-key x`, `--client-secret x`; not
   `--token-file`, `--password-stdin` and other `-file/-path/-dir/-env/-stdin` flags) → `--token [REDACTED]`.

`redact()` is idempotent (redacting redacted text changes nothing) and linear in the input. It cannot know every
secret: a password printed bare, without a recognisable name or shape, is stored as printed, and a secret cut by the
runner's own output bound (the middle of a huge output is never kept at all) may be stored in part.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

MARK = "[REDACTED]"
MIN_ENV_SECRET = 8  # shorter environment values are too likely to occur by chance ("true", "admin", a port)

# Words that make a name a secret's name (rules 5–7).
_SECRET_WORDS = (
    r"token|secret|passw(?:or)?d|(?:^|(?<=[_.\-]))pass$|api[_.\-]?key|private[_.\-]?key|credential"
    r"|access[_.\-]?key|authorization|(?:^|(?<=[_.\-]))auth$|(?:^|(?<=[_.\-]))key$|(?-i:(?<=[a-z])Key$)"
)
_SECRET_NAME = re.compile(f"(?:{_SECRET_WORDS})", re.IGNORECASE)
_NOT_A_SECRET_NAME = re.compile(r"(?:^|[_.\-])(?:file|path|dir|env|stdin|cmd|command|type|name|id|url)s?$", re.I)

_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?P<label>[A-Z0-9 ]*PRIVATE KEY)-----.*?(?:-----END (?P=label)-----|\Z)", re.DOTALL
)
_AUTHORIZATION = re.compile(
    r"(?P<head>\b(?:Proxy-)?Authorization\s*:\s*(?:(?:Bearer|Basic|Token|Digest|Negotiate|Bot|token)\s+)?)"
    r"(?P<value>(?!\[REDACTED)(?!(?:Bearer|Basic|Token|Digest|Negotiate|Bot)\s)[^\s\"'\\]+)",
    re.IGNORECASE,
)
_URL_PASSWORD = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/:@\"']+:)(?P<value>(?!\[REDACTED)[^\s/@\"']+)@")
_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{16,}")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{30,}")),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b")),
    ("slack-token", re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}")),
    ("stripe-key", re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("api-key", re.compile(r"\bsk-(?=[A-Za-z0-9_\-]*\d)[A-Za-z0-9_\-]{20,}")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*")),
)
# NAME=value and "NAME": "value". The name is matched loosely here and checked by _SECRET_NAME.
_ASSIGNMENT = re.compile(
    r"(?P<name>(?<![A-Za-z0-9_.\-])[A-Za-z_][A-Za-z0-9_.\-]*)(?P<sep>=)"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'&;|,)]+)"
)
_JSON_PAIR = re.compile(r"(?P<name>\"[A-Za-z_][A-Za-z0-9_.\-]*\")(?P<sep>\s*:\s*)(?P<value>\"(?:[^\"\\\n]|\\.)*\")")
_FLAG = re.compile(
    r"(?P<name>(?<![\w\-])--?[A-Za-z][A-Za-z0-9\-]*)(?P<sep>=|[ \t]+)(?P<value>\"[^\"\n]*\"|'[^'\n]*'|(?!-)[^\s\"']+)"
)
_ENV_NOT_SECRET = {"true", "false", "yes", "no", "on", "off", "none", "null", "0", "1"}


def _is_secret_name(name: str) -> bool:
    bare = name.strip("\"'").lstrip("-")
    return bool(_SECRET_NAME.search(bare)) and not _NOT_A_SECRET_NAME.search(bare)


def _masked(value: str) -> str:
    """The replacement for a value, keeping its quotes so the text around it still reads right."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return f"{value[0]}{MARK}{value[0]}"
    return MARK


def _keep(value: str) -> bool:
    inner = value.strip("\"'")
    return not inner or inner.startswith(("$", "[REDACTED")) or inner == "***"


def _named(match: re.Match[str]) -> str:
    name, value = match.group("name"), match.group("value")
    if not _is_secret_name(name) or _keep(value):
        return match.group(0)
    return f"{name}{match.group('sep')}{_masked(value)}"


def secret_environment(environ: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """(name, value) of environment variables whose names say secret and whose values are worth redacting,
    longest value first (so a value containing another is replaced whole)."""
    source = os.environ if environ is None else environ
    found = []
    for name, value in source.items():
        stripped = value.strip()
        if (
            len(stripped) >= MIN_ENV_SECRET
            and _is_secret_name(name)
            and stripped.lower() not in _ENV_NOT_SECRET
            and not stripped.startswith(("/", "~", "./", "../"))
            and "REDACTED" not in stripped.upper()  # would match inside our own marks: redaction must settle
        ):
            found.append((name, stripped))
    return sorted(found, key=lambda item: len(item[1]), reverse=True)


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """`text` with every secret the rules above recognise replaced (see the module docstring)."""
    if not text:
        return text
    text = _PRIVATE_KEY.sub("[REDACTED:private-key]", text)
    text = _AUTHORIZATION.sub(lambda m: f"{m.group('head')}{MARK}", text)
    text = _URL_PASSWORD.sub(lambda m: f"{m.group('head')}{MARK}@", text)
    for kind, pattern in _TOKENS:
        text = pattern.sub(f"[REDACTED:{kind}]", text)
    for name, value in secret_environment(environ):
        if value in text:
            text = text.replace(value, f"[REDACTED:${name}]")
    text = _JSON_PAIR.sub(_named, text)
    text = _ASSIGNMENT.sub(_named, text)
    text = _FLAG.sub(_named, text)
    return text


def redact_json(value: Any, environ: Mapping[str, str] | None = None) -> Any:
    """Every string in a JSON-like value redacted (keys kept: they are names, not secrets)."""
    if isinstance(value, str):
        return redact(value, environ)
    if isinstance(value, Mapping):
        return {key: redact_json(item, environ) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_json(item, environ) for item in value]
    return value
