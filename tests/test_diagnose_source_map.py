"""Findings name the file and line of their element, includes followed (like a compiler)."""

import mujoco

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.source_map import SourceMap, locate

ROBOT = """<mujoco>
  <default><geom type="box" size=".1 .1 .1"/></default>
  <worldbody>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom/>
      <body name="arm" pos=".3 0 0">
        <joint name="j"/>
        <geom type="sphere" size=".05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="j"/>
  </actuator>
</mujoco>
"""
SCENE = """<mujoco>
  <include file="robot.xml"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
  </worldbody>
</mujoco>
"""


def _files(tmp_path):
    (tmp_path / "robot.xml").write_text(ROBOT)
    scene = tmp_path / "scene.xml"
    scene.write_text(SCENE)
    return scene, mujoco.MjModel.from_xml_path(str(scene))


def test_unnamed_elements_by_index_named_by_name_includes_followed(tmp_path):
    scene, model = _files(tmp_path)
    sm = SourceMap(model, scene)
    robot = tmp_path / "robot.xml"
    # the floor is geom 0 (the world's) although it is written last; the box in the default
    # block is a class, not a geom
    assert sm.where("geom", 0) == f"{scene}:4"
    assert sm.where("geom", 1) == f"{robot}:6" and sm.where("geom", 2) == f"{robot}:9"
    assert sm.where("joint", 1) == f"{robot}:8" and sm.where("body", 2) == f"{robot}:7"
    assert sm.where("actuator", 0) == f"{robot}:14"


def test_locate_sets_path_line_on_findings(tmp_path):
    scene, model = _files(tmp_path)
    f = [
        Finding("X", "warning", "geoms 'floor' / 'arm/geom#2'", "m", "f"),  # the moving geom
        Finding("Y", "warning", "joint 'j' limit", "m", "f"),
        Finding("Z", "info", "3 geoms", "m", "f"),  # no single element: no line
    ]
    a, b, c = locate(f, model, scene)
    assert a.source == f"{tmp_path / 'robot.xml'}:9" and b.source == f"{tmp_path / 'robot.xml'}:8"
    assert c.source is None
    assert locate(f, model, None) == f  # a bundled name or no file: unchanged
