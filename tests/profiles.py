"""The profiles tests use: the shipped ACME example and invented companies that are not ACME.

Code under test receives its profile explicitly; these are the one place tests get theirs.
"""

from __future__ import annotations

from pathlib import Path

from ragspine.profile.glossary import Glossary, glossary_for
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile

INITECH_PATH = Path(__file__).parent / "data" / "initech.toml"
LAKESIDE_PATH = Path(__file__).parent / "data" / "lakeside.toml"
SOLO_PATH = Path(__file__).parent / "data" / "solo.toml"


def acme() -> DomainProfile:
    """The shipped example profile (one object per process: its compiled matchers are shared)."""
    return load_profile()


def acme_glossary() -> Glossary:
    return glossary_for(acme())


def initech() -> DomainProfile:
    """A fresh Initech profile: fiscal year ending in March, default channel DIRECT."""
    return load_profile(INITECH_PATH)


def lakeside() -> DomainProfile:
    """Lakeside Outfitters: three entities with short names, a row label that holds another."""
    return load_profile(LAKESIDE_PATH)


def solo() -> DomainProfile:
    """Pinecrest Mutual: a company with a single entity."""
    return load_profile(SOLO_PATH)
