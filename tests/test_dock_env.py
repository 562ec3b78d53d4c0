"""MujocoEnv: copies, F/T reading and its transform, contact force, bad torque, recording.

Recordings follow simulated time: ``T`` simulated seconds give ``T · fps`` frames.
"""

from __future__ import annotations

from pathlib import Path

import imageio.v2 as iio2
import imageio_ffmpeg
import mujoco
import numpy as np
import pytest
import yaml
from PIL import Image

from mjscope.control.wrench import wrench_site_to_frame
from mjscope.dock.env import MujocoEnv
from mjscope.dock.run_docking import run_simulation
from mjscope.dock.scene import load_scene
from mjscope.exceptions import OutputError, SimulationError
from tests.utils import assert_close


@pytest.fixture(scope="module")
def env() -> MujocoEnv:
    sc = load_scene("iiwa14_docking")
    m = sc.build_mjmodel()
    return MujocoEnv(m, sc.initial_q(m))


def test_step_returns_copies(env: MujocoEnv) -> None:
    env.reset(env.data.qpos.copy())
    q1, v1, p1 = env.step(np.full(7, 1.0))
    q1_saved = q1.copy()
    q2, v2, p2 = env.step(np.full(7, 1.0))
    assert_close(q1, q1_saved)  # not overwritten by the next step
    assert not np.allclose(q1, q2) and not np.allclose(v1, v2) and not np.allclose(p1, p2)
    assert env.time == pytest.approx(0.002)
    assert_close(p2, env.data.site_xpos[env.eef])


def test_non_finite_torque_is_rejected(env: MujocoEnv) -> None:
    before = env.data.qpos.copy()
    with pytest.raises(SimulationError, match="non-finite torque"):
        env.step(np.array([0, 0, np.nan, 0, 0, 0, 0.0]))
    assert_close(env.data.qpos, before)


def test_no_contact_at_start(env: MujocoEnv) -> None:
    env.reset(env.data.qpos.copy())
    assert env.contact_force() == 0.0


def test_contact_force_sums_the_peg_dock_contacts() -> None:
    """In the socket: the preresolved pair lookup equals a plain scan of every contact."""
    sc = load_scene("iiwa14_docking")
    taus = run_simulation(sc, "cic", duration=3.3).log.arrays()["tau"]
    m = sc.build_mjmodel()
    env = MujocoEnv(m, sc.initial_q(m))
    for tau in taus:
        env.step(tau)
    d, force = env.data, np.zeros(6)
    expected = 0.0
    for i in range(d.ncon):
        pair = {int(d.contact[i].geom1), int(d.contact[i].geom2)}
        if env.peg in pair and pair & env.dock_geoms:
            mujoco.mj_contactForce(m, d, i, force)
            expected += force[0]
    assert d.ncon > 0 and expected > 1.0
    assert env.contact_force() == pytest.approx(expected, rel=1e-12)
    p_s, R_s = env.ft_site_pose()
    f_s, m_s = env.ft_reading()
    expected_wrench = -wrench_site_to_frame(f_s, m_s, R_s, p_s, None, env.eef_pose()[0])
    assert env._A is not None  # peg sites on one body: the precomputed rigid offset is used
    assert_close(env.eef_wrench(), expected_wrench, atol=1e-12)
    assert_close(env.eef_wrench(env.eef_pose()[0]), expected_wrench, atol=1e-12)  # general path


def test_ft_reading_under_gravity_matches_hand_computation(tmp_path: Path) -> None:
    """Static arm under gravity: the external wrench on the tool is its weight at its centre."""
    data = yaml.safe_load(Path(load_scene("iiwa14_docking").path).read_text())
    data["gravity"] = [0.0, 0.0, -9.81]
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(data))
    sc = load_scene(path)
    m = sc.build_mjmodel()
    env = MujocoEnv(m, sc.initial_q(m))
    env.data.ctrl[:] = env.data.qfrc_bias  # gravity compensation: q̈ = 0
    mujoco.mj_forward(m, env.data)
    assert_close(env.data.qacc, np.zeros(7), atol=1e-9)
    f_s, m_s = env.ft_reading()
    p_s, R_s = env.ft_site_pose()
    p_e, _ = env.eef_pose()
    wrench = env.eef_wrench()
    assert_close(wrench, -wrench_site_to_frame(f_s, m_s, R_s, p_s, None, p_e))
    weight = np.array([0.0, 0.0, -9.81 * sc.cfg.tool.mass])
    com = p_s + R_s @ np.array([0.0, 0.0, sc.cfg.tool.length / 2])
    assert_close(wrench[:3], weight, atol=1e-9)
    assert_close(wrench[3:], np.cross(com - p_e, weight), atol=1e-9)


