"""Portuguese (Brazilian and European spellings)."""

from freshpass.evidence.claims.lexicon import Lexicon, W

LEXICON = Lexicon(
    language="pt",
    subjects={
        "test": W(r"testes?|testes unitários|suíte|a suíte|e2e|(?:os )?unitários|(?:todos )?os \d+"),
        "lint": W(r"linter|lint|estilo|formatação"),
        "typecheck": W(r"tipos|tipagem|checagem de tipos|verificação de tipos|typecheck"),
        "build": W(r"compilação|build"),
        "check": W(r"tudo|verificações|checagens|checks|ci"),
    },
    success=W(
        r"\d+ ok|\d+ passaram|passam|passa|passaram|passou|passando|passado|verdes?|limp[oa]s?|bem-sucedid[oa]s?|"
        r"com sucesso|"
        r"sucesso|compila|compilou|funciona|ok|a passar|(?:tudo )?verdinh[oa]s?"
    ),
    implies={"build": W(r"compila|compilou")},
    pseudo=W(
        r"sem (?:erros?|falhas?|avisos?|problemas?)|não (?:reporta|mostra|tem|há|dá) (?:erros?|falhas?|avisos?|"
        r"problemas?)|não reclama|não se queixa|não acusa (?:nada|erros?)|sem regress(?:ões|ão)|nenhuma falha|"
        r"nenhum erro|"
        r"sem nenhum (?:erro|aviso|problema)|zero (?:erros|falhas)|nenhum teste falha|(?:0|zero) (?:erros?|falhas?)|"
        r"(?:não )?(?:apareceu|houve|deu|teve) (?:nenhum erro|erro nenhum|nenhuma falha|falha nenhuma)|erro nenhum|"
        r"falha nenhuma|não reclamou(?: de nada)?|nenhum apontamento|código de saída 0"
    ),
    self_claim=W(r"testei|feito e testado|testado e funcionando|verificado e funcionando|fiz um smoke test")
    + r"|^(?:testado|verificado|validado)(?= (?:localmente|em local|na mão|manualmente|em|no|na|com)\b)",
    negation=W(r"não|nunca|nenhum|nenhuma|nem|sem|ainda não|tampouco"),
    failure=W(r"falh(?:a|am|ou|aram|ando|ava|avam|as)|quebrad[oa]s?|erros?|timeout"),
    failure_after=W(r"[1-9]\d* (?:falhas?|erros?)"),
    failure_attributive=W(r"(?:o )?teste que falhava"),
    partial=W(r"a maioria|maioria|alguns|algumas|quase todos|quase|exceto|menos|salvo|à exceção|com exceção"),
    hedge=W(
        r"em teoria|teoricamente|suponho|imagino que|creio que|presumo|deve|devem|deveria|deveriam|deverá|deverão|"
        r"espero|provavelmente|talvez|pode|podem|podem passar|acho que|parece|"
        r"possivelmente"
    ),
    future=W(r"vou|vamos|em seguida|amanhã|depois|voltarão|passarão|será|serão|irei"),
    conditional=W(r"se|quando|assim que|caso|desde que"),
    imperative=W(r"rode|roda|execute|executa|confira|verifique|certifique-se|confirmar|confirme|por favor"),
    instruction=W(
        r"confira se|verifique se|confirmar que|certifique-se|por favor|é preciso|"
        r"para (?:verificar|confirmar|garantir|conferir|ver) (?:que|se)"
    ),
    reported=W(
        r"(?:marcad[oa]|reportad[oa]|registrad[oa]) como|n[oa] (?:seu|sua|teu|tua)? ?(?:print|captura)|"
        r"n[oa] (?:branch|ramo) `·+`|em outr[oa] (?:branch|ramo)|colega|alguém|segundo|de acordo com|disse|diz|dizem|"
        r"o usuário|ontem|ontem à noite|na sua máquina|"
        r"(?:você|tu) (?:comentou|disse|mencionou|comentaste|disseste)|semana passada|na semana passada|"
        r"antes da (?:minha )?(?:mudança|correção|alteração)|(?:no|do) commit anterior|antes do (?:fix|ajuste)|"
        r"noturno|descrição do pr|anteriormente"
    ),
    present=W(
        r"agora|já|após (?:a|o|minha|meu) (?:correção|mudança|alteração|ajuste|fix)|"
        r"depois d[ao] (?:correção|mudança|alteração|ajuste|fix)|desta vez|nesta execução|na segunda execução|"
        r"rodei de novo|rodei novamente|rodando de novo|ao rodar de novo"
    ),
    superseded=W(
        r"(?:depois|em seguida|desde então|mais tarde),? (?:eu )?(?:mudei|alterei|modifiquei|mexi|refatorei|"
        r"reescrevi|renomeei|movi|adicionei|removi)"
    ),
    transitive=W(r"passar|passa")
    + r"(?=\s+(?:`|uma?\b|o\b|a\b|os\b|as\b|sua\b|seu\b))"
    + r"(?!\s+(?:o|a|os|as)\s+(?:\d+(?:\s|$|[.,;])|(?:\d+ )?(?:testes?|specs?|unitários|e2e)\b))",
    clause_break=W(r"e|mas|embora|enquanto|porque|então|porém"),
    green_subject=W(r"tudo"),
)
