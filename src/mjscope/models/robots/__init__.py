"""Bundled robot builders (``MjSpec``), one module per robot, registered on import."""
