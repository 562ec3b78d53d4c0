from __future__ import annotations

import json
from pathlib import Path

import pytest

from mjscope.exceptions import OutputError
from mjscope.paths import check_writable, write_json, write_text


def test_write_text_replaces_a_file_only_when_complete(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "report.json"
    out.write_text("earlier run")
    write_json(out, {"ready": True})
    assert json.loads(out.read_text()) == {"ready": True}

    def fail(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("mjscope.paths.os.replace", fail)
    with pytest.raises(OutputError, match=r"cannot write .*report\.json.*No space left.*choose"):
        write_text(out, "partial")
    assert json.loads(out.read_text()) == {"ready": True}  # the earlier file is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no partial left


def test_unwritable_places_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a folder")
    with pytest.raises(OutputError, match=r"cannot create folder .*blocker.*choose another"):
        write_json(tmp_path / "blocker" / "r.json", {})
    with pytest.raises(OutputError, match=r"is a folder; give a file name inside it"):
        check_writable(tmp_path)
    assert write_json(tmp_path / "new" / "r.json", [1]).read_text() == "[\n  1\n]\n"
