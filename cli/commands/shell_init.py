"""`freshpass shell-init bash|zsh|fish [--verbose]`: the hook that makes checks typed in any terminal receipts.

    eval "$(freshpass shell-init bash)"      # ~/.bashrc
    eval "$(freshpass shell-init zsh)"       # ~/.zshrc
    freshpass shell-init fish | source       # ~/.config/fish/config.fish

The hook decides in shell code, with no process started, whether a command could be a check: its first word
against the cached first words of the nearest root above `$PWD` (`freshpass.evidence.shell_hook`; a root has a
cache only when the user trusts it and freshpass has read its facts). Only then does it start freshpass, in the
background and detached from the terminal: once when the command starts (the content it runs against) and once at
the next prompt (the exit status — `$?`, so `pipefail` is honoured — and the content again). It chains to the
shell's existing hooks (bash: `PROMPT_COMMAND` and the `DEBUG` trap, or bash-preexec's arrays when loaded; zsh:
`add-zsh-hook`; fish: the `fish_preexec` / `fish_postexec` events), keeps `$?` for the prompt, and prints nothing
unless `--verbose`.

`--record start|end` is what the hook itself runs (not for people).
"""

from __future__ import annotations

import argparse
import shlex
import sys

from freshpass.runner.terminal import say

SHELLS = ("bash", "zsh", "fish")


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", nargs="?", choices=SHELLS, help="the shell to print the hook for")
    parser.add_argument("--verbose", action="store_true", help="the hook says what it recorded, and why not")
    parser.add_argument("--record", choices=("start", "end"), help=argparse.SUPPRESS)
    parser.add_argument("--id", default="", help=argparse.SUPPRESS)
    parser.add_argument("--cwd", default="", help=argparse.SUPPRESS)
    parser.add_argument("--exit", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--started", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--finished", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--in", dest="in_shell", choices=SHELLS, help=argparse.SUPPRESS)
    parser.add_argument("--line", default="", help=argparse.SUPPRESS)
    parser.epilog = (
        'bash/zsh: eval "$(freshpass shell-init zsh)"; fish: freshpass shell-init fish | source. Only folders you '
        "trust (freshpass trust) are recorded."
    )


def run(args: argparse.Namespace) -> int:
    if args.record:
        return _record(args)
    if not args.shell:
        say("freshpass shell-init: name the shell: bash, zsh or fish")
        return 2
    print(script(args.shell, verbose=bool(args.verbose)))
    return 0


def _freshpass_words() -> list[str]:
    """How the hook starts freshpass: this interpreter and module, so a venv need not be on PATH."""
    return [sys.executable, "-m", "freshpass"]


def script(shell: str, *, verbose: bool = False) -> str:
    from freshpass.evidence.shell_hook import state_dir

    roots = str(state_dir() / "roots")
    command = " ".join(shlex.quote(word) for word in _freshpass_words())
    if shell == "fish":
        return _FISH.replace("@ROOTS@", _fish_quote(roots)).replace("@BIN@", " ".join(
            _fish_quote(word) for word in _freshpass_words())).replace("@VERBOSE@", "1" if verbose else "")  # fmt: skip
    template = _BASH if shell == "bash" else _ZSH
    return (
        template.replace("@ROOTS@", shlex.quote(roots)).replace("@BIN@", command).replace(
            "@VERBOSE@", "1" if verbose else "")
    )  # fmt: skip


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _record(args: argparse.Namespace) -> int:
    import asyncio
    import os
    from pathlib import Path

    from freshpass.commands.status import detach_stdin
    from freshpass.evidence.shell_hook import ShellRun, record_end, record_start
    from freshpass.ledger.store import LedgerError

    detach_stdin()
    cwd = Path(args.cwd or os.getcwd())
    shell_run = ShellRun(args.in_shell or "sh", args.id, args.line, cwd, args.exit, args.started, args.finished)
    try:
        said = asyncio.run(record_start(shell_run) if args.record == "start" else record_end(shell_run))
    except LedgerError as exc:
        said = str(exc)
    except Exception as exc:  # a background helper: never a traceback on the person's terminal
        said = f"could not record: {type(exc).__name__}: {exc}"
    if args.verbose:
        say(f"freshpass: {said}")
    return 0


# The scripts. Every line must hold under `set -euo pipefail` (nothing unguarded may fail, no unset variable is
# read bare, no pipes), keep `$?` for the prompt, and start no process unless the first word matched.

_BASH = r"""# freshpass shell integration (bash): checks typed here become receipts. `freshpass shell-init bash --help`.
if [[ -z ${__freshpass_loaded-} && $- == *i* ]]; then
__freshpass_loaded=1
__freshpass_roots=@ROOTS@
__freshpass_verbose=@VERBOSE@
__freshpass_seq=0
__freshpass_armed=
__freshpass_run=
__freshpass_words=
__freshpass_find() {
  local d=$PWD f
  __freshpass_words=
  while [[ -n $d ]]; do
    f=${d//\%/%25}
    f=$__freshpass_roots/${f//\//%2F}
    if [[ -f $f ]]; then
      IFS= read -r __freshpass_words < "$f" || true
      return 0
    fi
    [[ $d != / ]] || return 0
    d=${d%/*}
    [[ -n $d ]] || d=/
  done
  return 0
}
__freshpass_spawn() {
  if [[ -n $__freshpass_verbose ]]; then
    ( @BIN@ shell-init --verbose "$@" </dev/null & )
  else
    ( @BIN@ shell-init "$@" </dev/null >/dev/null 2>&1 & )
  fi
  return 0
}
__freshpass_preexec() {
  [[ -n ${__freshpass_armed-} && -z ${COMP_LINE-} ]] || return 0
  __freshpass_armed=
  local cmd=${1-${BASH_COMMAND-}} w
  w=${cmd%%[[:space:]]*}
  while [[ $w == [A-Za-z_]*=* && $cmd == *[[:space:]]* ]]; do
    cmd=${cmd#*[[:space:]]}
    cmd=${cmd#"${cmd%%[![:space:]]*}"}
    w=${cmd%%[[:space:]]*}
  done
  [[ -n $w ]] || return 0
  __freshpass_find
  [[ -n $__freshpass_words && $__freshpass_words == *" ${w##*/} "* ]] || return 0
  local line=$cmd entry
  if [[ -z ${1-} ]]; then
    entry=$(HISTTIMEFORMAT= builtin history 1 2>/dev/null) || entry=
    if [[ $entry =~ ^[[:space:]]*[0-9]+[*]?[[:space:]]+(.*)$ && ${BASH_REMATCH[1]} == *"$w"* ]]; then
      line=${BASH_REMATCH[1]}
    fi
  else
    line=$1
  fi
  __freshpass_seq=$((__freshpass_seq + 1))
  __freshpass_run="$$-$__freshpass_seq-${EPOCHSECONDS-0}"
  __freshpass_cwd=$PWD
  __freshpass_start=${EPOCHREALTIME-0}
  __freshpass_spawn --record start --in bash --id "$__freshpass_run" --cwd "$PWD" \
    --started "${__freshpass_start/,/.}" --line="$line"
  __freshpass_line=$line
  return 0
}
__freshpass_precmd() {
  local s=$?
  if [[ -n ${__freshpass_run-} ]]; then
    local now=${EPOCHREALTIME-0}
    __freshpass_spawn --record end --in bash --id "$__freshpass_run" --cwd "$__freshpass_cwd" --exit "$s" \
      --started "${__freshpass_start/,/.}" --finished "${now/,/.}" --line="$__freshpass_line"
    __freshpass_run=
  fi
  return "$s"
}
__freshpass_arm() {
  local s=$?
  __freshpass_armed=1
  return "$s"
}
if [[ -n ${bash_preexec_imported-${__bp_imported-}} ]] && declare -p preexec_functions >/dev/null 2>&1; then
  __freshpass_bp_preexec() { __freshpass_armed=1; __freshpass_preexec "$1"; }
  precmd_functions=(__freshpass_precmd "${precmd_functions[@]}")
  preexec_functions+=(__freshpass_bp_preexec)
else
  if [[ $(declare -p PROMPT_COMMAND 2>/dev/null || true) == "declare -a"* ]]; then
    PROMPT_COMMAND=(__freshpass_precmd "${PROMPT_COMMAND[@]}" __freshpass_arm)
  else
    PROMPT_COMMAND="__freshpass_precmd${PROMPT_COMMAND:+; $PROMPT_COMMAND}; __freshpass_arm"
  fi
  __freshpass_debug_before=$(trap -p DEBUG || true)
  if [[ -n $__freshpass_debug_before ]]; then
    eval "__freshpass_debug_before=${__freshpass_debug_before#trap -- }"
    __freshpass_debug_before=${__freshpass_debug_before% DEBUG}
    trap '__freshpass_preexec; eval "$__freshpass_debug_before"' DEBUG
  else
    trap '__freshpass_preexec' DEBUG
  fi
fi
fi
"""

_ZSH = r"""# freshpass shell integration (zsh): checks typed here become receipts. `freshpass shell-init zsh --help`.
if [[ -z ${__freshpass_loaded-} && -o interactive ]]; then
typeset -g __freshpass_loaded=1
typeset -g __freshpass_roots=@ROOTS@
typeset -g __freshpass_verbose=@VERBOSE@
typeset -g __freshpass_seq=0 __freshpass_run= __freshpass_words= __freshpass_line= __freshpass_cwd= __freshpass_start=
zmodload -F zsh/datetime p:EPOCHREALTIME 2>/dev/null || true
__freshpass_find() {
  emulate -L zsh
  local d=$PWD f
  __freshpass_words=
  while [[ -n $d ]]; do
    f=${d//\%/%25}
    f=$__freshpass_roots/${f//\//%2F}
    if [[ -f $f ]]; then
      IFS= read -r __freshpass_words < "$f" || true
      return 0
    fi
    [[ $d != / ]] || return 0
    d=${d%/*}
    [[ -n $d ]] || d=/
  done
  return 0
}
__freshpass_spawn() {
  emulate -L zsh
  if [[ -n $__freshpass_verbose ]]; then
    ( @BIN@ shell-init --verbose "$@" </dev/null & )
  else
    ( @BIN@ shell-init "$@" </dev/null >/dev/null 2>&1 & )
  fi
  return 0
}
__freshpass_preexec() {
  emulate -L zsh
  local line=${1-} w
  local -a words
  words=(${(z)line})
  while (( ${#words} )) && [[ ${words[1]} == [A-Za-z_]*=* ]]; do
    shift words
  done
  (( ${#words} )) || return 0
  w=${words[1]:t}
  __freshpass_find
  [[ -n $__freshpass_words && $__freshpass_words == *" $w "* ]] || return 0
  (( __freshpass_seq += 1 ))
  __freshpass_run="$$-$__freshpass_seq-${EPOCHREALTIME%%.*}"
  __freshpass_cwd=$PWD
  __freshpass_start=${EPOCHREALTIME-0}
  __freshpass_line=$line
  __freshpass_spawn --record start --in zsh --id "$__freshpass_run" --cwd "$PWD" --started "$__freshpass_start" \
    --line="$line"
  return 0
}
__freshpass_precmd() {
  local s=$?
  if [[ -n ${__freshpass_run-} ]]; then
    __freshpass_spawn --record end --in zsh --id "$__freshpass_run" --cwd "$__freshpass_cwd" --exit "$s" \
      --started "$__freshpass_start" --finished "${EPOCHREALTIME-0}" --line="$__freshpass_line"
    __freshpass_run=
  fi
  return $s
}
autoload -Uz add-zsh-hook
add-zsh-hook preexec __freshpass_preexec
add-zsh-hook precmd __freshpass_precmd
fi
"""

_FISH = r"""# freshpass shell integration (fish): checks typed here become receipts. `freshpass shell-init fish --help`.
if status is-interactive; and not set -q __freshpass_loaded
set -g __freshpass_loaded 1
set -g __freshpass_roots @ROOTS@
set -g __freshpass_bin @BIN@
set -g __freshpass_verbose @VERBOSE@
set -g __freshpass_seq 0
set -g __freshpass_run ''
set -g __freshpass_found_for ''
set -g __freshpass_found ''
function __freshpass_find
    set -g __freshpass_words ''
    # The same directory as last time, whose cache is still there: no walk (the file is read again).
    if test "$__freshpass_found_for" = "$PWD"; and test -f "$__freshpass_found"
        read -l words < $__freshpass_found; or true
        set -g __freshpass_words $words
        return 0
    end
    set -l d $PWD
    while test -n "$d"
        set -l f (string replace -a '%' '%25' -- $d)
        set f $__freshpass_roots/(string replace -a '/' '%2F' -- $f)
        if test -f $f
            read -l words < $f; or true
            set -g __freshpass_words $words
            set -g __freshpass_found_for $PWD
            set -g __freshpass_found $f
            return 0
        end
        test "$d" != /; or return 0
        set d (string replace -r '/[^/]*$' '' -- $d)
        test -n "$d"; or set d /
    end
end
function __freshpass_spawn
    if test -n "$__freshpass_verbose"
        command sh -c '"$@" </dev/null &' sh $__freshpass_bin shell-init --verbose $argv
    else
        command sh -c '"$@" </dev/null >/dev/null 2>&1 &' sh $__freshpass_bin shell-init $argv
    end
end
function __freshpass_preexec --on-event fish_preexec
    set -l line $argv[1]
    set -l words (string split -n ' ' -- (string trim -- $line))
    while set -q words[1]; and string match -qr '^[A-Za-z_][A-Za-z0-9_]*=' -- $words[1]
        set -e words[1]
    end
    set -q words[1]; or return 0
    set -l w (string replace -r '.*/' '' -- $words[1])
    __freshpass_find
    string match -q -- "* $w *" "$__freshpass_words"; or return 0
    set -g __freshpass_seq (math $__freshpass_seq + 1)
    set -g __freshpass_run "$fish_pid-$__freshpass_seq"(date +-%s 2>/dev/null; or echo -0)
    set -g __freshpass_cwd $PWD
    set -g __freshpass_start (date +%s.%N 2>/dev/null; or echo 0)
    set -g __freshpass_line $line
    __freshpass_spawn --record start --in fish --id $__freshpass_run --cwd $PWD --started $__freshpass_start \
        --line=$line
end
function __freshpass_postexec --on-event fish_postexec
    set -l s $status
    test -n "$__freshpass_run"; or return 0
    set -l now (date +%s.%N 2>/dev/null; or echo 0)
    __freshpass_spawn --record end --in fish --id $__freshpass_run --cwd $__freshpass_cwd --exit $s \
        --started $__freshpass_start --finished $now --line=$__freshpass_line
    set -g __freshpass_run ''
end
end
"""
