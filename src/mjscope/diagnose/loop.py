"""The rollout's ``mj_step`` loop: control, step, record, progress, timing.

Split from :mod:`mjscope.diagnose.rollout` (which sets up and tears down around it). Per step:
the controls of the step (a noise/sine block row, the held motors' feedback), ``mj_step``, the
recorder's gather (one ``np.take``) and the few reads it cannot do; a BADQPOS/BADQVEL/BADQACC
warning ends the loop. Per block: the recorder's
flush and the next control block; a progress line once the loop has run
:data:`PROGRESS_AFTER_S`. Where the compiled loop can do every per-step part
(:mod:`~mjscope.diagnose.native_loop`), the steps run in C and this module keeps the control
flow (events, blocks, Ctrl-C); the output is the same either way.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, NamedTuple

import mujoco
import numpy as np

from mjscope.diagnose import native_loop
from mjscope.diagnose.controls import ControlPlan, Spec
from mjscope.diagnose.probes.base import Reader
from mjscope.diagnose.probes.equality import EqualityNative
from mjscope.diagnose.recording import Recorder
from mjscope.diagnose.recording.recorder import FastPlan
from mjscope.exceptions import OutputError
from mjscope.progress import RunProgress

PROGRESS_AFTER_S = 2.0  # a rollout shows its progress line once it has run this long [s]


class LoopCfg(NamedTuple):
    """What the loop needs of the rollout's settings.

    Attributes:
        steps: ``mj_step`` calls.
        seed: Noise seed.
        noise_scale: Fraction of the half ctrlrange used by noise [1].
        progress: ``None``: a progress line on a terminal only; ``False`` never; ``True``
            always (after :data:`PROGRESS_AFTER_S`).
    """

    steps: int
    seed: int
    noise_scale: float
    progress: bool | None


CPU_SAMPLE_EVERY = 16  # steps; every 16th mj_step is timed (wall and CPU)


def step_loop(
    model: mujoco.MjModel, data: mujoco.MjData, cfg: LoopCfg, rec: Recorder, specs: list[Spec]
) -> tuple[float, float, int]:
    """Step and record.

    Per step, in the usual case (:attr:`Recorder.fast`): ``mj_step``, the recorder's one
    ``np.take`` and one test of the divergence counters and the watched contact count; every
    ``every``-th step the per-contact sampler; no timer, no other call.

    Returns:
        (wall time, CPU time of the timed ``mj_step`` calls [s], the number timed): every
        :data:`CPU_SAMPLE_EVERY`-th step is timed (``time.thread_time`` is costly to read,
        and timing every step would cost more than the recording); the CPU time is what a
        loaded machine does not inflate.
    """
    readers = rec.bind(model, data)
    plan = ControlPlan(model, data, specs, rec.rows, cfg.seed, cfg.noise_scale)
    if rec.fast is not None and native_loop.available():
        natives = [getattr(p, "native", _none)() for p in rec.reading]  # per-step reads in C
        if all(n is not None for n in natives) and len(natives) <= 1:
            if plan.feedback is None or plan.feedback.dofs is not None:
                return _native(model, data, cfg, rec, plan, natives[0] if natives else None)
    fast = rec.fast or _generic(readers, rec.rows)
    take, idx, views = fast.take, fast.idx, fast.rows
    more = fast.more  # further gather groups (MuJoCo's allocations far apart; rare)
    r0, r1 = [*fast.reads, _noop, _noop][:2]
    two = len(fast.reads) == 2
    count, limit, watch = fast.watch or (np.zeros(1, np.int32).data, 0, _noop)
    every, sample = fast.sampler or (0, _noop)
    due = 0 if every else -1  # the next row to sample (-1: never)
    rows = rec.rows
    ctrl = data.ctrl  # (nu,) view
    first = plan.block(0)
    noise: np.ndarray | None = None if plan.constant else first
    ctrl[:] = first[0]
    hold = plan.feedback
    wn = memoryview(data.warning.number)  # Python ints, indexed by mjtWarning
    w = mujoco.mjtWarning
    qpos_w, qvel_w, qacc_w = int(w.mjWARN_BADQPOS), int(w.mjWARN_BADQVEL), int(w.mjWARN_BADQACC)
    step = mujoco.mj_step
    clock, cpu_clock = time.perf_counter, time.thread_time
    wall = cpu = 0.0  # [s]
    sampled = tick = 0  # steps timed; the next row to time
    started, bar = clock(), None
    i = 0  # whole rows in the current block
    try:
        for _ in range(cfg.steps):
            if noise is not None:
                ctrl[:] = noise[i]
            if hold is not None:
                hold(ctrl)
            if i != tick:
                step(model, data)
            else:
                c0, t0 = cpu_clock(), clock()
                step(model, data)
                t1 = clock()
                cpu += cpu_clock() - c0
                wall += t1 - t0
                sampled += 1
                tick += CPU_SAMPLE_EVERY
            take(idx, None, views[i], "clip")
            if more:
                for take_k, idx_k, views_k in more:
                    take_k(idx_k, None, views_k[i], "clip")
            r0(i)
            if two:
                r1(i)
            if i == due:
                sample(rec.steps + i)
                due += every
            if wn[qacc_w] or wn[qvel_w] or wn[qpos_w] or count[0] > limit:
                if count[0] > limit:
                    watch(i)
                if wn[qacc_w] or wn[qvel_w] or wn[qpos_w]:
                    i += 1
                    break
            i += 1
            if i == rows:
                i = tick = 0  # first: an interrupt inside flush must not flush these rows again
                due, noise, bar = _next_block(model, cfg, rec, plan, every, bar, started)
    except KeyboardInterrupt:
        _interrupted(rec, i, bar)
        raise
    _finish(rec, i, bar)
    return wall, cpu, sampled


def _native(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    cfg: LoopCfg,
    rec: Recorder,
    plan: ControlPlan,
    equality: EqualityNative | None,
) -> tuple[float, float, int]:
    """:func:`step_loop` with the steps in C (:mod:`~mjscope.diagnose.native_loop`).

    The rows, events and flushes are the Python loop's: C runs the steps up to the next event
    (the sampled row, the watched count past its limit, a divergence warning), the block's
    end or its time slice; the event's row is finished here as the Python loop does it.
    """
    fast = rec.fast
    assert fast is not None
    count, limit, watch = fast.watch or (None, 0, _noop)
    every, sample = fast.sampler or (0, _noop)
    due = 0 if every else -1
    rows = rec.rows
    first = plan.block(0)
    data.ctrl[:] = first[0]
    captures = (getattr(p, "capture", _none)() for p in rec.probes) if fast.sampler else ()
    capture = next((c for c in captures if c is not None), None)
    loop = native_loop.NativeLoop(
        model, data, rec.gather.groups, None if count is None else (count, limit),
        CPU_SAMPLE_EVERY, plan.feedback, native_loop.SLICE_S, capture, equality,
    )  # fmt: skip
    loop.set_noise(None if plan.constant else first)
    wn = memoryview(data.warning.number)
    w = mujoco.mjtWarning
    bad = (int(w.mjWARN_BADQPOS), int(w.mjWARN_BADQVEL), int(w.mjWARN_BADQACC))
    started, bar = time.perf_counter(), None
    i = tick = 0  # whole rows in the current block; the next row to time
    try:
        while rec.steps + i < cfg.steps:
            stop = min(rows, cfg.steps - rec.steps)
            code, i, tick, due = loop.steps(i, stop, tick, due, rec.steps)
            if code == native_loop.EVENT:
                if i == due:
                    sample(rec.steps + i)
                    due += every
                if count is not None and count[0] > limit:
                    watch(i)
                i += 1
                if any(wn[k] for k in bad):
                    break
            if i == rows:
                i = tick = 0  # first: an interrupt inside flush must not flush these rows again
                due, noise, bar = _next_block(model, cfg, rec, plan, every, bar, started)
                loop.set_noise(noise)
    except KeyboardInterrupt:
        _interrupted(rec, i, bar)
        raise
    _finish(rec, i, bar)
    return loop.timing


def _next_block(
    model: mujoco.MjModel,
    cfg: LoopCfg,
    rec: Recorder,
    plan: ControlPlan,
    every: int,
    bar: RunProgress | None,
    started: float,
) -> tuple[int, np.ndarray | None, RunProgress | None]:
    """A full block: flush it; the next block's first sampled row, controls and progress."""
    rec.flush(rec.rows)
    due = -rec.steps % every if every else -1
    noise = None if plan.constant else plan.block(rec.steps)
    bar = bar or _late_progress(model, cfg, started)
    if bar is not None:
        bar.update(rec.steps)
    return due, noise, bar


