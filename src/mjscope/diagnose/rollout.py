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

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.controls import (
    DEFAULT_CTRL,
    check_noise_scale,
    ctrl_report,
    parse_ctrl,
)
from mjscope.diagnose.episode import (
    KEY_AUTO,
    check_steps,
    collect_mujoco_warnings,
    divergence_info,
    free_body_heights,
    key_id,
    key_label,
    mujoco_warnings_to_logging,
    reset,
    resolve_key,
    steps_for,
)
from mjscope.diagnose.loop import LoopCfg, step_loop
from mjscope.diagnose.outputs import Interrupted
from mjscope.diagnose.probes import (
    WARNING_NAMES,
    ActuatorProbe,
    ContactDetailProbe,
    ContactProbe,
    EnergyProbe,
    EqualityProbe,
    ForceProbe,
    InverseProbe,
    Probe,
    SensorProbe,
    SolverProbe,
    StateProbe,
    WarningProbe,
)
from mjscope.diagnose.probes.vectors import VectorProbe, parse_columns
from mjscope.diagnose.recording import Recorder
from mjscope.exceptions import OutputError

logger = logging.getLogger(__name__)

__all__ = [
    "RolloutCfg",
    "RolloutResult",
    "check_steps",
    "collect_mujoco_warnings",
    "default_probes",
    "divergence_info",
    "free_body_heights",
    "key_id",
    "key_label",
    "mujoco_warnings_to_logging",
    "probes_for",
    "reset",
    "resolve_key",
    "run_rollout",
    "steps_for",
]


@dataclass(frozen=True)
class RolloutCfg:
    """How to run the rollout.

    Attributes:
        steps: Number of ``mj_step`` calls.
        ctrl: ``hold`` (servo targets at the initial pose), ``zero``, ``noise`` (seeded,
            uniform over ``ctrlrange`` scaled by ``noise_scale``; ±1 when unlimited),
            ``sine[:AMP[:HZ]]``, ``const:VALUE`` or a YAML map of them per actuator
            (:mod:`mjscope.diagnose.controls`).
        seed: Noise seed.
        noise_scale: Fraction of the half ctrlrange used by ``noise`` [1].
        key: Where the rollout starts: ``auto`` (the model's first keyframe, ``qpos0`` when
            it has none), ``none`` or ``None`` (``qpos0``), a keyframe name or index.
        inverse: Also record the forward/inverse consistency (costly).
        csv: CSV path (``None``: no file).
        block_rows: Recorder block size [rows]. Short blocks keep the forked CSV writer
            close behind the loop (the last block is formatted after the last step, while the
            rollout waits); the output does not depend on it.
        contacts: Long-format per-contact CSV (``--contacts``; ``None``: no file). With it
            every step's contacts are captured, else every ``contact_every``-th step's.
        contact_every: Per-contact capture stride without ``contacts`` [steps] (the per-pair
            summary and ``CONTACT_SLIP``); 0 turns the capture off.
        columns: Extra CSV columns: any of ``qpos``, ``qvel``, ``sensordata``
            (:mod:`mjscope.diagnose.probes.vectors`).
        progress: Show a progress line (steps, sim time, rate, ETA) once the rollout has run
            :data:`PROGRESS_AFTER_S`: ``None`` only on a terminal, ``False`` never
            (``--quiet``), ``True`` always.
    """

    steps: int = 2000
    ctrl: str = DEFAULT_CTRL
    seed: int = 0
    noise_scale: float = 1.0
    key: str | None = KEY_AUTO
    inverse: bool = False
    csv: str | Path | None = None
    block_rows: int = 1024
    contacts: str | Path | None = None
    contact_every: int = 10
    columns: tuple[str, ...] = ()
    progress: bool | None = None


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


def default_probes(inverse: bool = False, extra: list[Probe] | None = None) -> list[Probe]:
    """The probes ``mjscope diagnose`` records, in CSV column order.

    Args:
        inverse: Add the forward/inverse consistency probe.
        extra: Probes appended at the end (per-contact detail, per-DOF forces, equality).
    """
    probes: list[Probe] = [StateProbe(), ContactProbe(), SolverProbe(), ForceProbe(), EnergyProbe()]
    if inverse:
        probes.append(InverseProbe())
    probes += [WarningProbe(), SensorProbe(), ActuatorProbe(), *(extra or [])]
    return probes


def probes_for(cfg: RolloutCfg, model: mujoco.MjModel) -> list[Probe]:
    """The probes of a diagnose rollout of ``model`` with settings ``cfg``."""
    extra: list[Probe] = [EqualityProbe()] if model.neq else []
    kinds = parse_columns(cfg.columns)
    if kinds:
        extra.append(VectorProbe(model, kinds))
    if cfg.contacts is not None or cfg.contact_every > 0:
        every = 1 if cfg.contacts is not None else cfg.contact_every
        extra.append(ContactDetailProbe(cfg.steps, every, cfg.contacts))
    return default_probes(cfg.inverse, extra)


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
    specs = parse_ctrl(model, cfg.ctrl)
    check_noise_scale(cfg.noise_scale)
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_AUTORESET
    model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    if cfg.inverse:
        model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_FWDINV
    data = mujoco.MjData(model)
    with mujoco_warnings_to_logging():
        reset(model, data, cfg.key)
    probes = probes if probes is not None else probes_for(cfg, model)
    rec = Recorder(probes, cfg.csv, cfg.steps, cfg.block_rows)
    free = free_body_heights(model, data)
    try:
        with mujoco_warnings_to_logging():
            stepping = step_loop(
                model, data, LoopCfg(cfg.steps, cfg.seed, cfg.noise_scale, cfg.progress), rec, specs
            )
    except BaseException as e:
        _stop(rec, e)
        raise
    rec.close()
    result = _result(model, data, rec, probes, rec.steps)
    result.probes["ctrl_used"] = ctrl_report(model, specs)
    wall, cpu, sampled = stepping
    result.probes["wall_per_step_s"] = wall / sampled if sampled else float("nan")
    result.probes["cpu_per_step_s"] = cpu / sampled if sampled else float("nan")
    end = free_body_heights(model, data)
    result.probes["free_bodies"] = [
        {"name": name, "z0_m": z0, "z_final_m": end[name], "z_drop_m": z0 - end[name]}
        for name, z0 in free.items()
    ]
    return result


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
