"""Importing ragspine loads no profile: every profile is loaded by an entry point and passed down.

A module that loaded the shipped example at import time would hand that one company's
vocabulary to every caller, whatever profile they pass. The check runs in a fresh interpreter
so that nothing this test session already loaded can hide or fake a load.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

# Counts every load through the loader (cached example or any path), then imports every module.
SCRIPT = textwrap.dedent(
    """
    import importlib, json, pkgutil

    from ragspine.profile import loader

    loads = []
    load = loader._load

    def counting(path):
        loads.append(str(path))
        return load(path)

    loader._load = counting

    import ragspine

    def fail(name):
        raise ImportError(f"cannot import {name}")

    modules = ["ragspine"]
    for info in pkgutil.walk_packages(ragspine.__path__, "ragspine.", onerror=fail):
        importlib.import_module(info.name)
        modules.append(info.name)
    print(json.dumps({
        "modules": modules,
        "loads": loads,
        "cached": loader._example_profile.cache_info().currsize,
    }))
    """
)


def test_importing_every_module_loads_no_profile() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    # The walk reached the leaves, not just the top package.
    assert {"ragspine.cli", "ragspine.agent.query_tools", "ragspine.profile.glossary"} <= set(
        report["modules"]
    )
    assert report["loads"] == []
    assert report["cached"] == 0
