from __future__ import annotations

import sys

import pytest

from ragspine.optional import import_optional, install_hint


def test_an_installed_module_is_returned() -> None:
    assert import_optional("json", extra="unused") is sys.modules["json"]


def test_a_missing_module_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "some_sdk", None)

    with pytest.raises(ImportError, match=r"^some_sdk is not installed") as caught:
        import_optional("some_sdk", extra="llm")

    assert str(caught.value).endswith(install_hint("llm"))
    assert install_hint("llm") == "pip install 'ragspine[llm]'"
    assert isinstance(caught.value.__cause__, ImportError)
