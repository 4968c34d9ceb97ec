"""Fuzzing the parsers outside facts/ that read what a repository or a client controls: never an uncaught
exception, every input answered within 1 s. Facts' manifest parsers and shell splitter are fuzzed with
facts."""

from __future__ import annotations

import time
from pathlib import Path

from freshpass.ledger.git import Repository, _config_values, resolve_head
from freshpass.runner.readiness import ReadinessError, ready_target
from freshpass.runner.terminal import safe
from freshpass.server.wire import uri_to_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FUZZ = settings(max_examples=300, deadline=1000, suppress_health_check=[HealthCheck.function_scoped_fixture])
URLISH = st.text(alphabet=st.sampled_from("http:s/[]:%@?#.0123456789abcdeflocalhost-_~ \t\n\x00é"), max_size=60)


@FUZZ
@given(
    st.one_of(st.none(), st.text(max_size=200), URLISH, st.integers(), st.floats()), st.one_of(st.none(), st.integers())
)
def test_ready_target_answers_or_refuses(url: object, port: object) -> None:
    started = time.monotonic()
    try:
        target = ready_target(url, port)  # type: ignore[arg-type]
    except ReadinessError:
        pass
    else:
        assert target.addresses and 0 < target.port < 65536
    assert time.monotonic() - started < 1.0


CONFIGISH = st.text(alphabet=st.sampled_from('[]"=;# \t\nabcdefghijklmnoprstuvwxyz.-01\\'), max_size=400)


@FUZZ
@given(st.one_of(st.text(max_size=400), CONFIGISH), st.binary(max_size=200))
def test_git_config_and_head_readers_never_fail(tmp_path_factory, config: str, head: bytes) -> None:  # type: ignore[no-untyped-def]
    git_dir = tmp_path_factory.mktemp("git")
    (git_dir / "config").write_text(config, errors="surrogateescape")
    (git_dir / "HEAD").write_bytes(head)
    repository = Repository(toplevel=git_dir.parent, git_dir=git_dir, common_dir=git_dir)
    started = time.monotonic()
    core, object_format = _config_values(repository)
    assert object_format in ("sha1", "sha256")
    assert all("\n" not in value and "\n" not in key for key, value in core.items())
    resolve_head(repository)
    assert time.monotonic() - started < 1.0


@FUZZ
@given(st.text(max_size=200))
def test_file_uris_never_fail(text: str) -> None:
    path = uri_to_path("file://" + text)
    assert path is None or isinstance(path, Path)
    assert uri_to_path(text) is None or text.startswith("file:")


@FUZZ
@given(st.text(max_size=2000))
def test_terminal_text_is_quick(text: str) -> None:
    started = time.monotonic()
    safe(text * 10)
    assert time.monotonic() - started < 1.0


@FUZZ
@given(st.lists(st.one_of(st.text(max_size=50), URLISH.map(lambda text: "file://" + text)), max_size=10))
def test_agent_supplied_paths_never_fail(tmp_path_factory, paths: list[str]) -> None:  # type: ignore[no-untyped-def]
    from freshpass.evidence.agents import relative_paths
    from freshpass.server.agents import _project_of

    root = tmp_path_factory.mktemp("root")
    for path in relative_paths(paths, root):
        assert not path.startswith("../") and path != ".."
    for path in paths:
        _project_of(path)
