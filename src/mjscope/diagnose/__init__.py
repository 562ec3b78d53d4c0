"""``mjscope diagnose``: model summary, lint checks, instrumented rollout, CSV, plots, compare.

How a diagnosis flows, and where each step lives:

- :mod:`.summary`: dimensions, options, why nq ≠ nv, the actuator table (:mod:`.names`:
  how elements are named in messages; :mod:`.contacts`: the contacts of one state).
- :mod:`.checks`: lint rules on the model, its source file, its initial state and its rollout
  (``Finding``).
- :mod:`.rollout`: reset (:mod:`.episode`: reset, step counts, divergence), :mod:`.controls`
  (``--ctrl``: hold, zero, noise, sine, const, YAML per actuator), the ``mj_step`` loop;
  :mod:`.probes` record each step into :mod:`.recording` (block recorder, CSV sink): state,
  contacts (and per-contact detail), solver, forces (per DOF), equalities, actuators, sensors,
  optional qpos/qvel/sensordata columns.
- :mod:`.diagnosis`: summary + checks + rollout → :mod:`.report` (rich tables, JSON) and
  :mod:`.plots`.
- :mod:`.sweep` (``--set`` on the targets of :mod:`.targets`, on the shared executor
  :mod:`mjscope.runner`: ``--jobs`` or ``--ray``; summary figures in :mod:`.sweep_plots`),
  :mod:`.compare` (two CSVs, columns ranked by normalised deviation), :mod:`.baseline`
  (``--baseline DIR``).
- :mod:`.outputs`: every file is written beside its target and renamed when complete; an
  interrupted (Ctrl-C, SIGTERM) or failed run keeps ``<name>.partial.csv`` and never replaces
  an earlier output.
- :mod:`.config` + :mod:`.session`: the command's frozen configuration and its entry points;
  :mod:`.demo`: the ``mjscope demo`` part.
"""

from mjscope.diagnose.checks import Finding, initial_state_checks, rollout_checks, static_checks
from mjscope.diagnose.compare import compare, read_csv
from mjscope.diagnose.config import CompareCfg, DiagnoseCmdCfg
from mjscope.diagnose.demo import run_demo
from mjscope.diagnose.diagnosis import Diagnosis, diagnose, exit_code
from mjscope.diagnose.probes import Column, Probe
from mjscope.diagnose.rollout import RolloutCfg, RolloutResult, default_probes, reset, run_rollout
from mjscope.diagnose.session import run_compare, run_diagnose

__all__ = [
    "Column",
    "CompareCfg",
    "DiagnoseCmdCfg",
    "Diagnosis",
    "Finding",
    "Probe",
    "RolloutCfg",
    "RolloutResult",
    "compare",
    "default_probes",
    "diagnose",
    "exit_code",
    "initial_state_checks",
    "read_csv",
    "reset",
    "rollout_checks",
    "run_compare",
    "run_demo",
    "run_diagnose",
    "run_rollout",
    "static_checks",
]
