"""Reading files a repository controls: regular files only, bounded, never blocking (freshpass.facts.files)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from freshpass.facts.files import (
    FileTooLarge,
    NotRegularFile,
    copy_regular,
    first_line,
    read_regular,
    read_regular_text,
)


def test_reads_a_regular_file_and_follows_a_symlink_to_one(tmp_path: Path) -> None:
    (tmp_path / "real").write_bytes(b"a\nb\n")
    os.symlink("real", tmp_path / "link")
    assert read_regular(tmp_path / "real", 10) == b"a\nb\n"
    assert read_regular_text(tmp_path / "link") == "a\nb\n"
    assert first_line(tmp_path / "link") == b"a"


def test_refuses_a_symlink_when_told_not_to_follow(tmp_path: Path) -> None:
    (tmp_path / "real").write_text("x")
    os.symlink("real", tmp_path / "link")
    with pytest.raises(NotRegularFile, match="symbolic link"):
        read_regular(tmp_path / "link", 10, follow_symlinks=False)


@pytest.mark.parametrize("target", ["/dev/stdin", "/dev/zero", "/dev/null"])
def test_devices_behind_symlinks_are_refused_without_reading(tmp_path: Path, target: str) -> None:
    os.symlink(target, tmp_path / "Makefile")
    with pytest.raises(NotRegularFile):
        read_regular(tmp_path / "Makefile", 1 << 20)
    with pytest.raises(OSError):
        first_line(tmp_path / "Makefile")


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")  # nobody ever writes: a blocking open would hang the test (pytest-timeout)
    with pytest.raises(NotRegularFile, match="FIFO"):
        read_regular(tmp_path / "fifo", 10)
    with pytest.raises(NotRegularFile):
        copy_regular(tmp_path / "fifo", tmp_path / "copy", 10)


def test_a_socket_and_a_directory_are_refused(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        with pytest.raises(OSError):  # opening a socket fails (ENXIO) before fstat could even look
            read_regular(tmp_path / "sock", 10)
    with pytest.raises(OSError):
        read_regular(tmp_path, 10)


def test_larger_than_the_bound_is_refused(tmp_path: Path) -> None:
    (tmp_path / "big").write_bytes(b"x" * 11)
    with pytest.raises(FileTooLarge, match="11 bytes"):
        read_regular(tmp_path / "big", 10)
    with pytest.raises(FileTooLarge):
        copy_regular(tmp_path / "big", tmp_path / "copy", 10)
    assert read_regular(tmp_path / "big", 11) == b"x" * 11


def test_copy_keeps_content_and_modification_time(tmp_path: Path) -> None:
    source = tmp_path / "index"
    source.write_bytes(b"DIRC" + bytes(range(256)))
    os.utime(source, ns=(1_000_000_000, 1_234_567_891_000))
    copy_regular(source, tmp_path / "copy", 1 << 20)
    assert (tmp_path / "copy").read_bytes() == source.read_bytes()
    assert (tmp_path / "copy").stat().st_mtime_ns == 1_234_567_891_000
    assert (tmp_path / "copy").stat().st_mode & 0o777 == 0o600
