"""The peak memory of one child process, measured by the child itself.

``ru_maxrss`` does not do: Linux carries the high-water mark of the forking parent's address
space across fork and exec, so a child started late in a test session reports the pytest
process's size. ``VmHWM`` in ``/proc/self/status`` belongs to the address space exec made.
"""

from __future__ import annotations

from pathlib import Path

ENV_NAME = "RAGSPINE_PEAK_RSS_FILE"

# ``python -c WRAPPER MODULE ARGS...`` runs ``python -m MODULE ARGS...`` and, on the way out
# (exit code or exception alike), writes its peak resident set in KiB to $RAGSPINE_PEAK_RSS_FILE.
WRAPPER = f"""
import atexit, os, runpy, sys

def _report():
    with open("/proc/self/status", encoding="ascii") as status:
        kib = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(os.environ["{ENV_NAME}"], "w", encoding="ascii") as out:
        out.write(kib)

atexit.register(_report)
module, sys.argv = sys.argv[1], sys.argv[1:]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def read_peak_bytes(path: Path) -> int:
    """What the wrapper wrote, in bytes."""
    return int(path.read_text(encoding="ascii")) * 1024


def peak_env(path: Path) -> dict[str, str]:
    """The variable that makes a child record its peak RSS in ``path`` (merge it into the
    child's environment)."""
    return {ENV_NAME: str(path)}
