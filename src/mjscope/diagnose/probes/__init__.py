"""Per-step recording probes: the contract (:mod:`.base`) and one module per probe group.

- :mod:`.state`: time and CoM height, solver rows and iterations, MuJoCo's warning counters.
- :mod:`.contacts`: contact count, deepest penetration and its geom pair, condim counts.
- :mod:`.forces`: generalized force norms, energy, forward/inverse consistency.
- :mod:`.sensors`: running mean/min/max of every ``sensordata`` entry.
"""

from mjscope.diagnose.probes.base import Column, Gather, Probe, Reader, reads_per_step
from mjscope.diagnose.probes.contacts import ContactProbe, ContactViews
from mjscope.diagnose.probes.forces import (
    FORCE_TERMS,
    EnergyProbe,
    ForceProbe,
    InverseProbe,
    inverse_residual,
)
from mjscope.diagnose.probes.sensors import SensorProbe, sensor_table
from mjscope.diagnose.probes.state import (
    DIVERGENCE,
    WARNING_NAMES,
    SolverProbe,
    StateProbe,
    WarningProbe,
)

__all__ = [
    "DIVERGENCE",
    "FORCE_TERMS",
    "WARNING_NAMES",
    "Column",
    "ContactProbe",
    "ContactViews",
    "EnergyProbe",
    "ForceProbe",
    "Gather",
    "InverseProbe",
    "Probe",
    "Reader",
    "SensorProbe",
    "SolverProbe",
    "StateProbe",
    "WarningProbe",
    "inverse_residual",
    "reads_per_step",
    "sensor_table",
]
