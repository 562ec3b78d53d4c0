"""Control layer shared by the docking experiments.

Lie helpers, friction feed-forward, wrench transforms, planners and controllers.
"""

from mjscope.control.friction import FrictionModel
from mjscope.control.wrench import wrench_site_to_frame, wrench_world_to_body

__all__ = ["FrictionModel", "wrench_site_to_frame", "wrench_world_to_body"]
