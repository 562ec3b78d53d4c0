"""The RealMan arm controller's JSON protocol: framing, units, messages, TCP link, UDP push.

Shared by the real-arm adapter (:mod:`mjscope.teleop.adapters.realman`) and the controller
emulator (:mod:`mjscope.teleop.emulator`). Facts: ``facts/realman_protocol.md``.
"""
