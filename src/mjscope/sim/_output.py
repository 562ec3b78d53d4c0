"""Keeps the rendering and video libraries' own warnings off the user's terminal.

The user sees one :class:`~mjscope.exceptions.OutputError` line, not ffmpeg's or PyOpenGL's
output. (Output files are written through :mod:`mjscope.paths`: beside, then renamed.)
"""

from __future__ import annotations

import logging
import os
import warnings

#: Loggers of the libraries under rendering and recording; set to ERROR unless the user set them.
NOISY_LOGGERS = ("imageio", "imageio_ffmpeg", "OpenGL", "PIL")
_NOISY_MODULES = r"(imageio|imageio_ffmpeg|OpenGL|PIL)(\.|$)"


def quiet_third_party() -> None:
    """Keep third-party warnings of rendering and recording off the terminal.

    Python warnings raised inside imageio, imageio-ffmpeg, PyOpenGL and Pillow are ignored;
    their loggers are set to ERROR unless they were configured; Mesa's EGL loader logs only
    fatal errors unless ``EGL_LOG_LEVEL`` is set. Cheap to call again.
    """
    os.environ.setdefault("EGL_LOG_LEVEL", "fatal")
    warnings.filterwarnings("ignore", module=_NOISY_MODULES)
    for name in NOISY_LOGGERS:
        log = logging.getLogger(name)
        if log.level == logging.NOTSET:
            log.setLevel(logging.ERROR)
