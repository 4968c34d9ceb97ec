"""Each ecosystem is one unit: a minimal project of it (tests/fixtures/ecosystems/<name>/: its manifest and one
test file) gives the ecosystem's conventional full test command; that command is approved and full when typed, and a
run of one file or one test is approved and targeted. The vocabulary each ecosystem declares decides what narrows:
options, positionals, settings and environment variables."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from freshpass.facts.classify import classify
from freshpass.facts.detect import detect_facts
from freshpass.facts.ecosystems import registry
from freshpass.facts.roots import PACKAGE_MARKERS, ROOT_MARKERS, find_root

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ecosystems"

# ecosystem → the conventional full test command its minimal project gives
FULL: dict[str, str] = {
    "autotools": "make check",
    "bazel": "bazel test //...",
    "clojure": "lein test",
    "cmake": "ctest --test-dir build",
    "dart": "dart test",
    "deno": "deno task test",
    "dotnet": "dotnet test",
    "elixir": "mix test",
    "erlang_rebar3": "rebar3 eunit",
    "flutter": "flutter test",
    "gleam": "gleam test",
    "go": "go test ./...",
    "haskell_cabal": "cabal test all",
    "haskell_stack": "stack test",
    "julia": "julia --project -e 'using Pkg; Pkg.test()'",
    "jvm_gradle": "gradle test",
    "jvm_maven": "mvn test",
    "lua": "busted",
    "meson": "meson test -C build",
    "node": "npm test",
    "ocaml_dune": "dune test",
    "perl": "prove -l t",
    "php": "vendor/bin/phpunit",
    "python": "pytest",
    "r": "Rscript -e 'devtools::test()'",
    "ruby": "bundle exec rspec",
    "rust": "cargo test",
    "scala_sbt": "sbt test",
    "swift": "swift test",
    "zig": "zig build test",
}

# ecosystem → a run of one file or one test, in that ecosystem's own vocabulary
NARROWED: dict[str, str] = {
    "python": "pytest tests/test_demo.py::test_ok",
    "node": "npm test -- -t ok",
    "deno": "deno test demo_test.ts",
    "rust": "cargo test ok",
    "go": "go test -run TestOK ./...",
    "jvm_gradle": "gradle test --tests DemoTest",
    "jvm_maven": "mvn test -Dtest=DemoTest",
    "ruby": "bundle exec rspec spec/demo_spec.rb",
    "php": "vendor/bin/phpunit --filter testOk",
    "lua": "busted spec/demo_spec.lua",
    "dotnet": "dotnet test --filter Ok",
    "swift": "swift test --filter DemoTests.testOk",
    "haskell_cabal": "cabal test demo-test",
    "haskell_stack": "stack test --ta '-m ok'",
    "zig": "zig build test -Dtest-filter=ok",
    "dart": "dart test test/demo_test.dart",
    "flutter": "flutter test --plain-name ok",
    "scala_sbt": "sbt 'testOnly DemoSuite'",
    "cmake": "ctest --test-dir build -R demo_test",
    "meson": "meson test -C build demo",
    "autotools": "make check TESTS=demo_test",
    "perl": "prove -l t/basic.t",
    "bazel": "bazel test //:demo_test",
    "clojure": "lein test demo.core-test",
    "ocaml_dune": "dune test test",
    "erlang_rebar3": "rebar3 eunit --module=demo_tests",
    "gleam": "gleam test -- demo_test",
    "julia": "julia --project -e 'using Pkg; Pkg.test(test_args=[\"demo\"])'",
    "r": "Rscript -e 'devtools::test(filter = \"demo\")'",
    "elixir": "mix test test/demo_test.exs:3",
}


def _checkout(name: str, tmp_path: Path) -> Path:
    repo = tmp_path / name
    shutil.copytree(FIXTURES / name, repo)
    (repo / ".git").mkdir()
    return repo


def test_there_are_thirty_ecosystems_each_with_a_fixture() -> None:
    names = {e.name for e in registry.ecosystems()}
    assert len(names) == 30
    assert names == set(FULL) == set(NARROWED) == {p.name for p in FIXTURES.iterdir()}


@pytest.mark.parametrize("name", sorted(FULL))
def test_a_minimal_project_gives_the_conventional_full_test(name: str, tmp_path: Path) -> None:
    repo = _checkout(name, tmp_path)
    facts = detect_facts(repo)
    tests = [c for c in facts.verify_commands if c.kind == "test"]
    assert tests and tests[0].command == FULL[name], [(c.kind, c.command) for c in facts.verify_commands]
    assert facts.problems == []
    full = classify(FULL[name], cwd=repo, root=repo, facts=facts)
    assert (full.approved, full.scope, full.kind) == (True, "full", "test"), full.to_json()
    narrowed = classify(NARROWED[name], cwd=repo, root=repo, facts=facts)
    assert (narrowed.approved, narrowed.scope) == (True, "targeted"), narrowed.to_json()


@pytest.mark.parametrize("name", sorted(FULL))
def test_each_ecosystem_record_is_complete(name: str) -> None:
    eco = registry.get(name)
    assert eco.title and eco.docs.startswith("https://")
    assert eco.all_manifests(), "an ecosystem is found by its manifests"
    assert eco.vocabulary.runners and eco.vocabulary.narrowing
    assert eco.read is not None or any(c.kind == "test" for c in eco.conventions)
    for manifest in eco.manifests:
        assert manifest in ROOT_MARKERS
        assert eco in registry.by_manifest(manifest)
    if eco.packages:
        assert set(eco.manifests) <= set(PACKAGE_MARKERS)


def test_the_ecosystems_page_is_generated_from_the_records() -> None:
    script = Path(__file__).resolve().parents[2] / "scripts" / "gen-ecosystems"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_a_build_directory_ecosystem_carries_its_recipe(tmp_path: Path) -> None:
    for name, steps in (("cmake", ["cmake -S . -B build", "cmake --build build"]), ("meson", ["meson setup build"])):
        repo = _checkout(name, tmp_path)
        facts = detect_facts(repo)
        assert facts.recipe is not None
        build = [step["command"] for step in facts.recipe["phases"]["build"]]
        assert build[: len(steps)] == steps, facts.recipe
        assert [s["command"] for s in facts.recipe["phases"]["test"]][:1] == [FULL[name]]


def test_an_ecosystem_manifest_makes_a_root(tmp_path: Path) -> None:
    project = tmp_path / "work" / "lib"
    (project / "src").mkdir(parents=True)
    (project / "mix.exs").write_text("defmodule X.MixProject do\nend\n")
    assert find_root(project / "src") == project.resolve()


def test_flutter_is_a_pubspec_that_depends_on_the_sdk_and_supersedes_dart(tmp_path: Path) -> None:
    facts = detect_facts(_checkout("flutter", tmp_path))
    commands = [c.command for c in facts.verify_commands]
    assert "flutter test" in commands and "dart test" not in commands


def test_stack_supersedes_cabal_for_the_same_package(tmp_path: Path) -> None:
    facts = detect_facts(_checkout("haskell_stack", tmp_path))
    commands = [c.command for c in facts.verify_commands]
    assert "stack test" in commands and not any(c.startswith("cabal ") for c in commands)


def test_a_python_build_backend_is_not_a_cmake_or_meson_project(tmp_path: Path) -> None:
    repo = tmp_path / "py"
    (repo / ".git").mkdir(parents=True)
    (repo / "meson.build").write_text("project('p', 'c')\n")
    (repo / "pyproject.toml").write_text('[build-system]\nbuild-backend = "mesonpy"\n[project]\nname = "p"\n')
    facts = detect_facts(repo)
    assert not [c for c in facts.verify_commands if c.command.startswith("meson")]


# -- vocabulary: what narrows and what does not --------------------------------------------------------------------

_PYTEST = {
    "pyproject.toml": '[project]\nname = "p"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "tests/test_a.py": "def test_ok():\n    pass\n",
}
_POETRY = {
    "pyproject.toml": '[tool.poetry]\nname = "p"\n[tool.pytest.ini_options]\n',
    "poetry.lock": "",
    "tests/t.py": "",
}
_NOX = {
    "pyproject.toml": '[project]\nname = "p"\n',
    "noxfile.py": (
        "import nox\n\n@nox.session(python=['3.11', '3.12'])\ndef test(session):\n    session.run('pytest')\n"
    ),
}
_BUSTED = {".busted": "return {}\n", "spec/a_spec.lua": ""}
_CMAKE = {"CMakeLists.txt": "enable_testing()\n", "tests/a.c": ""}
_JEST = {"package.json": '{"scripts": {"test": "jest"}}', "a.test.js": ""}
_GO = {"go.mod": "module m\n", "a_test.go": ""}
_CARGO = {"Cargo.toml": '[package]\nname = "c"\n'}

VOCABULARY = [
    (_BUSTED, "busted spec", "full"),  # spec/ is busted's default
    (_BUSTED, "busted spec/a_spec.lua", "targeted"),
    (_POETRY, "poetry run pytest", "full"),
    (_POETRY, "poetry run pytest -k x", "targeted"),
    (_NOX, "nox -rs test-3.12", "full"),  # the `test` session on one of its interpreters
    (_NOX, "nox -s test -- -k slow", "targeted"),
    (_CMAKE, "cd build && ctest -V", "full"),  # -V is verbose for ctest
    (_CMAKE, "ctest --test-dir build --output-on-failure", "full"),
    (_CMAKE, "cd build && ctest -R parser", "targeted"),
    (_CMAKE, "ctest --test-dir build -L unit", "targeted"),
    (_PYTEST, 'env PYTEST_ADDOPTS="--deselect x::test_fail" pytest -q', "targeted"),
    (_PYTEST, 'PYTEST_ADDOPTS="-k slow" pytest', "targeted"),
    (_PYTEST, 'PYTEST_ADDOPTS="-q -x" pytest', "full"),
    (_PYTEST, "pytest -q -o python_functions=test_ok", "targeted"),
    (_PYTEST, "pytest -o python_files=check_*.py", "targeted"),
    (_PYTEST, "pytest --override-ini=addopts=-kslow", "targeted"),
    (_PYTEST, "pytest -o cache_dir=/tmp/c", "full"),
    (_PYTEST, "pytest -k slow", "targeted"),
    (_PYTEST, "pytest -m 'not net'", "targeted"),
    (_PYTEST, "pytest --deselect tests/test_a.py::test_ok", "targeted"),
    (_PYTEST, "pytest --lf", "targeted"),
    (_JEST, "npm test -- -t parser", "targeted"),
    (_JEST, "npm test -- --testPathPattern a", "targeted"),
    (_GO, "go test -run TestX ./...", "targeted"),
    (_GO, 'GOFLAGS="-run=TestX" go test ./...', "targeted"),
    (_CARGO, "cargo test parser", "targeted"),
    (_CARGO, "cargo test -- --skip slow", "targeted"),
]


@pytest.mark.parametrize(("files", "line", "scope"), VOCABULARY, ids=[v[1] for v in VOCABULARY])
def test_the_vocabulary_decides_what_narrows(files: dict[str, str], line: str, scope: str, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    facts = detect_facts(tmp_path)
    result = classify(line, cwd=tmp_path, root=tmp_path, facts=facts)
    assert (result.approved, result.scope) == (True, scope), (result.to_json(), facts.verify_commands)


@pytest.mark.parametrize(
    ("line", "scope"),
    [
        ("julia --project=test/ test/runtests.jl", "full"),
        ("julia --project=test/ test/runtests.jl --list", "targeted"),  # the script's own option
        ("julia --project=test/ test/runtests.jl demo", "targeted"),
    ],
)
def test_the_arguments_after_runtests_jl_are_the_scripts_own_selection(line: str, scope: str, tmp_path: Path) -> None:
    repo = _checkout("julia", tmp_path)
    facts = detect_facts(repo)
    result = classify(line, cwd=repo, root=repo, facts=facts)
    assert (result.approved, result.scope) == (True, scope), result.to_json()


def test_make_test_in_a_configured_cmake_build_tree_is_ctest_there(tmp_path: Path) -> None:
    repo = _checkout("cmake", tmp_path)
    build = repo / "build"
    build.mkdir()
    (build / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=..\n", encoding="utf-8")
    (build / "Makefile").write_text("test:\n\t/usr/bin/ctest --force-new-ctest-process\n", encoding="utf-8")
    facts = detect_facts(repo)
    result = classify("make test", cwd=build, root=repo, facts=facts)
    assert (result.approved, result.scope, result.kind) == (True, "full", "test"), result.to_json()
    other = classify("make test", cwd=repo, root=repo, facts=facts)  # no Makefile at the root
    assert not (other.approved and other.scope == "full"), other.to_json()


def test_make_test_after_perl_makefile_pl_is_the_prove_run_unless_the_generator_writes_its_own(
    tmp_path: Path,
) -> None:
    repo = _checkout("perl", tmp_path)
    (repo / "Makefile.PL").write_text("use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'Demo');\n", encoding="utf-8")
    facts = detect_facts(repo)
    result = classify("make test", cwd=repo, root=repo, facts=facts)
    assert (result.approved, result.scope, result.kind) == (True, "full", "test"), result.to_json()
    (repo / "Makefile.PL").write_text(
        "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'Demo');\n"
        "sub MY::postamble { return <<'MAKE_FRAG';\ntest: test_classic test_standalone\nMAKE_FRAG\n}\n",
        encoding="utf-8",
    )
    facts = detect_facts(repo)
    result = classify("make test", cwd=repo, root=repo, facts=facts)
    assert not (result.approved and result.scope == "full"), result.to_json()


@pytest.mark.parametrize("step", ["gen", "generate", "fmt"])
def test_a_zig_build_step_named_for_writing_is_never_evidence(step: str, tmp_path: Path) -> None:
    repo = _checkout("zig", tmp_path)
    facts = detect_facts(repo)
    result = classify(f"zig build {step}", cwd=repo, root=repo, facts=facts)
    assert not result.approved, result.to_json()
    test = classify("zig build test", cwd=repo, root=repo, facts=facts)
    assert (test.approved, test.scope) == (True, "full"), test.to_json()


def test_darts_formatter_in_check_mode_is_a_lint_and_its_writing_mode_never_is(tmp_path: Path) -> None:
    repo = _checkout("dart", tmp_path)
    facts = detect_facts(repo)
    assert facts.primary("lint") is not None and facts.primary("lint").command == "dart analyze"
    check = classify("dart format --output=none --set-exit-if-changed .", cwd=repo, root=repo, facts=facts)
    assert (check.approved, check.scope, check.kind) == (True, "full", "lint"), check.to_json()
    assert not classify("dart format .", cwd=repo, root=repo, facts=facts).approved


def test_a_pom_declaring_the_spotless_plugin_has_its_check_goal_as_a_lint(tmp_path: Path) -> None:
    repo = _checkout("jvm_maven", tmp_path)
    pom = repo / "pom.xml"
    pom.write_text(
        pom.read_text(encoding="utf-8").replace(
            "</project>",
            "<build><plugins><plugin><groupId>com.diffplug.spotless</groupId>"
            "<artifactId>spotless-maven-plugin</artifactId></plugin></plugins></build>\n</project>",
        ),
        encoding="utf-8",
    )
    facts = detect_facts(repo)
    lint = facts.primary("lint")
    assert lint is not None and lint.command.endswith("spotless:check"), facts.verify_commands
    check = classify(lint.command, cwd=repo, root=repo, facts=facts)
    assert (check.approved, check.scope, check.kind) == (True, "full", "lint"), check.to_json()
    assert not classify(lint.command.replace(":check", ":apply"), cwd=repo, root=repo, facts=facts).approved
