"""Cartesian limits of the end-effector target: the workspace and the target's speed.

Workspace (world frame, from the side's YAML keys; see :mod:`mjscope.rig`): the box
``workspace_min`` .. ``workspace_max``, minus a keep-out cylinder of radius ``cyl_radius_limit``
around the torso axis at every height, minus a wider one of radius ``low_cyl_radius_limit``
below ``low_cyl_height`` (the low-position limit). :meth:`Workspace.project` moves a point to
the nearest allowed point it finds (box clamp, then out of a cylinder radially, or up out of
the low one, whichever is nearer).

Speed: between two cycles the target moves at most ``max_linear_speed · dt`` and turns at most
``max_orientation_speed · dt`` (the turn along the geodesic). The previous target is always
inside the workspace, so the limited target is too: a step that would end inside a keep-out
cylinder slides along its surface, still within the speed limit (shortened towards the
previous target if need be). Each binding limit is named in the result, so the caller counts
every clamp per cycle.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from mjscope.rig import SideCfg
from mjscope.teleop.poses import Pose, canonical, quat_conj, quat_mul, quat_to_rotvec
from mjscope.teleop.poses import rotvec_to_quat as _exp

_EPS = 1e-9  # [m] tolerance of the containment test (projection round-off)


class Workspace:
    """The allowed end-effector positions of one arm (box minus keep-out cylinders).

    Args:
        lo: ``(3,)`` box lower corner [m].
        hi: ``(3,)`` box upper corner [m].
        axis_xy: ``(2,)`` the torso axis position [m].
        radius: Keep-out radius at every height [m] (0: none).
        low_height: The low cylinder applies below this height [m].
        low_radius: Keep-out radius below ``low_height`` [m] (0: none).
    """

    def __init__(
        self,
        lo: np.ndarray,
        hi: np.ndarray,
        axis_xy: np.ndarray,
        radius: float = 0.0,
        low_height: float = 0.0,
        low_radius: float = 0.0,
    ) -> None:
        self.lo, self.hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        self.axis = np.asarray(axis_xy, dtype=float)
        self.radius, self.low_height, self.low_radius = radius, low_height, low_radius
        self._lo, self._hi = self.lo.tolist(), self.hi.tolist()  # plain floats: fast tests
        self._ax, self._ay = self.axis.tolist()

    @classmethod
    def from_side(cls, s: SideCfg) -> Workspace:
        """The workspace of a side's YAML keys."""
        return cls(
            np.array(s.workspace_min),
            np.array(s.workspace_max),
            np.array(s.cyl_axis_xy),
            s.cyl_radius_limit,
            s.low_cyl_height,
            s.low_cyl_radius_limit,
        )

    def keepout_radius(self, z: float) -> float:
        """The keep-out radius around the torso axis at height ``z`` [m]."""
        return max(self.radius, self.low_radius) if z < self.low_height else self.radius

    def contains(self, p: np.ndarray) -> bool:
        """Whether ``p`` is allowed (within :data:`_EPS`)."""
        x, y, z = p.tolist()
        (x0, y0, z0), (x1, y1, z1) = self._lo, self._hi
        if not (x0 - _EPS <= x <= x1 + _EPS and y0 - _EPS <= y <= y1 + _EPS):
            return False
        if not z0 - _EPS <= z <= z1 + _EPS:
            return False
        return math.hypot(x - self._ax, y - self._ay) >= self.keepout_radius(z) - _EPS

    def violation(self, p: np.ndarray) -> str:
        """Which bound ``p`` breaks, in words naming the config key (``""`` when allowed)."""
        xyz = p.tolist()
        for axis, v, lo, hi in zip("xyz", xyz, self._lo, self._hi, strict=True):
            if v < lo - _EPS:
                return f"{axis} = {v:.3f} m is below workspace_min {axis} = {lo:g} m"
            if v > hi + _EPS:
                return f"{axis} = {v:.3f} m is above workspace_max {axis} = {hi:g} m"
        r, need = math.hypot(xyz[0] - self._ax, xyz[1] - self._ay), self.keepout_radius(xyz[2])
        if r >= need - _EPS:
            return ""
        if need > self.radius:
            return (
                f"{r:.3f} m from the torso axis below low_cyl_height {self.low_height:g} m, "
                f"inside low_cyl_radius_limit {need:g} m"
            )
        return f"{r:.3f} m from the torso axis, inside cyl_radius_limit {need:g} m"

    def project(self, p: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
        """The nearest allowed point found for ``p`` and the limits that moved it.

        Returns:
            The point and the names of the binding limits (``workspace``, ``cylinder``,
            ``low_cylinder``); an empty tuple when ``p`` was allowed.
        """
        xyz = p.tolist()
        box = [min(max(v, lo), hi) for v, lo, hi in zip(xyz, self._lo, self._hi, strict=True)]
        hit: tuple[str, ...] = ("workspace",) if box != xyz else ()
        r_need = self.keepout_radius(box[2])
        out = np.array(box)
        if math.hypot(box[0] - self._ax, box[1] - self._ay) >= r_need:
            return out, hit
        low = r_need > self.radius
        best = min(self._candidates(out), key=lambda c: float(np.sum((c - out) ** 2)))
        return best, (*hit, "low_cylinder" if low else "cylinder")

    def _candidates(self, p: np.ndarray) -> list[np.ndarray]:
        """Allowed points near ``p`` (inside a keep-out cylinder): radially out, or lifted."""
        d = p[:2] - self.axis
        n = math.hypot(d[0], d[1])
        u = d / n if n > 1e-9 else _outward(self.lo, self.hi, self.axis)
        found = []
        for r in dict.fromkeys((self.keepout_radius(float(p[2])), self.radius)):
            c = p.copy()
            c[:2] = self.axis + (r + _EPS) * u
            c = np.minimum(np.maximum(c, self.lo), self.hi)
            if self.contains(c):
                found.append(c)
        lifted = p.copy()
        lifted[2] = max(lifted[2], self.low_height)
        if self.contains(lifted):
            found.append(lifted)
        return found or [_far_corner(self)]


def _radial(p: np.ndarray, axis: np.ndarray) -> float:
    return math.hypot(float(p[0] - axis[0]), float(p[1] - axis[1]))


def _outward(lo: np.ndarray, hi: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """A horizontal unit vector from the axis towards the box's centre (or +x)."""
    d = 0.5 * (lo[:2] + hi[:2]) - axis
    n = math.hypot(d[0], d[1])
    return d / n if n > 1e-9 else np.array([1.0, 0.0])


def _far_corner(ws: Workspace) -> np.ndarray:
    """The box corner farthest from the axis at the top (allowed for any sane config)."""
    xs = (ws.lo[0], ws.hi[0])
    ys = (ws.lo[1], ws.hi[1])
    corners = [np.array([x, y, ws.hi[2]]) for x in xs for y in ys]
    return max(corners, key=lambda c: _radial(c, ws.axis))


class Limited(NamedTuple):
    """A limited target and the limits that bound it this cycle.

    Attributes:
        pose: The target, inside the workspace and within the speed limits.
        clamps: Names of the binding limits (``workspace``, ``cylinder``, ``low_cylinder``,
            ``linear_speed``, ``orientation_speed``).
    """

    pose: Pose
    clamps: tuple[str, ...]


class CartesianLimiter:
    """Workspace and speed limits of one arm's target.

    Args:
        workspace: The allowed positions.
        max_linear_speed: [m/s].
        max_orientation_speed: [rad/s].
        dt: Control period [s].
    """

    def __init__(
        self, workspace: Workspace, max_linear_speed: float, max_orientation_speed: float, dt: float
    ) -> None:
        self.workspace = workspace
        self.max_step = max_linear_speed * dt  # [m] per cycle
        self.max_turn = max_orientation_speed * dt  # [rad] per cycle

    def limit(self, target: Pose, prev: Pose) -> Limited:
        """Limit ``target`` given the previous (allowed) target ``prev``."""
        p, clamps = self.workspace.project(target.p)
        p, moved = self._step(prev.p, p)
        q, turned = self._turn(prev.q, target.q)
        extra = (("linear_speed",) if moved else ()) + (("orientation_speed",) if turned else ())
        return Limited(Pose(p, q), clamps + extra)

    def limit_floats(
        self, p: list[float], q: list[float], p0: list[float], q0: list[float]
    ) -> tuple[list[float], list[float], tuple[str, ...]]:
        """:meth:`limit` on plain floats (target ``p``, ``q``; previous target ``p0``, ``q0``).

        The usual cycle binds no limit: that is decided here with the same tests as
        :meth:`limit` and returns the target itself; otherwise :meth:`limit` runs.
        """
        ws = self.workspace
        x, y, z = p
        (x0, y0, z0), (x1, y1, z1) = ws._lo, ws._hi
        if x0 <= x <= x1 and y0 <= y <= y1 and z0 <= z <= z1:  # project(): no box clamp
            r_need = ws.low_radius if z < ws.low_height and ws.low_radius > ws.radius else ws.radius
            if math.hypot(x - ws._ax, y - ws._ay) >= r_need:  # ... and no keep-out cylinder
                dx, dy, dz = x - p0[0], y - p0[1], z - p0[2]
                aw, ax, ay, az = q0
                bw, bx, by, bz = q
                dot = abs(aw * bw + ax * bx + ay * by + az * bz)
                if math.sqrt(dx * dx + dy * dy + dz * dz) <= self.max_step and (
                    2.0 * math.acos(dot if dot < 1.0 else 1.0) <= self.max_turn
                ):
                    return p, q, ()
        lim = self.limit(Pose(np.array(p), np.array(q)), Pose(np.array(p0), np.array(q0)))
        return lim.pose.p.tolist(), lim.pose.q.tolist(), lim.clamps

    def _step(self, p0: np.ndarray, p1: np.ndarray) -> tuple[np.ndarray, bool]:
        (x0, y0, z0), (x1, y1, z1) = p0.tolist(), p1.tolist()  # plain floats: the usual case
        dx, dy, dz = x1 - x0, y1 - y0, z1 - z0
        n = math.sqrt(dx * dx + dy * dy + dz * dz)
        if n <= self.max_step:
            return p1, False
        d = p1 - p0
        c = p0 + (self.max_step / n) * d
        if self.workspace.contains(c):
            return c, True
        c, _ = self.workspace.project(c)  # slide along the keep-out surface ...
        d = c - p0
        n = math.sqrt(float(d @ d))
        if n > self.max_step:  # ... but never faster than the limit
            c = p0 + (self.max_step / n) * d
        a = 1.0
        while not self.workspace.contains(p0 + a * (c - p0)) and a > 1e-6:
            a *= 0.5  # the segment p0 → c cut a keep-out cylinder: shorten it
        return (p0 + a * (c - p0)) if a > 1e-6 else p0.copy(), True

    def _turn(self, q0: np.ndarray, q1: np.ndarray) -> tuple[np.ndarray, bool]:
        (aw, ax, ay, az), (bw, bx, by, bz) = q0.tolist(), q1.tolist()
        dot = abs(aw * bw + ax * bx + ay * by + az * bz)
        if 2.0 * math.acos(dot if dot < 1.0 else 1.0) <= self.max_turn:  # quat_angle, inline
            return q1, False
        rv = quat_to_rotvec(quat_mul(q1, quat_conj(q0)))  # world-frame turn q0 → q1
        angle = math.sqrt(float(rv @ rv))
        return canonical(quat_mul(_exp(rv * (self.max_turn / angle)), q0)), True
