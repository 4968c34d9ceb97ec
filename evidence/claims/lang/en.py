"""English."""

from freshpass.evidence.claims.lexicon import Lexicon, W

LEXICON = Lexicon(
    language="en",
    subjects={
        "test": W(r"the suite|suite|testing|packages|all \d+ (?:new )?tests"),
        "lint": W(r"style checks?|formatting|format check"),
        "typecheck": W(r"types|typing|type errors|the type checker|type-check(?:ing)?"),
        "build": W(r"compilation|the build"),
        "check": W(r"checks?|all checks|everything|it all"),
    },
    success=W(
        r"pass(?:es|ed|ing)?|succeed(?:s|ed)?|successful(?:ly)?|succeeds|green|clean|ok(?:ay)?|happy|"
        r"all good|compiles?|compiled|compiling|fine|work(?:s|ing)? (?:fine|again)|checks? out|"
        r"builds? (?:cleanly|fine|successfully)|went through"
    ),
    implies={"build": W(r"compiles?|compiled|compiling|builds? (?:cleanly|fine|successfully)")},
    pseudo=W(
        r"no (?:failures?|errors?|issues?|problems?|warnings?|complaints?|findings?|type errors|lint errors)|"
        r"zero (?:failures?|errors?|warnings?)|nothing (?:fails|failed|failing|broke)|"
        r"without (?:any )?(?:failures?|errors?|warnings?)|(?:does|did)n't complain|not a single failure|"
        r"no regressions?|(?:reports?|reported|says|said|found|finds) nothing|has nothing to (?:say|report)|"
        r"(?:is|are|stays|went|goes) (?:quiet|silent)|exit(?:ed)? (?:with )?(?:code |status )?0|"
        r"nothing to report|no longer complains"
    ),
    self_claim=(
        W(r"(?:i|we)(?:'ve| have)? (?:\w+ )?(?:tested|verified|validated)(?! that| whether| the bug| it reproduces)")
        + "|"
        + W(r"done and tested|tested and working|verified working|fully tested|tested thoroughly")
        + "|"
        # a participle opening the sentence: "Smoke-tested it against staging and …", "Verified locally with …"
        + r"^(?:smoke[- ]?tested|tested|verified)(?= (?:it|this|locally|manually|end[- ]to[- ]end|against|on|with)\b)"
    ),
    negation=W(
        r"not|no|never|none|neither|nor|cannot|unable|without|nothing|\w+n't|n't|no longer|yet to|fail(?:s|ed)? to"
    ),
    failure=W(
        r"fail(?:s|ed|ing|ures?)?|broken|breaks|broke|error(?:s|ed)?|crash(?:es|ed)?|times? out|timed out|"
        r"timeout|red|regress(?:ed|ion)|(?:does|did|do)n['’]?t work|(?:is|are)n['’]?t working|not working|"
        r"stopped working"
    ),
    failure_attributive=W(
        r"(?:the |previously |formerly |once )?failing (?:tests?|specs?|case|(?=`))|"
        r"tests? that (?:was |were )?fail(?:ed|ing)|"
        r"tests? (?:failing|that failed|which failed) (?:earlier|before|previously)"
    ),
    partial=W(
        r"most|some|almost all|nearly all|except|apart from|other than|all but|mostly|several|"
        r"only (?:with|when|on|in|under|if|after)"
    ),
    hedge=W(
        r"supposedly|i'd guess|i guess|i suspect|in principle|theoretically|i imagine|should|shall|would|might|may|"
        r"could|probably|likely|hopefully|presumably|expect(?:ed)? to|i expect|"
        r"i think|i believe|i assume|seems?|appears? to|supposed to|ought to|fingers crossed|in theory"
    ),
    future=W(r"will|\w+'ll|going to|gonna|about to|next|later|tomorrow|once|eventually|plan to|want to|let me"),
    conditional=W(r"if|unless|once|when|whenever|provided|assuming|as long as|in case"),
    imperative=r"(?:to \w+ )?"
    + W(
        r"run|re-?run|check|confirm|make sure|ensure|verify|execute|try|please|let's|start|open|add|install|"
        r"remember to|don't forget|be sure|double-check"
    ),
    instruction=W(
        r"(?:check|confirm|ensure|verify|make sure|see|test|validate) (?:that|whether|if)|make sure|to (?:check|verify|"
        r"confirm|ensure|make sure)|need(?:s)? to|have to|must|until"
    ),
    question=W(r"do|does|did|can|could|would|should|is|are|will") + r"\s.*\?",
    reported=W(
        r"(?:reported|marked|shown|recorded|flagged|labell?ed|listed) as|(?:in )?(?:your|the) screenshot|"
        r"(?:on|in) (?:the )?`·+` branch|on (?:another|a different|the other) branch|colleague|coworker|co-worker|"
        r"teammate|the reviewer|a reviewer|according to|said|says|say|told|claims?|"
        r"claimed|reportedly|apparently|the user|someone|somebody|they said|"
        r"per the|nightly|yesterday|last (?:week|night|time|run)|"
        r"(?:on |in |for )?the (?:previous|prior) (?:commit|push|run|build|version|release)|"
        r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
        r"before (?:my|the|this|these) (?:change|changes|edit|edits|fix|refactor)|previously|"
        r"used to|earlier today|pr description|the description|the log says|the issue|"
        r"before (?:i|we) (?:started|began|touched it|made (?:the|my|any) changes?)|"
        r"you (?:mentioned|said|noted|reported|confirmed)|on your (?:machine|side|end)"
    ),
    present=W(
        r"now|after (?:the|my|this|that|these) (?:fix|fixes|change|changes|edit|edits|patch|update|refactor)|"
        r"after (?:fixing|rebasing|rerunning|re-running)|on (?:the )?re-?run|this time|(?:the )?second run|"
        r"re-?ran (?:it|them|the (?:suite|tests?|job))|after a re-?run"
    ),
    superseded=W(
        r"(?:then|since then|after that|afterwards|later),? (?:i|we)(?:'ve| have)? (?:also )?(?:changed|edited|"
        r"modified|refactored|touched|rewrote|reworked|updated|tweaked|renamed|moved|rebased|added|removed|deleted)"
    ),
    transitive=W(r"pass(?:es|ed|ing)?") + r"(?=\s+(?:`|a\b|an\b|the\b|through|along\b|to\b|it\b|them\b|this\b|"
    r"that\b|none\b|null\b|true\b|false\b|\w+ as\b|custom|your|their|its|our|my|in (?:a|an|the)\b|on to\b|"
    r"over\b|by\b))|(?<![\w-])pass-through|"
    # "the green button": the colour of a thing, not a state of the checks; "sample JSON for a successful build"
    r"(?<![\w-])(?:for|of|like|simulating|mocking|faking) (?:a|an|the) (?:successful|passing|green)(?= [a-z])|"
    r"(?<![\w-])(?:the|a|an|this|that|my|our|its) green(?= [a-z])(?! (?:again|now|across|on|everywhere)\b)",
    clause_break=W(r"and|but|while|whereas|although|though|however|so|yet|because|since|which|after|before|then"),
    green_subject=W(r"it|it's|everything|all|that|we're|we are|across the board"),
)
