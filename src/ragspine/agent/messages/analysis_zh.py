"""计算类回答的中文句子（``agent.analyst``）。"""

from __future__ import annotations

from ragspine.agent.messages.zh import PERCENT_NOT_MEANINGFUL


def _names(names: list[str]) -> str:
    return "、".join(names)


def rank_heading(metric: str, period: str, descending: bool, by_growth: bool) -> str:
    order = "从高到低" if descending else "从低到高"
    what = f"{metric}较上年增幅" if by_growth else metric
    return f"按{what}排名，{period}（{order}；由下列数据计算）："


def top_heading(count: str) -> str:
    return f"所问为前{count}名：即下列排在前面的名次，其余名次随后列出。"


def ranked(position: str, line: str) -> str:
    return f"{position}. {line}"


def growth_line(entity: str, pct: str, later: str, earlier: str) -> str:
    return f"{entity}：{pct}（{later} 较 {earlier}）"


def tie(names: list[str]) -> str:
    return f"并列：{_names(names)}数值相同，名次并列。"


def unranked(names: list[str]) -> str:
    return f"未参与排名（未找到数据）：{_names(names)}。"


def unranked_no_rate(names: list[str]) -> str:
    return f"未排名（基数为零或负数，增长率无意义）：{_names(names)}。"


def total(metric: str, period: str, value: str, parts: list[str]) -> str:
    return f"{period}{metric}合计：{value}，为{_names(parts)}之和。"


def excluded_sum(
    metric: str, period: str, left_out: list[str], value: str, parts: list[str]
) -> str:
    return (
        f"除{_names(left_out)}以外的{period}{metric}：{value}，"
        f"按其他单位（{_names(parts)}）之和计算。"
    )


def excluded_by_whole(metric: str, period: str, left_out: list[str], value: str, whole: str) -> str:
    return (
        f"除{_names(left_out)}以外的{period}{metric}：{value}，"
        f"按{whole}减去{_names(left_out)}计算。"
    )


def whole_agrees(whole: str, parts: list[str]) -> str:
    return f"核对：各单位（{_names(parts)}）之和与{whole}的数据一致。"


def whole_differs(whole: str, whole_value: str, parts_value: str, diff: str) -> str:
    return (
        f"注意：各单位之和与{whole}的数据不一致：各单位合计 {parts_value}，"
        f"{whole}为 {whole_value}（差额 {diff}）。"
    )


def average(subject: str, over: str, value: str) -> str:
    return f"{subject}在{over}的平均值：{value}（下列数据的简单平均）。"


def cumulative(subject: str, over: str, value: str) -> str:
    return f"{subject}在{over}的累计：{value}（下列数据之和）。"


def cagr(subject: str, first: str, last: str, pct: str) -> str:
    return f"{subject}从{first}到{last}的年复合增长率：每年 {pct}。"


def span(subject: str, first: str, last: str, diff: str, pct: str | None) -> str:
    return f"{subject}从{first}到{last}的变化：{diff}（{pct or PERCENT_NOT_MEANINGFUL}）"


def span_pp(subject: str, first: str, last: str, diff: str) -> str:
    return f"{subject}从{first}到{last}的变化：{diff} 个百分点"


def steps_heading() -> str:
    return "逐年变化："


def missing(names: list[str]) -> str:
    return f"未计算：未找到{_names(names)}的数据；不以部分结果代替。"


def mixed_units(pairs: list[str]) -> str:
    return f"未计算：数据单位不同（{_names(pairs)}），且未给出汇率或换算。"


def ratio_not_added(metric: str) -> str:
    return f"未计算：{metric}是比率，不同单位的比率不能相加。"


def balance_not_added(metric: str, last: str) -> str:
    return (
        f"未计算：{metric}是时点指标（期末余额），不同期末的数值不能相加。"
        f"{last}期末的数值即该期本身的数据。"
    )


def nature_unknown(metric: str) -> str:
    return (
        f"未计算：配置未说明{metric}是期间流量（如销售额，各期可相加）还是期末余额"
        "（如总资产，各期不能相加），因此不作加总。"
    )


def cagr_one_period(period: str) -> str:
    return f"未计算年复合增长率：需要起始和结束年度，所问只有{period}。"


