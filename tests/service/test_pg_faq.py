"""FAQ items in PostgreSQL: the published set round-trips the FAQ file, serves exactly as the
file does, reaches another process within its reload interval, and `ragspine faq publish` /
`ragspine faq check --database-url` publish and compare it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.faq.faq_cache import FaqCache
from ragspine.service.faq.items import FaqItem, load_faq_items

DAYS = (date(2020, 1, 1), date(2026, 11, 26), date(2031, 6, 30))


@pytest.fixture(scope="module")
def acme() -> DomainProfile:
    return load_profile()


@pytest.fixture
def store(postgres_database: tuple[str, str]) -> Iterator[object]:
    from ragspine.service.faq.pg_faq import PostgresFaqStore

    url, schema = postgres_database
    with PostgresFaqStore(url, schema=schema) as faq_store:
        yield faq_store


def _file_items(profile: DomainProfile) -> tuple[FaqItem, ...]:
    assert profile.faq_path is not None
    return load_faq_items(profile.faq_path)


def _unlined(items: tuple[FaqItem, ...]) -> list[FaqItem]:
    """The items without their file line (a published item has none)."""
    return [dataclasses.replace(item, line=0) for item in items]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_published_items_are_the_files_and_serve_alike(acme: DomainProfile, store: object) -> None:
    from ragspine.service.faq.pg_faq import PostgresFaqStore, PublishedFaq

    assert isinstance(store, PostgresFaqStore)
    items = _file_items(acme)
    assert items and any(i.aliases for i in items) and any(i.valid_until for i in items)
    assert store.publication() is None and store.items() == ()
    store.publish(items, source="acme_faq.toml")
    assert list(store.items()) == _unlined(items)
    source, count, _ = store.publication() or ("", 0, "")
    assert (source, count) == ("acme_faq.toml", len(items))
    from_file = FaqCache.from_profile(acme)
    published = PublishedFaq(store, acme)
    wordings = [text for item in items for text in item.texts]
    for text in wordings:
        for clearance in Sensitivity:
            for day in DAYS:
                assert published.current().decide(
                    text, clearance=clearance, today=day
                ) == from_file.decide(text, clearance=clearance, today=day), text
    assert any(
        published.lookup(t, clearance=Sensitivity.RESTRICTED, today=DAYS[1]) for t in wordings
    )


def test_a_publish_reaches_another_process_within_its_reload_interval(
    acme: DomainProfile, store: object, postgres_database: tuple[str, str]
) -> None:
    from ragspine.service.faq.pg_faq import PostgresFaqStore, PublishedFaq

    assert isinstance(store, PostgresFaqStore)
    items = _file_items(acme)
    first = next(i for i in items if i.enabled and i.sensitivity is not Sensitivity.RESTRICTED)
    ask = {"clearance": Sensitivity.CONFIDENTIAL, "today": DAYS[1]}
    clock = Clock()
    url, schema = postgres_database
    with PostgresFaqStore(url, schema=schema) as other_process:
        serving = PublishedFaq(other_process, acme, reload_seconds=1.0, clock=clock)
        # Nothing published yet: the process serves its own profile's file.
        hit = serving.lookup(first.question, **ask)  # type: ignore[arg-type]
        assert hit is not None and hit.answer == first.answer
        changed = dataclasses.replace(first, answer="A newer vetted answer.", version="v9")
        store.publish([changed if i is first else i for i in items], source="edited.toml")
        clock.now = 0.5  # within the interval: the set read last is still served
        hit = serving.lookup(first.question, **ask)  # type: ignore[arg-type]
        assert hit is not None and hit.answer == first.answer
        clock.now = 1.0
        hit = serving.lookup(first.question, **ask)  # type: ignore[arg-type]
        assert hit is not None and (hit.answer, hit.version) == ("A newer vetted answer.", "v9")
        store.publish([], source="empty.toml")  # an empty set switches the FAQ off
        clock.now = 2.0
        assert serving.lookup(first.question, **ask) is None  # type: ignore[arg-type]


def test_publish_and_check_on_the_command_line(
    acme: DomainProfile, postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    url, schema = postgres_database
    target = ["--database-url", url, "--schema", schema]
    runner = CliRunner()
    before = runner.invoke(app, ["faq", "check", *target])
    assert before.exit_code == 1 and "no FAQ published" in before.output
    published = runner.invoke(app, ["faq", "publish", *target])
    assert published.exit_code == 0, published.output
    count = len(_file_items(acme))
    assert f"published {count} items" in published.output
    checked = runner.invoke(app, ["faq", "check", *target])
    assert checked.exit_code == 0, checked.output
    assert f"{count} items published from acme_faq.toml" in checked.output
    assert "the same items" in checked.output
    assert acme.faq_path is not None
    broken = tmp_path / "broken.toml"
    broken.write_text(acme.faq_path.read_text(encoding="utf-8") + "\n[[faq]]\nid = 'x'\n")
    refused = runner.invoke(app, ["faq", "publish", str(broken), *target])
    assert refused.exit_code == 1 and "broken.toml:" in refused.output
    fewer = tmp_path / "fewer.toml"
    text = acme.faq_path.read_text(encoding="utf-8")
    fewer.write_text(text[: text.rindex("[[faq]]")], encoding="utf-8")
    differs = runner.invoke(app, ["faq", "check", str(fewer), *target])
    assert differs.exit_code == 1 and "other items" in differs.output
