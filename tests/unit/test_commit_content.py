"""Content ids of a commit without a checkout (design §4.6): equal to the id a clean checkout of that commit gets,
under the same ignore and prose rules, and computed without writing, checking out or executing anything."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from freshpass.ledger.content import ContentError, commit_snapshot, snapshot
from freshpass.ledger.trees import TreeEntry, empty_tree, filtered_tree, parse_listing, tree_id

from tests.conftest import git


def _commit_all(root: Path, message: str = "commit") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with prose, a package, nested directories, odd names, a symlink and an executable."""
    root = tmp_path / "repo"
    for relative, text in {
        "src/app/core.py": "A = 1\n",
        "src/app/README.md": "# prose in a code directory\n",
        "docs/guide.md": "guide\n",
        "docs/only/deep.rst": "deep prose\n",
        "README.md": "# repo\n",
        "LICENSE": "MIT\n",
        "CHANGELOG.md": "1.0\n",
        "requirements-dev.txt": "pytest\n",
        "pkg/pyproject.toml": "[project]\nname = 'pkg'\n",
        "pkg/lib/mod.py": "B = 2\n",
        "pkg/NOTES.txt": "notes\n",
        "prose-only/a.md": "a\n",
        "prose-only/b/c.txt": "c\n",
        "data/big.csv": "1,2\n",
        "data/keep.csv": "3,4\n",
        "names/with space é.py": "s = 1\n",
        "names/a-b.py": "x\n",
        "names/a/b.py": "y\n",
        "names/a.b": "z\n",
    }.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    os.symlink("src/app/core.py", root / "alias.py")
    git(root, "init", "-q", "-b", "main")
    _commit_all(root, "init")
    return root


CASES = [
    (".", [], True),
    (".", [], False),
    (".", ["data/"], True),
    (".", ["*.csv", "!keep.csv"], True),
    (".", ["names/a/"], True),
    ("pkg", [], True),
    ("pkg", ["lib/**"], True),
    ("prose-only", [], True),
    ("src", [], True),
    ("names", [], True),
]


@pytest.mark.parametrize(("relative", "ignore", "prose"), CASES)
def test_a_commit_has_the_id_of_its_clean_checkout(
    repo: Path, relative: str, ignore: list[str], prose: bool, tmp_path: Path
) -> None:
    root = repo / relative
    from_commit = commit_snapshot(root, "HEAD", ignore, prose)
    assert from_commit.content_id == snapshot(root, ignore, prose).content_id
    assert from_commit.git_toplevel == str(repo)
    # A second clone checked out fresh (what CI has) agrees too.
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True, capture_output=True)
    assert snapshot(clone / relative, ignore, prose).content_id == from_commit.content_id


def test_a_root_of_prose_only_is_the_empty_tree(repo: Path) -> None:
    assert commit_snapshot(repo / "prose-only").content_id == f"git:{empty_tree('sha1')}"


def test_a_root_missing_from_the_commit_is_the_empty_tree(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "later" / "x.py").parent.mkdir()
    (repo / "later" / "x.py").write_text("x\n")
    _commit_all(repo, "later")
    assert commit_snapshot(repo / "later", first).content_id == f"git:{empty_tree('sha1')}"
    assert commit_snapshot(repo / "later", "HEAD").content_id == snapshot(repo / "later").content_id


def test_revisions_by_name_id_and_suffix(repo: Path) -> None:
    first = snapshot(repo).content_id
    (repo / "src" / "app" / "core.py").write_text("A = 2\n")
    commit = _commit_all(repo, "second")
    git(repo, "tag", "v2")
    second = snapshot(repo).content_id
    assert first != second
    assert commit_snapshot(repo, "HEAD~1").content_id == first
    assert commit_snapshot(repo, "main^").content_id == first
    assert commit_snapshot(repo, "v2").content_id == second
    assert commit_snapshot(repo, commit[:12]).content_id == second
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    assert commit_snapshot(repo, tree).content_id == second
    git(repo, "pack-refs", "--all")
    assert commit_snapshot(repo, "v2").content_id == second
    for bad in ("nope", "HEAD~9", "--output=/tmp/x", "a b", "HEAD:src"):
        with pytest.raises(ContentError):
            commit_snapshot(repo, bad)


