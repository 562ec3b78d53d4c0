"""A law left in Python inside the compiled dock loop (today ``hqp``): its closures.

The kernel calls :meth:`PyLaw.compute` for the period's torque and :meth:`PyLaw.post` after
each step. They keep the Python loop's object identities: the ``q``, ``v`` arrays given to
``observe`` after a step are the very ones ``compute`` gets next (``hqp`` reuses its
observer's pass when they are), each a new copy of the state as the Python loop's are; the
wrench goes in the axes the controller declares.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mjscope.control.controllers import Controller
from mjscope.control.observer import known_dissipation
from mjscope.control.wrench import wrench_world_to_body
from mjscope.dock.env import MujocoEnv
from mjscope.dock.native_plan import Plan


class PyLaw:
    """``compute`` and ``observe`` of ``ctrl`` on the plan's buffers (module docstring).

    Args:
        plan: The run's plan (its ``q``, ``v``, ``tau``, probe state and chunk references).
        ctrl: The controller.
        env: The environment (``known_dissipation`` reads its model and data).
        docking: Whether the scene has a dock (tracking: a zero wrench).
    """

    def __init__(self, plan: Plan, ctrl: Controller, env: MujocoEnv, docking: bool) -> None:
        self.plan, self.ctrl, self.env, self.docking = plan, ctrl, env, docking
        self.body = getattr(ctrl, "wrench_frame", "world") == "body"
        self.q, self.v = plan.q.copy(), plan.v.copy()
        self.zero, self.known = np.zeros(6), np.zeros(plan.nv)
        has_observer = getattr(ctrl, "observer", None) is not None
        self.observe = getattr(ctrl, "observe", None) if has_observer else None

    def start(self) -> None:
        """The observer starts from the initial state (as the Python loop does)."""
        if self.observe is not None:
            self.observe(self.q, self.v, np.zeros(self.plan.nv))

    def compute(self, row: int) -> Any:
        """The controller's torque for the chunk's row ``row`` [N·m]; (nv,)."""
        ps = self.plan.pstate
        if not self.docking:
            F = self.zero
        elif self.body:
            F = wrench_world_to_body(ps[12:18].copy(), ps[3:12].reshape(3, 3).copy())
        else:
            F = ps[12:18].copy()
        return self.ctrl.compute(self.q, self.v, self.plan.refs[row], F)

    def post(self) -> None:
        """After a step: new ``q``, ``v`` objects, and the observer's update."""
        self.q, self.v = self.plan.q.copy(), self.plan.v.copy()
        if self.observe is not None:
            m, d = self.env.model, self.env.data
            self.observe(self.q, self.v, self.plan.tau.copy(), known_dissipation(m, d, self.known))
