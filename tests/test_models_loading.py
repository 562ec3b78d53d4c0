from __future__ import annotations

from pathlib import Path

import mujoco
import pytest

from mjscope.exceptions import ModelLoadError, UnknownNameError
from mjscope.models import LoadOptions, load, load_spec
from mjscope.models.loading import resolve_mesh
from tests.utils import asset

BOX_MJCF = """<mujoco><worldbody><body name="b"><freejoint/><geom size=".1"/></body>
</worldbody></mujoco>"""


def _write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def _mesh(path: Path) -> Path:
    """A small tetrahedron as a Wavefront OBJ (text; MuJoCo reads it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
    )
    return path


def _urdf(mesh: str) -> str:
    return f"""<robot name="r">
  <link name="base"><inertial><mass value="1"/><inertia ixx=".01" iyy=".01" izz=".01"
    ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="{mesh}"/></geometry></collision></link>
  <link name="l1"><inertial><mass value="1"/><inertia ixx=".01" iyy=".01" izz=".01"
    ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size=".1 .1 .1"/></geometry></visual></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""


def test_mjcf_file_loads(tmp_path: Path) -> None:
    m = load(_write(tmp_path, "m.xml", BOX_MJCF))
    assert (m.nq, m.nv) == (7, 6)


def test_upper_case_suffix_is_a_file_not_a_bundled_name(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # bare file names, no folder separator in them
    _mesh(tmp_path / "meshes" / "base.obj")
    _write(tmp_path, "R.URDF", _urdf("meshes/base.obj"))
    assert load("R.URDF").njnt == 1
    with pytest.raises(ModelLoadError, match="not found"):
        load("GONE.XML")
    for name in ("M.XML", "m.mjcf"):  # MuJoCo 3.17 only decodes a lower-case .xml suffix
        _write(tmp_path, name, BOX_MJCF)
        with pytest.raises(ModelLoadError, match=r"lower-case \.xml: rename it"):
            load(name)


def test_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="not found"):
        load(tmp_path / "nope.xml")


def test_malformed_xml_names_the_line(tmp_path: Path) -> None:
    p = _write(tmp_path, "bad.xml", "<mujoco>\n<worldbody>\n<body>\n</worldbody></mujoco>")
    with pytest.raises(ModelLoadError, match=r"line \d+"):
        load(p)


def test_malformed_urdf_names_the_line(tmp_path: Path) -> None:
    p = _write(tmp_path, "bad.urdf", "<robot name='r'>\n<link name='a'>\n</robot>")
    with pytest.raises(ModelLoadError, match="line 3"):
        load(p)


def test_unknown_bundled_name_lists_known() -> None:
    with pytest.raises(UnknownNameError, match="mjscope models"):
        load("no_such_robot")


def test_urdf_relative_mesh_and_fixed_links(tmp_path: Path) -> None:
    _mesh(tmp_path / "meshes" / "base.obj")
    p = _write(tmp_path, "r.urdf", _urdf("meshes/base.obj"))
    m = load(p)
    assert m.njnt == 1 and m.nmesh == 1
    assert mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, "j1") == 0
    kept = load(p, LoadOptions(keep_visual=True))
    dropped = load(p, LoadOptions(keep_visual=False))
    assert kept.ngeom == dropped.ngeom + 1


def test_urdf_package_uri_via_package_path_and_env(tmp_path: Path, monkeypatch) -> None:
    _mesh(tmp_path / "pkgs" / "my_pkg" / "meshes" / "base.obj")
    urdf = _write(tmp_path / "elsewhere", "r.urdf", _urdf("package://my_pkg/meshes/base.obj"))
    with pytest.raises(ModelLoadError, match="--package-path"):
        load(urdf)
    assert load(urdf, LoadOptions(package_paths=(str(tmp_path / "pkgs"),))).nmesh == 1
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "pkgs"))
    assert load(urdf).nmesh == 1


def test_urdf_missing_mesh_names_file(tmp_path: Path) -> None:
    p = _write(tmp_path, "r.urdf", _urdf("meshes/gone.stl"))
    with pytest.raises(ModelLoadError, match=r"gone\.stl"):
        load(p)


