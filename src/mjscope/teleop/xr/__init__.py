"""XR input sources: UDP datagrams, the XRoboToolkit SDK, replay files."""
