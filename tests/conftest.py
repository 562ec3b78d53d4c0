"""Pytest setup: headless rendering and loopback-only DDS for every test."""

import os

os.environ.setdefault("MUJOCO_GL", "egl")
# Every DDS participant a test starts stays on the loopback interface (no multicast on the LAN).
os.environ.setdefault("ROS_LOCALHOST_ONLY", "1")
