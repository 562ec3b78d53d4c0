"""The teleop demo as a user sees it: its frames, its summary on stdout, its HTML page."""

from __future__ import annotations

import json
from pathlib import Path

import mujoco
import numpy as np

from mjscope.bridge.transport.inproc import InprocTransport
from mjscope.cli import main
from mjscope.cli.teleop import MirrorPicture
from mjscope.mirror.mock_arm import MockArm
from mjscope.rig import load_rig_cfg
from tests.utils import chromium_screenshot


def _subject_mask(pic: MirrorPicture) -> np.ndarray:
    """The pixels of the robot's geoms (not the floor) from the picture's fitted camera."""
    r, m = pic._renderer, pic.mirror.model
    r._renderer.enable_segmentation_rendering()
    r._renderer.update_scene(pic.mirror.data, camera=r.camera)
    seg = r._renderer.render()
    r._renderer.disable_segmentation_rendering()
    planes = [g for g in range(m.ngeom) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE]
    return (seg[..., 1] == int(mujoco.mjtObj.mjOBJ_GEOM)) & ~np.isin(seg[..., 0], planes)


def test_demo_frames_are_640x480_captioned_with_both_arms_whole_and_large() -> None:
    rig = load_rig_cfg()
    with InprocTransport() as bus:
        arms = [MockArm(bus, n, s, "none") for n, s in rig.sides.items()]
        pic = MirrorPicture(bus, rig)
        try:
            assert pic.frame(0.0) is None  # nothing seen yet: no zero-pose frame
            for a in arms:
                a.step(0.5)
            frame = pic.frame(0.5)
            assert frame is not None and frame.shape == (480, 640, 3)
            bare = pic._renderer.render(pic.mirror.data)  # same camera, no caption
            mask = _subject_mask(pic)
        finally:
            pic.close()
    rows, cols = np.nonzero(np.any(frame != bare, axis=2))
    assert rows.min() > 400 and cols.min() == 0 and cols.max() < 400  # the caption, bottom-left
    rows, cols = np.nonzero(mask)
    assert rows.min() > 0 and cols.min() > 0 and rows.max() < 479 and cols.max() < 639  # whole
    box = (rows.max() - rows.min() + 1) * (cols.max() - cols.min() + 1) / (480 * 640)
    assert box >= 0.4, box
    left, right = cols.min(), cols.max()
    assert left < 0.2 * 640 and right > 0.8 * 640, (left, right)  # both arms, side to side


def test_demo_json_dash_is_alone_on_stdout_and_its_page_shows_title_and_frames(
    tmp_path: Path, capsys
) -> None:
    out, extra = tmp_path / "d", tmp_path / "extra" / "page.html"
    args = ["teleop", "--demo", "--duration", "2", "--out", str(out)]
    assert main([*args, "--json", "-", "--html", str(extra)]) == 0
    cap = capsys.readouterr()
    summary = json.loads(cap.out)  # the summary and nothing else
    page = out / "teleop" / "report.html"
    assert summary["exit_code"] == 0 and summary["frames"] >= 20 and summary["duration_s"] == 2
    assert str(page) in summary["files"] and str(extra) in summary["files"]
    assert set(summary["sides"]) == {"left", "right"} and summary["mujoco"]["ready"]
    assert f"wrote {page}" in cap.err and "1 engagement," in cap.err  # the words go to stderr
    assert extra.read_text() == page.read_text()
    html = page.read_text()
    assert "mjscope teleop · demo" in html and "Latency" in html and "p99 [µs]" in html
    shot = chromium_screenshot(page, tmp_path / "shot.png")
    top = shot[:80].astype(int)
    assert (top.sum(axis=2) < 200).sum() > 500, "no title text at the top of the page"
    dark = shot.astype(int).sum(axis=2) < 150  # the render's dark scene, not the page
    assert dark.sum() > 60_000, "no rendered figure on the page"


def test_demo_checks_its_outputs_before_the_run(tmp_path: Path, capsys) -> None:
    args = ["teleop", "--demo", "--out", str(tmp_path)]
    assert main([*args, "--html", str(tmp_path / "r.txt")]) == 2
    assert "must end in .html" in capsys.readouterr().err
    assert main([*args, "--size", "10x10"]) == 2
    assert "--size '10x10'" in capsys.readouterr().err
    assert main([*args, "--json", str(tmp_path / "s.txt")]) == 2
    assert "must end in .json" in capsys.readouterr().err
    assert main(["teleop", "--mock", "--xr", "demo", "--size", "800x600"]) == 2  # sizes nothing
    assert "add one of those or drop --size" in capsys.readouterr().err
    assert not (tmp_path / "teleop").exists()
