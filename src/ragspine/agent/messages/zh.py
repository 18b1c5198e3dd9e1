"""面向用户的中文文案（问题为中文时使用）。"""

from __future__ import annotations

NARRATIVE_HEADING = "归因分析："
PROVIDER_UNAVAILABLE = "AI 服务暂时不可用，未能生成回答。为避免误导，不提供任何数字；请稍后重试。"


def refusal(entity: str, home_company: str) -> str:
    return (
        f"抱歉，本系统不提供关于「{entity}」的任何信息：仅回答 {home_company} 自身的数据。"
        f"可改为询问 {home_company} 的相关指标。"
    )


def ask_metric(options: list[str]) -> str:
    return f"请问您想查询哪个指标？可选：{'、'.join(options)}。"


def ask_unknown_metric(unknown: list[str], options: list[str]) -> str:
    names = "、".join(f"「{u}」" for u in unknown)
    return (
        f"无法识别指标{names}，未用其他指标的数字代替作答。请问您想查询哪个指标？"
        f"可选：{'、'.join(options)}。"
    )


def ask_which_metric(asked: str, options: list[str]) -> str:
    return (
        f"「{asked}」可指不止一个指标，未擅自选定其一。"
        f"请问您想查询哪个指标？可选：{'、'.join(options)}。"
    )


def did_you_mean(guesses: list[tuple[str, list[str]]]) -> str:
    """``guesses``：每个词（按用户所写）及与之仅差一处笔误的名称。"""
    typed = "、".join(f"「{word}」" for word, _ in guesses)
    if len(guesses) == 1:
        asked = f"您是指{_either(guesses[0][1])}"
    else:
        asked = "；".join(f"「{word}」是指{_either(names)}" for word, names in guesses)
    # "是指甲吗？" asks yes or no; "是指甲还是乙？" asks which, and takes no 吗.
    end = "吗？" if all(len(names) == 1 for _, names in guesses) else "？"
    return f"无法识别{typed}，未按猜测作答。请问{asked}{end}"


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{'、'.join(names[:-1])}还是{names[-1]}"


def range_too_long(first: str, last: str, limit: int, option: str) -> str:
    return (
        f"期间 {first} 至 {last} 超过 {limit} 个财年，未逐年查询。"
        f"请缩小到 {limit} 个财年以内再问，例如 {option}。"
    )


def ask_period(unknown: list[str], year_end_month: int, options: list[str]) -> str:
    names = "、".join(f"「{u}」" for u in unknown)
    return (
        f"{names}不对应本公司的任何财务期间（财年于每年{year_end_month}月结束），"
        f"未按其他期间作答。请问您想查询哪个期间？例如：{'、'.join(options)}。"
    )


def ask_shifted_period(words: str, counted_from: list[str], options: list[str]) -> str:
    base = (
        f"上一个问题的期间（{' / '.join(counted_from)}）无法这样推算"
        if counted_from
        else "上一个问题未指明期间"
    )
    return (
        f"「{words}」按上一个问题的期间推算，但{base}，未按其他期间作答。"
        f"请问您想查询哪个期间？例如：{'、'.join(options)}。"
    )


def ask_entity(unknown: list[str], options: list[str]) -> str:
    names = "、".join(f"「{u}」" for u in unknown)
    return (
        f"无法识别实体{names}，未按默认实体作答。请问您想查询哪个实体？可选：{'、'.join(options)}。"
    )


def assumption(entity: str | None, period: str | None, options: list[str]) -> str:
    parts = []
    if entity:
        parts.append(f"未指定实体，按 {entity} 回答")
    if period:
        parts.append(f"未指定期间，按最近完整财年 {period} 回答")
    return f"【假设】{'；'.join(parts)}（如需收窄：{' / '.join(options)}）"


def inherited(slots: list[str]) -> str:
    return f"【假设】{'，'.join(slots)}，沿用上一个问题"


_KIND_ZH = {"Q": "季度", "H": "半年度"}


def latest_assumed(kind: str, label: str) -> str:
    return f"【假设】本问题最近一个有数据的{_KIND_ZH[kind]}：{label}"


def ask_latest(kind: str, latest: list[str]) -> str:
    word = _KIND_ZH[kind]
    if not latest:
        return (
            f"文件中没有本问题的{word}数据，无从确定最近一个{word}，也不以其他期间的数字代替作答。"
            "请问您想查询哪个期间？"
        )
    listed = "；".join(latest)
    return f"所问各项最近一个有数据的{word}不同（{listed}），未擅自选定。请问您想查询哪个期间？"


def rescaled(subject: str, scale: str, value: str, stated: str, doc: str, locator: str) -> str:
    return f"{subject}（以{scale}计）：{value}（= {stated}，来源：{doc} · {locator}）"


