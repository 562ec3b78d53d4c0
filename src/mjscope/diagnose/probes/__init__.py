"""Per-step recording probes: the contract (:mod:`.base`) and one module per probe group.

- :mod:`.state`: time and CoM height, solver rows and iterations, MuJoCo's warning counters.
- :mod:`.contacts`: contact count, deepest penetration and its geom pair, condim counts.
- :mod:`.contact_detail`: per-contact forces in the contact frame, friction, slip, by pair.
- :mod:`.forces`: generalized force norms, energy, forward/inverse consistency.
- :mod:`.actuators`: largest control and actuator force per actuator.
- :mod:`.equality`: violation of each ``<equality>`` (position and rotation), by name.
- :mod:`.sensors`: running mean/min/max of every ``sensordata`` entry.
"""

from mjscope.diagnose.probes.actuators import ActuatorProbe
from mjscope.diagnose.probes.base import Column, Gather, Probe, Reader, reads_per_step
from mjscope.diagnose.probes.contact_detail import ContactDetailProbe
from mjscope.diagnose.probes.contacts import ContactProbe, ContactViews
from mjscope.diagnose.probes.equality import EqualityProbe
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
    "ActuatorProbe",
    "Column",
    "ContactDetailProbe",
    "ContactProbe",
    "ContactViews",
    "EnergyProbe",
    "EqualityProbe",
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
