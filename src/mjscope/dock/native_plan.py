"""The compiled dock loop's plan: buffers, addresses and objects in ``_kernel.c``'s order.

:class:`Plan` packs what :func:`mjscope.dock.loop.run_loop` would touch per period — the
MuJoCo model, data and buffers, the probe's state, the tool-load parameters, the friction
feed-forward, the limiter, the telemetry columns of a chunk and its references — into one
int64 slot array (addresses, flags), one float64 parameter array and one tuple of Python
objects (the Pinocchio and NumPy calls the kernel makes, with their argument tuples). The
controller's own part is set by :mod:`mjscope.dock.native_laws`.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np
import pinocchio as pin

from mjscope.control.friction import FrictionModel
from mjscope.control.tool_load import ToolLoadCompensator
from mjscope.dock.env import MujocoEnv
from mjscope.dock.stages import TorqueLimiter

SLOTS = (
    "model", "data", "step", "kin", "tls", "global", "nsub", "nv",
    "qpos", "qvel", "ctrl", "badacc", "xpos", "xmat", "ft6",
    "q", "v", "qp", "vp", "acc", "tau", "x", "w", "pstate",
    "comp", "biased", "hasg", "fric", "usedamp", "coul", "damp",
    "rated", "hi", "prev", "haveprev", "stats",
    "col_t", "col_q", "col_v", "col_tau", "col_p", "col_r", "col_w", "col_cf", "col_raw",
    "ref_pos", "ref_vel", "ref_acc", "ref_rot", "ref_wb", "ref_wbd", "ref_row",
    "k0", "k1", "kdone", "msg", "f",
    "cic_kp", "cic_kd", "cic_ki", "cic_int", "cic_useint", "cic_k", "cic_b", "cic_kw",
    "cic_lu", "cic_piv", "cic_xs", "rd", "wd", "wdd", "refrot",
    "law", "ref_t", "ref_vd", "ref_vdd", "td", "vd", "vdd", "tmp6", "tmp3", "sw", "svw", "sf",
    "se3_kp", "se3_kpt", "se3_log", "se3_drop", "chol", "jjt", "smv", "tdt", "gemv",
    "gemm", "a6p", "krp", "ebuf",
)  # fmt: skip
SLOT = {name: k for k, name in enumerate(SLOTS)}
#: float64 parameters: name -> (first index, length)
PARAMS = {"dt": (0, 1), "inv_dt": (1, 1), "rate": (2, 1), "eps": (3, 1), "i_lo": (4, 1),
          "i_hi": (5, 1), "tool_m": (6, 1), "tool_c": (7, 3), "tool_I": (10, 9),
          "tool_b": (19, 6), "bias": (25, 6), "g": (31, 3), "null_kp": (34, 1),
          "null_kd": (35, 1), "q_null": (36, 16), "cic_dt": (52, 1), "sing2": (53, 1)}  # fmt: skip
N_PARAMS = 54
OBJECTS = (
    "jjtv", "ufp", "gfj", "gfjtv", "crba", "nle", "log3", "tanh", "cf",
    "fk", "ufpc", "gfv", "gfca", "sytrf", "sytrs", "symfactor",
    "v", "x", "w", "w0", "at", "negf", "k", "b", "rd", "wd", "wdd", "refrot", "g", "ftrt", "a6",
    "se3", "motion", "cori", "log6", "jlog6", "npdot", "jjt", "kr", "td", "vd", "vdd", "tmp6",
    "tmp3", "sw", "svw", "sf", "mv", "pylaw", "post", "ebuf",
)  # fmt: skip
MAX_NV = 16  # the kernel's fixed work buffers


def address(a: np.ndarray) -> int:
    """The address of an array's first byte (never a copy)."""
    return int(a.__array_interface__["data"][0])


