"""Throughput of the rule-based intent parser, ``parse_intent(question, reference_date)``.

A fixed set of distinct questions — Chinese, English and mixed Chinese/English — covering
single and multi-valued slots, relative and half-year periods, channels, growth, narrative and
composite cues, competitors and unknown places is parsed round after round until at least
``iterations`` parses (default 20,000) have been timed, each with ``time.perf_counter_ns``.
Reported: median / p95 / p99 / mean µs per parse, the median per language group and the
throughput in questions per second (parses divided by the wall time of the timed loop).
Target: at least 20,000 questions per second on the reference 2-core machine (reported
PASS/MISS, never asserted).

    .venv/bin/python bench/bench_parse.py [--quick] [--iterations N] [--warmup ROUNDS] [--json]
"""

from __future__ import annotations

import gc
import math
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

from ragspine.agent.intent import parse_intent
from ragspine.profile.loader import load_profile

if __name__ == "__main__":  # run as a script: only bench/ itself is on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.stats import summarize

NAME = "parse"
DEFAULT_ITERATIONS = 20_000
TARGET_QPS = 20_000
DEFAULT_WARMUP_ROUNDS = 2
QUICK_WARMUP_ROUNDS = 1
REFERENCE_DATE = date(2025, 6, 30)

# (language group, question). Every question is distinct; the set is parsed in this order.
QUESTIONS: tuple[tuple[str, str], ...] = (
    ("zh", "香港2024年的收入是多少"),
    ("zh", "澳门去年的净利润是多少"),
    ("zh", "集团整体今年上半年的新业务价值"),
    ("zh", "中国内地2023年代理人渠道的新业务价值利润率"),
    ("zh", "香港和澳门2024年的营运利润对比"),
    ("zh", "集团2022年和2023年的股本回报率分别是多少"),
    ("zh", "内地银保渠道2024年上半年的营业收入"),
    ("zh", "香港代理人数量在2023年是多少"),
    ("zh", "集团的内含价值同比增长了多少"),
    ("zh", "澳门2024年收入同比变化"),
    ("zh", "为什么香港的新业务价值下降了"),
    ("zh", "请介绍一下集团2024年的经营情况"),
    ("zh", "内地收入增长的主要原因是什么，2024年收入是多少"),
    ("zh", "竞安保险2024年的收入是多少"),
    ("zh", "中国竞联人寿的新业务价值"),
    ("zh", "新加坡2024年的收入是多少"),
    ("zh", "收入是多少"),
    ("zh", "前年集团的纯利是多少"),
    ("zh", "香港地区2021年数字渠道的营收"),
    ("zh", "集团经纪渠道2023年上半年新业务价值"),
    ("zh", "澳门和中国内地的代理人数量对比"),
    ("zh", "本集团2020年至2024年的股本回报率"),
    ("zh", "香港的营运利润率是多少"),
    ("en", "What was Hong Kong revenue in FY2024?"),
    ("en", "Net profit of the group in 2023"),
    ("en", "Macau operating profit last year"),
    ("en", "Compare Hong Kong and Macau new business value in FY2023"),
    ("en", "What is the NBV margin for Mainland China agency channel in 2024H1?"),
    ("en", "ROE of the group in FY2022 and FY2023"),
    ("en", "How many agents did Hong Kong have at the end of 2024?"),
    ("en", "Embedded value growth for the group in FY2024"),
    ("en", "Why did Macau revenue decline in 2023?"),
    ("en", "Explain the drivers of Hong Kong VNB growth"),
    ("en", "What was Jingan Insurance revenue in 2024?"),
    ("en", "Singapore revenue in FY2024"),
    ("en", "What is the revenue?"),
    ("en", "Bancassurance sales in Mainland China for the first half of 2024"),
    ("en", "Hong Kong digital channel turnover FY2021"),
    ("en", "Operating profit after tax, Macau, 2022"),
    ("en", "How did the group perform this year?"),
    ("en", "Tell me about Globex Assurance"),
    ("en", "PRC net income 2024 vs 2023"),
    ("en", "Value of new business in Macao for H1 2025"),
    ("mixed", "香港FY2024的REVENUE是多少"),
    ("mixed", "ACME HK 2024年的NBV"),
    ("mixed", "集团FY2023的ROE是多少"),
    ("mixed", "澳门2024H1 operating profit"),
    ("mixed", "Hong Kong 去年的净利润"),
    ("mixed", "内地 agency channel 的 NBV margin"),
    ("mixed", "HK和Macau的revenue对比FY2024"),
    ("mixed", "集团EV同比增长多少"),
    ("mixed", "为什么HK的VNB下降"),
    ("mixed", "Jingan的收入是多少"),
    ("mixed", "Singapore的NBV是多少"),
    ("mixed", "ACME集团 2022年 total revenue"),
    ("mixed", "中国 banca 渠道 FY2024 sales"),
    ("mixed", "香港 agents 数量 2023"),
    ("mixed", "Macau 2023年和2024年 net profit 分别是多少"),
    ("mixed", "OPAT of 集团 in 2024上半年"),
)


