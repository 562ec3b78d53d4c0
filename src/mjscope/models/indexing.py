"""Joint name → ``qpos``/``qvel`` addresses, resolved once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import mujoco
import numpy as np
import numpy.typing as npt

from mjscope.exceptions import MjscopeError, UnknownNameError

_QPOS_WIDTH = {
    mujoco.mjtJoint.mjJNT_FREE: 7,
    mujoco.mjtJoint.mjJNT_BALL: 4,
    mujoco.mjtJoint.mjJNT_SLIDE: 1,
    mujoco.mjtJoint.mjJNT_HINGE: 1,
}
_DOF_WIDTH = {
    mujoco.mjtJoint.mjJNT_FREE: 6,
    mujoco.mjtJoint.mjJNT_BALL: 3,
    mujoco.mjtJoint.mjJNT_SLIDE: 1,
    mujoco.mjtJoint.mjJNT_HINGE: 1,
}


class JointAddress(NamedTuple):
    """Where one joint lives in the state vectors.

    Attributes:
        id: Joint id.
        type: ``mjtJoint`` value.
        qpos: First ``qpos`` address.
        nq: Number of ``qpos`` entries (7 free, 4 ball, 1 slide/hinge).
        dof: First ``qvel`` address.
        nv: Number of ``qvel`` entries (6 free, 3 ball, 1 slide/hinge).
    """

    id: int
    type: int
    qpos: int
    nq: int
    dof: int
    nv: int


class JointIndex:
    """Name → address map over every joint of a model, built once (unnamed: ``joint#<id>``).

    Args:
        model: The compiled model.
    """

    def __init__(self, model: mujoco.MjModel) -> None:
        self._addr: dict[str, JointAddress] = {}
        for j in range(model.njnt):
            name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint#{j}"
            jt = int(model.jnt_type[j])
            self._addr[name] = JointAddress(
                j,
                jt,
                int(model.jnt_qposadr[j]),
                _QPOS_WIDTH[mujoco.mjtJoint(jt)],
                int(model.jnt_dofadr[j]),
                _DOF_WIDTH[mujoco.mjtJoint(jt)],
            )

    @property
    def names(self) -> list[str]:
        """All joint names, in model order."""
        return list(self._addr)

    def __contains__(self, name: object) -> bool:
        return name in self._addr

    def __len__(self) -> int:
        return len(self._addr)

    def __getitem__(self, name: str) -> JointAddress:
        try:
            return self._addr[name]
        except KeyError:
            raise UnknownNameError("joint", name, self._addr) from None

    def qpos_slice(self, name: str) -> slice:
        """Slice of ``qpos`` for a joint."""
        a = self[name]
        return slice(a.qpos, a.qpos + a.nq)

    def qvel_slice(self, name: str) -> slice:
        """Slice of ``qvel`` for a joint."""
        a = self[name]
        return slice(a.dof, a.dof + a.nv)

    def scalar_qpos_addresses(self, names: Sequence[str]) -> np.ndarray:
        """``qpos`` addresses of 1-DoF (hinge/slide) joints, for vectorised reads and writes.

        Args:
            names: Joint names.

        Returns:
            ``(len(names),)`` integer addresses.

        Raises:
            UnknownNameError: A name is not a joint of the model.
            MjscopeError: A joint is free or ball (it has more than one ``qpos`` entry).
        """
        return np.array([self._scalar(n).qpos for n in names], dtype=np.intp)

    def _scalar(self, name: str) -> JointAddress:
        a = self[name]
        if a.nq != 1:
            raise MjscopeError(
                f"joint {name!r} is a free/ball joint with {a.nq} qpos entries; "
                "use qpos_slice() for it"
            )
        return a

    def write_qpos(self, qpos: np.ndarray, names: Sequence[str], values: npt.ArrayLike) -> None:
        """Write 1-DoF joint positions by name into a ``qpos`` array (in place).

        Args:
            qpos: ``(nq,)`` array to write into (e.g. ``data.qpos``).
            names: Joint names.
            values: ``(len(names),)`` positions [rad or m].
        """
        qpos[self.scalar_qpos_addresses(names)] = np.asarray(values, dtype=float)
