"""Secrets never reach the ledger (freshpass.ledger.redact): each documented rule, idempotence, speed."""

from __future__ import annotations

import time

import pytest
from freshpass.ledger.redact import redact, redact_json, secret_environment
from hypothesis import given, settings
from hypothesis import strategies as st

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
NO_ENV: dict[str, str] = {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 1. private keys, also when the END line was cut off
        (
            "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA\n-----END OPENSSH PRIVATE KEY-----\nz",
            "a\n[REDACTED:private-key]\nz",
        ),
        ("x -----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN", "x [REDACTED:private-key]"),
        # 2. HTTP credentials
        ('curl -H "Authorization: Bearer abc.def"', 'curl -H "Authorization: Bearer [REDACTED]"'),
        ("authorization: Basic dXNlcjpwYXNz", "authorization: Basic [REDACTED]"),
        ("Proxy-Authorization: xyz123", "Proxy-Authorization: [REDACTED]"),
        # 3. URL user info
        ("git clone https://bob:hunter2@example.com/r.git", "git clone https://bob:[REDACTED]@example.com/r.git"),
        ("postgres://app:s3cret@db:5432/x", "postgres://app:[REDACTED]@db:5432/x"),
        # 4. token shapes
        (f"token {GHP} end", "token [REDACTED:github-token] end"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "[REDACTED:github-token]"),
        ("key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED:aws-access-key] here"),
        ("xoxb-123456789012-abcdefghijkl", "[REDACTED:slack-token]"),
        ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "[REDACTED:stripe-key]"),
        ("OPENAI sk-proj-abc123def456ghi789jkl", "OPENAI [REDACTED:api-key]"),
        (
            "glpat-abcdefghij0123456789 npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "[REDACTED:gitlab-token] [REDACTED:npm-token]",
        ),
        ("AIzaSyA-abcdefghijklmnopqrstuvwxyz0123456", "[REDACTED:google-api-key]"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U!",
            "jwt [REDACTED:jwt]!",
        ),
        # 6. NAME=value
        ("API_KEY=abc123 pytest", "API_KEY=[REDACTED] pytest"),
        ("export DB_PASSWORD='p w'", "export DB_PASSWORD='[REDACTED]'"),
        ('client_secret="x y z"', 'client_secret="[REDACTED]"'),
        ("https://h/x?access_token=zzz&page=2", "https://h/x?access_token=[REDACTED]&page=2"),
        ('{"password": "hunter2", "user": "bob"}', '{"password": "[REDACTED]", "user": "bob"}'),
        ("SSH_KEY=abc signingKey=def", "SSH_KEY=[REDACTED] signingKey=[REDACTED]"),
        ("DB_PASS=x NPM_AUTH=y", "DB_PASS=[REDACTED] NPM_AUTH=[REDACTED]"),
        # 7. flags
        ("mysql --password=s3cret -u root", "mysql --password=[REDACTED] -u root"),
        ("gh auth --token abc123 --client-secret 'q r'", "gh auth --token [REDACTED] --client-secret '[REDACTED]'"),
    ],
)
def test_rules(text: str, expected: str) -> None:
    assert redact(text, NO_ENV) == expected


@pytest.mark.parametrize(
    "text",
    [
        "TOKEN=$GITHUB_TOKEN PASSWORD=${PW} pytest",  # references, not values
        "TOKEN_FILE=/run/secrets/t KEY_ID=42 TOKEN_TYPE=bearer",  # names of files and kinds, not secrets
        "docker login --password-stdin -u me; app --token-file /tmp/t",
        "monkey=banana turkey=1 sk-learn keyboard=us",
        "pytest -q -k test_token_expiry --maxfail=1",
        "passed=3 failed=0 pass_rate=1.0 auth_method=oauth",
        "ghp_short",
    ],
)
def test_what_is_not_a_secret_is_kept(text: str) -> None:
    assert redact(text, NO_ENV) == text


def test_values_of_secret_environment_variables() -> None:
    env = {
        "GITHUB_TOKEN": "not-a-known-shape-1234",
        "MY_SERVICE_PASSWORD": "correct horse battery",
        "SHORT_TOKEN": "abc",  # too short to redact everywhere
        "CI_TOKEN_PATH": "/home/me/.token",  # a path, and a -path name
        "USE_SECRETS": "true",
        "HOME": "/root",
        "EDITOR": "correct horse battery staple",  # not a secret's name
    }
    assert [name for name, _ in secret_environment(env)] == ["GITHUB_TOKEN", "MY_SERVICE_PASSWORD"]  # longest first
    text = "login with correct horse battery as not-a-known-shape-1234 abc"
    assert redact(text, env) == "login with [REDACTED:$MY_SERVICE_PASSWORD] as [REDACTED:$GITHUB_TOKEN] abc"


def test_json_values_are_redacted_keys_kept() -> None:
    details = {"verify": {"commands": [{"command": "API_KEY=k make test", "output_tail": GHP}]}, "n": 3}
    assert redact_json(details, NO_ENV) == {
        "verify": {"commands": [{"command": "API_KEY=[REDACTED] make test", "output_tail": "[REDACTED:github-token]"}]},
        "n": 3,
    }


SECRETISH = st.text(alphabet=st.sampled_from("aA0_-=:/@. \"'\nBEGINPRIVATEKEY-TOKENghp_xoxb-sk-eyJ"), max_size=300)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=400), SECRETISH))
def test_idempotent_and_total(text: str) -> None:
    env = {"API_TOKEN": "zz-secret-value-99"}
    once = redact(text, env)
    assert redact(once, env) == once


def test_linear_on_large_hostile_input() -> None:
    hostile = ("-----BEGIN PRIVATE KEY----- " * 2000) + ("TOKEN=" * 20000) + ("--token " * 20000) + "a" * 100_000
    started = time.monotonic()
    redact(hostile, NO_ENV)
    assert time.monotonic() - started < 1.0
