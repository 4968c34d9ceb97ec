"""Could a command line be a check? The prefilter of what runs on every shell call (the agents' hooks, `freshpass
run`), answered from the vocabulary's first words (`freshpass.facts.first_words`, generated from the tool registry
by `scripts/gen-first-words`; `freshpass.facts.tools.prefilter` says how) without importing the vocabulary itself.

It errs one way only: a line it passes may still be no check (the classifier decides), a line it stops is never one
the classifier would recognise — save a check a project declares under a name of its own that is neither a known
runner nor a script named by its path or file name.
"""

from __future__ import annotations

_COMMAND_BREAKS = str.maketrans({character: "\n" for character in ";&|()`{}\n\"'"})
_WORD_BREAKS = str.maketrans({character: " " for character in "<>$\\!\t\r"})


def could_be_check(line: str) -> bool:
    """Whether `line` may run a check: a word a check can start with (`pytest`, `.venv/bin/pytest`, `npm`), or a
    script named by its path or file name (`./scripts/test`, `run_tests.sh`) outside a plain utility that only reads
    its arguments (`cat src/app.py`). Quotes and operators split the line into commands, so `bash -c "pytest"`
    is seen too."""
    from freshpass.facts.first_words import HEADS, READERS, SCRIPT_NAMES, SCRIPT_SUFFIXES

    for command in line.translate(_WORD_BREAKS).translate(_COMMAND_BREAKS).split("\n"):
        head: str | None = None
        for word in command.split():
            name = word.rsplit("/", 1)[-1]
            bare = word[0] + word[1:].split("@", 1)[0]  # `jest@29`, `@biomejs/biome@1` name the package
            if word in HEADS or name in HEADS or name in SCRIPT_NAMES or bare in HEADS or _name(bare) in HEADS:
                return True
            if head is None:
                if "=" in word and not word.startswith("-"):
                    continue  # `VAR=value` before the command
                head = word  # a path (`./scripts/test`) is never a plain utility
            if head not in READERS and ("/" in word or word.endswith(SCRIPT_SUFFIXES)):
                return True
    return False


def _name(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def not_a_check(line: str) -> str:
    """Why a line the prefilter stops records nothing (the classifier's words for it)."""
    shown = line.strip().split("\n", 1)[0][:80]
    return f"no recognised check: `{shown}` is not a verify command or a recognised test/lint/typecheck/build runner"
