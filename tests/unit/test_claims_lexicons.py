"""Each language's lexicon on its own: claims with their kinds, and the shapes that are no claim (negation as that
language writes it, hedges, plans, instructions, reported runs, other senses of the words, and a check that was
not run lending its name to a success word after it: "I didn't run the tests, so no errors")."""

from __future__ import annotations

import pytest
from freshpass.evidence.claims import find_claims
from freshpass.evidence.claims.lang import LANGUAGES, lexicon
from freshpass.evidence.claims.lexicon import detect

CLAIMS: dict[str, list[tuple[str, list[str]]]] = {
    "en": [
        ("The whole suite passes now.", ["test"]),
        ("Ran `npm test`: 212 passing.", ["test"]),
        ("`eslint .` is clean and `tsc` reports no errors.", ["lint", "typecheck"]),
        ("Fixed; the build is green again.", ["build"]),
        ("I ran the tests: no errors.", ["test"]),
    ],
    "zh": [
        ("修好了，`npm test` 全部通过。", ["test"]),
        ("lint 没有报错。", ["lint"]),
        ("编译通过。", ["build"]),
        ("所有检查都通过了 ✅", ["check"]),
        ("跑了一遍测试：没有报错。", ["test"]),
    ],
    "es": [
        ("Arreglado: la suite completa pasa.", ["test"]),
        ("`eslint` no reporta errores.", ["lint"]),
        ("La compilación es exitosa.", ["build"]),
        ("Todo en verde ✅", ["check"]),
        ("Ejecuté las pruebas: sin errores.", ["test"]),
    ],
    "de": [
        ("Behoben: die komplette Suite läuft durch.", ["test"]),
        ("`eslint` meldet keine Fehler.", ["lint"]),
        ("Der Build ist grün.", ["build"]),
        ("Alle Prüfungen bestanden ✅", ["check"]),
        ("Ich habe die Tests ausgeführt: keine Fehler.", ["test"]),
    ],
    "ja": [
        ("修正しました。`npm test` はすべてパスしました。", ["test"]),
        ("`eslint` はエラーなしです。", ["lint"]),
        ("ビルドは成功しました。", ["build"]),
        ("動作確認済み。", ["check"]),
        ("テストを実行しました、エラーなし。", ["test"]),
    ],
    "fr": [
        ("Corrigé : toute la suite passe.", ["test"]),
        ("`eslint` ne signale aucune erreur.", ["lint"]),
        ("Le build a réussi.", ["build"]),
        ("Tout est vert ✅", ["check"]),
        ("J'ai lancé les tests : aucune erreur.", ["test"]),
        ("La suite d'intégration s'exécute correctement : 31 tests, 0 échec.", ["test"]),
        ("Les 2 tests qui échouaient sont repassés au vert.", ["test"]),
        ("J'ai relancé les tests, tout est bon 👍", ["test"]),
        ("Le pipeline affiche « passed » pour le dernier commit.", ["check"]),
        ("Pour le lint : RAS (0 avertissement dans `src/`).", ["lint"]),
        ("J'ai relancé la suite complète : aucune régression.", ["test"]),
        ("Le type-check est propre (`mypy --strict`).", ["typecheck"]),
        ("Toutes les vérifications sont passées sur la PR.", ["check"]),
    ],
    "pt": [
        ("Corrigido: a suíte inteira passa.", ["test"]),
        ("O `eslint` não mostra erros.", ["lint"]),
        ("O build foi bem-sucedido.", ["build"]),
        ("Tudo verde ✅", ["check"]),
        ("Rodei os testes: sem erros.", ["test"]),
    ],
    "ru": [
        ("Исправил: весь набор тестов проходит.", ["test"]),
        ("`eslint` без ошибок.", ["lint"]),
        ("Сборка успешна.", ["build"]),
        ("Все проверки прошли ✅", ["check"]),
        ("Я запустил тесты: ошибок нет.", ["test"]),
    ],
}

