"""Model loading, joint indexing and bundled models."""

from mjscope.models.indexing import JointAddress, JointIndex
from mjscope.models.loading import LoadOptions, compile_spec, load, load_spec
from mjscope.models.registry import ModelEntry, build_spec, entries, names, register

__all__ = [
    "JointAddress",
    "JointIndex",
    "LoadOptions",
    "ModelEntry",
    "build_spec",
    "compile_spec",
    "entries",
    "load",
    "load_spec",
    "names",
    "register",
]
