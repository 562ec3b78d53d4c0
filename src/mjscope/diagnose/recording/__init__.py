"""The recording of a rollout: a block recorder fed by probes, streamed to a CSV sink.

- :mod:`.recorder`: :class:`Recorder` owns the block, binds the probes, keeps per-column
  statistics and a decimated preview (memory bounded whatever the number of steps).
- :mod:`.csvsink`: writes finished blocks as CSV, in this process or in a forked writer.
"""

from mjscope.diagnose.recording.csvsink import (
    INTEGER_FORMAT,
    NUMBER_FORMAT,
    CsvSink,
    ForkedCsvSink,
    format_rows,
    make_sink,
)
from mjscope.diagnose.recording.recorder import Recorder

__all__ = [
    "INTEGER_FORMAT",
    "NUMBER_FORMAT",
    "CsvSink",
    "ForkedCsvSink",
    "Recorder",
    "format_rows",
    "make_sink",
]
