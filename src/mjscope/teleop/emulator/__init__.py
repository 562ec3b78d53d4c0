"""An emulated RealMan arm controller on loopback, for the real-arm path without hardware.

:class:`RmEmulator` serves the JSON protocol over TCP and the realtime push over UDP
(:mod:`.server`), moves a simulated arm under its joint limits (:mod:`.arm`), answers every
command the vendor SDK sends on connect (:mod:`.replies`), and injects faults for tests
(:class:`Faults`: dropped or delayed messages, jitter, a controller that goes away).
``mjscope rm-emulator`` runs one (:mod:`.run`).
"""

from __future__ import annotations

from mjscope.teleop.emulator.config import Faults, RmEmulatorCfg
from mjscope.teleop.emulator.server import RmEmulator

__all__ = ["Faults", "RmEmulator", "RmEmulatorCfg"]
