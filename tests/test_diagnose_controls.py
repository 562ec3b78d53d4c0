"""The ``--ctrl`` modes: seeded noise spans the control range."""

import numpy as np

from mjscope.diagnose.controls import noise_source
from mjscope.models import load


def test_noise_scaled_to_ctrlrange():
    m = load("quadruped")
    block = noise_source(m, 2000, 0, 1.0)()
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    assert np.all(block >= lo) and np.all(block <= hi)
    assert np.all(block.max(axis=0) - block.min(axis=0) > 0.9 * (hi - lo))
