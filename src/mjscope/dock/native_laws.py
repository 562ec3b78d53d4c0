"""The controller's part of the compiled dock loop's plan (:mod:`mjscope.dock.native_plan`).

Per law: its gains and state buffers (the controller's own arrays: what the kernel changes —
CIC's integral, se3_lie's ``J Jᵀ`` work matrix — is the controller's state after the run, as
with the Python loop) and the Pinocchio calls of its rigid-body terms, with argument tuples on
the plan's ``q``, ``v``. Laws: CIC
(:class:`~mjscope.control.controllers.CartesianImpedanceController`) and ``se3_lie``
(:class:`~mjscope.control.controllers.Se3LieController`, without an apparent inertia) in C;
``hqp`` (:class:`~mjscope.control.controllers.HqpController`) stays in Python, called per
period by the kernel (:mod:`mjscope.dock.native_pylaw`).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from mjscope.control.controllers import (
    CartesianImpedanceController,
    Controller,
    HqpController,
    Se3LieController,
)
from mjscope.control.controllers.cic import SymFactor
from mjscope.dock.native_plan import MAX_NV, Plan
from mjscope.dock.native_pylaw import PyLaw
from mjscope.dock.native_symbols import lapack_capsules

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
LOCAL = pin.ReferenceFrame.LOCAL
CIC, SE3_LIE, PY_LAW = 1, 2, 3  # _kernel.c's P_LAW


def supported(ctrl: Controller) -> bool:
    """Whether the kernel has ``ctrl``'s law (its exact type: a subclass may change it)."""
    if type(ctrl) is Se3LieController:
        return ctrl._md_inv is None and ctrl.model.nv <= MAX_NV
    if type(ctrl) is HqpController:
        return ctrl.model.nv <= MAX_NV
    return type(ctrl) is CartesianImpedanceController and ctrl.model.nv <= MAX_NV


def bind(plan: Plan, ctrl: Controller, py_law: PyLaw | None = None) -> bool:
    """Put ``ctrl``'s gains, buffers and calls into ``plan``; ``False`` if it cannot.

    A law left in Python (``hqp``) needs its closures ``py_law``.
    """
    caps = lapack_capsules()
    if caps is None or not supported(ctrl):
        return False
    if isinstance(ctrl, HqpController):
        if py_law is None:
            return False
        plan.set(law=PY_LAW)
        plan.objects.update(pylaw=py_law.compute, post=py_law.post)
        return True
    assert isinstance(ctrl, CartesianImpedanceController | Se3LieController)
    if not (ctrl._K.flags.f_contiguous and ctrl._b.flags.c_contiguous):
        return False
    m, d, fid, q, v, nv = ctrl.model, ctrl.data, ctrl.fid, plan.q, plan.v, plan.nv
    axes = LWA if isinstance(ctrl, CartesianImpedanceController) else LOCAL
    xs = np.zeros(nv + 6)  # the solve's right-hand side, then its solution
    plan.set(cic_kd=ctrl._kd, cic_k=ctrl._K, cic_b=ctrl._b, cic_xs=xs,
             cic_lu=np.zeros((nv + 6) ** 2), cic_piv=np.zeros(nv + 6, np.int32))  # fmt: skip
    g = ctrl.gains
    plan.put(null_kp=g.kp_null, null_kd=g.kd_null, q_null=ctrl.q_null)
    plan.objects.update(
        jjtv=(pin.computeJointJacobiansTimeVariation, (m, d, q, v)),
        ufp=(pin.updateFramePlacement, (m, d, fid)),
        gfj=(pin.getFrameJacobian, (m, d, fid, axes)),
        gfjtv=(pin.getFrameJacobianTimeVariation, (m, d, fid, axes)),
        crba=(pin.crba, (m, d, q)), nle=(pin.nonLinearEffects, (m, d, q, v)),
        sytrf=caps["dsytrf"], sytrs=caps["dsytrs"], symfactor=SymFactor, k=ctrl._K, b=ctrl._b,
        negf=xs[nv:],
    )  # fmt: skip
    if isinstance(ctrl, CartesianImpedanceController):
        _cic(plan, ctrl)
    else:
        _se3_lie(plan, ctrl)
    return True


