"""Spanish."""

from freshpass.evidence.claims.lexicon import Lexicon, W

LEXICON = Lexicon(
    language="es",
    subjects={
        "test": W(
            r"pruebas?|tests?|suite|la suite|pruebas unitarias|(?:los )?unitarios|(?:todos )?los \d+|(?:todas )?las \d+"
        ),
        "lint": W(r"linter|lint|estilo|formato"),
        "typecheck": W(r"tipos|chequeo de tipos|comprobación de tipos|verificación de tipos|type check"),
        "build": W(r"compilación|build"),
        "check": W(r"todo|verificaciones|comprobaciones|chequeos|ci"),
    },
    success=W(
        r"\d+ pasad[oa]s|\d+ ok|pasan|pasa|pasaron|pasó|pasando|pasado|en verde|verde|limpio|limpia|exitos[oa]s?|"
        r"exitosamente|"
        r"correctamente|compila|compiló|bien|funciona|(?:todo )?en verde"
    ),
    implies={"build": W(r"compila|compiló")},
    pseudo=W(
        r"sin (?:errores|fallos|advertencias|problemas|warnings)|no (?:reporta|muestra|da|hay|tiene) "
        r"(?:errores|fallos|advertencias|problemas)|no se queja|ningún (?:error|fallo)|cero (?:errores|fallos)|"
        r"(?:0|cero) (?:fallos?|errores|fallidos?|fallidas?)|no hubo (?:ningún )?(?:fallos?|errores?)|"
        r"(?:ya )?no se queja(?: de nada)?|(?:está|queda) en silencio|sin hallazgos|código de salida 0"
    ),
    self_claim=W(r"(?:lo |la )?probé|hecho y probado|probado y funcionando|verificado y funcionando|lo he probado")
    + r"|^(?:probado|verificado|testeado)(?= (?:en local|localmente|a mano|manualmente|en|con|contra)\b)",
    negation=W(r"no|nunca|ninguna?|ninguno|ni|sin|todavía no|aún no|tampoco"),
    failure=W(r"fall(?:a|an|ó|aron|ando|o|os|aba|aban|ido)|falla|roto|rota|errores|error|timeout"),
    failure_after=W(r"[1-9]\d* (?:fallos?|errores?|fallidas?|fallidos?)"),
    failure_attributive=W(r"(?:la |el )?(?:prueba|test) que fallaba"),
    partial=W(r"la mayoría|mayoría|algunas?|algunos|casi todas?|excepto|salvo|menos"),
    hedge=W(
        r"en teoría|en principio|supuestamente|imagino que|me imagino|asumo que|diría que|debería|deberían|debe|"
        r"deben|espero|ojalá|probablemente|quizás?|tal vez|podría|podrían|puede que|"
        r"supongo|creo que|parece"
    ),
    future=W(r"voy a|vamos a|ejecutaré|correré|a continuación|mañana|luego|después(?! de)|volverán|pasarán|será|serán"),
    conditional=W(r"(?<!por )si|cuando|una vez|en cuanto|siempre que|en caso de"),  # "por si": just in case
    imperative=W(
        r"ejecuta|ejecute|corre|corra|comprueba|compruebe|verifica|verifique|asegúrate|confirma|confirmar|revisa|"
        r"por favor|lanza|prueba a"
    ),
    instruction=W(
        r"comprueba que|compruebe que|confirmar que|asegúrate de|verifica que|asegurar que|hay que|tienes que|"
        r"para (?:comprobar|verificar|confirmar|asegurar(?:se|te|nos)?(?: de)?|ver si)(?: que)?"
    ),
    question=r"¿",
    reported=W(
        r"(?:marcad[oa]|reportad[oa]|registrad[oa]) como|en (?:tu|la) captura|en la rama `·+`|en otra rama|"
        r"compañer[oa]|colega|alguien|según|dijo|dice|dicen|el usuario|ayer|anoche|"
        r"la semana pasada|en tu (?:máquina|"
        r"equipo)|"
        r"(?:me )?(?:comentaste|dijiste|mencionaste)|antes de mi cambio|"
        r"antes del (?:cambio|arreglo|fix)|(?:en el|del) commit anterior|antes de (?:la corrección|corregir(?:lo)?|"
        r"arreglarlo)|nocturno|"
        r"descripción del pr|anteriormente"
    ),
    present=W(
        r"ahora|ya|tras (?:el|la|mi) (?:arreglo|cambio|corrección|fix)|"
        r"después de(?:l| la| mi)? (?:arreglo|cambio|corrección|corregir(?:lo)?|arreglar(?:lo)?|cambiar|fix)|esta vez|"
        r"en la segunda ejecución|(?:al )?volver a (?:ejecutar|correr|lanzar)(?:lo|los|las)?|(?:lo |"
        r"los )?volví a (?:ejecutar|correr|lanzar)|relanzado"
    ),
    superseded=W(
        r"(?:luego|después|desde entonces|más tarde),? (?:he |hemos )?(?:cambié|modifiqué|toqué|refactoricé|"
        r"reescribí|renombré|moví|añadí|eliminé|cambiado|modificado|tocado|refactorizado)"
    ),
    # "pasa el objeto", "pasan un `Session`": another sense; "pasan los 42 tests" is the tests passing
    transitive=W(r"pasar|pasa|pasan")
    + r"(?=\s+(?:`|una?\b|el\b|la\b|los\b|las\b|su\b|tu\b))"
    + r"(?!\s+(?:el|la|los|las)\s+(?:\d+(?:\s|$|[.,;])|(?:\d+ )?(?:pruebas?|tests?|specs?|unitarios|e2e)\b))",
    clause_break=W(r"y|pero|aunque|mientras|así que|porque|sino"),
    green_subject=W(r"todo|todo está"),
)
