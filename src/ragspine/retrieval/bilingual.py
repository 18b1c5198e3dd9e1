"""A small Chinese↔English vocabulary of generic report words (no company terms).

The profile supplies the company's own terms in both languages; these are the words around
them — regulation, growth, driver, margin — so a Chinese question can find an English passage
and back without any model.
"""

from __future__ import annotations

PAIRS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("监管", ("regulation", "regulatory", "regulator")),
    ("政策", ("policy", "rules")),
    ("法规", ("regulation", "rules")),
    ("影响", ("impact", "effect")),
    ("增长", ("growth", "grew", "increase", "rose", "up")),
    ("上升", ("rose", "increase")),
    ("下降", ("decline", "fell", "decrease", "down")),
    ("减少", ("decrease", "fewer")),
    ("原因", ("reason", "driver", "because")),
    ("为什么", ("why", "reason", "driver")),
    ("驱动", ("driven", "driver", "drove")),
    ("带动", ("driven", "led", "lifted")),
    ("推动", ("driven", "drove")),
    ("战略", ("strategy", "strategic", "priorities", "outlook")),
    ("计划", ("plan", "plans")),
    ("目标", ("target", "targets", "aim")),
    ("风险", ("risk", "risks")),
    ("资本", ("capital",)),
    ("偿付能力", ("solvency",)),
    ("佣金", ("commission", "commissions")),
    ("产品", ("product", "products")),
    ("客户", ("customer", "customers")),
    ("渠道", ("channel", "channels")),
    ("代理人", ("agent", "agents", "agency")),
    ("银保", ("bancassurance", "bank")),
    ("数字化", ("digital",)),
    ("利润率", ("margin",)),
    ("利润", ("profit",)),
    ("股息", ("dividend",)),
    ("分红", ("dividend",)),
    ("收购", ("acquisition", "acquire")),
    ("董事会", ("board",)),
    ("费用", ("expense", "expenses", "cost")),
    ("成本", ("cost", "costs")),
    ("保费", ("premium", "premiums")),
    ("新业务", ("new", "business")),
    ("展望", ("outlook",)),
    ("市场", ("market", "markets")),
    ("利率", ("interest", "rate", "rates")),
    ("投资", ("investment", "investments")),
    ("回报", ("return", "returns")),
    ("保障", ("protection",)),
    ("储蓄", ("savings",)),
    ("访客", ("visitor", "visitors")),
    ("旅客", ("visitor", "visitors", "tourism")),
    ("重述", ("restated", "restatement")),
    ("会计", ("accounting",)),
    ("季度", ("quarter", "quarterly")),
    ("上半年", ("first", "half", "interim")),
    ("中期", ("interim",)),
    ("年度", ("annual", "year")),
    ("业绩", ("results", "performance")),
    ("表现", ("performance", "perform", "performed")),
    ("经营", ("operating", "operations")),
    ("合规", ("compliance",)),
    ("实施", ("implemented", "effect", "implementation")),
    ("制度", ("regime", "framework")),
    ("拨备", ("provision",)),
    ("准备金", ("provision", "reserve")),
    ("恢复", ("recovery", "returned")),
    ("优先", ("priority", "priorities")),
    ("人力", ("headcount", "force")),
    ("医疗", ("medical", "health")),
    ("健康", ("health",)),
    ("纪律", ("discipline",)),
    ("主席", ("chairman",)),
    ("报告", ("report",)),
    ("董事长", ("chairman",)),
    ("评价", ("statement", "assessment", "review")),
    ("亏损", ("loss", "losses")),
    ("亏钱", ("loss",)),
    ("初步", ("preliminary",)),
    ("估算", ("estimate", "estimated")),
    ("审计", ("audit", "audited")),
)


def _build() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    zh_to_en = dict(PAIRS)
    en_to_zh: dict[str, list[str]] = {}
    for zh, words in PAIRS:
        for word in words:
            en_to_zh.setdefault(word, []).append(zh)
    return zh_to_en, {k: tuple(v) for k, v in en_to_zh.items()}


ZH_TO_EN, EN_TO_ZH = _build()