NOT_CLAIMS: dict[str, list[str]] = {
    "en": [
        "The suite doesn’t pass on Windows.",
        "I think lint is clean now.",
        "Make sure the build passes before you tag.",
        "Someone said CI was green yesterday.",
        "The middleware passes the request to the router.",
        "I didn't run the tests, so no errors.",
        "The lint rule now flags unawaited promises: `res.send(await x)` is fine.",
        "The suite was fully green on `main` before I started.",
        "You mentioned the tests pass on your machine with Node 20.",
        "Results after the fix: 310 of 312 tests pass.",
    ],
    "zh": [
        "测试没有通过。",
        "测试应该会通过。",
        "请确认构建成功。",
        "据同事说，昨天 CI 是绿的。",
        "中间件把请求传给路由。",
        "我没跑测试，所以没有报错。",
    ],
    "es": [
        "La suite no pasa en Windows.",
        "Creo que el lint está limpio.",
        "Asegúrate de que el build pase antes de etiquetar.",
        "Ayer alguien dijo que la CI estaba en verde.",
        "El middleware pasa la petición al router.",
        "No ejecuté las pruebas, así que sin errores.",
    ],
    "de": [
        "Die Suite läuft unter Windows nicht durch.",
        "Der Linter sollte jetzt sauber sein.",
        "Bitte prüfe, ob der Build grün ist.",
        "Gestern war die CI laut Kollegen grün.",
        "Die Middleware reicht die Anfrage an den Router durch.",
        "Ich habe die Tests nicht ausgeführt, also keine Fehler.",
    ],
    "ja": [
        "Windows ではテストが通りません。",
        "lint は問題ないはずです。",
        "タグを付ける前にビルドが成功することを確認してください。",
        "昨日は CI がグリーンだったそうです。",
        "ミドルウェアはリクエストをルーターに渡します。",
        "テストは実行していないので、エラーなし。",
    ],
    "fr": [
        "La suite ne passe pas sous Windows.",
        "Le lint devrait être propre maintenant.",
        "Vérifie que le build passe avant de taguer.",
        "D'après un collègue, la CI était verte hier.",
        "Le middleware passe la requête au routeur.",
        "Je n'ai pas lancé les tests, donc aucune erreur.",
        "J'ai ajouté des tests qui passent `None` à `parse_config()`.",
        "Le test est bon à jeter : il ne vérifie rien.",
        "Les 2 tests qui échouaient échouent toujours.",
        "J'ai créé un compte de test (mot de passe dans `.env.example`).",
        "Après correction, 118 tests sur 120 passent.",
        "La CI est presque entièrement verte.",
    ],
    "pt": [
        "A suíte não passa no Windows.",
        "Acho que o lint está limpo.",
        "Confira se o build passa antes de criar a tag.",
        "Ontem alguém disse que a CI estava verde.",
        "O middleware passa a requisição para o roteador.",
        "Não rodei os testes, então sem erros.",
    ],
    "ru": [
        "Набор тестов не проходит на Windows.",
        "Линтер, наверное, уже чистый.",
        "Убедись, что сборка проходит, прежде чем ставить тег.",
        "Вчера, по словам коллеги, CI был зелёным.",
        "Middleware передаёт запрос в роутер.",
        "Я не запускал тесты, поэтому ошибок нет.",
    ],
}


def test_every_language_has_a_lexicon_and_cases() -> None:
    assert set(CLAIMS) == set(NOT_CLAIMS) == set(LANGUAGES)
    assert {lexicon(language).language for language in LANGUAGES} == set(LANGUAGES)


@pytest.mark.parametrize(
    ("language", "message", "kinds"),
    [(language, message, kinds) for language, cases in CLAIMS.items() for message, kinds in cases],
)
def test_claims_per_language(language: str, message: str, kinds: list[str]) -> None:
    assert detect(message) == language
    assert sorted(claim.kind for claim in find_claims(message)) == sorted(kinds)


@pytest.mark.parametrize(
    ("language", "message"), [(language, message) for language, cases in NOT_CLAIMS.items() for message in cases]
)
def test_no_claim_per_language(language: str, message: str) -> None:
    assert find_claims(message) == []


