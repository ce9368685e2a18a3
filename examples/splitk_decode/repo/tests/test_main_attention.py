"""The workflow's pytest command for this repository's split-k MLA decode kernel:

    python -m pytest -q tests/test_main_attention.py \
        --shapes attention-verify/config/shapes.json \
        --tolerances attention-verify/config/tolerances.json

(pip install ./python from the attnverify checkout gives the plugin; attnverify on PATH or
ATTNVERIFY_BIN.) Each case of the sweep is one test: the CPU twin of the kernel
(build/cpu_twin, compiled once, as [candidate] prepare does) runs on that case's folder
and attnverify judges its outputs; the session writes attention-verify/evidence/numerics.json.
"""
import json
import os
import subprocess

import pytest

from attnverify_candidate import read_safetensors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TWIN = os.path.join(ROOT, "build", "cpu_twin")


@pytest.fixture(scope="session")
def cpu_twin():
    subprocess.run(["c++", "-O2", "-std=c++17", "-I", "src", "-o", TWIN,
                    "src/flash_mla/cpu_twin.cc"], cwd=ROOT, check=True)
    return TWIN


def test_main_attention(av_case, cpu_twin, tmp_path):
    index = tmp_path / "cases.json"
    index.write_text(json.dumps({"schema": "attnverify.cases/1", "cases": [
        {"id": av_case.id, "op": av_case.op, "dir": av_case.dir, "out_dir": av_case.out_dir}]}))
    subprocess.run([cpu_twin, str(index)], check=True)
    outputs, metadata = read_safetensors(os.path.join(av_case.out_dir, "outputs.safetensors"))
    av_case.check(outputs, metadata)
