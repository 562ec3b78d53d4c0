"""The hand model the bridge drives: compiled with the profile's joints, actuators and mimic.

:func:`build_hand_model` takes a bundled name (``g20_left``), a URDF/MJCF file or an ``MjSpec``
and prepares it for a drive mode: PD adds (or re-tunes) position actuators on the active joints
with the profile's stiffness and max effort, puts the profile's damping on the joints (integrated
implicitly by ``implicitfast``; an actuator ``kv`` under a force limit stalls a saturated joint),
raises joint force limits below the max effort (URDF placeholders, like the seed's
``_patch_joint_max_forces``), gives every hand joint an armature of at least ``MIN_ARMATURE`` and
replaces the mimic couplings with joint equalities at the profile's ratios. Gravity is off unless
PD with ``gravity``. Hard-write leaves the model's dynamics alone. Hand geom pairs that already
penetrate at the reference and open poses (overlapping meshes of a URDF) are excluded from
collision, as an MJCF ``<exclude>`` would, so the projection only sees contacts that motion
creates.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from mjscope.exceptions import UnknownNameError
from mjscope.hand.mapping import complete_mimic_positions, sdk_range_to_urdf_positions
from mjscope.hand.profile import HandProfile
from mjscope.models.loading import LoadOptions, compile_spec, load_spec
from mjscope.models.registry import build_spec

logger = logging.getLogger(__name__)

SCENE = -1  # geom_chain value of geoms outside the hand
ROOT = -2  # geom_chain value of geoms on the fixed hand root (palm)
MIN_ARMATURE = 5e-4  # PD: smallest joint armature [kg·m²]


@dataclass(frozen=True)
class HandModel:
    """A compiled hand and the addresses the bridge needs.

    Attributes:
        model: Compiled model.
        profile: The profile it was built for.
        qadr: Profile joint name → ``qpos`` address.
        dofadr: Profile joint name → ``qvel`` address.
        limits: Profile joint name → (lower, upper) [rad].
        actuator: Active joint (profile name) → actuator id (PD mode only).
        chain_names: Name of each chain (the first body below the hand root).
        chain_qadr: Per chain, the ``qpos`` addresses it moves.
        geom_chain: ``(ngeom,)`` chain index of each geom, ``ROOT`` or ``SCENE``.
        excluded_pairs: Body pairs excluded because they penetrate at rest.
    """

    model: mujoco.MjModel
    profile: HandProfile
    qadr: dict[str, int]
    dofadr: dict[str, int]
    limits: dict[str, tuple[float, float]]
    actuator: dict[str, int]
    chain_names: tuple[str, ...]
    chain_qadr: tuple[np.ndarray, ...]
    geom_chain: np.ndarray
    excluded_pairs: int


def build_hand_model(
    source: str | Path | mujoco.MjSpec,
    profile: HandProfile,
    *,
    pd: bool = False,
    gravity: bool = False,
    collide_all: bool = False,
    self_collision: bool = True,
    load_options: LoadOptions | None = None,
) -> HandModel:
    """Load and prepare a hand model for the bridge.

    Args:
        source: Bundled name, model file, or spec (edited in place).
        profile: Hand profile (joint names are mapped through ``profile.joint_names``).
        pd: Prepare for PD drive (actuators, mimic equalities).
        gravity: Keep gravity on the hand (PD only; hard-write never steps).
        collide_all: Bundled ``g20_left``: every link collides, not only palm and tips.
        self_collision: PD: hand links collide with each other (off: excluded).
        load_options: Options for model files.

    Returns:
        The prepared model.

    Raises:
        UnknownNameError: A profile joint is not in the model (map it in ``joint_names``).
        ModelLoadError: The model cannot be loaded.
    """
    spec = _spec_for(source, profile, pd, collide_all, load_options)
    label = str(source) if not isinstance(source, mujoco.MjSpec) else "spec"
    first = compile_spec(spec, label)
    _check_joints(first, profile)
    if pd:
        _add_pd(spec, profile)
    if not (pd and gravity):
        spec.option.gravity = [0.0, 0.0, 0.0]
    hand_bodies = _hand_bodies(first, profile)
    excluded = _exclude_resting_pairs(spec, first, profile, hand_bodies)
    if pd and not self_collision:
        names = [mujoco.mj_id2name(first, mujoco.mjtObj.mjOBJ_BODY, b) for b in hand_bodies]
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                spec.add_exclude(bodyname1=a, bodyname2=b)
    return _index(compile_spec(spec, label), profile, excluded)


def _spec_for(
    source: str | Path | mujoco.MjSpec,
    profile: HandProfile,
    pd: bool,
    collide_all: bool,
    opts: LoadOptions | None,
) -> mujoco.MjSpec:
    if isinstance(source, mujoco.MjSpec):
        return source
    if str(source) == "g20_left":
        ratios = {m.joint: m.ratio for m in profile.mimic}
        return build_spec(
            "g20_left", collide_all=collide_all, mimic_equality=False, mimic_ratios=ratios
        )
    return load_spec(source, opts)


def _check_joints(model: mujoco.MjModel, profile: HandProfile) -> None:
    names = {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(model.njnt)}
    for j in profile.all_joints:
        if profile.model_name(j) not in names:
            raise UnknownNameError(
                "hand joint",
                profile.model_name(j),
                [n for n in names if n],
                f"map the profile joint {j!r} to a model joint under joint_names in the profile",
            )


def _add_pd(spec: mujoco.MjSpec, profile: HandProfile) -> None:
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    existing = {a.target: a for a in spec.actuators if a.trntype == mujoco.mjtTrn.mjTRN_JOINT}
    for joint in profile.active_joints:
        name = profile.model_name(joint)
        act = existing.get(name) or spec.add_actuator(
            name=f"pd_{name}", target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT
        )
        g = profile.gains_for(joint)
        # Damping as joint damping: implicitfast integrates it implicitly, while an actuator
        # kv under a force limit is integrated as if unclamped and stalls a saturated joint.
        act.set_to_position(kp=g.stiffness)
        jnt = spec.joint(name)
        jnt.damping = [g.damping, 0.0, 0.0]
        # The seed's _patch_joint_max_forces: URDF placeholder efforts (1 N·m) would clamp PD.
        lim = max(g.max_effort, *np.abs(jnt.actfrcrange)) if jnt.actfrclimited else g.max_effort
        jnt.actfrcrange = [-lim, lim]
        act.gear = [1.0, 0, 0, 0, 0, 0]
        act.ctrllimited = mujoco.mjtLimited.mjLIMITED_FALSE
        act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
        act.forcerange = [-g.max_effort, g.max_effort]
    for joint in profile.all_joints:  # phalanx inertias of a URDF are tiny: keep PD stable
        jnt = spec.joint(profile.model_name(joint))
        jnt.armature = max(float(jnt.armature), MIN_ARMATURE)
    mimic_names = {profile.model_name(m.joint) for m in profile.mimic}
    for eq in list(spec.equalities):
        if eq.type == mujoco.mjtEq.mjEQ_JOINT and {eq.name1, eq.name2} & mimic_names:
            spec.delete(eq)
    from mjscope.models.robots.g20_left import add_joint_coupling

    for m in profile.mimic:
        add_joint_coupling(spec, profile.model_name(m.joint), profile.model_name(m.driver), m.ratio)


def _hand_bodies(model: mujoco.MjModel, profile: HandProfile) -> list[int]:
    """The hand root body followed by every body below it."""
    root = _root_body(model, profile)
    return [b for b in range(model.nbody) if _is_below(model, b, root)]


def _root_body(model: mujoco.MjModel, profile: HandProfile) -> int:
    jid = mujoco.mj_name2id(
        model, mujoco.mjtObj.mjOBJ_JOINT, profile.model_name(profile.active_joints[0])
    )
    b = int(model.jnt_bodyid[jid])
    while model.body_jntnum[model.body_parentid[b]] > 0:
        b = int(model.body_parentid[b])
    return int(model.body_parentid[b])


def _is_below(model: mujoco.MjModel, b: int, root: int) -> bool:
    while b > 0 and b != root:
        b = int(model.body_parentid[b])
    return b == root


def _pose_qpos(model: mujoco.MjModel, profile: HandProfile) -> np.ndarray:
    q = model.qpos0.copy()
    full = complete_mimic_positions(
        sdk_range_to_urdf_positions(profile.open_command, profile), profile
    )
    for j, v in full.items():
        jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, profile.model_name(j))
        lo, hi = model.jnt_range[jid]
        q[model.jnt_qposadr[jid]] = np.clip(v, lo, hi) if model.jnt_limited[jid] else v
    return q


def _exclude_resting_pairs(
    spec: mujoco.MjSpec, model: mujoco.MjModel, profile: HandProfile, hand: list[int]
) -> int:
    data = mujoco.MjData(model)
    pairs: set[tuple[int, int]] = set()
    hand_set = set(hand)
    for q in (model.qpos0, _pose_qpos(model, profile)):
        data.qpos[:] = q
        mujoco.mj_kinematics(model, data)
        mujoco.mj_collision(model, data)
        for c in data.contact[: data.ncon]:
            b1, b2 = (int(model.geom_bodyid[g]) for g in c.geom)
            if c.dist < 0 and b1 in hand_set and b2 in hand_set:
                pairs.add((min(b1, b2), max(b1, b2)))
    for b1, b2 in sorted(pairs):
        spec.add_exclude(
            bodyname1=mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b1),
            bodyname2=mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b2),
        )
    if pairs:
        logger.info("excluded %d hand body pairs that penetrate at rest", len(pairs))
    return len(pairs)


def _index(model: mujoco.MjModel, profile: HandProfile, excluded: int) -> HandModel:
    jid = {
        j: mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, profile.model_name(j))
        for j in profile.all_joints
    }
    acts = {}
    for a in range(model.nu):
        if model.actuator_trntype[a] == mujoco.mjtTrn.mjTRN_JOINT:
            acts[int(model.actuator_trnid[a, 0])] = a
    hand = _hand_bodies(model, profile)
    root = hand[0]
    chain_roots = [b for b in hand if model.body_parentid[b] == root and model.body_jntnum[b]]
    body_chain = {}
    for ci, cr in enumerate(chain_roots):
        for b in hand:
            if _is_below(model, b, cr):
                body_chain[b] = ci
    geom_chain = np.full(model.ngeom, SCENE, dtype=int)
    for g in range(model.ngeom):
        b = int(model.geom_bodyid[g])
        geom_chain[g] = body_chain.get(b, ROOT if b == root else SCENE)
    chain_qadr = tuple(
        np.array(
            [
                model.jnt_qposadr[j]
                for j in range(model.njnt)
                if body_chain.get(model.jnt_bodyid[j]) == ci
            ],
            dtype=np.intp,
        )
        for ci in range(len(chain_roots))
    )
    return HandModel(
        model=model,
        profile=profile,
        qadr={j: int(model.jnt_qposadr[i]) for j, i in jid.items()},
        dofadr={j: int(model.jnt_dofadr[i]) for j, i in jid.items()},
        limits={
            j: (float(model.jnt_range[i, 0]), float(model.jnt_range[i, 1]))
            for j, i in jid.items()
            if model.jnt_limited[i]
        },
        actuator={j: acts[jid[j]] for j in profile.active_joints if jid[j] in acts},
        chain_names=tuple(
            mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) or "" for b in chain_roots
        ),
        chain_qadr=chain_qadr,
        geom_chain=geom_chain,
        excluded_pairs=excluded,
    )
