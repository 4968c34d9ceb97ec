"""The content id without git (`freshpass.ledger.puretree`) equals git's on every shape it answers for, and gives no
answer for the shapes it does not reproduce. Each fixture is compared with the real git snapshot of the same tree."""

from __future__ import annotations

import os
import random
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from freshpass.ledger.content import NeedsGit, changed_paths, snapshot
from freshpass.ledger.puretree import EMPTY_TREE, tree_id


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def write(path: Path, text: str | bytes, mode: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    if mode is not None:
        path.chmod(mode)


def committed(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for name, text in files.items():
        write(root / name, text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial", "--allow-empty")
    return root


BASE = {
    "src/app.py": "A = 1\n",
    "src/util/helpers.py": "B = 2\n",
    "tests/test_app.py": "def test(): pass\n",
    "README.md": "# demo\n",
    ".gitignore": "*.log\nbuild/\n/out\n",
    "pyproject.toml": "[project]\nname = 'x'\n",
}


def same(root: Path, **options: object) -> str:
    """The pure id, asserted equal to git's; returned."""
    expected = snapshot(root, **options).content_id  # type: ignore[arg-type]
    pure = snapshot(root, processes=False, **options)  # type: ignore[arg-type]
    assert pure.content_id == expected
    return pure.content_id


def unsure(root: Path, why: str = "") -> None:
    with pytest.raises(NeedsGit, match=why):
        snapshot(root, processes=False)


Shape = Callable[[Path], None]


def edits(root: Path) -> None:
    write(root / "src/app.py", "A = 2\n")  # same size, new content
    write(root / "src/new.py", "C = 3\n")
    (root / "tests/test_app.py").unlink()


def ignored_and_negated(root: Path) -> None:
    write(root / "debug.log", "x")
    write(root / "keep/important.log", "y")
    write(root / "keep/.gitignore", "!important.log\n")
    write(root / "build/out.o", "z")
    write(root / "out", "file at the top")
    write(root / "sub/out", "not anchored: kept")
    write(root / "sub/build", "a file named like a dir-only pattern: kept")
    write(root / "deep/a/b/c.txt", "t")
    write(root / ".gitignore", BASE[".gitignore"] + "deep/**/b/\n!deep/**/b/keep\nfoo/**\n!foo/kept\n")
    write(root / "foo/kept", "re-included: foo/** ignores the contents, not foo")
    write(root / "foo/gone", "ignored")


def tracked_but_ignored(root: Path) -> None:
    write(root / "src/app.py", "A = 9\n")
    write(root / ".gitignore", BASE[".gitignore"] + "src/\n")
    write(root / "src/untracked.py", "ignored, untracked")


def modes_and_links(root: Path) -> None:
    (root / "src/app.py").chmod(0o755)
    write(root / "run.sh", "#!/bin/sh\n", 0o744)
    write(root / "group-exec.sh", "#!/bin/sh\n", 0o654)  # only the owner's bit counts
    (root / "link-to-app").symlink_to("src/app.py")
    (root / "link-to-dir").symlink_to("src")
    (root / "dangling").symlink_to("nowhere/at/all")


def file_became_directory(root: Path) -> None:
    (root / "src/app.py").unlink()
    write(root / "src/app.py/inner.py", "now a directory")
    (root / "tests/test_app.py").unlink()
    (root / "tests").rmdir()
    write(root / "tests", "now a file")


def directory_behind_symlink(root: Path) -> None:
    import shutil

    shutil.move(root / "src/util", root / "elsewhere")
    (root / "src/util").symlink_to("../elsewhere")  # git does not follow it: src/util/helpers.py is gone


def empty_and_ignored_only(root: Path) -> None:
    (root / "empty/deeper").mkdir(parents=True)
    write(root / "only-ignored/x.log", "x")


def names(root: Path) -> None:
    write(root / "with space.py", "s")
    write(root / "ünïcode/ñ.py", "u")
    write(root / "-dash", "d")
    write(root / "a.b/c", "dotted dir")
    write(root / "a-b", "sorts between a.b and a/ in git's order")
    write(root / "a/x", "dir a")
    os.makedirs(os.fsencode(root / "bytes"), exist_ok=True)
    with open(os.path.join(os.fsencode(root / "bytes"), b"caf\xe9.txt"), "wb") as handle:
        handle.write(b"latin-1 name")


def repository_excludes_setting(root: Path) -> None:
    # Never read (git runs without the repository's configuration), so the file it names does not count.
    write(root / "elsewhere-ignore", "*.py\n")
    git(root, "config", "core.excludesFile", str(root / "elsewhere-ignore"))
    write(root / "src/still-counted.py", "x")


def info_exclude(root: Path) -> None:
    write(root / ".git/info/exclude", "secret/\n*.tmp\n")
    write(root / "secret/key", "k")
    write(root / "notes.tmp", "t")


def attributes_without_cr(root: Path) -> None:
    write(root / ".gitattributes", "* text=auto\n*.png binary\n")
    write(root / "src/app.py", "A = 5\n")
    write(root / "pic.png", b"\x89PNG\0\0")


def autocrlf_without_cr(root: Path) -> None:
    git(root, "config", "core.autocrlf", "input")
    write(root / "src/app.py", "A = 6\n")


def filemode_off(root: Path) -> None:
    git(root, "config", "core.filemode", "false")
    (root / "src/app.py").chmod(0o755)
    write(root / "new.sh", "#!/bin/sh\n", 0o755)


def index_version_4(root: Path) -> None:
    git(root, "update-index", "--index-version", "4")
    write(root / "src/app.py", "A = 7\n")


def index_version_3_clean(root: Path) -> None:
    git(root, "update-index", "--index-version", "3")


def no_commit_yet(root: Path) -> None:
    write(root / "staged.py", "s")
    git(root, "add", "staged.py")


def nested_gitignores(root: Path) -> None:
    write(root / "src/.gitignore", "# a comment may hold a \\ backslash\n*.py\n!keep.py\nutil/\n")
    write(root / "src/keep.py", "kept")
    write(root / "src/drop.py", "dropped")
    write(root / "src/util/new.py", "dir ignored by the nested rule")
    write(root / "src/deeper/.gitignore", "!*.py\n")
    write(root / "src/deeper/again.py", "re-included by the deeper file")


def global_excludes(root: Path) -> None:
    # XDG_CONFIG_HOME points into the test's tmp dir (set by the test): git's default excludes file.
    write(Path(os.environ["XDG_CONFIG_HOME"]) / "git" / "ignore", "*.swp\n")
    write(root / "src/.app.py.swp", "editor swap")


SHAPES: dict[str, Shape] = {
    "clean": lambda root: None,
    "edits": edits,
    "ignored and negated": ignored_and_negated,
    "tracked but ignored": tracked_but_ignored,
    "modes and links": modes_and_links,
    "file became directory": file_became_directory,
    "directory behind symlink": directory_behind_symlink,
    "empty and ignored-only dirs": empty_and_ignored_only,
    "names": names,
    "info/exclude": info_exclude,
    "repository's excludesFile": repository_excludes_setting,
    "attributes, no CR": attributes_without_cr,
    "autocrlf, no CR": autocrlf_without_cr,
    "filemode off": filemode_off,
    "index v4": index_version_4,
    "index v3": index_version_3_clean,
    "nested gitignores": nested_gitignores,
    "global excludes": global_excludes,
}


@pytest.fixture(autouse=True)
def _xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_pure_id_is_gits_on_every_shape(name: str, tmp_path: Path) -> None:
    root = committed(tmp_path / "repo", BASE)
    SHAPES[name](root)
    same(root)
    same(root, ignore_prose=False)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_pure_id_of_a_package_root_is_gits(name: str, tmp_path: Path) -> None:
    root = committed(tmp_path / "repo", BASE)
    SHAPES[name](root)
    if name == "tracked but ignored":
        pytest.skip("git itself refuses `git add` of an ignored package root (a trusted snapshot fails too)")
    if (root / "src").is_dir() and not (root / "src").is_symlink():
        same(root / "src")


def test_no_commit_and_no_index(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root / "a.py", "a")
    same(root)
    no_commit_yet(root)
    same(root)


def test_configured_globs_and_a_negation(tmp_path: Path) -> None:
    root = committed(tmp_path / "repo", {**BASE, "generated/schema.json": "{}"})
    write(root / "generated/cache.bin", "c")
    write(root / "docs/guide.md", "prose")
    same(root, ignore=["generated/"])
    same(root, ignore=["generated/", "!generated/schema.json"])
    same(root, ignore=["*.toml"])


def test_a_submodule_at_its_recorded_commit_and_an_uninitialised_one(tmp_path: Path) -> None:
    library = committed(tmp_path / "library", {"lib.py": "L = 1\n"})
    root = committed(tmp_path / "repo", BASE)
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "vendor/library")
    git(root, "commit", "-q", "-m", "submodule")
    same(root)
    write(root / "vendor/library/lib.py", "L = 2\n")  # a change inside the submodule is not the superproject's
    same(root)
    # Its own commit moved: git would record the new one; not reproduced, so no answer.
    git(root / "vendor/library", "commit", "-q", "-am", "moved")
    unsure(root, "submodule")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True, capture_output=True)
    same(clone)  # vendor/library is an empty directory: the gitlink stays


@pytest.mark.parametrize(
    ("shape", "why"),
    [
        (lambda root: write(root / ".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n"), "filter"),
        (lambda root: write(root / ".gitattributes", "*.c ident\n"), "ident"),
        (lambda root: write(root / ".gitattributes", "[attr]mine text\n"), "macro"),
        (lambda root: (write(root / ".gitattributes", "* text=auto\n"), write(root / "dos.txt", "a\r\n")), "carriage"),
        (lambda root: (git(root, "config", "core.autocrlf", "true"), write(root / "d.py", "a\r\n")), "carriage"),
        (lambda root: git(root, "config", "core.ignorecase", "true"), "case"),
        (lambda root: git(root, "config", "core.symlinks", "false"), "symlinks"),
        (lambda root: committed(root / "inner", {"x": "x"}), "repository"),
        (lambda root: (write(root / "n.py", "n"), git(root, "add", "-N", "n.py")), "intent-to-add"),
        (lambda root: git(root, "update-index", "--assume-unchanged", "src/app.py"), "assume-unchanged"),
        (lambda root: git(root, "update-index", "--skip-worktree", "src/app.py"), "skip-worktree"),
        (lambda root: git(root, "update-index", "--split-index"), "index"),
        (lambda root: os.mkfifo(root / "pipe"), "not a file"),
        (lambda root: write(root / ".gitignore", "\\#not-a-comment\n"), "escape"),
        (lambda root: write(root / ".gitignore", "[[:digit:]]*\n"), "translate"),
        (lambda root: write(root / ".gitignore", "a**b\n"), "translate"),
        (lambda root: write(root / ".GIT", "x"), "protectNTFS"),
    ],
)
def test_shapes_it_does_not_reproduce_give_no_id(shape: Shape, why: str, tmp_path: Path) -> None:
    root = committed(tmp_path / "repo", BASE)
    shape(root)
    unsure(root, why)


def test_a_global_setting_that_changes_hashing_gives_no_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = committed(tmp_path / "repo", BASE)
    config = tmp_path / "global-config"
    config.write_text("[core]\n\tautocrlf = true\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    unsure(root, "user's git configuration")
    config.write_text('[user]\n\tname = someone\n[filter "lfs"]\n\tclean = git-lfs clean -- %f\n')
    same(root)  # a filter driver no attribute names changes nothing


def test_two_pure_snapshots_tell_which_paths_changed(tmp_path: Path) -> None:
    root = committed(tmp_path / "repo", BASE)
    before = snapshot(root, processes=False)
    edits(root)
    after = snapshot(root, processes=False)
    assert changed_paths(root, before.content_id, after, old_manifest=before.manifest, processes=False) == [
        "src/app.py",
        "src/new.py",
        "tests/test_app.py",
    ]


def test_tree_ids_follow_gits_order_and_modes() -> None:
    assert tree_id({}) == EMPTY_TREE
    blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # the empty blob
    assert tree_id({"a": (0o100644, blob)}) == "496d6428b9cf92981dc9495211e6e1120fb6f2ba"


def test_random_trees_and_ignore_rules_agree_with_git(tmp_path: Path) -> None:
    chooser = random.Random(20261202)
    words = ["a", "b", "a.b", "a-b", "a_b", "log", "build", "x.log", "keep", "B", "z9"]
    for round in range(6):
        root = committed(tmp_path / f"repo{round}", BASE)
        for _ in range(40):
            depth = chooser.randint(1, 4)
            path = "/".join(chooser.choice(words) for _ in range(depth))
            target = root / path
            if any(
                parent.is_file() for parent in [target, *target.parents] if parent != root and root in parent.parents
            ):
                continue
            if target.is_dir():
                continue
            write(target, chooser.choice(["x\n", "y\n", ""]), chooser.choice([0o644, 0o755]))
        rules = chooser.sample(["*.log", "build/", "/a", "keep/", "!x.log", "a/**/b", "b/", "!keep", "z*", "/B/"], 4)
        write(root / ".gitignore", "\n".join(rules) + "\n")
        if round % 2:
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "more")
            for path in chooser.sample(sorted(p for p in git(root, "ls-files").splitlines() if p), 5):
                if (root / path).is_file():
                    (root / path).write_text("changed\n")
        same(root)
