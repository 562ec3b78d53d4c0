"""Types of the compiled arm chain (``_chain.c``)."""

def target(
    plan: int,
    pose: list[float],
    anchors: tuple[list[float], ...],
    p0: list[float],
    q0: list[float],
    T: int,
    /,
) -> tuple[list[float], list[float], bytes] | None:
    """The clutch target ``(p, q, p + q as float64 bytes)`` (its matrix written at ``T``).

    ``None`` where a Cartesian limit may bind (nothing written).
    """

def ik_errors(T_now: object, T_target: int, /) -> tuple[float, float]:
    """The IK's squared position error and ``3 − tr(R_targetᵀ R)`` at ``T_now``."""

def joint_step(
    plan: int, q: list[float], v: list[float], q_des: list[float], /
) -> tuple[list[float], list[float], int, bytes]:
    """One joint-limited command: ``(q, v, bits, q as float64 bytes)``.

    Bits: 1 position, 2 speed, 4 acceleration (binding), 8 moving.
    """

def target_slots() -> int:
    """Slots of a target plan (a layout check)."""

def joint_layout() -> tuple[int, int, int]:
    """``(head, per joint, max joints)`` of a joint plan (a layout check)."""

_C_API: object  # the capsule of the C API (_armstep.c uses it)
