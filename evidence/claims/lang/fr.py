"""French: the negation brackets the verb (« ne passent pas »): its first half is the trigger."""

from freshpass.evidence.claims.lexicon import Lexicon, W

LEXICON = Lexicon(
    language="fr",
    subjects={
        "test": W(r"tests?|tests unitaires|suite|la suite|e2e|(?:tous )?les \d+"),
        "lint": W(r"linter|lint|style|formatage"),
        "typecheck": W(r"types|typage|vérification des types|vérification de types|typecheck|type-check|type check"),
        "build": W(r"compilation|build|ça compile"),
        "check": W(r"tout|vérifications|contrôles|ci"),
    },
    success=W(
        r"passent|passe|passé|passés|passée|passées|sont passés|roule|roulent|nickel|passaient|vert|verte|verts|"
        r"au vert|propre|réussi|réussit|réussie|"
        r"compile|content|ok|marche|fonctionne|avec succès|repassent|repasse|repassé|repassés|repassée|repassées|"
        r"(?:s'exécute|s'exécutent|tourne|tournent) (?:correctement|sans (?:erreur|problème)s?)|(?<=tout est )bon"
    ),
    implies={"build": W(r"compile")},
    pseudo=W(
        r"aucun(?:e)? (?:erreur|échec|avertissement|problème|souci|régression)s?|sans (?:erreur|échec|avertissement)s?|"
        r"ras|rien à signaler|"
        r"n'(?:affiche|signale|remonte|indique) aucun(?:e)? (?:erreur|échec|avertissement|problème)s?|"
        r"ne (?:signale|remonte|montre|affiche) aucun(?:e)? (?:erreur|échec|avertissement|problème)s?|"
        r"(?:zéro|0) (?:erreur|échec|avertissement)s?|plus aucun(?:e)? (?:erreur|échec|avertissement|problème)s?|"
        r"ne (?:remonte|signale|trouve|dit|affiche) (?:plus )?rien|ne (?:se plaint|râle|bronche) plus|"
        r"ne (?:se plaint|râle|bronche) pas|code de sortie 0|(?:est|reste) (?:muet|silencieux)"
    ),
    self_claim=W(r"je l'ai (?:\w+ )?testée?|fait et testé|testé et validé|testé à fond|j['’]ai testé")
    + r"|^(?:testé|vérifié|validé)(?= (?:en local|localement|à la main|manuellement)\b)",
    negation=W(r"ne|n'|pas|jamais|aucun|aucune|plus|sans|non|ni"),
    failure=W(r"échou(?:e|ent|é|ait|aient)|échecs?|cassée?s?|plante|erreurs?|expire|timeout|rouge"),
    failure_after=W(r"[1-9]\d* (?:échecs?|erreurs?|tests? en échec)"),
    failure_attributive=W(r"(?:les? )?(?:\d+ )?tests? qui (?:échouai(?:t|ent)|plantai(?:t|ent)|cassai(?:t|ent))"),
    partial=W(r"la plupart|plupart|certains|quelques|presque|quasiment|pratiquement|sauf|excepté|hormis"),
    hedge=W(
        r"en théorie|théoriquement|je suppose|je crois|a priori|à priori|j'imagine|il semblerait|censée?s?|devrait|"
        r"devraient|doit|doivent|probablement|sans doute|j'espère|espère|peut-être|pourrait|pourraient|"
        r"normalement|je pense|semble"
    ),
    future=W(r"vais|va|allons|relancerai|lancerai|ensuite|demain|plus tard|repasseront|passeront|sera|seront"),
    conditional=W(r"si|s'ils|s'il|quand|lorsque|une fois|dès que|à condition"),
    imperative=W(
        r"lance|lancez|vérifie|vérifiez|exécute|exécutez|assure-toi|assurez-vous|confirmer|confirme|merci de|passe"
    ),
    instruction=W(
        r"vérifie que|vérifiez que|vérifier que|confirmer que|assure-toi que|assurez-vous que|merci de|il faut|"
        r"pour (?:t'|vous |s'|m'|t’|s’|m’)?assurer que|pour (?:vérifier|confirmer|contrôler|voir) (?:que|si)"
    ),
    question=W(r"est-ce que"),
    reported=W(
        r"(?:marqué|marquée|signalé|signalée|affiché|affichée|indiqué|indiquée|noté|notée)(?: comme)?|"
        r"(?:sur|dans) (?:ta|votre|la) capture|"
        r"sur la branche `·+`|sur une autre branche|relecteur|relectrice|indique que|chez (?:lui|elle|eux|toi|vous)|"
        r"de son côté|collègue|quelqu'un|d'après|"
        r"selon|a dit|dit que|disent|l'utilisateur|hier|la semaine dernière|"
        r"avant (?:mon|ma|le|la|ce|cette) (?:changement|correctif|correction|modification|fix)|"
        r"(?:le )?commit précédent|"
        r"nocturne|description de la pr|auparavant"
    ),
    present=W(
        r"maintenant|désormais|à présent|après (?:le|la|mon|ma|ce|cette|les|mes) (?:correctifs?|corrections?|"
        r"modifications?|changements?|fix|relance)|cette fois|à la relance|en relançant|relancée?s?|après relance"
    ),
    superseded=W(
        r"(?:puis|ensuite|depuis|après coup),? j'ai (?:aussi |encore )?(?:modifié|changé|retouché|refactoré|réécrit|"
        r"renommé|déplacé|ajouté|supprimé)"
    ),
    transitive=W(r"passer|passe|passent|passant")
    + r"(?=\s+(?:`|une?\b|le\b|la\b|les\b|l'|son\b|sa\b|ses\b|votre\b|ton\b))"
    + r"|(?<![\w-])mots? de passe",  # a password
    clause_break=W(r"et|mais|alors que|bien que|tandis que|car|donc|puis"),
    green_subject=W(r"tout|tout est"),
)