# Time within one sentence: an older time ends where a present one begins ("before the fix … ; now …"), a change
# made after a run voids what the run showed, and a count of failures next to a passing count makes it partial.
TIME_CLAIMS: list[tuple[str, str, list[str]]] = [
    ("en", "Before the fix, 3 tests failed; now all 42 tests pass.", ["test"]),
    ("en", "The previously failing tests now pass.", ["test"]),
    ("en", "Yesterday the nightly was red; now CI is green.", ["check"]),
    ("en", "Tests failing earlier are now passing.", ["test"]),
    ("en", "Green across the board ✅", ["check"]),
    ("fr", "Avant le correctif, 3 tests échouaient ; maintenant, tous les tests passent.", ["test"]),
    ("de", "Vor dem Fix schlugen 3 Tests fehl, jetzt laufen alle Tests durch.", ["test"]),
    ("es", "Antes del arreglo fallaban 3 pruebas; ahora pasan todas las pruebas.", ["test"]),
    ("ru", "До исправления падали 3 теста, теперь все тесты проходят.", ["test"]),
    ("ja", "修正前はテストが失敗していたが、修正後はテストがすべてパスした。", ["test"]),
    ("zh", "修复前有 3 个测试失败，修复后测试全部通过。", ["test"]),
]
TIME_NOT_CLAIMS: list[tuple[str, str]] = [
    ("en", "Tests passed before my change, but I haven't rerun them since."),
    ("en", "I ran the suite earlier and it passed, but then I changed the parser."),
    ("en", "The linter used to pass; now it reports 3 errors."),
    ("en", "Tests: 40 passed, 2 failed."),
    ("en", "pytest: 40 passed and 2 failed"),
    ("en", "CI passed on the previous commit; this push hasn't finished yet."),
    ("en", "Build passes only with --no-verify."),
    ("en", "The tests pass on main, but my branch still has 2 failures."),
    ("fr", "Les tests passent sur main, mais ma branche a encore 2 échecs."),
    ("fr", "La CI est passée sur le commit précédent ; ce push n'est pas encore terminé."),
    ("de", "Die Tests laufen auf main durch, aber mein Branch hat noch 2 Fehler."),
    ("es", "Los tests pasan en main, pero mi rama todavía tiene 2 fallos."),
    ("pt", "Os testes passam na main, mas meu branch ainda tem 2 falhas."),
    ("ru", "Тесты проходят на main, но в моей ветке ещё 2 падения."),
    ("ja", "前回のコミットではテストが通りました。"),
    ("es", "En teoría la build está en verde."),
    ("de", "Ich gehe davon aus, dass die Tests grün sind."),
    ("de", "Mein Kollege meint, die CI ist grün."),
    ("ru", "Думаю, что все тесты проходят."),
    ("ru", "Вроде бы все тесты проходят."),
    ("en", "The green button test now renders correctly."),
    ("fr", "Les tests passaient avant le correctif ; maintenant je ne les ai pas relancés."),
    ("fr", "Tous les tests passent, puis j'ai modifié le parseur."),
    ("de", "Alle Tests liefen durch, danach habe ich den Parser noch geändert."),
    ("es", "Todas las pruebas pasaron, luego modifiqué el parser."),
    ("pt", "Todos os testes passaram, depois alterei o parser."),
    ("ru", "Все тесты прошли, потом я изменил парсер."),
    ("ja", "修正前はすべてのテストがパスしていましたが、修正後はまだ実行していません。"),
    ("zh", "测试都通过了，之后我又改了解析器。"),
]


@pytest.mark.parametrize(("language", "message", "kinds"), TIME_CLAIMS)
def test_a_present_time_after_an_older_one_is_read(language: str, message: str, kinds: list[str]) -> None:
    assert detect(message) == language
    assert sorted(claim.kind for claim in find_claims(message)) == kinds


@pytest.mark.parametrize(("language", "message"), TIME_NOT_CLAIMS)
def test_an_older_or_superseded_run_is_no_claim(language: str, message: str) -> None:
    assert detect(message) == language
    assert find_claims(message) == []


# Reading across sentences and structure: what the sentence before named is what a subjectless success is about
# (unless it denied it), a plan section claims nothing, "all but two" is partial, a passing summary quoted inline
# is shown output, and Spanish and Portuguese put the subject after the verb ("pasan los 42 tests").
ACROSS_CLAIMS: list[tuple[str, list[str]]] = [
    ("I fixed the failing test. It passes now.", ["test"]),
    ("J'ai corrigé le test qui échouait. Il passe maintenant.", ["test"]),
    ("Починил падающий `test_tiered_discount`. Теперь проходит.", ["test"]),
    (
        "Fixed the failing `test_parse_dates`: it relied on the locale. Pinned it in the fixture; it now passes.",
        ["test"],
    ),
    ("Rodei a suíte inteira: `96 passed in 4.31s`", ["test"]),
    ("Tras fijar `TZ=UTC` pasan los 42 tests.", ["test"]),
    ("Agora passa o teste.", ["test"]),
    ("`mypy --strict` でエラー 0 件", ["typecheck"]),
    ("念のため全体のテストも回しましたが、落ちるものはありませんでした。", ["test"]),
    ("Alle Checks sind durch.", ["check"]),
    ("Corrí `go test ./...` y no hubo ningún fallo.", ["test"]),
]
ACROSS_NOT_CLAIMS: list[str] = [
    "I didn't run the tests. It's fine.",
    "CI is mostly green. The Linux and macOS jobs pass, but `windows-latest` fails.",
    "All but two tests pass:\n\n```\n2 failed, 131 passed in 8.42s\n```",
    "### Próximos pasos\n\n1. Ejecutar `ruff check .`\n2. El build de Docker pasa en ARM\n\nEl código está listo.",
    "## Next steps\n\n- All tests pass on Windows too\n",
    "Renamed the fixture: it is sample JSON for a successful build, not our CI.",
    "2 件を除いてすべて成功しています。",
    "Le relecteur indique que la CI était verte chez lui.",
    "El middleware pasa la request al router.",
]


