""".NET: a solution or project file; `dotnet test` runs every test project the solution (or the directory) holds."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, formatter, has, opts, tool
from freshpass.facts.tools.generic import LINT_PATHS

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

DOTNET_TEST = Runner(
    "dotnet",
    "test",
    opts(
        "--filter -f --framework -c --configuration -l --logger -r --results-directory -s --settings --runtime "
        "-v --verbosity -a --arch --os -o --output --collect -e --environment -d --diag --blame-hang-timeout"
    ),
    opts("--filter"),
    positionals="paths",  # a project or solution other than the one in the directory
    neutral=opts("--no-build --no-restore -v --verbosity -l --logger --nologo"),
)


@tool("dotnet")
def _dotnet(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    sub = args[0] if args else ""
    if sub == "format":
        if has(args, "--verify-no-changes"):
            return Identified(LINT_PATHS, 2, "lint", "dotnet format --verify-no-changes")
        return formatter("dotnet format", args[1:], check=("--verify-no-changes",), head=2)
    if sub == "test":
        return Identified(DOTNET_TEST, 2, "test", "dotnet test")
    return Identified(DOTNET_TEST, 2, "build", "dotnet build") if sub == "build" else None


ECOSYSTEM = Ecosystem(
    name="dotnet",
    title=".NET",
    manifest_globs=("*.sln", "*.slnx", "*.csproj", "*.fsproj", "*.vbproj"),
    root_markers=("global.json", "Directory.Build.props"),
    lockfiles=(("packages.lock.json", "nuget"),),
    package_manager="nuget",
    conventions=(Convention("test", "dotnet test"), Convention("build", "dotnet build")),
    vocabulary=Vocabulary(
        runners=("dotnet",),
        narrowing=("--filter", "a test project other than the directory's"),
        writers=("dotnet format (without --verify-no-changes)",),
        watch=("dotnet watch",),
    ),
    summary=_summaries.dotnet,
    docs="https://learn.microsoft.com/dotnet/core/tools/dotnet-test",
)
