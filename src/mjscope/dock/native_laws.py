"""The controller's part of the compiled dock loop's plan (:mod:`mjscope.dock.native_plan`).

Per law: its gains and state buffers (the controller's own arrays: what the kernel changes —
CIC's integral — is the controller's state after the run, as with the Python loop) and the
Pinocchio calls of its rigid-body terms, with argument tuples on the plan's ``q``, ``v``.
Today: CIC (:class:`~mjscope.control.controllers.CartesianImpedanceController`).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from mjscope.control.controllers import CartesianImpedanceController, Controller
from mjscope.control.controllers.cic import SymFactor
from mjscope.dock.native_plan import MAX_NV, Plan
from mjscope.dock.native_symbols import lapack_capsules

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def supported(ctrl: Controller) -> bool:
    """Whether the kernel has ``ctrl``'s law (its exact type: a subclass may change it)."""
    return type(ctrl) is CartesianImpedanceController and ctrl.model.nv <= MAX_NV


def bind(plan: Plan, ctrl: Controller) -> bool:
    """Put ``ctrl``'s gains, buffers and calls into ``plan``; ``False`` if it cannot."""
    caps = lapack_capsules()
    if caps is None or not isinstance(ctrl, CartesianImpedanceController):
        return False
    m, d, fid, q, v = ctrl.model, ctrl.data, ctrl.fid, plan.q, plan.v
    if not (ctrl._K.flags.f_contiguous and ctrl._b.flags.c_contiguous):
        return False
    nv = plan.nv
    xs = np.zeros(nv + 6)  # the solve's right-hand side, then its solution
    refrot, wd, wdd = np.zeros((3, 3)), np.zeros(3), np.zeros(3)
    plan.set(cic_kp=ctrl._kp, cic_kd=ctrl._kd, cic_int=ctrl.integral,
             cic_useint=int(ctrl._use_integral), cic_k=ctrl._K, cic_b=ctrl._b,
             cic_lu=np.zeros((nv + 6) ** 2), cic_piv=np.zeros(nv + 6, np.int32), cic_xs=xs,
             refrot=refrot, wd=wd, wdd=wdd, cic_ki=np.asarray(ctrl._ki, float))  # fmt: skip
    g = ctrl.gains
    plan.put(i_lo=g.i_limit, i_hi=ctrl._i_hi_f, null_kp=g.kp_null, null_kd=g.kd_null,
             q_null=ctrl.q_null, cic_dt=ctrl.dt)  # fmt: skip
    plan.objects.update(
        jjtv=(pin.computeJointJacobiansTimeVariation, (m, d, q, v)),
        ufp=(pin.updateFramePlacement, (m, d, fid)),
        gfj=(pin.getFrameJacobian, (m, d, fid, LWA)),
        gfjtv=(pin.getFrameJacobianTimeVariation, (m, d, fid, LWA)),
        crba=(pin.crba, (m, d, q)), nle=(pin.nonLinearEffects, (m, d, q, v)), log3=pin.log3,
        sytrf=caps["dsytrf"], sytrs=caps["dsytrs"], symfactor=SymFactor, k=ctrl._K, b=ctrl._b,
        negf=xs[nv:], refrot=refrot, wd=wd, wdd=wdd,
    )  # fmt: skip
    return True
