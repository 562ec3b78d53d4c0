"""The episode around a rollout: reset, step counts, divergence, free bodies' heights.

:func:`reset` always ends with ``mj_forward``; :func:`divergence_info` names the first
BADQPOS/BADQVEL/BADQACC with its time, DOF and joint; MuJoCo's warning text goes to
``logging`` (:func:`mujoco_warnings_to_logging`).
"""

from __future__ import annotations

import contextlib
import logging
import math
import warnings
from collections.abc import Iterator
from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.names import body_name, joint_name
from mjscope.diagnose.probes import DIVERGENCE, WARNING_NAMES
from mjscope.exceptions import ConfigError

logger = logging.getLogger("mjscope.diagnose.rollout")


_COLLECTORS: list[list[str]] = []  # open collect_mujoco_warnings() lists, innermost last


@contextlib.contextmanager
def mujoco_warnings_to_logging() -> Iterator[None]:
    """Route MuJoCo's warning text to ``logging`` (not ``MUJOCO_LOG.TXT`` in the cwd).

    Logged at INFO (``-v`` shows it): the report already carries every warning, as its
    counters and the DIVERGED / MUJOCO_WARNING findings. Each message also goes to every
    open :func:`collect_mujoco_warnings` list.
    """
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(_handle)
    try:
        yield
    finally:
        mujoco.set_mju_user_warning(previous)


def _handle(msg: str) -> None:
    logger.info("MuJoCo: %s", msg)
    for sink in _COLLECTORS:
        sink.append(str(msg))


@contextlib.contextmanager
def collect_mujoco_warnings() -> Iterator[list[str]]:
    """Capture MuJoCo's warning messages (compiler and runtime) into a list, not stderr.

    Both channels: ``mju_user_warning`` (the engine, ``MjModel.from_xml_*``) and the Python
    ``UserWarning`` that ``MjSpec.compile`` turns compiler warnings into.
    """
    sink: list[str] = []
    _COLLECTORS.append(sink)
    try:
        with mujoco_warnings_to_logging(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            yield sink
        for w in caught:
            if issubclass(w.category, UserWarning):
                _handle(str(w.message))
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    finally:
        _COLLECTORS.remove(sink)


KEY_AUTO = "auto"
KEY_NONE = "none"


def reset(model: mujoco.MjModel, data: mujoco.MjData, key: str | None = None) -> None:
    """Reset to ``qpos0`` or a keyframe, then ``mj_forward`` so derived quantities match.

    Args:
        model: The model.
        data: The data to reset.
        key: ``auto`` (the first keyframe when there is one, else ``qpos0``), ``none`` or
            ``None`` (``qpos0``), a keyframe name or index.

    Raises:
        ConfigError: ``key`` is not a keyframe of the model.
    """
    k = resolve_key(model, key)
    if k is None:
        mujoco.mj_resetData(model, data)
    else:
        mujoco.mj_resetDataKeyframe(model, data, k)
    mujoco.mj_forward(model, data)


def resolve_key(model: mujoco.MjModel, key: str | None) -> int | None:
    """The keyframe index ``--key`` means (``None``: start at ``qpos0``).

    Raises:
        ConfigError: ``key`` names no keyframe.
    """
    if key is None or key.lower() == KEY_NONE:
        return None
    if key.lower() == KEY_AUTO:
        return 0 if model.nkey else None
    return key_id(model, key)


def key_label(model: mujoco.MjModel, k: int | None) -> str:
    """How the report names a start: ``keyframe 'home'``, ``keyframe #1`` or ``qpos0``."""
    if k is None:
        return "qpos0"
    name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_KEY, k)
    return f"keyframe '{name}'" if name else f"keyframe #{k}"


def key_id(model: mujoco.MjModel, key: str) -> int:
    """Keyframe index from a name or an index string.

    Raises:
        ConfigError: ``key`` names no keyframe.
    """
    names = [
        mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_KEY, k) or str(k) for k in range(model.nkey)
    ]
    if key in names:
        return names.index(key)
    if key.isdigit() and int(key) < model.nkey:
        return int(key)
    raise ConfigError(
        f"keyframe {key!r} not in the model; known: {names or '(none)'}; "
        "use --key auto (the first keyframe, or qpos0), none (qpos0), a name or an index"
    )


def free_body_heights(model: mujoco.MjModel, data: mujoco.MjData) -> dict[str, float]:
    """Height [m] of each free-floating body (a free joint of its own), by name."""
    free = np.flatnonzero(model.jnt_type == mujoco.mjtJoint.mjJNT_FREE)
    bodies = [int(model.jnt_bodyid[j]) for j in free]
    return {body_name(model, b): float(data.xpos[b, 2]) for b in bodies}


def divergence_info(model: mujoco.MjModel, data: mujoco.MjData) -> dict[str, Any] | None:
    """Time, kind, DOF and joint of the first divergence warning, or ``None``."""
    for name in reversed(DIVERGENCE):  # MuJoCo's own order: BADQACC, BADQVEL, BADQPOS
        k = WARNING_NAMES.index(name)
        if data.warning.number[k] == 0:
            continue
        idx = int(data.warning.lastinfo[k])
        if name == "badqpos":
            jnt = (
                int(np.searchsorted(model.jnt_qposadr, idx, side="right") - 1) if model.njnt else -1
            )
            dof_label = f"qpos[{idx}]"
        else:
            jnt = int(model.dof_jntid[idx]) if 0 <= idx < model.nv else -1
            dof_label = f"DOF {idx}"
        return {
            "kind": name.upper(),
            "time": float(data.time),
            "index": idx,
            "where": dof_label,
            "joint": joint_name(model, jnt) if jnt >= 0 else "(unknown)",
        }
    return None


def steps_for(model: mujoco.MjModel, steps: int | None, duration: float | None) -> int:
    """Step count from ``--steps`` or ``--duration`` [s] (default 2000 steps).

    Raises:
        ConfigError: ``steps`` < 1, ``duration`` ≤ 0, or a duration with a timestep ≤ 0.
    """
    if duration is not None:
        if not 0 < duration < math.inf:
            raise ConfigError(f"--duration {duration!r} must be a finite number > 0 [s]")
        h = float(model.opt.timestep)  # [s]
        if not h > 0:
            raise ConfigError(
                f"--duration needs a timestep > 0, the model's is {h:g} s; fix it or pass --steps"
            )
        return max(1, math.ceil(duration / h - 1e-9))
    return check_steps(2000 if steps is None else steps)


def check_steps(steps: int) -> int:
    """``steps`` itself when it is a valid ``--steps`` (≥ 1).

    Raises:
        ConfigError: ``steps`` < 1.
    """
    if steps < 1:
        raise ConfigError(f"--steps {steps!r} must be ≥ 1")
    return steps
