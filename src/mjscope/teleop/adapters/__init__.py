"""Arm adapters: the mock and the RealMan arm controller (JSON protocol over TCP/UDP)."""
