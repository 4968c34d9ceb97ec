"""Recipes as data (design §5): loading, validation with named fields, hermes mapping, detection per ecosystem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from freshpass.facts.model import ProjectFacts, VerifyCommand
from freshpass.facts.recipes import (
    RecipeError,
    detect_recipe,
    hermes_to_recipe,
    normalize_recipe,
    recipe_for,
    save_recipe,
)
from hypothesis import given, settings
from hypothesis import strategies as st


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def facts_for(root: Path, *commands: tuple[str, str], managers: tuple[str, ...] = ()) -> ProjectFacts:
    return ProjectFacts(
        root=str(root),
        package_managers=list(managers),
        verify_commands=[VerifyCommand(command=c, kind=k, source="test") for c, k in commands],  # type: ignore[arg-type]
    )


def commands(recipe: dict[str, Any], phase: str) -> list[str]:
    return [c["command"] for c in recipe["phases"][phase]]


# ------------------------------------------------------------------------------------------------ normalising


def test_normalize_accepts_strings_lists_and_top_level_phases() -> None:
    recipe = normalize_recipe(
        {"build": "make", "test": ["pytest", {"command": "npm test", "cwd": "web"}], "port": 8000}, source="x"
    )
    assert recipe["phases"]["build"] == [{"command": "make", "cwd": "."}]
    assert recipe["phases"]["test"][1] == {"command": "npm test", "cwd": "web"}
    assert recipe["phases"]["start"] == [] and recipe["port"] == 8000
    assert recipe["timeout"] == {} and recipe["env"] == {}


def test_timeout_number_applies_to_every_phase() -> None:
    recipe = normalize_recipe({"test": "true", "timeout": 30}, source="x")
    assert recipe["timeout"] == {"bootstrap": 30.0, "build": 30.0, "test": 30.0, "start": 30.0}
    assert normalize_recipe({"test": "true", "timeout": {"test": 5}}, source="x")["timeout"] == {"test": 5.0}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"phases": {"build": [{"command": 42}]}}, "phases.build[0].command"),
        ({"phases": {"deploy": ["x"]}}, "phases.deploy"),
        ({"phases": ["make"]}, "phases"),
        ({"build": {"cmd": "make"}}, "build"),
        ({"test": [{"command": "pytest", "cwd": "../elsewhere"}]}, "test[0].cwd"),
        ({"test": [{"command": "pytest", "cwd": "/abs"}]}, "test[0].cwd"),
        ({"start": ["a", "b"]}, "start"),
        ({"port": 70000}, "port"),
        ({"port": "8000"}, "port"),
        ({"env": {"1BAD": "x"}}, "env.1BAD"),
        ({"env": ["A=1"]}, "env"),
        ({"timeout": {"test": -1}}, "timeout.test"),
        ({"timeout": {"deploy": 5}}, "timeout.deploy"),
        ({"ready_url": 8000}, "ready_url"),
        ({"build": "make", "phases": {"build": "make"}}, "build"),
        (["make"], "(top level)"),
    ],
)
def test_malformed_fields_are_named(data: Any, field: str) -> None:
    with pytest.raises(RecipeError) as caught:
        normalize_recipe(data, source="x")
    assert caught.value.field == field


# ------------------------------------------------------------------------------------------------ loading


def test_saved_recipe_wins_over_detection(tmp_path: Path) -> None:
    write(tmp_path, {".freshpass/recipe.json": json.dumps({"test": "make check"}), "go.mod": "module x\n"})
    recipe, problems = recipe_for(tmp_path, facts_for(tmp_path))
    assert problems == []
    assert recipe is not None and recipe["source"] == ".freshpass/recipe.json"
    assert commands(recipe, "test") == ["make check"]


def test_pyproject_recipe_table_wins_over_saved(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[tool.freshpass.recipe]\nbuild = "make"\nport = 9000\n'
            '[tool.freshpass.recipe.env]\nA = "1"\n',
            ".freshpass/recipe.json": json.dumps({"test": "saved"}),
        },
    )
    recipe, _ = recipe_for(tmp_path, facts_for(tmp_path))
    assert recipe is not None and recipe["source"] == "pyproject.toml#tool.freshpass.recipe"
    assert commands(recipe, "build") == ["make"] and recipe["port"] == 9000 and recipe["env"] == {"A": "1"}


def test_recipe_fields_directly_in_tool_freshpass(tmp_path: Path) -> None:
    write(tmp_path, {".freshpass.toml": 'verify = [{command = "pytest", kind = "test"}]\nstart = "python app.py"\n'})
    recipe, _ = recipe_for(tmp_path, facts_for(tmp_path))
    assert recipe is not None and recipe["source"] == ".freshpass.toml"
    assert commands(recipe, "start") == ["python app.py"]


def test_tool_freshpass_without_recipe_fields_is_not_a_recipe(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.freshpass]\nignore = ["docs/**"]\n'})
    recipe, problems = recipe_for(tmp_path, facts_for(tmp_path, ("pytest", "test")))
    assert problems == []
    assert recipe is not None and recipe["source"].startswith("detected")


def test_malformed_config_recipe_names_file_and_field_then_falls_back(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[tool.freshpass.recipe]\nport = "eighty"\n',
            ".freshpass/recipe.json": json.dumps({"test": "make check"}),
        },
    )
    recipe, problems = recipe_for(tmp_path, facts_for(tmp_path))
    assert [p.file for p in problems] == ["pyproject.toml"]
    assert problems[0].message.startswith("tool.freshpass.recipe.port: expected a port number")
    assert recipe is not None and recipe["source"] == ".freshpass/recipe.json"


def test_malformed_saved_recipe_falls_back_to_detection(tmp_path: Path) -> None:
    write(tmp_path, {".freshpass/recipe.json": json.dumps({"phases": {"test": [{"command": ""}]}})})
    recipe, problems = recipe_for(tmp_path, facts_for(tmp_path, ("pytest", "test")))
    assert problems[0].file == ".freshpass/recipe.json"
    assert problems[0].message.startswith("phases.test[0].command: expected a non-empty string")
    assert recipe is not None and commands(recipe, "test") == ["pytest"]


def test_unreadable_freshpass_toml_is_a_problem(tmp_path: Path) -> None:
    write(tmp_path, {".freshpass.toml": "start = [unclosed\n"})
    _, problems = recipe_for(tmp_path, facts_for(tmp_path))
    assert problems[0].file == ".freshpass.toml"


def test_recipe_that_is_not_a_table_is_named(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.freshpass]\nrecipe = "make"\n'})
    _, problems = recipe_for(tmp_path, facts_for(tmp_path))
    assert problems[0].message == "tool.freshpass.recipe: expected a table, got str; falling back to detection"


def test_save_recipe_round_trips(tmp_path: Path) -> None:
    recipe = normalize_recipe({"build": "make", "start": "./serve", "port": 8080}, source="detected: make")
    path = save_recipe(tmp_path, recipe)
    assert path == tmp_path / ".freshpass" / "recipe.json"
    loaded, problems = recipe_for(tmp_path, facts_for(tmp_path))
    assert problems == []
    assert loaded is not None
    assert loaded["phases"] == recipe["phases"] and loaded["port"] == 8080
    assert "source" not in json.loads(path.read_text())


def test_save_recipe_refuses_an_invalid_recipe(tmp_path: Path) -> None:
    with pytest.raises(RecipeError):
        save_recipe(tmp_path, {"phases": {"start": ["a", "b"]}})
    assert not (tmp_path / ".freshpass" / "recipe.json").exists()


# ------------------------------------------------------------------------------------------------ hermes


def test_hermes_environment_maps_onto_a_recipe(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".hermes/environment.json": json.dumps(
                {
                    "setup": "uv sync",
                    "check": ["uv run pytest"],
                    "run": "uv run app",
                    "ports": ["127.0.0.1:8001:80"],
                    "environment": {"DEBUG": "0"},
                    "healthcheck": "/healthz",
                    "workdir": "service",
                    "name": "ignored",
                }
            )
        },
    )
    recipe, problems = recipe_for(tmp_path, facts_for(tmp_path))
    assert problems == []
    assert recipe is not None and recipe["source"] == ".hermes/environment.json"
    assert recipe["phases"]["bootstrap"] == [{"command": "uv sync", "cwd": "service"}]
    assert commands(recipe, "test") == ["uv run pytest"] and commands(recipe, "start") == ["uv run app"]
    assert recipe["port"] == 8001 and recipe["env"] == {"DEBUG": "0"} and recipe["ready_url"] == "/healthz"


def test_hermes_duplicate_aliases_and_bad_ports_are_named() -> None:
    with pytest.raises(RecipeError) as caught:
        hermes_to_recipe({"run": "a", "start": "b"})
    assert caught.value.field == "run"
    with pytest.raises(RecipeError) as caught:
        hermes_to_recipe({"ports": ["http"]})
    assert caught.value.field == "ports[0]"
    assert hermes_to_recipe({"ports": [3000]})["port"] == 3000


# ------------------------------------------------------------------------------------------------ detection


def test_detected_recipe_carries_the_projects_verify_commands(tmp_path: Path) -> None:
    write(tmp_path, {"manage.py": "import django\n", "requirements.txt": "Django>=5\n"})
    facts = facts_for(tmp_path, ("python3 manage.py test", "test"), ("ruff check", "lint"), ("make dist", "build"))
    recipe = detect_recipe(tmp_path, facts)
    assert recipe is not None
    assert commands(recipe, "test") == ["python3 manage.py test", "ruff check"]
    assert commands(recipe, "build") == ["make dist"]
    assert commands(recipe, "start") == ["python3 manage.py runserver 127.0.0.1:$PORT --noreload"]
    assert recipe["port"] == 8000 and recipe["source"] == "detected: python (django)"


@pytest.mark.parametrize(
    ("files", "start", "port"),
    [
        (
            {
                "pyproject.toml": '[project]\nname="a"\ndependencies=["fastapi", "uvicorn"]\n',
                "uv.lock": "",
                "app/main.py": "from fastapi import FastAPI\n\napi = FastAPI()\n",
            },
            "uv run uvicorn app.main:api --host 127.0.0.1 --port $PORT",
            8000,
        ),
        (
            {"requirements.txt": "flask\n", "app.py": ""},
            "python3 -m flask run --host 127.0.0.1 --port $PORT",
            5000,
        ),
        (
            {"pyproject.toml": '[tool.poetry.dependencies]\npython="^3.11"\nFlask="^3"\n', "poetry.lock": ""},
            "poetry run flask run --host 127.0.0.1 --port $PORT",
            5000,
        ),
    ],
)
def test_python_web_frameworks(tmp_path: Path, files: dict[str, str], start: str, port: int) -> None:
    recipe = detect_recipe(write(tmp_path, files), facts_for(tmp_path))
    assert recipe is not None
    assert commands(recipe, "start") == [start]
    assert recipe["port"] == port


def test_plain_python_has_no_start_and_installs_only_into_its_own_venv(tmp_path: Path) -> None:
    write(tmp_path, {"requirements.txt": "requests\n"})
    recipe = detect_recipe(tmp_path, facts_for(tmp_path, ("pytest", "test")))
    assert recipe is not None
    assert recipe["phases"]["bootstrap"] == [] and recipe["phases"]["start"] == []
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").write_text("")
    recipe = detect_recipe(tmp_path, facts_for(tmp_path, ("pytest", "test")))
    assert recipe is not None
    assert commands(recipe, "bootstrap") == [".venv/bin/python -m pip install -r requirements.txt"]


def package_json(deps: dict[str, str], scripts: dict[str, str], **extra: Any) -> str:
    return json.dumps({"dependencies": deps, "scripts": scripts, **extra})


@pytest.mark.parametrize(
    ("deps", "scripts", "start", "port"),
    [
        ({"next": "14"}, {"build": "next build", "start": "next start", "dev": "next dev"}, "npm run start", 3000),
        ({"vite": "5"}, {"dev": "vite"}, "npm run dev -- --port $PORT --strictPort", 5173),
        ({"nuxt": "3"}, {"dev": "nuxt dev"}, "npm run dev -- --port $PORT", 3000),
        ({"astro": "4"}, {"dev": "astro dev"}, "npm run dev -- --port $PORT", 4321),
        ({"@sveltejs/kit": "2", "vite": "5"}, {"dev": "vite dev"}, "npm run dev -- --port $PORT --strictPort", 5173),
        ({"@remix-run/serve": "2"}, {"start": "remix-serve build"}, "npm run start", 3000),
        (
            {"@remix-run/serve": "2", "vite": "5"},
            {"dev": "remix vite:dev"},
            "npm run dev -- --port $PORT --strictPort",
            5173,
        ),
        ({"@angular/core": "17"}, {"start": "ng serve"}, "npm run start -- --port $PORT", 4200),
        ({"express": "4"}, {"start": "node server.js"}, "npm run start", 3000),
        ({"left-pad": "1"}, {"start": "node cli.js"}, "npm run start", None),
    ],
)
def test_node_frameworks_and_their_ports(
    tmp_path: Path, deps: dict[str, str], scripts: dict[str, str], start: str, port: int | None
) -> None:
    write(tmp_path, {"package.json": package_json(deps, scripts), "package-lock.json": "{}"})
    recipe = detect_recipe(tmp_path, facts_for(tmp_path, ("npm test", "test")))
    assert recipe is not None
    assert commands(recipe, "bootstrap") == ["npm ci"]
    assert commands(recipe, "start") == [start]
    assert recipe["port"] == port
    assert commands(recipe, "test") == ["npm test"]


def test_node_uses_the_projects_package_manager_and_plain_express_entry(tmp_path: Path) -> None:
    write(
        tmp_path, {"package.json": package_json({"express": "4", "vite": "5"}, {"dev": "vite"}), "pnpm-lock.yaml": ""}
    )
    recipe = detect_recipe(tmp_path, facts_for(tmp_path))
    assert recipe is not None
    assert commands(recipe, "bootstrap") == ["pnpm install --frozen-lockfile"]
    assert commands(recipe, "start") == ["pnpm run dev --port $PORT --strictPort"]

    other = tmp_path / "api"
    write(other, {"package.json": package_json({"express": "4"}, {}), "server.js": "", "yarn.lock": ""})
    recipe = detect_recipe(other, facts_for(other))
    assert recipe is not None
    assert commands(recipe, "bootstrap") == ["yarn install"]
    assert commands(recipe, "start") == ["node server.js"] and recipe["port"] == 3000


def test_go_rust_java(tmp_path: Path) -> None:
    go = write(tmp_path / "go", {"go.mod": "module x\nrequire github.com/gin-gonic/gin v1.9.0\n", "main.go": ""})
    recipe = detect_recipe(go, facts_for(go, ("go test ./...", "test")))
    assert recipe is not None
    assert commands(recipe, "build") == ["go build ./..."] and commands(recipe, "start") == ["go run ."]
    assert recipe["port"] == 8080

    cli = write(tmp_path / "gocli", {"go.mod": "module x\n", "main.go": ""})
    recipe = detect_recipe(cli, facts_for(cli))
    assert recipe is not None and recipe["phases"]["start"] == []  # a CLI tool is not a server

    rust = write(tmp_path / "rust", {"Cargo.toml": '[package]\nname="x"\n[dependencies]\naxum = "0.7"\n'})
    recipe = detect_recipe(rust, facts_for(rust, ("cargo test", "test")))
    assert recipe is not None
    assert commands(recipe, "start") == ["cargo run"] and recipe["port"] is None

    maven = write(tmp_path / "mvn", {"pom.xml": "<artifactId>spring-boot-starter-web</artifactId>", "mvnw": ""})
    recipe = detect_recipe(maven, facts_for(maven, ("./mvnw test", "test")))
    assert recipe is not None
    assert commands(recipe, "build") == ["./mvnw -B -DskipTests package"]
    assert commands(recipe, "start") == ["SERVER_PORT=$PORT ./mvnw -B spring-boot:run"] and recipe["port"] == 8080

    gradle = write(tmp_path / "gradle", {"build.gradle.kts": 'id("org.springframework.boot")', "gradlew": ""})
    recipe = detect_recipe(gradle, facts_for(gradle))
    assert recipe is not None
    assert commands(recipe, "start") == ["SERVER_PORT=$PORT ./gradlew bootRun"]


def test_make_targets_fill_phases_and_project_build_wins(tmp_path: Path) -> None:
    write(tmp_path, {"Makefile": "deps:\n\tgo mod download\nbuild:\n\tgo build\nserve: build\n\t./app\nX := 1\n"})
    recipe = detect_recipe(tmp_path, facts_for(tmp_path, ("make test", "test")))
    assert recipe is not None
    assert commands(recipe, "bootstrap") == ["make deps"]
    assert commands(recipe, "build") == ["make build"]
    assert commands(recipe, "start") == ["make serve"] and recipe["port"] is None


def test_compose_is_the_start_only_when_nothing_else_serves(tmp_path: Path) -> None:
    compose = (
        "services:\n  db:\n    image: postgres\n    ports: ['5432:5432']\n"
        "  web:\n    build: .\n    ports:\n      - target: 80\n        published: 8089\n"
    )
    write(tmp_path, {"compose.yaml": compose})
    recipe = detect_recipe(tmp_path, facts_for(tmp_path))
    assert recipe is not None
    assert commands(recipe, "build") == ["docker compose build"]
    assert commands(recipe, "start") == ["docker compose up"] and recipe["port"] == 8089
    assert [c["command"] for c in recipe["stop"]] == ["docker compose down"]

    write(tmp_path, {"requirements.txt": "flask\n"})
    recipe = detect_recipe(tmp_path, facts_for(tmp_path))
    assert recipe is not None
    assert commands(recipe, "start") == ["python3 -m flask run --host 127.0.0.1 --port $PORT"]
    assert recipe["stop"] == []


def test_compose_of_images_only_runs_dependencies_not_the_app(tmp_path: Path) -> None:
    write(tmp_path, {"compose.yaml": "services:\n  db:\n    image: postgres\n    ports: ['5432:5432']\n"})
    assert detect_recipe(tmp_path, facts_for(tmp_path)) is None
    (tmp_path / "compose.yaml").unlink()
    write(tmp_path, {"docker-compose.yml": "services: [broken"})
    assert detect_recipe(tmp_path, facts_for(tmp_path)) is None


def test_nothing_to_detect_is_none(tmp_path: Path) -> None:
    assert detect_recipe(tmp_path, facts_for(tmp_path)) is None
    recipe, problems = recipe_for(tmp_path, facts_for(tmp_path))
    assert recipe is None and problems == []


# ------------------------------------------------------------------------------------------------ any input

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 70000) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
_fields = st.sampled_from(
    [
        "phases",
        "bootstrap",
        "build",
        "test",
        "start",
        "port",
        "ports",
        "env",
        "timeout",
        "ready_timeout",
        "ready_url",
        "stop",
        "setup",
        "run",
        "cwd",
        "command",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_fields, _json, max_size=5) | _json)
def test_any_document_is_a_recipe_or_a_named_field_error(data: Any) -> None:
    for parse in (
        lambda d: normalize_recipe(d, source="x"),
        lambda d: normalize_recipe(hermes_to_recipe(d), source="x"),
    ):
        try:
            recipe = parse(data)
        except RecipeError as exc:
            assert exc.field and exc.reason
            continue
        assert set(recipe["phases"]) == {"bootstrap", "build", "test", "start"}
        assert json.loads(json.dumps(recipe)) == recipe  # what save_recipe writes


def test_detection_decides_the_recipe_once_and_keeps_what_reading_it_reported(tmp_path: Path) -> None:
    """`freshpass verify` runs the facts' recipe: detection keeps it with the problems reading it gave, the same
    recipe and problems `recipe_for` gives for those facts."""
    from freshpass.facts.detect import detect_facts

    write(tmp_path, {".freshpass/recipe.json": "{", "Makefile": "build:\n\techo built\n"})
    facts = detect_facts(tmp_path)
    assert facts.recipe is not None and facts.recipe["source"].startswith("detected")
    assert [problem.file for problem in facts.recipe_problems] == [".freshpass/recipe.json"]
    assert all(problem in facts.problems for problem in facts.recipe_problems)
    assert (facts.recipe, facts.recipe_problems) == recipe_for(tmp_path, facts)
    assert "recipe_problems" not in facts.to_json()
