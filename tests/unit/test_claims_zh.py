"""The Chinese lexicon shape by shape: success predicates with their result complements, aspect and counts, the
pseudo-negations that say success, and what makes the same words no claim — hedges, plans, conditions,
instructions, questions, older or someone else's runs, obligation and goal, scoped negation, partial passes and
the other senses of 通过 ("by means of"), 验证 and 成功."""

from __future__ import annotations

import pytest
from freshpass.evidence.claims import find_claims
from freshpass.evidence.claims.lexicon import detect

CLAIMS: dict[str, list[tuple[str, list[str]]]] = {
    "result complement and aspect": [
        ("单测都通过了。", ["test"]),
        ("所有单测均已通过 ✅", ["test"]),
        ("端到端测试已经跑通。", ["test"]),
        ("集测跑过了，没有报错。", ["test"]),
        ("跑了一下单测，都过了。", ["test"]),
        ("单测过了，集测也过了。", ["test"]),
        ("测试全过。", ["test"]),
        ("改完之后测试绿了。", ["test"]),
        ("CI 绿了 🎉", ["check"]),
        ("本次改动已通过全部测试。", ["test"]),
    ],
    "counts and measure words": [
        ("42 个测试全部通过。", ["test"]),
        ("测试共 120 项，全部通过。", ["test"]),
        ("集成测试 12 项，通过 12 项。", ["test"]),
        ("`pytest`：120/120 通过。", ["test"]),
        ("100% 的用例通过。", ["test"]),
        ("回归测试通过率 100%。", ["test"]),
        ("刚才重新跑了 `pytest -q`，114 passed。", ["test"]),
    ],
    "English words in Chinese": [
        ("单测 OK，lint OK。", ["test", "lint"]),
        ("全部测试 passed ✅", ["test"]),
    ],
    "pseudo-negations": [
        ("`go test ./...`：0 失败。", ["test"]),
        ("`cargo test` 零失败。", ["test"]),
        ("`pytest`：通过 120 项，失败 0 项。", ["test"]),
        ("重跑了一遍，测试没有失败。", ["test"]),
        ("`eslint` 无警告。", ["lint"]),
        ("测试全部 passed，`tsc` 也没有类型错误。", ["test", "typecheck"]),
        ("lint 已经干净了，类型检查也零错误。", ["lint", "typecheck"]),
        ("编译没有任何警告，构建成功。", ["build"]),
    ],
    "subjects": [
        ("单元测试和集成测试都已通过。", ["test"]),
        ("`npm run build` 构建成功，`tsc` 类型检查也通过了。", ["build", "typecheck"]),
        ("现在 lint、类型检查和测试都通过了。", ["lint", "typecheck", "test"]),
        ("代码检查均已通过，无警告。", ["lint"]),
        ("所有检查均通过。", ["check"]),
        ("| 项目 | 状态 |\n| --- | --- |\n| 单测 | 通过 |\n| 构建 | 成功 |", ["test", "build"]),
    ],
    "the work as a whole": [
        ("修复已完成，已验证。", ["check"]),
        ("本地验证通过。", ["check"]),
        ("自测通过，可以合并。", ["check"]),
        ("测过了，没问题。", ["check"]),
        ("功能已测试，上传和下载都正常。", ["check"]),
        ("我验证了这个修复，上传流程正常。", ["check"]),
    ],
    "words that only look like a negation, a report or a plan": [
        ("不稳定的那个测试现在也稳定通过了。", ["test"]),
        ("没想到一次就全部通过了：单元测试 56 个，0 个失败。", ["test"]),
        ("数据库迁移已完成，测试全部通过。", ["test"]),
        ("中间件把请求传给路由，测试通过了。", ["test"]),
        ("我将超时改为 30 秒，测试全部通过。", ["test"]),
        ("之前失败的两个用例现在也通过了。", ["test"]),
        ("我确认了所有测试都通过。", ["test"]),
        ("测试全部通过，我也检查了是否有回归。", ["test"]),
        ("修复后测试全部通过。", ["test"]),
        ("基本功能测试全部通过。", ["test"]),
        ("我没测过 Windows，Linux 上测试全部通过。", ["test"]),
        ("运行 `pytest` 后全部通过，共 64 个用例。", ["test"]),
        ("已经按要求修改，lint 和测试都通过了。", ["lint", "test"]),
        ("现在构建可以正常完成，测试也都是绿色的。", ["build", "test"]),
        ("按照你说的改了，测试全部通过。", ["test"]),
    ],
}

