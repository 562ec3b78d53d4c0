"""What ``mjscope diagnose`` is asked to do: one frozen configuration per verb.

:class:`DiagnoseCmdCfg` (diagnose a model, or sweep it with ``set``) and :class:`CompareCfg`
(compare two CSVs) are built by the CLI from its arguments and handed to
:func:`mjscope.diagnose.session.run_diagnose` / :func:`~mjscope.diagnose.session.run_compare`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco

from mjscope.diagnose.controls import DEFAULT_CTRL
from mjscope.diagnose.diagnosis import FAIL_ON
from mjscope.diagnose.episode import KEY_AUTO
from mjscope.diagnose.probes.vectors import parse_columns
from mjscope.diagnose.rollout import RolloutCfg, check_steps, steps_for
from mjscope.exceptions import ConfigError
from mjscope.models import LoadOptions
from mjscope.runner import ExecutorCfg


@dataclass(frozen=True)
class DiagnoseCmdCfg:
    """``mjscope diagnose MODEL``: one diagnosis, or a sweep when ``set`` is given.

    Attributes:
        model: Bundled model name, MJCF or URDF file.
        load_options: How the model file is loaded (package paths, fixed links, visuals).
        steps: Rollout steps (``None``: 2000, or from ``duration``).
        duration: Rollout duration [s]; overrides ``steps`` (per run's timestep in a sweep).
        ctrl: ``hold`` (default), ``zero``, ``noise``, ``sine[:AMP[:HZ]]``, ``const:VALUE`` or a
            YAML map per actuator (:mod:`mjscope.diagnose.controls`).
        seed: Noise seed.
        noise_scale: Fraction of the half ctrlrange used by ``noise`` [1].
        key: Where the rollout starts: ``auto`` (the default: the model's first keyframe,
            ``qpos0`` when it has none), ``none`` (``qpos0``), a keyframe name or index.
        inverse: Also record the forward/inverse consistency (costly).
        csv: CSV file to stream the per-step rows to (a sweep: the stem of one file per run).
        contacts: Long-format per-contact CSV, one row per contact per step (a sweep: a stem).
        columns: Extra CSV columns, comma-separated: ``qpos``, ``qvel``, ``sensordata``.
        json: File to write the report to as JSON (``-``: stdout).
        html: One self-contained HTML page of the run (findings, tables, plots).
        plot: Folder for PNG plots.
        set: Sweep specifications (``option.timestep=0.002,0.005``, ...); empty: no sweep.
        baseline: Folder of the model's baseline: saved on first use, compared after
            (:mod:`mjscope.diagnose.baseline`).
        tol: Largest accepted normalised deviation of a column from the baseline [1].
        fail_on: Severity that makes the exit code 1: ``error``, ``warning`` or ``never``.
        executor: Where sweep runs go: ``--jobs`` local processes (default one per CPU) or
            ``--ray`` (:class:`~mjscope.runner.ExecutorCfg`).
        quiet: Print only the findings and the verdict (or only the sweep table).
        contact_params: ``--contact-params``: each colliding pair's contact parameters in
            physical units at the end of the rollout.
        per_element: ``--verbose``: one findings line per element (default: one per code
            and family of elements; the JSON keeps every element either way).

    Raises:
        ConfigError: ``fail_on`` is not one of ``error``, ``warning``, ``never``.
        ExecutorError: Bad executor options (``--jobs`` below 1).
    """

    model: str
    load_options: LoadOptions = field(default_factory=LoadOptions)
    steps: int | None = None
    duration: float | None = None
    ctrl: str = DEFAULT_CTRL
    seed: int = 0
    noise_scale: float = 1.0
    key: str | None = KEY_AUTO
    inverse: bool = False
    csv: str | None = None
    contacts: str | None = None
    columns: str | None = None
    json: str | None = None
    html: str | None = None
    plot: str | None = None
    set: tuple[str, ...] = ()
    baseline: str | None = None
    tol: float = 1e-9
    fail_on: str = "error"
    executor: ExecutorCfg = field(default_factory=ExecutorCfg)
    quiet: bool = False
    per_element: bool = False
    contact_params: bool = False

    def __post_init__(self) -> None:
        if self.fail_on not in FAIL_ON:
            raise ConfigError(f"--fail-on {self.fail_on!r} is not one of {', '.join(FAIL_ON)}")
        self.executor.check()

    def rollout_cfg(self, model: mujoco.MjModel) -> RolloutCfg:
        """The rollout of a single diagnosis of ``model`` (steps from ``steps``/``duration``).

        Raises:
            ConfigError: Bad ``steps`` or ``duration``.
        """
        return self._rollout(steps_for(model, self.steps, self.duration))

    def sweep_base(self) -> RolloutCfg:
        """The rollout every sweep run starts from (each run sets its own steps and CSV).

        Raises:
            ConfigError: ``steps`` < 1.
        """
        return self._rollout(check_steps(2000 if self.steps is None else self.steps))

    def _rollout(self, steps: int) -> RolloutCfg:
        return RolloutCfg(
            steps=steps,
            ctrl=self.ctrl,
            seed=self.seed,
            noise_scale=self.noise_scale,
            key=self.key,
            inverse=self.inverse,
            csv=self.csv,
            contacts=self.contacts,
            columns=parse_columns(self.columns),
            progress=False if self.quiet else None,
        )


@dataclass(frozen=True)
class CompareCfg:
    """``mjscope diagnose compare A.csv B.csv``.

    Attributes:
        a: First CSV (written by ``diagnose --csv``).
        b: Second CSV.
        tol: Largest accepted absolute deviation per value.
        plot: Folder for the overlay figure ``compare.png`` (``None``: no plot).
        progress: Show the progress line on a terminal (off with ``--quiet``).
    """

    a: str
    b: str
    tol: float = 1e-9
    plot: str | None = None
    progress: bool = True
