"""Docking scenes: YAML → frozen ``SceneCfg`` → ``Scene`` (MjSpec + Pinocchio from one MJCF).

Frames: the dock frame has its origin at the socket mouth centre and its z axis pointing out of
the socket; insertion goes along −z (depth is positive inside). The tool (peg) hangs off the
robot's ``attachment_site``: sensor site ``ft_site`` at the flange, end-effector site ``eef`` at
the peg tip, peg axis = tool z. The configuration dataclasses are in :mod:`mjscope.dock.config`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from mjscope.config import from_dict, package_data_path, read_yaml
from mjscope.dock.config import ContactCfg, DockCfg, SceneCfg, ToolCfg
from mjscope.dock.scene_checks import validate
from mjscope.exceptions import ConfigError, UnknownNameError
from mjscope.models import compile_spec, registry
from mjscope.models.scene import add_camera, add_floor, add_light, set_offscreen_size

if TYPE_CHECKING:
    import pinocchio as pin


TIMESTEP = 0.001  # MuJoCo timestep of every scene [s]


def scene_names() -> list[str]:
    """Bundled scene names."""
    return sorted(p.stem for p in package_data_path("scenes").glob("*.yaml"))


def load_scene(name_or_path: str | Path) -> Scene:
    """Load a bundled scene by name or a scene YAML file.

    Raises:
        UnknownNameError: Not a file and not a bundled scene.
        ConfigError: Invalid file (unknown key, bad value).
    """
    text = str(name_or_path)
    path = Path(text).expanduser()
    if not path.is_file():
        if text.endswith((".yaml", ".yml")) or os.sep in text:
            raise ConfigError(f"scene file {text!r} not found; pass an existing YAML file")
        if text not in scene_names():
            raise UnknownNameError("scene", text, scene_names(), "Or pass a scene YAML file")
        path = package_data_path("scenes", f"{text}.yaml")
    data = read_yaml(path)
    data.setdefault("name", path.stem)
    cfg = validate(from_dict(SceneCfg, data, where=str(path)), str(path))
    return Scene(cfg, path)


def dock_rotation(dock: DockCfg) -> np.ndarray:
    """World rotation of the dock frame (z out of the socket) from ``rpy_deg``; (3, 3)."""
    mat = np.zeros(9)
    mujoco.mju_quat2Mat(mat, _dock_quat(dock))
    return mat.reshape(3, 3)


def dock_geometry(
    p: np.ndarray, R: np.ndarray, mouth: np.ndarray, D: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Insertion depth [m], lateral error [m] and axis angle [rad] of tip poses; (n,) each.

    The tip position in dock axes ``c = Dᵀ(p − mouth)`` gives the depth ``−c_z`` and the lateral
    error ``|(c_x, c_y)|``; the axis angle is ``atan2(|(b_x, b_y)|, b_z)`` with
    ``b = Rᵀ(−dock z)``.

    Args:
        p: Tip positions, world [m]; (n, 3).
        R: Tip orientations; (n, 3, 3).
        mouth: Dock mouth, world [m]; (3,).
        D: Dock rotation (columns: dock axes, z out of the socket); (3, 3).
    """
    c = (p - mouth) @ D  # (n, 3)
    b = np.einsum("j,njk->nk", -D[:, 2], R)  # (n, 3)
    return -c[:, 2], np.hypot(c[:, 0], c[:, 1]), np.arctan2(np.hypot(b[:, 0], b[:, 1]), b[:, 2])


def _dock_quat(dock: DockCfg) -> np.ndarray:
    quat = np.zeros(4)
    mujoco.mju_euler2Quat(quat, np.radians(dock.rpy_deg), "xyz")
    return quat