NOT_CLAIMS: dict[str, list[str]] = {
    "hedge": [
        "测试应该都能通过。",
        "大概全部通过了，我没有仔细看输出。",
        "看起来测试都通过了，但我还没看完整日志。",
        "理论上类型检查可以通过。",
        "我觉得构建应该没问题。",
        "我觉得，测试都通过了。",
    ],
    "future, plan and purpose": [
        "接下来我会跑单测，确认全部通过。",
        "修复之后测试将会通过。",
        "待会我再跑一次测试，看看能否全部通过。",
        "测试将在合并后运行。",
        "为了让测试通过，我临时跳过了两个用例。",
        "稍后补上集成测试，并确认构建成功。",
    ],
    "obligation and goal": [
        "所有测试都需要通过才能合并。",
        "测试必须全部通过。",
        "目标是让所有测试通过。",
        "要通过类型检查，得给这些函数加注解。",
        "测试通过与否取决于网络。",
    ],
    "condition": ["如果测试通过，就可以合并了。", "要是构建成功的话，我再更新文档。", "测试通过后再合并到 main。"],
    "instruction": ["记得在推送前确认 CI 通过。", "务必确认类型检查通过。", "你跑一下 `make test`，应该会全部通过。"],
    "question": ["是否所有测试都通过了", "构建成功了吗", "单测有没有通过？", "测试是不是都通过了，我不太确定。"],
    "reported or older": [
        "昨天的测试是全部通过的。",
        "之前的版本 CI 是绿的。",
        "据 nightly 报告，测试全部通过。",
        "上次运行时 lint 没有报错。",
        "本来测试是通过的，我改了之后有一个失败。",
        "你说测试都通过了，但我这边有失败。",
    ],
    "negation in its scope": [
        "构建未成功。",
        "类型检查尚未通过。",
        "lint 并非全部通过，还有两个警告。",
        "测试并没有全部通过。",
        "依赖升级后，旧的工具不再通过类型检查。",
        "我没跑测试，所以没有报错。",
        "测试在 CI 上失败了，本地可以通过，我怀疑是时区问题。",
        "还没验证这个修复。",
        "不是所有测试都通过了。",
    ],
    "partial": [
        "多数用例通过了，剩下两个超时。",
        "除了 `test_upload`，其余测试都通过了。",
        "测试跑过了，还有两个失败。",
        "测试通过率 95%。",
        "测试 118/120 通过，剩下两个是已知问题。",
        "测试成功率 98%。",
    ],
    "another sense of 通过, 验证, 成功, 干净": [
        "超时时间通过配置文件设置。",
        "缓存是通过 Redis 实现的。",
        "老的 e2e 测试通过 Selenium 驱动浏览器。",
        "测试用例通过 fixture 注入数据库连接。",
        "我修改了 `ci.yml`，让流水线通过缓存加速安装。",
        "已验证 bug 在 main 分支上可以稳定复现。",
        "token 验证通过后才会返回用户信息。",
        "我在测试中成功复现了这个 bug。",
        "测试环境部署成功了，接口可以访问。",
        "构建目录已经清理干净。",
        "PR 已通过代码评审。",
        "OK，我来改一下。",
    ],
}


@pytest.mark.parametrize(
    ("message", "kinds"), [case for cases in CLAIMS.values() for case in cases], ids=lambda value: str(value)[:24]
)
def test_chinese_claims(message: str, kinds: list[str]) -> None:
    assert detect(message) == "zh"
    assert sorted(claim.kind for claim in find_claims(message)) == sorted(kinds)


@pytest.mark.parametrize("message", [case for cases in NOT_CLAIMS.values() for case in cases])
def test_chinese_non_claims(message: str) -> None:
    assert detect(message) == "zh"
    assert find_claims(message) == []
