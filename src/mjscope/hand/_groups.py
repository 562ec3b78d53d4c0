"""Joint groups of a hand (an active joint with its mimic joints) and contact Jacobians."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from mjscope.hand.model import HandModel


@dataclass(frozen=True)
class JointGroups:
    """Joints that move together, with their chain and motion pattern.

    Attributes:
        adr: Per group, the ``qpos`` addresses (driver first, then its mimic joints).
        pattern: Per group, ``d qpos / d driver`` for those addresses (1, then mimic ratios).
        dof: Per group, the ``qvel`` addresses of the same joints.
        chain: ``(n_groups,)`` chain index of each group.
        lower: ``(nq,)`` lower joint limits plus the profile's margin [rad] (``-inf``: none).
        upper: ``(nq,)`` upper joint limits minus the profile's margin [rad] (``inf``: none).
    """

    adr: tuple[np.ndarray, ...]
    pattern: tuple[np.ndarray, ...]
    dof: tuple[np.ndarray, ...]
    chain: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def joint_groups(hand: HandModel) -> JointGroups:
    """Group the hand's chain joints: each active joint with the mimic joints it drives."""
    m, p = hand.model, hand.profile
    follow: dict[str, list[tuple[str, float]]] = {}
    for mm in p.mimic:
        follow.setdefault(mm.driver, []).append((mm.joint, mm.ratio))
    adr, pattern = [], []
    for j in p.active_joints:
        adr.append(np.array([hand.qadr[j]] + [hand.qadr[f] for f, _ in follow.get(j, [])]))
        pattern.append(np.array([1.0] + [r for _, r in follow.get(j, [])]))
    grouped = set(np.concatenate(adr).tolist()) if adr else set()
    for chain_adr in hand.chain_qadr:  # chain joints the profile does not drive
        for a in chain_adr.tolist():
            if a not in grouped:
                adr.append(np.array([a]))
                pattern.append(np.array([1.0]))
    dof_of = {int(m.jnt_qposadr[i]): int(m.jnt_dofadr[i]) for i in range(m.njnt)}
    chain_of = {int(a): c for c, ca in enumerate(hand.chain_qadr) for a in ca}
    lower, upper = np.full(m.nq, -np.inf), np.full(m.nq, np.inf)
    for i in range(m.njnt):
        if m.jnt_limited[i] and m.jnt_type[i] == mujoco.mjtJoint.mjJNT_HINGE:
            lo, hi = m.jnt_range[i]
            margin = min(p.limit_margin, 0.5 * (hi - lo))  # the same margin as the targets
            lower[m.jnt_qposadr[i]], upper[m.jnt_qposadr[i]] = lo + margin, hi - margin
    return JointGroups(
        adr=tuple(a.astype(np.intp) for a in adr),
        pattern=tuple(pattern),
        dof=tuple(np.array([dof_of[int(x)] for x in a], dtype=np.intp) for a in adr),
        chain=np.array([chain_of.get(int(a[0]), -1) for a in adr], dtype=np.intp),
        lower=lower,
        upper=upper,
    )


def separation_rows(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    geom_chain: np.ndarray,
    chain: int,
    groups: JointGroups,
    members: np.ndarray,
    deeper_than: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Linearised contacts of one chain (kinematics and collision already computed).

    Args:
        model: Model.
        data: Data after ``mj_kinematics`` + ``mj_collision``.
        geom_chain: Chain index of each geom.
        chain: The chain.
        groups: Joint groups.
        members: Groups of the chain (indices into ``groups``).
        deeper_than: Only contacts penetrating more than this [m].

    Returns:
        ``(k, len(members))`` separation rate of each contact per group [m/rad] and the
        ``(k,)`` penetration depths [m].
    """
    mujoco.mj_comPos(model, data)
    n = data.ncon
    con = data.contact
    geom, dist = con.geom[:n], con.dist[:n]  # (n, 2), (n,) read in bulk
    sel = np.flatnonzero((geom_chain[geom] == chain).any(axis=1) & (-dist > deeper_than))
    pattern = np.zeros((model.nv, members.size))  # (nv, k) d qvel / d group driver
    for i, g in enumerate(members):
        pattern[groups.dof[g], i] = groups.pattern[g]
    pos, normal, body = con.pos[:n], con.frame[:n, :3], model.geom_bodyid[geom]
    jp1, jp2 = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    rows = np.zeros((sel.size, members.size))
    for r, i in enumerate(sel.tolist()):
        mujoco.mj_jac(model, data, jp1, None, pos[i], int(body[i, 0]))
        mujoco.mj_jac(model, data, jp2, None, pos[i], int(body[i, 1]))
        rows[r] = normal[i] @ (jp2 - jp1) @ pattern  # rate of separation along the normal
    return rows, -dist[sel]