def not_rescalable(units: list[str]) -> str:
    return f"未换算单位：{'、'.join(units)} 不是金额，没有单位量级可换算。"


def no_conversion(asked: str, reported: list[str]) -> str:
    return f"未换算为 {asked}：配置中未声明汇率，数字仍按报告币种 {'、'.join(reported)} 列示。"


def no_currency(units: list[str]) -> str:
    return f"未换算币种：{'、'.join(units)} 不是金额，没有币种可换算。"


def converted(
    subject: str,
    label: str,
    value: str,
    stated: str,
    rate: str,
    source: str,
    target: str,
    as_of: str,
    reference: str,
    doc: str,
    locator: str,
) -> str:
    return (
        f"{subject}（折合{label}）：{value}（= {stated} × {rate}，{source}→{target} 汇率，"
        f"汇率日期 {as_of}，汇率来源：{reference}；数据来源：{doc} · {locator}）"
    )


def rate_post_dated(asked: str, reported: str, periods: list[str], earliest: str) -> str:
    return (
        f"未换算为 {asked}：配置中声明的 {reported}→{asked} 汇率均晚于 {'、'.join(periods)} 的"
        f"期末（最早一项为 {earliest}），这些数字仍按报告币种 {reported} 列示。"
    )


def computed_converted(
    label: str,
    value: str,
    stated: str,
    rate: str,
    source: str,
    target: str,
    as_of: str,
    reference: str,
) -> str:
    return (
        f"计算结果折合{label}：{value}（= {stated} × {rate}，{source}→{target} 汇率，"
        f"汇率日期 {as_of}，汇率来源：{reference}；由计算结果一次换算）"
    )


def computed_not_converted(stated: str, source: str, asked: str, dates: list[str]) -> str:
    return (
        f"计算结果 {stated} 未换算为 {asked}：其各项数据适用不同的 {source}→{asked} 汇率"
        f"（汇率日期 {'、'.join(dates)}），没有单一汇率可换算；各项数据已分别换算。"
    )


def found(subject: str, value: str, doc: str, locator: str) -> str:
    return f"{subject}：{value}（来源：{doc} · {locator}）"


def row_labelled(subject: str, label: str) -> str:
    return f"{subject}（行“{label}”）"


def not_found(metric: str, entity: str, period: str, channel: str) -> str:
    return (
        f"查不到：{metric} / {entity} / {period}（渠道 {channel}）未在事实表中找到。\n"
        "为避免误导，不提供任何推测数字；可尝试调整期间或实体后重问。"
    )


def unrecognized(param: str, raw: str) -> str:
    return f"无法识别参数 {param}：「{raw}」不在术语表中。为避免误导，不提供任何推测数字。"


# 由亏损或零起算的百分比变化没有意义（-45 到 38 不是“+184%”）。
PERCENT_NOT_MEANINGFUL = "基数为零或负数，百分比变化无意义"


def change(later: str, earlier: str, diff: str, pct: str | None) -> str:
    return f"变化（{later} 较 {earlier}）：{diff}（{pct or PERCENT_NOT_MEANINGFUL}）"


def change_pp(later: str, earlier: str, diff: str) -> str:
    return f"变化（{later} 较 {earlier}）：{diff} 个百分点"


def difference(first: str, second: str, diff: str, pct: str | None) -> str:
    relative = f"相对{second} {pct}" if pct else f"{second}为零或负数，不计算相对差异"
    return f"差值（{first} 减 {second}）：{diff}（{relative}）"


def difference_pp(first: str, second: str, diff: str) -> str:
    return f"差值（{first} 减 {second}）：{diff} 个百分点"


def incomparable(first: str, first_unit: str, second: str, second_unit: str) -> str:
    return (
        f"不计算变化：{first}的单位是{first_unit or '个数'}，{second}的单位是"
        f"{second_unit or '个数'}，文件未给出换算。"
    )


def incomparable_currency(
    first: str, first_currency: str, second: str, second_currency: str
) -> str:
    return (
        f"不计算变化：{first}以{first_currency}列示，{second}以{second_currency}列示，"
        "文件未给出汇率。"
    )


def of_series(series: str, line: str) -> str:
    return f"{series}——{line}"


def growth_missing(base: str) -> str:
    return f"无法计算同比：缺少对比期 {base} 的数据。"


def preceding_missing(base: str) -> str:
    return f"无法计算环比：缺少上一期 {base} 的数据，未以其他期间代替。"


def pending_value(subject: str, value: str, doc: str, locator: str) -> str:
    return (
        f"注意：{subject} 另有待复核的不同数值 {value}（来源：{doc} · {locator}，"
        "如重述），复核前以上述已确认数值为准。"
    )


def provisional(line: str) -> str:
    return f"{line}（暂定：所依据的数值有待复核）"
