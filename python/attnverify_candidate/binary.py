"""Finding and running the attnverify binary: $ATTNVERIFY_BIN, else `attnverify` on PATH,
else the one the wheel installed beside this Python (the environment's scripts folder, for
a virtual environment that is not activated).

The Python side never judges anything itself: `attnverify cases --export` writes the
cases and `attnverify judge` applies the rules (doc/python.md).
"""
import os
import shutil
import subprocess
import sysconfig


class BinaryNotFound(RuntimeError):
    pass


def find_binary():
    """The attnverify executable: $ATTNVERIFY_BIN when set, else `attnverify` on PATH."""
    env = os.environ.get("ATTNVERIFY_BIN")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return os.path.abspath(env)
        raise BinaryNotFound("ATTNVERIFY_BIN=%s is not an executable file" % env)
    found = shutil.which("attnverify")
    if found:
        return found
    # pip install of the wheel puts the binary into the environment's scripts folder, which
    # is on PATH only while the environment is activated.
    beside = os.path.join(sysconfig.get_path("scripts"), "attnverify")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    raise BinaryNotFound(
        "attnverify is not on PATH and ATTNVERIFY_BIN is not set: build it (scripts/build) "
        "and put build/attnverify on PATH, or export ATTNVERIFY_BIN=/path/to/attnverify, or "
        "pip install the wheel (scripts/wheel, doc/install.md)")


def run(args, timeout=None):
    """Runs attnverify with argv `args` (no shell); returns subprocess.CompletedProcess."""
    return subprocess.run([find_binary()] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
