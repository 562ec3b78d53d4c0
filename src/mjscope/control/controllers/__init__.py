"""Torque controllers sharing one contract: ``compute(q, v, reference, F_ext) -> τ``."""

from mjscope.control.controllers.base import Controller
from mjscope.control.controllers.cic import CartesianImpedanceController, CicGains
from mjscope.control.controllers.hqp import HqpController
from mjscope.control.controllers.hqp_config import HqpGains, JointLimits
from mjscope.control.controllers.se3_lie import Se3Gains, Se3LieController

__all__ = [
    "CartesianImpedanceController",
    "CicGains",
    "Controller",
    "HqpController",
    "HqpGains",
    "JointLimits",
    "Se3Gains",
    "Se3LieController",
]
