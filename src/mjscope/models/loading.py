"""Load MJCF and URDF files, or bundled models by name, into MuJoCo.

URDF mesh paths are resolved before MuJoCo sees them: ``package://<pkg>/...`` through
``--package-path`` directories and ``ROS_PACKAGE_PATH`` (a directory named ``<pkg>``, or one
that itself contains the relative path), relative paths against the URDF file. Meshes MuJoCo
cannot read (``.dae``) are replaced by an ``.stl``/``.obj`` next to them when one exists,
otherwise loading stops with an error naming the file.
"""

from __future__ import annotations

import logging
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import mujoco

from mjscope.exceptions import ModelLoadError

logger = logging.getLogger(__name__)

READABLE_MESH = (".stl", ".obj", ".msh", ".ply")


@dataclass(frozen=True)
class LoadOptions:
    """How a model file is turned into an ``MjSpec``.

    Attributes:
        package_paths: Extra directories searched for ``package://`` URIs (before
            ``ROS_PACKAGE_PATH``).
        keep_fixed_links: URDF: keep bodies joined by fixed joints (``fusestatic=false``).
        keep_visual: URDF: keep visual geoms (``discardvisual=false``).
    """

    package_paths: tuple[str, ...] = ()
    keep_fixed_links: bool = True
    keep_visual: bool = True


def load_spec(path_or_name: str | Path, options: LoadOptions | None = None) -> mujoco.MjSpec:
    """Load a model as an editable ``MjSpec``.

    Args:
        path_or_name: An ``.xml`` (MJCF) or ``.urdf`` file, or a bundled model name.
        options: Loading options; defaults keep fixed links and visual geoms.

    Returns:
        The uncompiled spec.

    Raises:
        ModelLoadError: Missing file, a folder, malformed XML, missing or unreadable mesh.
        UnknownNameError: Not a file and not a bundled name.
    """
    opts = options or LoadOptions()
    text = str(path_or_name)
    looks_like_file = text.lower().endswith((".xml", ".urdf", ".mjcf")) or os.sep in text
    path = Path(text).expanduser()
    if path.is_dir() and (looks_like_file or not _is_bundled(text)):
        raise ModelLoadError(_folder_message(text, path))
    if not looks_like_file:
        from mjscope.models.registry import build_spec

        return build_spec(text)
    if not path.is_file():
        hint = suggest_bundled(path.stem)
        also = f", or use the bundled model {hint!r} (mjscope models lists them)" if hint else ""
        raise ModelLoadError(f"model file {text!r} not found; check the path{also}")
    try:
        if _is_urdf(path):
            return _spec_from_string(_prepare_urdf(path, opts), path)
        return _spec_from_file(path)
    except OSError as e:  # no permission to read it, ...
        raise ModelLoadError(f"cannot read model file {text!r}: {e.strerror}; check it") from e


def suggest_bundled(stem: str) -> str | None:
    """The bundled model a file name most likely means (``rm_75`` → ``rm75``), or ``None``.

    A bundled name equal to the file name without separators wins; otherwise the model whose
    name and description share the most of the file name's words (two at least).
    """
    from mjscope.models.registry import entries

    def squash(t: str) -> str:
        return "".join(c for c in t.lower() if c.isalnum())

    key = squash(stem)
    words = {w for w in re.split(r"[^a-z0-9]+", stem.lower()) if len(w) > 1}
    best, best_score = None, 1
    for e in entries():
        if squash(e.name) == key:
            return e.name
        text = f"{e.name} {e.description}".lower()
        vocab = set(re.split(r"[^a-z0-9]+", text)) | {squash(text)}
        score = sum(1 for w in words if w in vocab) + 2 * key.startswith(squash(e.name))
        if score > best_score:
            best, best_score = e.name, score
    return best


def _is_bundled(name: str) -> bool:
    from mjscope.models.registry import names

    return name in names()


def _folder_message(text: str, path: Path) -> str:
    """One line: the path is a folder; the model files inside it, if any, and the fix."""
    try:
        inside = sorted(
            p.name for p in path.iterdir() if p.suffix.lower() in (".xml", ".urdf") and p.is_file()
        )
    except OSError:
        inside = []
    hint = (
        f" (it holds {', '.join(inside[:4])}{' ...' if len(inside) > 4 else ''})" if inside else ""
    )
    return (
        f"model {text!r} is a folder, not a model file{hint}; give the MJCF (.xml) or URDF "
        f"(.urdf) file inside it, e.g. {str(path / (inside[0] if inside else 'scene.xml'))!r}"
    )


def load(path_or_name: str | Path, options: LoadOptions | None = None) -> mujoco.MjModel:
    """Load and compile a model file or bundled model name.

    Args:
        path_or_name: An MJCF/URDF file or a bundled model name.
        options: Loading options.

    Returns:
        The compiled model.

    Raises:
        ModelLoadError: The model cannot be read or compiled.
    """
    spec = load_spec(path_or_name, options)
    return compile_spec(spec, str(path_or_name))


def compile_spec(spec: mujoco.MjSpec, label: str = "model") -> mujoco.MjModel:
    """Compile a spec, turning MuJoCo's compiler error into one clear line.

    Args:
        spec: The spec to compile.
        label: What to call the model in the error.

    Returns:
        The compiled model.

    Raises:
        ModelLoadError: Compilation failed.
    """
    try:
        return spec.compile()
    except ValueError as e:
        raise ModelLoadError(f"{label}: MuJoCo cannot compile it: {_one_line(e)}") from e


