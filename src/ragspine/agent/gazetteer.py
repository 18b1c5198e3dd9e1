"""Places that are not in any profile's vocabulary unless the profile says so.

A question about one of these (when the profile does not map it to an entity) is never
answered with the home entity's number; the agent asks which entity instead. Generic
geography only — never a company name.
"""

from __future__ import annotations

from ragspine.profile.matching import AliasEntry, AliasMatcher, alias_key

PLACES = (
    "新加坡",
    "Singapore",
    "马来西亚",
    "Malaysia",
    "泰国",
    "Thailand",
    "印尼",
    "印度尼西亚",
    "Indonesia",
    "越南",
    "Vietnam",
    "菲律宾",
    "Philippines",
    "日本",
    "Japan",
    "韩国",
    "Korea",
    "South Korea",
    "台湾",
    "Taiwan",
    "印度",
    "India",
    "美国",
    "USA",
    "United States",
    "America",
    "英国",
    "United Kingdom",
    "Britain",
    "欧洲",
    "Europe",
    "澳大利亚",
    "澳洲",
    "Australia",
    "新西兰",
    "New Zealand",
    "加拿大",
    "Canada",
    "德国",
    "Germany",
    "法国",
    "France",
    "上海",
    "Shanghai",
    "北京",
    "Beijing",
    "深圳",
    "Shenzhen",
    "广州",
    "Guangzhou",
    "东南亚",
    "Southeast Asia",
    "亚太",
    "Asia Pacific",
    "中东",
    "Middle East",
    "柬埔寨",
    "Cambodia",
    "缅甸",
    "Myanmar",
    "斯里兰卡",
    "Sri Lanka",
    "文莱",
    "Brunei",
    "拉美",
    "Latin America",
)


def place_matcher(known_aliases: set[str]) -> AliasMatcher:
    """Places minus anything the profile already knows as one of its own aliases."""
    return AliasMatcher(
        AliasEntry(p, "place", p) for p in PLACES if alias_key(p) not in known_aliases
    )