def test_dae_mesh_uses_stl_sibling_or_explains(tmp_path: Path) -> None:
    p = _write(tmp_path, "r.urdf", _urdf("meshes/base.dae"))
    with pytest.raises(ModelLoadError, match=r"\.dae.*convert it to \.stl"):
        load(p)
    _mesh(tmp_path / "meshes" / "base.obj")
    assert resolve_mesh("meshes/base.dae", p, []).endswith("base.obj")
    assert load(p).nmesh == 1


def test_real_rm75_urdf_resolves_package_uri() -> None:
    urdf = asset("rm75", "urdf", "rm_75.urdf")
    m = load(urdf)
    assert m.nq == 7 and m.nmesh == 8
    m2 = load(urdf, LoadOptions(package_paths=(str(urdf.parents[1]),)))
    assert m2.nq == 7


def test_real_l20_hand_urdf_has_mimic_equalities() -> None:
    m = load(asset("linkerhand_l20_left", "linkerhand_l20_left.urdf"))
    assert m.nq == 21 and m.neq == 5


def test_load_spec_returns_editable_spec(tmp_path: Path) -> None:
    spec = load_spec(_write(tmp_path, "m.xml", BOX_MJCF))
    spec.option.timestep = 0.005
    assert spec.compile().opt.timestep == pytest.approx(0.005)


def test_mjcf_include_and_missing_assets(tmp_path: Path) -> None:
    _write(tmp_path, "inc.xml", BOX_MJCF)
    assert load(_write(tmp_path, "main.xml", '<mujoco><include file="inc.xml"/></mujoco>')).nq == 7
    missing_inc = _write(tmp_path, "mi.xml", '<mujoco><include file="gone.xml"/></mujoco>')
    with pytest.raises(ModelLoadError, match=r"gone\.xml.*restore it"):
        load(missing_inc)
    mesh = (
        '<mujoco><asset><mesh name="m" file="nothere.stl"/></asset>'
        '<worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>'
    )
    with pytest.raises(ModelLoadError, match=r"nothere\.stl.*restore it"):
        load(_write(tmp_path, "mm.xml", mesh))


def test_unknown_attribute_is_explained(tmp_path: Path) -> None:
    p = _write(
        tmp_path, "a.xml", '<mujoco><worldbody><geom size=".1" bogus="3"/></worldbody></mujoco>'
    )
    with pytest.raises(ModelLoadError, match=r"bogus.*MuJoCo version"):
        load(p)


def test_a_folder_is_named_as_a_folder_with_the_fix(tmp_path: Path, monkeypatch) -> None:
    _write(tmp_path / "go2", "scene.xml", BOX_MJCF)
    _write(tmp_path / "go2", "go2.xml", BOX_MJCF)
    with pytest.raises(ModelLoadError, match=r"is a folder, not a model file \(it holds go2\.xml"):
        load(tmp_path / "go2")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelLoadError, match=r"'go2' is a folder.*'go2/go2\.xml'"):
        load("go2")  # no separator, not a bundled name: still a folder
    (tmp_path / "fourbar").mkdir()
    assert load("fourbar").njnt > 0  # a bundled name wins over a folder of that name
    with pytest.raises(ModelLoadError, match="is a folder"):
        load("./fourbar")  # ... unless it is written as a path


@pytest.mark.parametrize(
    ("missing", "bundled"),
    [("rm_75.urdf", "rm75"), ("linkerhand_l20_left.urdf", "g20_left"), ("iiwa14_v2.xml", "iiwa14")],
)
def test_a_missing_file_suggests_the_bundled_model_of_that_robot(
    missing: str, bundled: str
) -> None:
    with pytest.raises(
        ModelLoadError, match=rf"not found; check the path, or use the bundled model '{bundled}'"
    ):
        load_spec(missing)


def test_a_missing_file_of_no_known_robot_suggests_nothing() -> None:
    with pytest.raises(ModelLoadError, match=r"not found; check the path$"):
        load_spec("my_robot.xml")
