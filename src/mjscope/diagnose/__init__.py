"""``mjscope diagnose``: model summary, lint checks, instrumented rollout, CSV, plots, compare."""

from mjscope.diagnose.checks import Finding, initial_state_checks, static_checks
from mjscope.diagnose.compare import compare, read_csv
from mjscope.diagnose.probes import Column, Probe
from mjscope.diagnose.rollout import RolloutCfg, RolloutResult, default_probes, reset, run_rollout
from mjscope.diagnose.run import Diagnosis, diagnose, exit_code

__all__ = [
    "Column",
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
    "run_rollout",
    "static_checks",
]