def test_only_prose_and_ignored_edits_keep_the_commit_id(repo: Path) -> None:
    before = commit_snapshot(repo).content_id
    (repo / "docs" / "guide.md").write_text("rewritten\n")
    (repo / "data" / "big.csv").write_text("9,9\n")
    _commit_all(repo, "docs and data")
    assert commit_snapshot(repo, ignore=["data/"]).content_id == commit_snapshot(repo, "HEAD~1", ["data/"]).content_id
    assert commit_snapshot(repo).content_id != before  # data/ counts without the glob


def test_untracked_files_make_the_work_tree_differ_from_its_commit(repo: Path) -> None:
    (repo / "generated.py").write_text("made by a setup step\n")
    assert snapshot(repo).content_id != commit_snapshot(repo).content_id
    (repo / "generated.py").unlink()
    (repo / "notes-to-self.md").write_text("prose never counts\n")
    assert snapshot(repo).content_id == commit_snapshot(repo).content_id


def test_a_blobless_clone_needs_no_blob(repo: Path, tmp_path: Path) -> None:
    clone = tmp_path / "blobless"
    git(repo, "config", "uploadpack.allowFilter", "true")
    git(tmp_path, "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{repo}", str(clone))
    git(clone, "remote", "set-url", "origin", str(tmp_path / "gone"))  # any lazy fetch of a blob would fail
    assert commit_snapshot(clone, "HEAD").content_id == snapshot(repo).content_id
    assert commit_snapshot(clone / "pkg", "HEAD").content_id == snapshot(repo / "pkg").content_id


def test_sha256_repository(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    try:
        git(root, "init", "-q", "--object-format=sha256")
    except subprocess.CalledProcessError:
        pytest.skip("this git cannot create sha256 repositories")
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "c.py").write_text("x = 1\n")
    (root / "a" / "README.md").write_text("prose\n")
    _commit_all(root)
    assert commit_snapshot(root).content_id == snapshot(root).content_id
    assert len(commit_snapshot(root).content_id) == len("git:") + 64


def test_nothing_the_repository_configures_runs(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    git(repo, "config", "core.fsmonitor", f"touch {marker}; false")
    git(repo, "config", "core.hooksPath", str(tmp_path / "hooks"))
    (repo / ".gitattributes").write_text("*.py filter=x\n")
    git(repo, "config", "filter.x.clean", f"touch {marker}; cat")
    commit_snapshot(repo)
    assert not marker.exists()


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(ContentError, match="not in a git repository"):
        commit_snapshot(tmp_path)


# ---- the tree encoding, against git itself ------------------------------------------------------------------------


def _mktree(repo: Path, entries: list[TreeEntry]) -> str:
    text = "".join(f"{e.mode} {e.kind} {e.oid}\t{e.name}\0" for e in entries)
    return (
        subprocess.run(
            ["git", "-C", str(repo), "mktree", "-z", "--missing"], input=text.encode(), capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )


def test_tree_ids_match_git_mktree_for_the_order_git_sorts_names_in(repo: Path) -> None:
    blob = git(repo, "rev-parse", "HEAD:README.md").strip()
    sub = git(repo, "rev-parse", "HEAD:names").strip()
    entries = [
        TreeEntry("100644", "blob", blob, "a.b"),
        TreeEntry("040000", "tree", sub, "a"),
        TreeEntry("100755", "blob", blob, "a-b"),
        TreeEntry("120000", "blob", blob, "a0"),
        TreeEntry("160000", "commit", "1" * 40, "sub"),  # a submodule: the commit is never in this repository
        TreeEntry("100644", "blob", blob, "é"),
    ]
    assert tree_id(entries, "sha1") == _mktree(repo, entries)
    assert empty_tree("sha1") == "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def test_filtered_tree_drops_emptied_and_empty_directories(repo: Path) -> None:
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    listing = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "-t", "-z", tree], capture_output=True, check=True
    ).stdout
    entries = parse_listing(listing)
    assert filtered_tree(tree, entries, lambda path: False, "sha1") == tree
    assert filtered_tree(tree, entries, lambda path: True, "sha1") == empty_tree("sha1")
    without_docs = filtered_tree(tree, entries, lambda path: path.startswith("docs/"), "sha1")
    git(repo, "rm", "-rq", "docs")
    assert without_docs == git(repo, "write-tree").strip()