@pytest.mark.parametrize(("message", "kinds"), ACROSS_CLAIMS)
def test_claims_read_across_sentences(message: str, kinds: list[str]) -> None:
    assert sorted(claim.kind for claim in find_claims(message)) == kinds


@pytest.mark.parametrize("message", ACROSS_NOT_CLAIMS)
def test_no_claim_across_sentences(message: str) -> None:
    assert find_claims(message) == []


# The seventh batch's shapes: a tool that has nothing to say, a participle opening the sentence ("Smoke-tested it
# against staging"), a ticked checklist item, pasted output of more runners, an emoji ending a Japanese or Chinese
# sentence; and on the other side a test that was tried and fails, a purpose clause, another branch named in code,
# reported speech, the reflexive "se" that is no "if".
SEVENTH_CLAIMS: list[tuple[str, list[str]]] = [
    ("`tsc --noEmit` is happy and eslint has nothing to say.", ["lint", "typecheck"]),
    ("Smoke-tested it against the staging bucket and the presigned URLs work.", ["check"]),
    ("The project builds cleanly with `go build ./...` and `go vet ./...` reports nothing.", ["build", "lint"]),
    ("Swapped the N+1 for a `prefetch_related`. No regressions in the suite.", ["test"]),
    ("- [x] Migration geschrieben\n- [x] Tests grün\n- [x] Clippy sauber\n- [ ] Doku", ["lint", "test"]),
    ("```\nPassed!  - Failed:     0, Passed:   131, Skipped:     0, Total:   131, Duration: 2 s\n```", ["test"]),
    ("```\n$ vendor/bin/phpunit\n\nOK (47 tests, 112 assertions)\n```", ["test"]),
    ("```\nFinished in 0.2 seconds\n12 doctests, 88 tests, 0 failures\n```", ["test"]),
    ("CI 通過しました 🎉 レビューお願いします。", ["check"]),
    ("CI 过了。", ["check"]),
    ("`./gradlew check` ist grün.", ["check"]),
    ("Linter meckert nicht mehr.", ["lint"]),
    ("Nickel, `tsc` ne remonte plus rien.", ["typecheck"]),
    ("Corri a bateria de testes toda e está tudo a passar; o linter também não se queixa.", ["lint", "test"]),
    ("Прогнал весь набор тестов, регрессий нет.", ["test"]),
    ("Собирается без ошибок (`cargo build --release`).", ["build"]),
    ("Probado en local y funciona de lujo 👍", ["check"]),
    ("Testé en local avec la base de recette : la migration s'applique.", ["check"]),
    ("Hab's lokal gegen die Staging-API getestet, der Token-Refresh funktioniert jetzt.", ["check"]),
    ("Проверил локально: форма больше не отправляется дважды.", ["check"]),
    ("手元でも 200MB の動画ファイルで動作確認をして、問題なくアップロードできました。", ["check"]),
]
SEVENTH_NOT_CLAIMS: list[str] = [
    "Lo probé, pero no funciona: el webhook sigue llegando dos veces.",
    "I tested it, but it doesn't work: the webhook still fires twice.",
    "Ich habe es getestet, aber es funktioniert nicht.",
    "Testei, mas não funciona.",
    "Para comprobar que todo funciona:\n\n1. `docker compose up -d`\n2. `npm run test:e2e`",
    "Avant de merger, lance `make check` pour t'assurer que tout passe.",
    "`release/1.4` ブランチでは全テスト通っていますが、このブランチではリベース後まだ流していません。",
    "Tests pass on the `release/1.4` branch; on this one I have not run them yet.",
    "Тестировщики говорят, что на стейдже всё работает.",
    "Se o CI passar, pode fazer o merge.",
    "動作確認してください。",
    "```\n3 passing (12ms)\n2 failing\n```",
    "```\nFailed!  - Failed:     1, Passed:   130, Skipped:     0, Total:   131\n```",
]


