"""The diagnose rollout: reset (always followed by ``mj_forward``), control, step, record.

Autoreset is disabled so a diverged state can be reported: the loop stops at the first
BADQPOS/BADQVEL/BADQACC warning with the time, DOF and joint name, and everything recorded so
far is still written.

Ctrl-C (or SIGTERM, see :func:`~mjscope.diagnose.outputs.sigterm_as_interrupt`) during the
loop: the whole rows recorded so far are written to the partial CSV, the writer process is
stopped and :class:`~mjscope.diagnose.outputs.Interrupted` names the partial file; an earlier
CSV of the target name is never replaced by a partial one.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.controls import CTRL_MODES, hold_ctrl, noise_source
from mjscope.diagnose.names import joint_name
from mjscope.diagnose.outputs import Interrupted
from mjscope.diagnose.probes import (
    DIVERGENCE,
    WARNING_NAMES,
    ContactProbe,
    EnergyProbe,
    ForceProbe,
    InverseProbe,
    Probe,
    SensorProbe,
    SolverProbe,
    StateProbe,
    WarningProbe,
)
from mjscope.diagnose.recording import Recorder
from mjscope.exceptions import ConfigError, OutputError

logger = logging.getLogger(__name__)


@contextlib.contextmanager
def mujoco_warnings_to_logging() -> Iterator[None]:
    """Route MuJoCo's warning text to ``logging`` (not ``MUJOCO_LOG.TXT`` in the cwd).

    Logged at INFO (``-v`` shows it): the report already carries every warning, as its
    counters and the DIVERGED / MUJOCO_WARNING findings.
    """
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda msg: logger.info("MuJoCo: %s", msg))
    try:
        yield
    finally:
        mujoco.set_mju_user_warning(previous)


@dataclass(frozen=True)
class RolloutCfg:
    """How to run the rollout.

    Attributes:
        steps: Number of ``mj_step`` calls.
        ctrl: ``zero``, ``hold`` (servo targets at the initial pose) or ``noise`` (seeded,
            uniform over ``ctrlrange`` scaled by ``noise_scale``; ±1 when unlimited).
        seed: Noise seed.
        noise_scale: Fraction of the half ctrlrange used by ``noise`` [1].
        key: Keyframe name or index to reset to (``None``: ``qpos0``).
        inverse: Also record the forward/inverse consistency (costly).
        csv: CSV path (``None``: no file).
        block_rows: Recorder block size.
    """

    steps: int = 2000
    ctrl: str = "zero"
    seed: int = 0
    noise_scale: float = 1.0
    key: str | None = None
    inverse: bool = False
    csv: str | Path | None = None
    block_rows: int = 4096


@dataclass
class RolloutResult:
    """What a rollout produced (all JSON-ready except ``preview``)."""

    steps_done: int
    time: float
    columns: list[dict[str, Any]]
    probes: dict[str, Any]
    warnings: dict[str, int]
    divergence: dict[str, Any] | None
    final_data: mujoco.MjData
    preview: np.ndarray
    header: list[str] = field(default_factory=list)


def default_probes(inverse: bool = False) -> list[Probe]:
    """The probes ``mjscope diagnose`` records, in CSV column order."""
    probes: list[Probe] = [StateProbe(), ContactProbe(), SolverProbe(), ForceProbe(), EnergyProbe()]
    if inverse:
        probes.append(InverseProbe())
    probes += [WarningProbe(), SensorProbe()]
    return probes


def reset(model: mujoco.MjModel, data: mujoco.MjData, key: str | None = None) -> None:
    """Reset to ``qpos0`` or a keyframe, then ``mj_forward`` so derived quantities match.

    Raises:
        ConfigError: ``key`` is not a keyframe of the model.
    """
    if key is None:
        mujoco.mj_resetData(model, data)
    else:
        mujoco.mj_resetDataKeyframe(model, data, key_id(model, key))
    mujoco.mj_forward(model, data)


def key_id(model: mujoco.MjModel, key: str) -> int:
    """Keyframe index from a name or an index string."""
    names = [
        mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_KEY, k) or str(k) for k in range(model.nkey)
    ]
    if key in names:
        return names.index(key)
    if key.isdigit() and int(key) < model.nkey:
        return int(key)
    raise ConfigError(f"keyframe {key!r} not in the model; known: {names or '(none)'}")


def run_rollout(
    model: mujoco.MjModel, cfg: RolloutCfg, probes: list[Probe] | None = None
) -> RolloutResult:
    """Run the rollout and stream the recording.

    The model's option flags are changed: autoreset off, energy on, fwdinv on with
    ``cfg.inverse``.

    Args:
        model: The compiled model (edited in place as above).
        cfg: Rollout settings.
        probes: Probes to record (default :func:`default_probes`).

    Returns:
        The result; ``divergence`` is set when the simulation went unstable.

    Raises:
        ConfigError: Unknown ``ctrl`` mode, bad ``noise_scale`` or keyframe.
        Interrupted: Ctrl-C (or SIGTERM made an interrupt) during the loop; it names the
            partial CSV, and the earlier ``cfg.csv`` is unchanged.
        OutputError: The CSV cannot be written; the message names the partial file.
    """
    if cfg.ctrl not in CTRL_MODES:
        raise ConfigError(f"--ctrl {cfg.ctrl!r} is not one of {', '.join(CTRL_MODES)}")
    if not 0.0 <= cfg.noise_scale < math.inf:  # NaN fails too
        raise ConfigError(f"--noise-scale {cfg.noise_scale!r} must be a finite number ≥ 0")
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_AUTORESET
    model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    if cfg.inverse:
        model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_FWDINV
    data = mujoco.MjData(model)
    with mujoco_warnings_to_logging():
        reset(model, data, cfg.key)
    probes = probes if probes is not None else default_probes(cfg.inverse)
    rec = Recorder(probes, cfg.csv, cfg.steps, cfg.block_rows)
    try:
        with mujoco_warnings_to_logging():
            _loop(model, data, cfg, rec)
    except BaseException as e:
        _stop(rec, e)
        raise
    rec.close()
    return _result(model, data, rec, probes, rec.steps)


def _stop(rec: Recorder, e: BaseException) -> None:
    """Stop the recording after ``e``; raise what names the partial CSV, if one was kept."""
    kept = rec.abort()
    if kept is None or rec.path is None:
        return
    if isinstance(e, KeyboardInterrupt):
        raise Interrupted(((kept, rec.path),)) from e
    if isinstance(e, OutputError):
        raise OutputError(f"{e}; the rows recorded so far are in {kept}, {rec.path} is unchanged")
    logger.error("the rollout failed; the rows recorded so far are in %s", kept)


def _loop(model: mujoco.MjModel, data: mujoco.MjData, cfg: RolloutCfg, rec: Recorder) -> None:
    reads = rec.bind(model, data)
    rows = rec.rows
    ctrl = data.ctrl  # (nu,) view
    if cfg.ctrl == "hold":
        ctrl[:] = hold_ctrl(model, data)
    draw = noise_source(model, rows, cfg.seed, cfg.noise_scale) if cfg.ctrl == "noise" else None
    wn = memoryview(data.warning.number)  # Python ints, indexed by mjtWarning
    w = mujoco.mjtWarning
    qpos_w, qvel_w, qacc_w = int(w.mjWARN_BADQPOS), int(w.mjWARN_BADQVEL), int(w.mjWARN_BADQACC)
    noise = draw() if draw else None
    step = mujoco.mj_step
    i = 0  # whole rows in the current block
    try:
        for _ in range(cfg.steps):
            if noise is not None:
                ctrl[:] = noise[i]
            step(model, data)
            for r in reads:
                r(i)
            i += 1
            if wn[qacc_w] or wn[qvel_w] or wn[qpos_w]:
                break
            if i == rows:
                i = 0  # first: an interrupt inside flush must not flush these rows again
                rec.flush(rows)
                noise = draw() if draw else None
    except KeyboardInterrupt:
        if not rec.flushing:
            with contextlib.suppress(OutputError):  # a dead writer: the interrupt still wins
                rec.flush(i)  # the whole rows so far go to the partial CSV
        raise
    rec.flush(i)


def _result(
    model: mujoco.MjModel, data: mujoco.MjData, rec: Recorder, probes: list[Probe], steps: int
) -> RolloutResult:
    summaries: dict[str, Any] = {}
    for p in probes:
        s = p.summary()
        if s:
            summaries.update(s)
    warn = {n: int(data.warning.number[k]) for k, n in enumerate(WARNING_NAMES)}
    return RolloutResult(
        steps_done=steps,
        time=float(data.time),
        columns=rec.column_stats(),
        probes=summaries,
        warnings=warn,
        divergence=divergence_info(model, data),
        final_data=data,
        preview=rec.preview(),
        header=[c.header for c in rec.columns],
    )


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