def _is_urdf(path: Path) -> bool:
    if path.suffix.lower() == ".urdf":
        return True
    with path.open("rb") as f:
        head = f.read(4096).decode("utf-8", "replace")
    return "<robot" in head and "<mujoco" not in head


def _spec_from_file(path: Path) -> mujoco.MjSpec:
    try:
        return mujoco.MjSpec.from_file(str(path))
    except ValueError as e:
        # Only now parse it in Python: a precise line/column for malformed XML beats MuJoCo's
        # message, and a model that loads never pays for a second parse (time and memory).
        _parse_xml(path)
        raise ModelLoadError(f"{path}: {_one_line(e)}") from e


def _parse_xml(path: Path) -> ET.Element:
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as e:
        line, col = e.position
        reason = str(e).split(":")[0]
        raise ModelLoadError(
            f"{path}: malformed XML at line {line}, column {col + 1} ({reason}); fix the file"
        ) from e


def _spec_from_string(xml: str, path: Path) -> mujoco.MjSpec:
    try:
        return mujoco.MjSpec.from_string(xml)
    except ValueError as e:
        raise ModelLoadError(f"{path}: {_one_line(e)}") from e


def _one_line(e: Exception) -> str:
    text = re.sub(r"^(XML Error|Error):\s*", "", " ".join(str(e).split()))
    if "Error opening file" in text or "resource not found" in text.lower():
        text += (
            "; the file is missing: restore it or fix the path "
            "(relative to the model file or its meshdir/assetdir)"
        )
    elif "could not find decoder" in text:  # MuJoCo picks the MJCF reader by the suffix
        text += "; MuJoCo reads MJCF only from a file ending in lower-case .xml: rename it"
    elif "unrecognized attribute" in text or "unrecognized element" in text:
        text += "; remove it or check the MuJoCo version this model was written for"
    return text


def _prepare_urdf(path: Path, opts: LoadOptions) -> str:
    """Return URDF text with mesh paths resolved and a ``<mujoco>`` compiler block."""
    root = _parse_xml(path)
    if root.tag != "robot":
        raise ModelLoadError(f"{path}: root element is <{root.tag}>, a URDF needs <robot>")
    search = list(opts.package_paths) + _ros_package_path()
    for mesh in root.iter("mesh"):
        filename = mesh.get("filename")
        if filename:
            mesh.set("filename", resolve_mesh(filename, path, search))
    for old in root.findall("mujoco"):
        root.remove(old)
    mj = ET.SubElement(root, "mujoco")
    ET.SubElement(
        mj,
        "compiler",
        {
            "strippath": "false",
            "fusestatic": "false" if opts.keep_fixed_links else "true",
            "discardvisual": "false" if opts.keep_visual else "true",
            "balanceinertia": "true",
        },
    )
    return ET.tostring(root, encoding="unicode")


def _ros_package_path() -> list[str]:
    raw = os.environ.get("ROS_PACKAGE_PATH", "")
    return [p for p in raw.split(os.pathsep) if p]


def resolve_mesh(filename: str, urdf: Path, search: Sequence[str]) -> str:
    """Resolve a URDF mesh ``filename`` to an absolute, readable file.

    Args:
        filename: As written in the URDF (``package://pkg/rel``, ``file://``, relative or absolute).
        urdf: The URDF file (relative paths are resolved against its folder).
        search: Directories to search for ``package://`` URIs, in order.

    Returns:
        Absolute path of a mesh MuJoCo can read.

    Raises:
        ModelLoadError: The mesh is not found or has a format MuJoCo cannot read.
    """
    if filename.startswith("package://"):
        pkg, _, rel = filename[len("package://") :].partition("/")
        candidate = _find_in_packages(pkg, rel, search)
        if candidate is None:
            # Last resort: the package root is usually an ancestor of the URDF (pkg/urdf/x.urdf).
            candidate = _find_in_packages(pkg, rel, [str(p) for p in urdf.resolve().parents][:4])
            if candidate is not None:
                logger.info("resolved %s against the URDF's ancestor %s", filename, candidate)
        if candidate is None:
            raise ModelLoadError(
                f"{urdf}: cannot resolve {filename!r}: no package {pkg!r} found; "
                f"pass --package-path DIR (the folder holding {pkg}/ or {rel.split('/')[0]}/) "
                "or set ROS_PACKAGE_PATH"
            )
    elif filename.startswith("file://"):
        candidate = Path(filename[len("file://") :])
    else:
        candidate = Path(filename)
        if not candidate.is_absolute():
            candidate = urdf.parent / candidate
    return _readable_mesh(candidate.resolve(), urdf)


def _find_in_packages(pkg: str, rel: str, search: Sequence[str]) -> Path | None:
    for base in search:
        b = Path(base).expanduser()
        for cand in (b / pkg / rel, b / rel):
            if cand.exists():
                return cand
        if b.name == pkg and (b / rel).exists():
            return b / rel
    return None


def _readable_mesh(path: Path, urdf: Path) -> str:
    if path.suffix.lower() in READABLE_MESH:
        if not path.is_file():
            raise ModelLoadError(
                f"{urdf}: mesh file {str(path)!r} not found; restore it or fix the path"
            )
        return str(path)
    for ext in (".stl", ".STL", ".obj", ".OBJ"):
        alt = path.with_suffix(ext)
        if alt.is_file():
            return str(alt)
    raise ModelLoadError(
        f"{urdf}: mesh {str(path)!r} has format {path.suffix or '(none)'}, "
        "which MuJoCo cannot read; "
        "convert it to .stl or .obj (e.g. with trimesh or meshlab) and place it next to it"
    )
