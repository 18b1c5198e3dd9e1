from __future__ import annotations

import sys

import pytest

from ragspine.errors import UsageError
from ragspine.llm.factory import ProviderName, build_provider
from ragspine.llm.mock import MockProvider


def test_mock_is_built_without_options() -> None:
    assert isinstance(build_provider(ProviderName.MOCK), MockProvider)


@pytest.mark.parametrize("option", [{"model": "m"}, {"base_url": "http://127.0.0.1:1/v1"}])
def test_mock_rejects_model_and_base_url(option: dict[str, str]) -> None:
    with pytest.raises(UsageError, match="--model and --base-url apply only"):
        build_provider(ProviderName.MOCK, **option)


@pytest.mark.parametrize("name", [ProviderName.OPENAI, ProviderName.ANTHROPIC])
def test_missing_sdk_is_a_usage_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, name: ProviderName
) -> None:
    monkeypatch.setitem(sys.modules, name.value, None)

    with pytest.raises(UsageError, match=r"pip install 'ragspine\[llm\]'"):
        build_provider(name)