class Plan:
    """The kernel's slots, parameters and objects for one run (see the module docstring).

    Args:
        env: The environment (its data is stepped in place).
        symbols: MuJoCo addresses (:func:`~mjscope.dock.native_symbols.mujoco_symbols`).
        compensator: Tool-load compensation, or ``None``.
        friction: Friction feed-forward, or ``None``.
        limiter: The loop's torque limiter.
        dt: Control period [s].
        bias: The scene's F/T bias (6,).
    """

    def __init__(self, env: MujocoEnv, symbols: dict[str, int],
                 compensator: ToolLoadCompensator | None, friction: FrictionModel | None,
                 limiter: TorqueLimiter, dt: float, bias: np.ndarray) -> None:  # fmt: skip
        m, d = env.model, env.data
        nv = self.nv = m.nv
        self.slots = np.zeros(len(SLOTS), np.int64)
        self.params = np.zeros(N_PARAMS)
        self.objects: dict[str, Any] = dict.fromkeys(OBJECTS)
        self._keep: list[Any] = []  # arrays whose addresses are in the slots
        self.q, self.v = d.qpos.copy(), d.qvel.copy()
        self.qp, self.vp, self.acc = self.q.copy(), self.v.copy(), np.zeros(nv)
        self.tau, self.x, self.prev = np.zeros(nv), np.zeros(nv), np.zeros(nv)
        self.W = np.zeros((2, 6))
        self.pstate = np.zeros(25)  # p 3, R 9, wrench 6, raw 6, contact force
        self.stats = np.zeros(2, np.int64)  # torque_saturated, rate_limited
        self.msg = np.zeros(1024, np.uint8)
        self.refs: list[Any] = []  # the chunk's references (a Python law reads them)
        number = d.warning.number
        bad = address(number) + number.strides[0] * int(mujoco.mjtWarning.mjWARN_BADQACC)
        sensordata = d.sensordata
        self.set(model=m._address, data=d._address, step=symbols["step"],
                 kin=symbols["kinematics"], tls=symbols["tls"], chol=symbols["chol"],
                 nsub=env.n_substeps, nv=nv,
                 qpos=d.qpos, qvel=d.qvel, ctrl=d.ctrl, badacc=bad, xpos=d.site_xpos[env.eef],
                 xmat=d.site_xmat[env.eef], ft6=sensordata[env._f_adr : env._f_adr + 6],
                 q=self.q, v=self.v, qp=self.qp, vp=self.vp, acc=self.acc, tau=self.tau,
                 x=self.x, w=self.W, pstate=self.pstate, prev=self.prev, stats=self.stats,
                 msg=self.msg, f=self.params)  # fmt: skip
        self.slots[SLOT["global"]] = symbols["global"]
        gemv, gemm = symbols.get("gemv", 0), symbols.get("gemm", 0)
        if not (gemv and gemm and env._A is not None and env._A.flags.c_contiguous):
            gemv = gemm = 0  # NumPy's cblas in both or neither; ndarray.dot otherwise
        self.slots[SLOT["gemv"]], self.slots[SLOT["gemm"]] = gemv, gemm
        self.put(dt=dt, inv_dt=1.0 / dt, bias=bias)
        self.slots[SLOT["biased"]] = int(bool(np.any(bias)))
        o = self.objects
        o.update(tanh=np.tanh, cf=env.contact_force, v=self.v, x=self.x, w=self.W, w0=self.W[0],
                 ftrt=env._R_ft_T, a6=env._A)  # fmt: skip
        assert env._A is not None  # (checked by the caller: the rigid wrench map)
        o["at"] = env._A.T
        self.set(a6p=env._A)
        self._compensator(compensator)
        self._friction(friction)
        self._limiter(limiter)

    def set(self, **values: Any) -> None:
        """Slots by name: an array's address (kept alive with the plan) or an int."""
        for name, value in values.items():
            if isinstance(value, np.ndarray):
                self._keep.append(value)
                value = address(value)
            self.slots[SLOT[name]] = int(value)

    def slot_index(self, name: str) -> int:
        """The index of slot ``name``."""
        return SLOT[name]

    def put(self, **values: Any) -> None:
        """Float parameters by name (scalars or vectors)."""
        for name, value in values.items():
            at, n = PARAMS[name]
            flat = np.ravel(np.asarray(value, float))
            self.params[at : at + flat.size] = flat
            assert flat.size <= n

    def _compensator(self, comp: ToolLoadCompensator | None) -> None:
        if comp is None:
            return
        mc, dc, fid = comp.model, comp.data, comp.fid
        local = pin.ReferenceFrame.LOCAL
        self.objects.update(
            fk=(pin.forwardKinematics, (mc, dc, self.qp, self.vp, self.acc)),
            ufpc=(pin.updateFramePlacement, (mc, dc, fid)),
            gfv=(pin.getFrameVelocity, (mc, dc, fid, local)),
            gfca=(pin.getFrameClassicalAcceleration, (mc, dc, fid, local)), g=comp._g,
        )  # fmt: skip
        self.slots[SLOT["comp"]], self.slots[SLOT["hasg"]] = 1, int(comp._has_g)
        self.put(tool_m=comp._m, tool_c=comp._c, tool_I=comp._I, tool_b=comp._bias)

    def _friction(self, friction: FrictionModel | None) -> None:
        if friction is None:
            return
        coul = np.ascontiguousarray(friction._coulomb, float)
        damp = np.ascontiguousarray(friction.damping, float)
        self.set(fric=1 if friction._by_velocity else 2, usedamp=int(friction.use_damping),
                 coul=coul, damp=damp)  # fmt: skip
        self.put(eps=friction._eps)

    def _limiter(self, limiter: TorqueLimiter) -> None:
        hi = np.ascontiguousarray(limiter.hi, float)
        self.set(rated=int(limiter.rated), hi=hi)
        self.put(rate=limiter.step if limiter.rated else 0.0)

    def object_tuple(self) -> tuple[Any, ...]:
        """The objects in ``_kernel.c``'s order."""
        return tuple(self.objects[name] for name in OBJECTS)

    def message(self) -> str:
        """The kernel's MuJoCo error message (a NUL-terminated C string)."""
        raw = self.msg.tobytes()
        return raw[: raw.index(0) if 0 in raw else len(raw)].decode("utf-8", "replace")