def test_recording(tmp_path: Path) -> None:
    sc = load_scene("iiwa14_track_circle")
    m = sc.build_mjmodel()
    env = MujocoEnv(m, sc.initial_q(m))
    env.start_recording(tmp_path / "run.mp4", fps=100.0, width=64, height=48)
    for _ in range(30):
        env.step(np.zeros(7))
    assert env.recorded_frames == 4  # the initial frame + one per 10 ms of simulated time
    out = env.save_recording()
    assert out == tmp_path / "run.mp4"
    # 30 ms at 100 fps: 3 frames (the one at t = 30 ms would start the slot after the end)
    assert imageio_ffmpeg.count_frames_and_secs(str(out)) == (3, 0.03)
    assert env.recorded_frames == 0
    with pytest.raises(SimulationError, match="nothing recorded"):
        env.save_recording()


def test_frames_follow_simulated_time_not_step_counts(tmp_path: Path) -> None:
    """30 fps of 1 ms steps: frames at k/30 s (a 33-step cadence would drift to 30.3 fps)."""
    sc = load_scene("iiwa14_track_circle")
    m = sc.build_mjmodel()
    env = MujocoEnv(m, sc.initial_q(m))
    env.start_recording(tmp_path / "run.gif", fps=30.0, width=32, height=24)
    assert env._recorder is not None and env._recorder.fps == pytest.approx(100 / 3)  # GIF: 3 cs
    for _ in range(3000):
        env.step(np.zeros(7))
    assert env.recorded_frames == 101  # 3 s at 100/3 fps, plus the frame at t = 3 s
    env.save_recording()
    delays = []
    with Image.open(tmp_path / "run.gif") as im:
        for i in range(im.n_frames):
            im.seek(i)
            delays.append(im.info["duration"])
    assert sum(delays) == 3000  # [ms]: the GIF plays the 3 simulated seconds in 3 s


def test_a_docking_run_of_t_seconds_gives_t_times_fps_frames(tmp_path: Path) -> None:
    out = tmp_path / "run.mp4"
    run_simulation(load_scene("iiwa14_docking"), "cic", duration=1.0, record=out)
    n, secs = imageio_ffmpeg.count_frames_and_secs(str(out))
    assert abs(n - 30) <= 1, (n, secs)  # 1 s of simulated time at the default 30 fps
    frames = [f.astype(int) for f in iio2.get_reader(out)]
    assert np.abs(frames[0] - frames[-1]).mean() > 0.5  # the arm moved


def test_unwritable_recording_fails_before_the_run() -> None:
    sc = load_scene("iiwa14_track_circle")
    m = sc.build_mjmodel()
    env = MujocoEnv(m, sc.initial_q(m))
    with pytest.raises(OutputError, match="not writable"):
        env.start_recording("/proc/run.mp4")
    assert env.recorded_frames == 0


def test_body_wrench_matches_a_known_external_wrench_from_xfrc_applied() -> None:
    """A wrench applied to the tool with ``xfrc_applied`` reads back at the EEF in body axes.

    Static arm (torques balance the applied wrench, so q̈ = 0 and the reading is exact): the
    external wrench about the EEF origin is ``(f, m + (p_c − p_E) × f)``, ``p_c`` the tool body
    origin where MuJoCo applies ``xfrc_applied`` about the body's centre of mass.
    """
    sc = load_scene("iiwa14_docking")
    m = sc.build_mjmodel()
    env = MujocoEnv(m, sc.initial_q(m))
    d, tool = env.data, m.body("tool").id
    f, mom = np.array([3.0, -2.0, 5.0]), np.array([0.2, 0.1, -0.3])  # world axes [N], [N·m]
    d.xfrc_applied[tool] = np.concatenate([f, mom])
    mujoco.mj_forward(m, d)
    # Joint torques that cancel the applied wrench: τ = −Jᵀ w at the tool's centre of mass.
    jp, jr = np.zeros((3, 7)), np.zeros((3, 7))
    p_com = d.xipos[tool].copy()
    mujoco.mj_jac(m, d, jp, jr, p_com, tool)
    d.ctrl[:] = d.qfrc_bias - (jp.T @ f + jr.T @ mom)
    mujoco.mj_forward(m, d)
    assert_close(d.qacc, np.zeros(7), atol=1e-8)
    p_e, R_e = env.eef_pose()
    world = np.concatenate([f, mom + np.cross(p_com - p_e, f)])  # about the EEF origin
    assert_close(env.eef_wrench(), world, atol=1e-9)
    assert_close(env.eef_wrench_body(), np.concatenate([R_e.T @ world[:3], R_e.T @ world[3:]]),
                 atol=1e-9)  # fmt: skip
    assert abs(env.eef_wrench_body()[2] - R_e[:, 2] @ f) < 1e-9  # force along the peg axis
