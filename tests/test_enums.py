"""ParseableEnum: one forgiving parser for every closed set, with one error wording."""

from __future__ import annotations

import pytest

from ragspine.enums import ParseableEnum
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.tokenizer import TokenizerMode
from ragspine.retrieval.vectors import Engine
from ragspine.storage.facts import ReviewStatus


class Colour(ParseableEnum, label="colour"):
    RED = "red"
    DARK_BLUE = "Dark Blue"


def test_a_member_passes_through() -> None:
    assert Colour.parse(Colour.RED) is Colour.RED


@pytest.mark.parametrize(
    ("raw", "member"),
    [
        ("red", Colour.RED),
        ("RED", Colour.RED),
        ("  Red\n", Colour.RED),
        ("dark blue", Colour.DARK_BLUE),
        ("Dark Blue", Colour.DARK_BLUE),
    ],
)
def test_values_match_ignoring_case_and_surrounding_spaces(raw: str, member: Colour) -> None:
    assert Colour.parse(raw) is member


def test_member_names_are_not_values() -> None:
    with pytest.raises(ValueError, match="unknown colour 'DARK_BLUE'"):
        Colour.parse("DARK_BLUE")


def test_the_error_names_the_label_the_input_and_every_option() -> None:
    with pytest.raises(ValueError) as err:
        Colour.parse(" green ")
    assert str(err.value) == "unknown colour ' green '; valid options: red, Dark Blue"


@pytest.mark.parametrize("raw", [None, 3, ["red"]])
def test_a_non_string_is_a_value_error(raw: object) -> None:
    with pytest.raises(ValueError, match="valid options: red, Dark Blue"):
        Colour.parse(raw)  # type: ignore[arg-type]


def test_a_subclass_must_name_itself() -> None:
    with pytest.raises(TypeError, match="label"):

        class Unnamed(ParseableEnum):
            ONE = "one"


@pytest.mark.parametrize(
    ("enum", "raw", "member", "message"),
    [
        (Sensitivity, " internal ", Sensitivity.INTERNAL, "unknown sensitivity 'TOP'"),
        (TokenizerMode, "JIEBA", TokenizerMode.JIEBA, "unknown tokenizer mode 'TOP'"),
        (Engine, "numpy", Engine.NUMPY, "unknown vector engine 'TOP'"),
        (ReviewStatus, "Approved", ReviewStatus.APPROVED, "unknown review status 'TOP'"),
    ],
)
def test_the_converted_enums_keep_their_wording(
    enum: type[ParseableEnum], raw: str, member: ParseableEnum, message: str
) -> None:
    assert enum.parse(raw) is member
    with pytest.raises(ValueError, match=message):
        enum.parse("TOP")