@pytest.mark.parametrize(("message", "kinds"), SEVENTH_CLAIMS)
def test_the_seventh_batchs_claims(message: str, kinds: list[str]) -> None:
    assert sorted(claim.kind for claim in find_claims(message)) == kinds


@pytest.mark.parametrize("message", SEVENTH_NOT_CLAIMS)
def test_the_seventh_batchs_non_claims(message: str) -> None:
    assert find_claims(message) == []


# The eighth batch's shapes: a full count (47/47), a linter that is quiet, an exit code 0, a status after an arrow,
# a rerun after a failure (in the sentence or the one before), a mark opening a line, the subject after a colon;
# and on the other side a status a system reports (the bug), a plan label over a list, an obligation, someone
# else's screenshot, the Japanese past -tara, Spanish "por si" and Chinese 主要是 (neither is an "if").
EIGHTH_CLAIMS: list[tuple[str, list[str]]] = [
    ("时区换算的问题修好了，`flutter test` 47/47。", ["test"]),
    ("clippy is quiet now (`cargo clippy -- -D warnings`).", ["lint"]),
    ("Линтер молчит (`ruff check .`), но два теста в `test_export.py` всё ещё падают.", ["lint"]),
    ("ESLint ist still, aber 2 Tests in `invoice.spec.ts` schlagen noch fehl.", ["lint"]),
    ("能编译（`dotnet build` 退出码 0），测试没跑。", ["build"]),
    ("ビルド → OK（`./gradlew assembleDebug`）。", ["build"]),
    ("Gradle 升到 8.7 之后，`./gradlew assembleRelease` → BUILD SUCCESSFUL。", ["build"]),
    ("Premier passage : un timeout aléatoire dans `test_ws_reconnect`. Relancé, c'est vert.", ["test"]),
    ("Первый прогон упал на нестабильном таймауте в `test_ws_reconnect`; перезапустил — зелёный.", ["test"]),
    ("1 回目は `test_ws_reconnect` がタイムアウトで落ちましたが、再実行したら全部緑になりました。", ["test"]),
    ("🟢 Tests (`bun test`, 131)\n🔴 Lint: 4 Fehler in `legacy/`, absichtlich nicht angefasst", ["test"]),
    ("Läuft sauber durch: `go test -race ./...`, keine Data Races mehr gemeldet.", ["test"]),
    ("Alle CI-Checks auf dem PR sind durch ✔️", ["check"]),
    ("Tudo verdinho no `npm test` (143/143).", ["test"]),
    ("`tsc --noEmit` ya no se queja de nada.", ["typecheck"]),
    ("Todo en verde con `swift test` después de arreglar el `DateFormatter`.", ["test"]),
    ("`mypy --strict` 一个报错都没有了，主要是补齐了 `utils/` 下的类型注解。", ["typecheck"]),
    ("Pronto.\n\n```\n$ flutter test\n00:04 +62: All tests passed!\n```", ["test"]),
    (
        "| Проверка | Результат |\n|---|---|\n| `tsc --noEmit` | 0 ошибок |\n| `vitest run` | 58/58 |",
        ["test", "typecheck"],
    ),
]
EIGHTH_NOT_CLAIMS: list[str] = [
    "The bug is visible in this log line:\n\n`INFO step=tests status=passed exit=137`\n\nExit 137 is an OOM kill, "
    "yet the step is reported as passed.",
    "Le job a été tué (OOM) et pourtant il est marqué passed.",
    "137 是被 OOM 杀掉的，结果却记成 passed。",
    "Next steps:\n1. Run `golangci-lint run` and fix whatever it flags\n2. Make `go test ./...` pass on arm64",
    "Die Tests müssen vor dem Merge grün sein; aktuell ist `main` selbst rot.",
    "你截图里本地测试是通过的，但 CI 是红的。",
    "Du hattest geschrieben, dass es bei dir lokal durchläuft, CI aber rot ist.",
    "テストを実行したら通るはずです。",
    "```\n00:05 +61 -1: Some tests failed.\n```",
    "Para validar:\n1. Rode `yarn lint`\n2. Rode `yarn test --coverage`\n3. Confira se está tudo verde",
    "Fixed 12/13 of the flaky specs; one still times out.",
]


@pytest.mark.parametrize(("message", "kinds"), EIGHTH_CLAIMS)
def test_the_eighth_batchs_claims(message: str, kinds: list[str]) -> None:
    assert sorted(claim.kind for claim in find_claims(message)) == kinds


@pytest.mark.parametrize("message", EIGHTH_NOT_CLAIMS)
def test_the_eighth_batchs_non_claims(message: str) -> None:
    assert find_claims(message) == []
