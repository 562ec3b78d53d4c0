"""The IK model's description: the bundled dual-arm URDF, or a user URDF, reduced per arm.

The bundled ``dual_rm75`` ships as a URDF export (``data/urdf/dual_rm75.urdf``, kept equal to
the MuJoCo model by a test), so teleop reads it without importing MuJoCo. A user URDF (e.g.
``rm_75.urdf``, whose meshes are ``package://`` URIs Placo cannot resolve) is read with its
``<visual>`` and ``<collision>`` elements dropped: the IK needs the kinematics only.

Each arm gets its own kinematic chain, found by joint names: the links from the root to the
arm's first joint and everything below its joints; the other arm's links are left out (the
arm's forward kinematics do not depend on them, and its QP stays 7-dimensional).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from mjscope.config import package_data_path
from mjscope.exceptions import ConfigError, UnknownNameError

BUNDLED = "dual_rm75"
MAX_URDF_BYTES = 20_000_000  # a URDF larger than this is not a robot description


def bundled_urdf_path(name: str = BUNDLED) -> Path:
    """The packaged URDF export of a bundled model."""
    return package_data_path("urdf", f"{name}.urdf")


def read_urdf(path: str | Path | None = None) -> ET.Element:
    """Parse a URDF (default: the bundled ``dual_rm75``) without its geometry.

    Raises:
        ConfigError: Missing, too large, not XML, or not a ``<robot>``.
    """
    p = Path(path) if path is not None else bundled_urdf_path()
    if not p.is_file():
        raise ConfigError(f"URDF {str(p)!r} not found; pass an existing .urdf file with --urdf")
    if p.stat().st_size > MAX_URDF_BYTES:
        raise ConfigError(f"URDF {str(p)!r} is over {MAX_URDF_BYTES} bytes; is it a URDF?")
    try:
        root = ET.fromstring(p.read_bytes())
    except ET.ParseError as e:
        raise ConfigError(f"URDF {str(p)!r} is not valid XML ({e}); fix the file") from e
    if root.tag != "robot":
        raise ConfigError(f"URDF {str(p)!r} has root <{root.tag}>, not <robot>")
    for link in root.findall("link"):
        for tag in ("visual", "collision"):
            for el in link.findall(tag):
                link.remove(el)
    return root


def joint_names(root: ET.Element) -> list[str]:
    """The movable joints of a URDF, in file order."""
    return [j.get("name", "") for j in root.findall("joint") if j.get("type") != "fixed"]


def arm_chain(root: ET.Element, joints: Sequence[str], where: str = "URDF") -> str:
    """URDF text of the chain of ``joints``: root → first joint, and all below the joints.

    Raises:
        UnknownNameError: A joint is not in the URDF (the message lists its joints).
    """
    by_name = {j.get("name"): j for j in root.findall("joint")}
    for n in joints:
        if n not in by_name or by_name[n].get("type") == "fixed":
            raise UnknownNameError(
                "joint",
                n,
                joint_names(root),
                f"{where} must hold every arm joint; map names with --map-prefix (e.g. left_=)",
            )
    parent_joint = {_link(j, "child"): j for j in root.findall("joint")}
    below: dict[str, list[str]] = {}
    for j in root.findall("joint"):
        below.setdefault(_link(j, "parent"), []).append(_link(j, "child"))
    keep: set[str] = set()
    for n in joints:
        link = _link(by_name[n], "parent")
        while True:  # up to the root
            keep.add(link)
            if link not in parent_joint:
                break
            link = _link(parent_joint[link], "parent")
        stack = [_link(by_name[n], "child")]
        while stack:  # everything below
            link = stack.pop()
            keep.add(link)
            stack += below.get(link, [])
    out = ET.Element("robot", root.attrib)
    for el in root:
        if (el.tag == "link" and el.get("name") in keep) or (
            el.tag == "joint" and _link(el, "child") in keep
        ):
            out.append(el)
    return ET.tostring(out, encoding="unicode")


def end_link(root: ET.Element, last_joint: str) -> str:
    """The child link of ``last_joint`` (the default end-effector frame)."""
    for j in root.findall("joint"):
        if j.get("name") == last_joint:
            return _link(j, "child")
    raise UnknownNameError("joint", last_joint, joint_names(root))


def _link(joint: ET.Element, tag: str) -> str:
    el = joint.find(tag)
    if el is None or not el.get("link"):
        raise ConfigError(f"URDF joint {joint.get('name')!r} has no <{tag} link=...>")
    return str(el.get("link"))
