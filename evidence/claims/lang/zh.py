"""Chinese (simplified): no word boundaries, so words are matched as written; the negation precedes the verb (没有通过,
未通过, 不通过) or is spelled into it (通过不了)."""

from freshpass.evidence.claims.lexicon import Lexicon

LEXICON = Lexicon(
    language="zh",
    subjects={
        "test": r"测试|用例|单元测试|测试套件|e2e",
        "lint": r"lint|格式检查|代码检查|静态检查|代码风格",
        "typecheck": r"类型检查",
        "build": r"构建|编译",
        "check": r"检查|ci|一切|全部检查|所有检查",
    },
    success=r"通过|全绿|变绿|是绿的|绿了|成功|跑通|正常|没问题",
    implies={"build": r"编译通过|构建成功"},
    pseudo=r"没有(?:任何)?(?:失败|报错|错误|警告|问题)|无(?:错误|问题|警告|失败)|零(?:失败|错误)|没问题|没有输出差异",
    self_claim=r"已(?:经)?(?:在本地)?(?:测试|验证)(?:过)?|(?:测试|验证)过(?:这个|了|，)|已测试|动作确认",
    negation=r"没有|没|未|不|无法|不能|还不|尚未|并未",
    negated_success=r"(?:没有|没|未|不|还没有|还没|尚未)(?:能)?(?:通过|成功|跑通)|通过不了|不通过",
    failure=r"失败|报错|错误|超时|挂了|崩溃|红了",
    failure_attributive=r"(?:之前|原来|此前)?失败的测试",
    partial=r"大部分|大多数|部分|一些|除了",
    hedge=r"应该|可能|也许|大概|估计|希望|预计|应当|或许",
    future=r"将会|将|会在|打算|准备|接下来|明天|稍后|之后再|等.*之后",
    conditional=r"如果|假如|若|一旦|只要|等.*(?:后|之后)",
    imperative=r"请|(?:\d+\.\s*)?(?:确认|确保|运行|执行|检查|跑完|记得)",
    instruction=r"请|确认|确保|检查是否|看看是否",
    question=r"吗\s*[？?]?\s*$|是否.*[？?]",
    reported=r"根据|据|说|昨晚|昨天|上周|之前.*是通过|修改前|改动前|nightly|PR 描述|描述里",
    transitive=r"通过\s*`|通过\s*(?:参数|这个|该|设置)|把.*传给",
    clause_break=r"但是|但|不过|而且|并且|同时|所以|因此",
    green_subject=r"一切|全部|都",
)
