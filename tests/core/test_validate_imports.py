"""``skill-studio validate <one skill>`` loads only what checking a skill as the reference does
needs: not the lints, the lenient profile, the steps reader, the tool files' checks, JSON, the
script runner's commands, nor the flow collections' patterns (compiled when one is first met).
Each case runs in a fresh interpreter (this test process has loaded everything already)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "resources" / "samples" / "csv-cleanup"

NOT_FOR_STRICT = ["skill_studio.core.format.lints", "skill_studio.core.format.lenient",
                  "skill_studio.core.format.steps", "skill_studio.core.format.tool_files",
                  "skill_studio.core.format.tool_schema", "skill_studio.cli.runtime", "json", "textwrap"]

PROBE = """
import contextlib, io, sys
from skill_studio.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main({argv!r})
loaded = sorted(sys.modules)
from skill_studio.core.format import strict_yaml_flow
import json
print(json.dumps({{"code": code, "loaded": loaded, "flow_compiled": strict_yaml_flow._patterns.cache_info().currsize}}))
"""


def _run(argv: list[str]) -> dict:
    # (the probe loads json only after the command ran and the modules were listed)
    out = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_validating_one_skill_strictly_loads_no_more_than_it_needs():
    data = _run(["validate", str(SAMPLE)])
    assert data["code"] == 0
    assert sorted(set(data["loaded"]) & set(NOT_FOR_STRICT)) == []
    assert data["flow_compiled"] == 0


@pytest.mark.parametrize(("argv", "module"), [
    (["validate", "--lints", str(SAMPLE)], "skill_studio.core.format.lints"),
    (["validate", "--profile", "lenient", str(SAMPLE)], "skill_studio.core.format.lenient"),
    (["validate", "--json", str(SAMPLE)], "json"),
])
def test_what_an_option_asks_for_is_loaded_when_asked(argv, module):
    data = _run(argv)
    assert data["code"] == 0 and module in data["loaded"]