def _cic(plan: Plan, ctrl: CartesianImpedanceController) -> None:
    refrot, wd, wdd = np.zeros((3, 3)), np.zeros(3), np.zeros(3)
    plan.set(law=CIC, cic_kp=ctrl._kp, cic_int=ctrl.integral,
             cic_useint=int(ctrl._use_integral), refrot=refrot, wd=wd, wdd=wdd,
             cic_ki=np.asarray(ctrl._ki, float))  # fmt: skip
    plan.put(i_lo=ctrl.gains.i_limit, i_hi=ctrl._i_hi_f, cic_dt=ctrl.dt)
    ebuf = np.zeros((3, 3))  # R_d Rᵀ, written by the kernel (NumPy's cblas_dgemm)
    plan.set(ebuf=ebuf)
    plan.objects.update(log3=pin.log3, refrot=refrot, wd=wd, wdd=wdd, ebuf=ebuf)


def _se3_lie(plan: Plan, ctrl: Se3LieController) -> None:
    """se3_lie's part.

    ``T_d``, ``V_d``, ``V̇_d`` and ``V`` go into persistent Pinocchio objects (their storage,
    written by the kernel: the values ``pin.SE3(T_d)``, ``pin.Motion(V_d)`` would copy in).
    """
    m, d, q, v, nv = ctrl.model, ctrl.data, plan.q, plan.v, plan.nv
    tmp6, tmp3, sw, svw, sf = np.zeros(6), np.zeros(3), np.zeros(nv), np.zeros(nv), np.zeros(6)
    T_d = pin.SE3.Identity()
    mv, mvd, mvdd = pin.Motion.Zero(), pin.Motion.Zero(), pin.Motion.Zero()
    rot, trans = T_d.rotation, T_d.translation  # views of T_d's storage
    vec = {k: mo.vector for k, mo in (("mv", mv), ("vd", mvd), ("vdd", mvdd))}
    views = [rot, trans, *vec.values()]
    if not (rot.flags.f_contiguous and all(a.flags.c_contiguous for a in views[1:])):
        raise AssertionError("this Pinocchio's SE3 / Motion storage is not the expected one")
    if not (ctrl._JJt.flags.c_contiguous and ctrl._JJt.shape == (6, 6)):
        raise AssertionError("se3_lie's J Jᵀ work matrix is a (6, 6) C array")
    plan.set(law=SE3_LIE, se3_kp=ctrl._kp, se3_kpt=ctrl._kp_t, se3_log=int(ctrl._log),
             td=rot, tdt=trans, vd=vec["vd"], vdd=vec["vdd"], smv=vec["mv"], tmp6=tmp6,
             tmp3=tmp3, sw=sw, svw=svw, sf=sf, jjt=ctrl._JJt,
             krp=np.ascontiguousarray(ctrl._K_R))  # fmt: skip
    plan.put(sing2=ctrl._sing2)
    plan.objects.update(
        se3=pin.SE3, motion=pin.Motion, cori=(pin.computeCoriolisMatrix, (m, d, q, v)),
        log6=pin.log6, jlog6=pin.Jlog6, npdot=np.dot, jjt=ctrl._JJt, kr=ctrl._K_R, td=T_d,
        vd=mvd, vdd=mvdd, mv=mv, tmp6=tmp6, tmp3=tmp3, sw=sw, svw=svw, sf=sf,
    )  # fmt: skip
    plan._keep += [T_d, mv, mvd, mvdd]


def finish(plan: Plan, ctrl: Controller) -> None:
    """The law's per-period flags the kernel kept, back on ``ctrl`` (se3_lie's guard)."""
    if isinstance(ctrl, Se3LieController):
        ctrl.feedforward_dropped = bool(plan.slots[plan.slot_index("se3_drop")])