class Scene:
    """A loaded scene: builds the MuJoCo model and the Pinocchio model from the same MJCF.

    Attributes:
        cfg: The validated configuration.
        name: Scene name.
        mode: ``docking`` (a dock is present) or ``tracking``.
        path: The YAML file it came from (``None`` when built in code).
    """

    def __init__(self, cfg: SceneCfg, path: Path | None = None) -> None:
        self.cfg = cfg
        self.name = cfg.name or "scene"
        self.mode = "docking" if cfg.dock is not None else "tracking"
        self.path = path

    def build_spec(self) -> mujoco.MjSpec:
        """Robot + peg tool (F/T site, tip site) + socket dock, as an uncompiled spec."""
        spec = registry.build_spec(self.cfg.robot)
        spec.option.gravity = list(self.cfg.gravity)
        spec.option.timestep = TIMESTEP
        _add_tool(spec, self.cfg.tool, self.cfg.contact)
        if self.cfg.dock is not None:
            _add_dock(spec, self.cfg.dock, self.cfg.tool, self.cfg.contact)
        floor = add_floor(spec, size=2.0)
        floor.contype = floor.conaffinity = 0  # visual only
        add_light(spec, (0.5, 0.0, 2.5))
        x, y, z = self.cfg.dock.pos if self.cfg.dock is not None else (0.6, 0.0, 0.3)
        add_camera(spec, "side", (x + 1.1, y - 1.5, z + 0.7), (0.6 * x, y, z + 0.2))
        set_offscreen_size(spec, 1280, 960)
        return spec

    def build_mjmodel(self) -> mujoco.MjModel:
        """The compiled MuJoCo model."""
        return compile_spec(self.build_spec(), f"scene {self.name!r}")

    def build_models(self) -> tuple[mujoco.MjModel, pin.Model]:
        """MuJoCo model and Pinocchio model parsed from the same assembled MJCF."""
        import pinocchio as pin

        spec = self.build_spec()
        mj_model = compile_spec(spec, f"scene {self.name!r}")
        xml = spec.to_xml()
        fd, name = tempfile.mkstemp(suffix=".xml")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(xml)
            pin_model = pin.buildModelFromMJCF(name)
        finally:
            os.unlink(name)
        pin_model.gravity.linear = np.asarray(self.cfg.gravity, float)
        return mj_model, pin_model

    def initial_q(self, model: mujoco.MjModel) -> np.ndarray:
        """Initial joint configuration [rad]: ``q0`` or the robot's ``home`` keyframe; (nq,)."""
        if self.cfg.q0 is not None:
            if len(self.cfg.q0) != model.nq:
                raise ConfigError(f"scene {self.name!r}: q0 needs {model.nq} values")
            return np.asarray(self.cfg.q0, float)
        return np.array(model.key("home").qpos)


def _add_tool(spec: mujoco.MjSpec, tool: ToolCfg, contact: ContactCfg) -> None:
    site = spec.site("attachment_site")
    body = site.parent.add_body()
    body.name, body.pos, body.explicitinertial = "tool", list(site.pos), True
    body.mass, body.ipos = tool.mass, [0.0, 0.0, tool.length / 2]
    body.inertia = list(tool.inertia)
    body.add_site().name = "ft_site"
    tip = body.add_site()
    tip.name, tip.pos = "eef", [0.0, 0.0, tool.length]
    half = (tool.half_width, tool.half_width, tool.length / 2)
    _box(body, "peg", (0.0, 0.0, tool.length / 2), half, contact, (0.2, 0.5, 0.9, 1.0))
    for stype, sname in ((mujoco.mjtSensor.mjSENS_FORCE, "ft_force"),
                         (mujoco.mjtSensor.mjSENS_TORQUE, "ft_torque")):  # fmt: skip
        s = spec.add_sensor()
        s.name, s.type, s.objtype, s.objname = sname, stype, mujoco.mjtObj.mjOBJ_SITE, "ft_site"


def _add_dock(spec: mujoco.MjSpec, dock: DockCfg, tool: ToolCfg, contact: ContactCfg) -> None:
    body = spec.worldbody.add_body()
    body.name, body.pos, body.quat = "dock", list(dock.pos), list(_dock_quat(dock))
    body.add_site().name = "dock_mouth"
    inner, half_d, w = tool.half_width + dock.clearance, dock.depth / 2, dock.wall
    walls = {
        "dock_wall_px": ((inner + w / 2, 0.0), (w / 2, inner + w)),
        "dock_wall_nx": ((-inner - w / 2, 0.0), (w / 2, inner + w)),
        "dock_wall_py": ((0.0, inner + w / 2), (inner, w / 2)),
        "dock_wall_ny": ((0.0, -inner - w / 2), (inner, w / 2)),
    }
    for name, ((x, y), (sx, sy)) in walls.items():
        _box(body, name, (x, y, -half_d), (sx, sy, half_d), contact)
    _box(body, "dock_bottom", (0, 0, -dock.depth - w / 2), (inner + w, inner + w, w / 2), contact)


def _box(
    body: mujoco.MjsBody,
    name: str,
    pos: tuple,
    size: tuple,
    contact: ContactCfg,
    rgba: tuple = (0.55, 0.55, 0.6, 1.0),
) -> None:
    g = body.add_geom()
    g.name, g.type = name, mujoco.mjtGeom.mjGEOM_BOX
    g.pos, g.size, g.rgba = [float(x) for x in pos], [float(x) for x in size], list(rgba)
    g.friction, g.solref = list(contact.friction), list(contact.solref)
    g.solimp, g.condim = list(contact.solimp), contact.condim