def _finish(rec: Recorder, i: int, bar: RunProgress | None) -> None:
    """The loop's end: the last rows flushed, the progress line closed."""
    rec.flush(i)
    if bar is not None:
        bar.update(rec.steps)
        bar.__exit__(None, None, None)


def _interrupted(rec: Recorder, i: int, bar: RunProgress | None) -> None:
    """Ctrl-C in the loop: close the progress line, flush the whole rows so far."""
    if bar is not None:
        bar.__exit__(None, None, None)
    if not rec.flushing:
        with contextlib.suppress(OutputError):  # a dead writer: the interrupt still wins
            rec.flush(i)  # the whole rows so far go to the partial CSV


def _generic(readers: list[Reader], rows: int) -> FastPlan:
    """The loop's plan from the recorder's readers, where :attr:`Recorder.fast` is ``None``."""
    read = _chain(readers)

    def take(idx: Any, out: Any, i: int, mode: str) -> None:
        read(i)

    return FastPlan(take, np.zeros(0, np.intp), list(range(rows)), [], None)


def _noop(i: int) -> None:
    return None


def _none() -> None:
    return None


def _late_progress(model: mujoco.MjModel, cfg: LoopCfg, started: float) -> RunProgress | None:
    """A started progress line once the rollout has run :data:`PROGRESS_AFTER_S`, else None."""
    if cfg.progress is False or time.perf_counter() - started < PROGRESS_AFTER_S:
        return None
    bar = RunProgress(
        "diagnose rollout", total=cfg.steps, unit="steps", dt=float(model.opt.timestep),
        show=cfg.progress,
    )  # fmt: skip
    return bar.__enter__() if bar.shown else None


def _chain(reads: list[Reader]) -> Reader:
    """One call per step: the reader itself when there is one (the usual case), else all."""
    if len(reads) == 1:
        return reads[0]

    def read_all(i: int) -> None:
        for r in reads:
            r(i)

    return read_all
