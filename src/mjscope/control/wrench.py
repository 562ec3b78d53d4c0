"""Force/torque transforms from a sensor site to an end-effector frame.

A wrench measured at site S (force ``f`` and moment ``m`` about S, in S axes) equals, about the
end-effector origin E, ``f`` and ``m + (p_S − p_E) × f`` (all in one set of axes). Dropping
the moment term pairs a wrench with the wrong reference point of the Jacobian. World axes pair
with a LOCAL_WORLD_ALIGNED Jacobian (CIC, HQP), end-effector (body) axes with the LOCAL one
(``se3_lie``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def cross3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product of two 3-vectors (``np.cross`` costs ~20 µs per call); (3,)."""
    a0, a1, a2 = float(a[0]), float(a[1]), float(a[2])
    b0, b1, b2 = float(b[0]), float(b[1]), float(b[2])
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def wrench_site_to_frame(
    force_site: npt.ArrayLike,
    torque_site: npt.ArrayLike,
    R_world_site: npt.ArrayLike,
    p_site: npt.ArrayLike,
    R_world_frame: npt.ArrayLike | None,
    p_frame: npt.ArrayLike,
) -> np.ndarray:
    """Move a site wrench to a frame's origin and axes.

    Args:
        force_site: Force in site axes [N]; (3,).
        torque_site: Moment about the site origin, site axes [N·m]; (3,).
        R_world_site: Site orientation; (3, 3).
        p_site: Site position, world [m]; (3,).
        R_world_frame: Target axes; ``None`` keeps world axes (LOCAL_WORLD_ALIGNED).
        p_frame: Target reference point, world [m]; (3,).

    Returns:
        (force [N], moment about ``p_frame`` [N·m]) in the target axes; (6,).
    """
    R_s = np.asarray(R_world_site, float)
    f_w = R_s @ np.asarray(force_site, float)
    m_w = R_s @ np.asarray(torque_site, float)
    m_w = m_w + cross3(np.asarray(p_site, float) - np.asarray(p_frame, float), f_w)
    if R_world_frame is None:
        return np.concatenate([f_w, m_w])
    R_t = np.asarray(R_world_frame, float).T
    return np.concatenate([R_t @ f_w, R_t @ m_w])


def wrench_world_to_body(wrench: npt.ArrayLike, R_world_frame: npt.ArrayLike) -> np.ndarray:
    """Re-express a wrench about a frame's origin from world axes in the frame's axes.

    The reference point is unchanged (already the frame origin), so only the axes rotate:
    ``(Rᵀ f, Rᵀ m)``.

    Args:
        wrench: Force [N] and moment [N·m] about the frame origin, world axes; (6,).
        R_world_frame: Frame orientation; (3, 3).

    Returns:
        The wrench in frame axes; (6,).
    """
    w = np.asarray(wrench, float).reshape(2, 3)
    return w.dot(np.asarray(R_world_frame, float)).ravel()  # row i: (Rᵀ w_i)ᵀ
