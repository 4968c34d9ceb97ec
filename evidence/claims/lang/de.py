"""German: separable verbs ("laufen … durch") match across the words between them, within the clause."""

from freshpass.evidence.claims.lexicon import Lexicon, W

LEXICON = Lexicon(
    language="de",
    subjects={
        "test": W(r"tests?|testfälle|unit-tests|e2e-tests|suite|testsuite|testlauf"),
        "lint": W(r"linter|lint|stil|formatierung"),
        "typecheck": W(r"typprüfung|typecheck|typen|typ-check|typchecker"),
        "build": W(r"build|kompilierung|es kompiliert"),
        "check": W(r"alles|prüfungen|checks|ci|ci-checks?|ci-läufe|pipeline"),
    },
    success=W(
        r"(?:sind|ist) (?:alle |alles )?durch|"
        r"bestanden|bestehen|besteht|grün|sauber|erfolgreich|zufrieden|kompiliert|fehlerfrei|in ordnung|ok|"
        r"läuft sauber durch|laufen sauber durch"
    )
    + r"|"
    + W(r"laufen|läuft|liefen|lief")
    + r"[^,;.]*?"
    + W(r"durch(?:gelaufen)?")
    + r"|"
    + W(r"durchgelaufen|durchläuft|durchlaufen"),
    implies={"build": W(r"kompiliert")},
    pseudo=W(
        r"keine (?:fehler|fehlschläge|warnungen|befunde|probleme|beanstandungen)|ohne (?:fehler|warnungen)|"
        r"meldet (?:keine fehler|nichts)|zeigt keine (?:warnungen|fehler)|null fehler|"
        r"(?:meckert|beschwert sich|motzt|mault) nicht(?: mehr)?|(?:meldet|zeigt|findet) nichts(?: mehr)?|"
        r"keine regressionen|(?:ist|bleibt|sind) (?:still|ruhig)|nichts mehr|exit-code 0|exitcode 0"
    ),
    self_claim=W(
        r"(?:habe|haben) (?:das|es|ihn|sie|die änderung)? ?(?:\w+ )?getestet|"
        r"hab(?:e|['’]s)? (?:[\w-]+ ){0,5}getestet|"
        r"erledigt und getestet|getestet und funktioniert"
    ),
    negation_follows=True,
    negation=W(r"nicht|kein|keine|keiner|keinen|nie|niemals|noch nicht|ohne|nein|weder"),
    failure=W(
        r"fehlschlagen|schlagen|schlägt|fehlgeschlagen|schlug|scheitert|scheitern|rot|kaputt|bricht|fehler|"
        r"timeout|abbruch|(?:funktioniert|klappt|geht) (?:noch |immer noch |leider )?nicht"
    ),
    failure_after=W(r"[1-9]\d* (?:fehler|fehlschläge|fehlgeschlagene?\w*)"),
    failure_attributive=W(r"(?:der |die )?(?:zuvor |vorher )?fehlschlagende[nr]? tests?"),
    partial=W(r"die meisten|meisten|einige|manche|fast alle|außer|bis auf"),
    hedge=W(
        r"ich gehe davon aus|gehe davon aus|theoretisch|in der theorie|ich denke|ich glaube|ich nehme an|nehme an|"
        r"vermute|angeblich|wohl|sollte|sollten|dürfte|dürften|wahrscheinlich|vermutlich|hoffe|hoffentlich|könnte|"
        r"könnten|vielleicht|"
        r"eigentlich|müsste|müssten|erwarte|anscheinend"
    ),
    future=W(r"werde|werden|wird|als nächstes|als nächstes|morgen|später|demnächst|gleich"),
    conditional=W(r"wenn|falls|sobald|sofern|solange"),
    imperative=W(r"führe|führen sie|prüfe|prüfen|bestätige|bestätigen|stelle sicher|bitte|starte|lass|lasse"),
    instruction=W(
        r"prüfe, ob|prüfen, ob|bestätigen, dass|sicherstellen|stelle sicher|bitte|müssen|muss|"
        r"um (?:zu )?(?:prüfen|überprüfen|sicherzustellen|bestätigen|checken)|um sicherzugehen"
    ),
    reported=W(
        r"bei (?:dir|ihm|ihr|euch|ihnen)|(?:du )?(?:hast|hattest|habt) (?:\w+ )?(?:geschrieben|gesagt|erwähnt)|"
        r"steht (?:dort|da|im log)|(?:als|mit) [\"„]?passed[\"“]? (?:markiert|gemeldet)|markiert als|"
        r"(?:auf|im) (?:dem )?branch `·+`|(?:auf|im) `·+`-branch|auf einem anderen branch|kollege|kollegin|meint|"
        r"jemand|laut|sagte|sagt|meinte|der nutzer|die nutzerin|gestern|letzte woche|"
        r"letzten woche|"
        r"vor (?:meiner|meinem|dem|der|diesem|dieser) (?:änderung|fix|korrektur|anpassung)|(?:im|beim|"
        r"auf dem) vorherigen commit|"
        r"nightly|am montag|pr-beschreibung|beschreibung"
    ),
    present=W(
        r"jetzt|nun|inzwischen|mittlerweile|nach (?:dem|der|meinem|meiner|diesem|dieser) (?:fix|änderung|korrektur|"
        r"anpassung|umbau)|diesmal|beim zweiten lauf|im zweiten lauf|nach erneutem lauf|erneut (?:gestartet|"
        r"ausgeführt)|"
        r"nochmal (?:laufen lassen|gestartet)"
    ),
    superseded=W(r"(?:danach|anschließend|seitdem|seither|dann) habe ich")
    + r"[^.;!?]{0,60}?"
    + W(r"geändert|angepasst|umgebaut|umbenannt|verschoben|überarbeitet|refaktoriert|hinzugefügt|entfernt"),
    transitive=W(r"übergeben|durchreichen|reicht"),
    clause_break=W(r"und|aber|doch|jedoch|während|obwohl|weil|da|sondern|deshalb"),
    green_subject=W(r"alles|es"),
)
