"""Japanese: no word boundaries; the verb and its negation come last (通りません, 通っていません), and a polite
negative can say success (問題ありません, エラーなし): those are pseudo-negations, read before any negation."""

from freshpass.evidence.claims.lexicon import Lexicon

LEXICON = Lexicon(
    language="ja",
    subjects={
        "test": r"テスト|ユニットテスト|テストスイート|スイート|全件|e2e",
        "lint": r"lint|リンター|リント|フォーマット",
        "typecheck": r"型チェック|型",
        "build": r"ビルド|コンパイル",
        "check": r"チェック|ci|すべて|全て",
    },
    success=r"通過|通りました|通った|通り、|通っています|通るように|パスし|パスしました|パスしています|成功|グリーン|"
    r"問題ありません|問題なく|問題なし|できました|緑(?:に|です|でした|色)",
    implies={"build": r"コンパイルできました|ビルド(?:は|も)?成功"},
    pseudo=r"問題(?:は)?ありません|問題なく|問題なし|エラー(?:は)?(?:なし|ありません|なく)|警告(?:は)?(?:なし|ありません)|"
    r"指摘(?:は)?(?:なし|ありません)|失敗(?:は)?ありません|失敗(?:は)?(?:しませんでした|していません)",
    self_claim=r"動作確認済み|テスト済み|検証済み|動作することを確認しました|動作を確認しました",
    negation=r"ません|ない|なかった|いいえ",
    negated_success=r"(?:通|パス|成功|グリーン)[^。、]{0,6}(?:ません|ない|なかった|ず)|通らな|通っていません|まだ[^。]*(?:通っていません|通りません)",
    failure=r"失敗|エラーが|タイムアウト|落ち|壊れ",
    failure_after=r"[1-9]\d*\s*件(?:の)?(?:失敗|エラー)",
    failure_attributive=r"(?:以前|前に|これまで)?失敗していたテスト",
    partial=r"ほとんど|ほぼ|大部分|一部|以外",
    hedge=r"はず|でしょう|かもしれ|と思います|おそらく|たぶん|多分|といいのですが|見込み|可能性",
    future=r"予定|次に|明日|これから|後で|します。?$|実行します",
    conditional=r"れば|たら|なら|場合",
    imperative=r"(?:\d+\.\s*)?(?:確認する|実行する|確認して)",
    instruction=r"してください|ください|ことを確認する|ことを確認して|しましょう",
    question=r"か[？?]\s*$|ますか|でしょうか",
    reported=r"によると|そうです|とのこと|昨夜|昨日|先週|変更前|前は|前のコミット|"
    r"前回の(?:実行|コミット|ビルド)|月曜|pr の説明|説明には",
    present=r"修正後|変更後|修正した後|修正したあと|直した後|直したあと|今は|現在は|再実行(?:後|したところ|すると)|今回は",
    superseded=r"その後[^。]{0,30}?(?:変更|修正|書き換え|リファクタ|追加|削除)(?:しました|した)",
    transitive=r"を渡せる|渡す|を通すために|通すため",
    clause_break=r"が、|けど|けれど|ものの|、しかし|一方",
    green_subject=r"すべて|全て|全部",
)
