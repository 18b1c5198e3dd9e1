"""ACME's one set of true figures: every document in the demo corpus shows numbers from here.

Keys are (metric, entity, channel, period label); values are in the metric's profile unit
(USD_M, PCT, COUNT). Documents agree with one another by construction, so the only
cross-document conflict in the corpus is the one restatement written on purpose.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragspine.demo.corpus_model import Val

FIGURES: dict[tuple[str, str, str, str], float] = {}


def _put(metric: str, entity: str, series: dict[str, float], channel: str = "TOTAL") -> None:
    for period, value in series.items():
        FIGURES[(metric, entity, channel, period)] = value


def _years(*values: float) -> dict[str, float]:
    return {f"FY{2021 + i}": v for i, v in enumerate(values)}


# Hong Kong
_put("REVENUE", "ACME_HK", _years(2410, 2530, 2690, 2850, 3105))
_put("REVENUE", "ACME_HK", {"2024H1": 1398, "2025H1": 1512})
_put("REVENUE", "ACME_HK", {"2024Q1": 693, "2025Q1": 750, "2024Q3": 718, "2025Q2": 762})
_put("REVENUE", "ACME_HK", {"2025Q3": 790})
_put("OPERATING_PROFIT", "ACME_HK", _years(820, 865, 910, 968, 1052))
_put("NET_PROFIT", "ACME_HK", _years(690, 702, 745, 801, 872))
_put("NBV", "ACME_HK", _years(1150, 1080, 1236, 1398, 1562))
_put("NBV", "ACME_HK", {"2024H1": 684, "2025H1": 745, "2024Q1": 332, "2025Q1": 364})
_put("NBV", "ACME_HK", {"2024Q3": 352, "2025Q2": 381, "2025Q3": 401})
_put("NBV_MARGIN", "ACME_HK", _years(55.2, 53.8, 56.1, 57.4, 58.0))
_put("NBV_MARGIN", "ACME_HK", {"2024H1": 56.8, "2025H1": 57.9})
_put("EMBEDDED_VALUE", "ACME_HK", _years(10100, 10650, 11400, 12500, 13500))
_put("AGENT_COUNT", "ACME_HK", _years(11800, 12150, 12600, 13240, 14020))
_put("NBV", "ACME_HK", {"FY2024": 812, "FY2025": 921}, "AGENCY")
_put("NBV", "ACME_HK", {"FY2024": 356, "FY2025": 389}, "BANCA")
_put("NBV", "ACME_HK", {"FY2024": 148, "FY2025": 160}, "BROKER")
_put("NBV", "ACME_HK", {"FY2024": 82, "FY2025": 92}, "DIGITAL")

# Mainland China
_put("REVENUE", "ACME_CN", _years(1050, 1120, 1205, 1320, 1436))
_put("REVENUE", "ACME_CN", {"2024H1": 640, "2025H1": 702})
_put("REVENUE", "ACME_CN", {"2024Q3": 328, "2025Q2": 351, "2025Q3": 372})
_put("OPERATING_PROFIT", "ACME_CN", _years(260, 238, 275, 301, 334))
_put("OPERATING_PROFIT", "ACME_CN", {"2024H1": 142, "2025H1": 158})
_put("NET_PROFIT", "ACME_CN", _years(198, 176, 210, 232, 259))
_put("NET_PROFIT", "ACME_CN", {"2024H1": 108, "2025H1": 121})
_put("NBV", "ACME_CN", _years(420, 365, 398, 455, 508))
_put("NBV", "ACME_CN", {"2025Q2": 118, "2025Q3": 127})

# Macau
_put("REVENUE", "ACME_MO", _years(330, 298, 365, 410, 446))
_put("REVENUE", "ACME_MO", {"2024H1": 198, "2025H1": 215})
_put("OPERATING_PROFIT", "ACME_MO", _years(38, 20, 45, 52, 61))
_put("NET_PROFIT", "ACME_MO", _years(30, 12, -45, 38, 47))
_put("NET_PROFIT", "ACME_MO", {"2024H1": 16, "2025H1": 21})

# Group (HK + CN + MO for the flow metrics)
_put("REVENUE", "ACME_GROUP", _years(3790, 3948, 4260, 4580, 4987))
_put("REVENUE", "ACME_GROUP", {"2024Q3": 1153, "2025Q2": 1225})
_put("OPERATING_PROFIT", "ACME_GROUP", _years(1118, 1123, 1230, 1321, 1447))
_put("NET_PROFIT", "ACME_GROUP", _years(918, 890, 910, 1071, 1178))
_put("ROE", "ACME_GROUP", _years(12.4, 11.1, 11.8, 12.6, 13.5))
_put("NBV", "ACME_GROUP", {"FY2024": 1933, "FY2025": 2165})  # board minutes only

# FY2019 and FY2020, stated only by the regression documents (corpus_shapes)
_put("OPERATING_PROFIT", "ACME_GROUP", {"FY2019": 1005, "FY2020": 1062})
_put("EMBEDDED_VALUE", "ACME_GROUP", {"FY2019": 21400, "FY2020": 22350})
_put("OPERATING_PROFIT", "ACME_MO", {"FY2019": 41, "FY2020": 33})
_put("NET_PROFIT", "ACME_MO", {"FY2019": 34, "FY2020": 22})
_put("AGENT_COUNT", "ACME_MO", {"FY2019": 2010, "FY2020": 2050})
_put("NBV", "ACME_MO", {"FY2019": 88, "FY2020": 79})
_put("AGENT_COUNT", "ACME_CN", {"FY2019": 1998, "FY2020": 2046})
_put("OPERATING_PROFIT", "ACME_CN", {"FY2019": 245, "FY2020": 251})
_put("EMBEDDED_VALUE", "ACME_CN", {"FY2019": 6120, "FY2020": 6480})


def figure(metric: str, entity: str, period: str, channel: str = "TOTAL") -> float:
    return FIGURES[(metric, entity, channel, period)]


def series(
    metric: str,
    entity: str,
    periods: Iterable[str],
    channel: str = "TOTAL",
    *,
    percent: bool = False,
) -> tuple[Val, ...]:
    """The true values of one metric over ``periods`` as value cells."""
    return tuple(Val(figure(metric, entity, p, channel), percent=percent) for p in periods)
