"""Contributor documents read as documents: Markdown through markdown-it-py, reStructuredText through docutils.

What counts is the structure a reader sees (headings, code blocks, `$ ` session lines, inline code in prose), not
lines that merely look like it (a `#` inside a code block is no heading; a fence inside an indented block is
text). Each case is a self-written document; the command lines it yields are compared in order.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from freshpass.facts.detect import detect_facts
from freshpass.facts.signals.base import Collector
from freshpass.facts.signals.docs import read


def _said(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, str]]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    collector = Collector(tmp_path)
    read(collector)
    return [(line, cwd) for line, _source, _position, cwd in collector.docs]


MARKDOWN = """# Project

## Usage

```sh
project serve --port 8000
```

## Development

Install, then run the whole suite:

```console
$ pip install -e .
$ make test
ok
```

A quick lint is `ruff check .`; the formatter is `ruff`.

    # an indented block: code, not a heading
    tox -e lint

| task | command |
| ---- | ------- |
| docs | `make docs` |

$ nox -s tests

## License

`make release` is for maintainers.
"""

RST = """Project
=======

Usage
-----

::

    project serve

Contributing
------------

Run the tests::

    pytest -q

.. code-block:: bash

    $ tox -e py312

.. prompt:: bash $

    nox -s lint

.. tab:: Unix

   .. code-block:: shell

      make check

Use ``mypy src`` for types.

Releasing
---------

``make publish``
"""


def test_a_readme_gives_the_commands_of_its_development_sections_only(tmp_path: Path) -> None:
    assert _said(tmp_path, {"README.md": MARKDOWN}) == [
        ("pip install -e .", "."),
        ("make test", "."),
        ("ruff check .", "."),
        ("tox -e lint", "."),
        ("make docs", "."),
        ("nox -s tests", "."),
    ]


def test_restructuredtext_is_read_with_its_directives_and_sections(tmp_path: Path) -> None:
    assert _said(tmp_path, {"README.rst": RST}) == [
        ("pytest -q", "."),
        ("tox -e py312", "."),
        ("nox -s lint", "."),
        ("make check", "."),
        ("mypy src", "."),
    ]


def test_a_contributing_guide_is_read_whole_and_says_where_commands_run(tmp_path: Path) -> None:
    (tmp_path / "web").mkdir()
    guide = "# Contributing\n\nIn the `web` directory:\n\n```bash\nnpm test\n```\n\n## Python\n\n```\npytest\n```\n"
    assert _said(tmp_path, {"CONTRIBUTING.md": guide}) == [("npm test", "web"), ("pytest", ".")]


@pytest.mark.parametrize(
    "text",
    [
        "```" * 5000,
        "::\n\n" + "    x\n" * 10,
        ".. include:: /etc/passwd\n\n``make test``\n",
        ".. raw:: html\n\n   <script>x</script>\n",
        "Title\n===\n\n" + "`" * 1000,
        "\x00\x01 *unclosed **strong",
    ],
)
def test_hostile_documents_lose_nothing_else(tmp_path: Path, text: str) -> None:
    found = _said(tmp_path, {"CONTRIBUTING.rst": text, "CONTRIBUTING.md": text})
    assert all("passwd" not in line for line, _cwd in found)


def test_the_parsers_are_imported_only_when_a_document_is_there(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "Makefile").write_text("test:\n\tpytest\n")
    script = (
        "import sys; from freshpass.facts.detect import detect_facts; "
        f"detect_facts({str(tmp_path)!r}); "
        "print(any(m.split('.')[0] in ('markdown_it', 'docutils') for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    assert detect_facts(tmp_path).primary("test") is not None
