"""Well-made public-style models come out of ``diagnose`` without a false warning.

``tests/data/corpus/*.xml`` are MJCF files written for these tests the way Menagerie writes
its robots (joint ``actuatorfrcrange``, servos with ``forcerange``, motors bounded by
``ctrlrange``, rubber feet with a soft ``solimp`` and real rolling friction, free-floating bases
with keyframes, tendon and site transmissions, a URDF-style massless link). Each one is
diagnosed as a user would, ``--fail-on warning``, from its default pose and from each keyframe.
"""

from __future__ import annotations

from pathlib import Path

import mujoco
import pytest

from mjscope.cli import main

CORPUS = Path(__file__).parent / "data" / "corpus"
MODELS = sorted(CORPUS.glob("*.xml"))


def test_the_corpus_is_there():
    assert len(MODELS) >= 4, MODELS


def _runs() -> list[tuple[str, list[str]]]:
    out = []
    for path in MODELS:
        out.append((path.stem, [str(path)]))
        m = mujoco.MjModel.from_xml_path(str(path))
        for k in range(m.nkey):
            out.append((f"{path.stem}@{m.key(k).name}", [str(path), "--key", m.key(k).name]))
    return out


@pytest.mark.parametrize(("label", "args"), _runs(), ids=[r[0] for r in _runs()])
def test_no_warning_and_no_error(label, args, capsys):
    rc = main(["diagnose", *args, "--fail-on", "warning", "--quiet"])
    out = capsys.readouterr().out
    loud = [line for line in out.splitlines() if line.startswith(("warning:", "error:"))]
    assert rc == 0 and loud == [], out
    assert out.splitlines()[-1] == "OK: 0 errors, 0 warnings"


def test_the_corpus_exercises_what_used_to_raise_false_alarms():
    """The files really contain the constructs the rules got wrong (else the test above is
    empty): joint torque limits, motors and servos without forcerange, soft rolling feet,
    keyframes of free bases, tendon/site transmissions, a massless link."""
    seen: dict[str, int] = {}

    def add(key: str, n: int) -> None:
        seen[key] = seen.get(key, 0) + int(n)

    for path in MODELS:
        m = mujoco.MjModel.from_xml_path(str(path))
        add("joint actuatorfrcrange", m.jnt_actfrclimited.sum())
        add("actuators without forcerange", (~m.actuator_forcelimited.astype(bool)).sum())
        add(
            "condim 6 with rolling friction",
            ((m.geom_condim == 6) & (m.geom_friction[:, 2] > 0.005)).sum(),
        )
        add("soft solimp width", (m.geom_solimp[:, 2] > 0.01).sum())
        add(
            "free base with keyframe",
            m.nkey if (m.jnt_type == mujoco.mjtJoint.mjJNT_FREE).any() else 0,
        )
        add(
            "tendon/site transmission",
            (m.actuator_trntype >= int(mujoco.mjtTrn.mjTRN_SLIDERCRANK)).sum(),
        )
        add("tiny massless link", ((m.body_mass > 0) & (m.body_mass < 1e-5)).sum())
    assert all(v > 0 for v in seen.values()), seen
