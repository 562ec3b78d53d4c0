"""Torque controllers sharing one contract: ``compute(q, v, reference, F_ext) -> τ``."""

from mjscope.control.controllers.base import Controller
from mjscope.control.controllers.cic import CartesianImpedanceController, CicGains

__all__ = ["CartesianImpedanceController", "CicGains", "Controller"]
