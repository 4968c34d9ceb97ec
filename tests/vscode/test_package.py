"""The .vsix users install: only the manifest, the self-contained bundle and the README (see .vscodeignore)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.vscode


def test_vsix_holds_the_manifest_and_a_self_contained_bundle(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as archive:
        names = set(archive.namelist())
        manifest = json.loads(archive.read("extension/package.json"))
        bundle = archive.read("extension/editor-clients/vscode/dist/extension.js").decode()
    assert names == {
        "[Content_Types].xml",
        "extension.vsixmanifest",
        "extension/package.json",
        "extension/readme.md",
        "extension/editor-clients/vscode/dist/extension.js",
    }
    assert manifest["main"] == "./editor-clients/vscode/dist/extension.js"
    assert manifest["engines"]["vscode"] == "^1.96.0"
    # vscode-languageclient is bundled (the vsix has no node_modules); only the host's `vscode` is required.
    assert 'require("vscode-languageclient' not in bundle
    assert 'require("vscode")' in bundle
