"""``mjscope teleop``: XR (PICO) teleoperation of the dual RM75 rig through a QP IK."""
