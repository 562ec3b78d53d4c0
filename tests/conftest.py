"""Pytest setup: headless rendering for every test."""

import os

os.environ.setdefault("MUJOCO_GL", "egl")
