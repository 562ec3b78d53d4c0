"""Simulation helpers shared by features: offscreen rendering and (later) environments."""