def cagr_not_positive(first: str, last: str) -> str:
    return f"未计算年复合增长率：{first}或{last}的数值不为正。"


def unsupported(words: list[str]) -> str:
    return (
        f"未回答：问题要求{_names([f'「{w}」' for w in words])}，本系统不从报告数据计算此项，"
        "也不以单个数值代替。可改问各单位在该期间的数据，系统会连同来源列出。"
    )


_UNITS_ZH = {"quarter": "季度", "month": "月", "week": "周", "day": "日"}


def no_breakdown(unit: str, period: str, example: str) -> str:
    name = _UNITS_ZH.get(unit, unit)
    ask = (
        f"可逐一询问某个{name}（例如{example}），系统会连同来源给出该期数据。"
        if example
        else "数据按财年、半年度和季度保存，请改问其中之一。"
    )
    return (
        f"未回答：问题要求{period}每{name}的数据，本系统不做此拆分，也不以整段期间的数值代替。{ask}"
    )


def sum_or_difference(names: list[str]) -> str:
    both = "与".join(names)
    return (
        f"未作答：问题同时要求{both}的合计与对比，未计算任何数字。"
        "请问您要的是两者之和（如“合计”），还是两者之差（如“对比”）？"
    )


def no_population(entity: str) -> str:
    return (
        f"未回答：配置中没有定义{entity}下属的单位，无法排名、合计或剔除，因此不给出数值。"
        "请直接列出要比较的单位。"
    )


def unknown_population(word: str, known: list[str]) -> str:
    defined = f"（已定义：{_names(known)}）" if known else ""
    return f"未回答：配置中没有名为「{word}」的单位范围{defined}，无从排名或合计，因此不给出数值。"


# --------------------------------------------------------------------------- 派生指标


def ratio_computed(subject: str, value: str, rule: str, inputs: str) -> str:
    return f"{subject}：{value}，按{rule}计算（{inputs}），数据见下。"


def ratio_stated(subject: str, value: str) -> str:
    return f"{subject}：{value}，为文件所列数值（来源见下）。"


def ratio_agrees(rule: str, computed: str) -> str:
    return f"核对：按所列数据以{rule}计算为 {computed}，与所列数值在其精度内一致。"


def ratio_differs(rule: str, computed: str, stated: str, diff: str) -> str:
    return (
        f"注意：按所列数据以{rule}计算为 {computed}，文件所列为 {stated}"
        f"（相差 {diff} 个百分点）；以所列数值为准，两者来源均列于下。"
    )


def ratio_missing(subject: str, rule: str, names: list[str]) -> str:
    return f"{subject}未计算：该指标为{rule}，未找到{_names(names)}的数据；不以部分结果代替。"


def ratio_mixed_units(subject: str, rule: str, parts: list[str]) -> str:
    return (
        f"{subject}未计算：该指标为{rule}，而数据的币种或单位不同（{_names(parts)}）；"
        "跨币种或单位计算比率需要文件未提供的换算，因此不给出数值。"
    )


def ratio_zero(subject: str, name: str) -> str:
    return f"{subject}未计算：{name}为零。"


def ratio_ranked(entity: str, value: str, how: str) -> str:
    return f"{entity}：{value}（{how}）"


def ratio_how(rule: str, stated: bool) -> str:
    return "文件所列" if stated else f"按{rule}计算"


def ratio_not_combined(metric: str, rule: str) -> str:
    return (
        f"未计算：{metric}按{rule}逐个单位、逐期计算；不计算其合计、平均、增长率或其他组合，"
        "也不以其他数值代替。可按单位和期间分别询问，或询问各单位的排名。"
    )


_KEPT = {
    "rank": "排名",
    "total": "合计",
    "exclude": "剔除计算",
    "average": "平均值",
    "cumulative": "累计",
    "cagr": "复合增长率",
    "span": "区间变化",
    "unsupported": "所问的计算",
}


def kept(op: str, descending: bool) -> str:
    """The computation a follow-up keeps from the previous question, for its assumption line."""
    if op == "rank":
        return f"排名（{'从高到低' if descending else '从低到高'}）"
    return _KEPT.get(op, op)