def run(
    *, quick: bool = False, iterations: int | None = None, warmup: int | None = None
) -> dict[str, Any]:
    """Parse the question set round after round; ``warmup`` counts untimed rounds."""
    questions = [q for _, q in QUESTIONS]
    if len(set(questions)) != len(questions):
        raise ValueError("bench_parse.QUESTIONS must hold distinct questions")
    # Quick mode: one timed round; otherwise whole rounds until ``iterations`` parses.
    wanted = iterations or (len(questions) if quick else DEFAULT_ITERATIONS)
    rounds = max(1, math.ceil(wanted / len(questions)))
    warm_rounds = (
        warmup if warmup is not None else (QUICK_WARMUP_ROUNDS if quick else DEFAULT_WARMUP_ROUNDS)
    )

    profile = load_profile()
    for _ in range(warm_rounds):
        for question in questions:
            parse_intent(question, REFERENCE_DATE, profile=profile)

    clock = time.perf_counter_ns
    per_question: list[list[int]] = [[] for _ in questions]
    gc.collect()
    wall_start = clock()
    for _ in range(rounds):
        for question, out in zip(questions, per_question, strict=True):
            start = clock()
            parse_intent(question, REFERENCE_DATE, profile=profile)
            out.append(clock() - start)
    wall_ns = clock() - wall_start

    samples = [t for out in per_question for t in out]
    overall = summarize(samples, "us")
    throughput = len(samples) / (wall_ns / 1e9)
    groups = sorted({group for group, _ in QUESTIONS})
    by_language = {
        group: summarize(
            [
                t
                for (g, _), out in zip(QUESTIONS, per_question, strict=True)
                if g == group
                for t in out
            ],
            "us",
        )
        for group in groups
    }

    rows: list[dict[str, Any]] = [
        _row("median per parse", overall["median_us"], "µs"),
        _row("p95 per parse", overall["p95_us"], "µs"),
        _row("p99 per parse", overall["p99_us"], "µs"),
        _row("mean per parse", overall["mean_us"], "µs"),
        _row(
            "throughput",
            throughput,
            "q/s",
            f"≥ {TARGET_QPS:,} q/s",
            "PASS" if throughput >= TARGET_QPS else "MISS",
        ),
    ]
    rows += [_row(f"median per parse ({g})", by_language[g]["median_us"], "µs") for g in groups]

    return {
        "benchmark": NAME,
        "description": "parse_intent throughput over mixed zh / en / mixed questions",
        "params": {
            "distinct_questions": len(questions),
            "questions_per_language": {
                g: sum(1 for group, _ in QUESTIONS if group == g) for g in groups
            },
            "rounds": rounds,
            "parses": len(samples),
            "warmup_rounds": warm_rounds,
            "reference_date": REFERENCE_DATE.isoformat(),
        },
        "parse": overall,
        "by_language": by_language,
        "throughput_qps": throughput,
        "target": {
            "metric": "throughput_qps",
            "min_qps": TARGET_QPS,
            "machine": "2-core reference machine",
            "status": "PASS" if throughput >= TARGET_QPS else "MISS",
        },
        "wall_s": wall_ns / 1e9,
        "rows": rows,
    }


def _row(
    metric: str, value: float, unit: str, target: str | None = None, status: str | None = None
) -> dict[str, Any]:
    return {"metric": metric, "value": value, "unit": unit, "target": target, "status": status}


if __name__ == "__main__":
    from bench.run_all import standalone

    sys.exit(standalone(run, description=__doc__))
