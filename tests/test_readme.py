"""The README's commands must stay true (robot_descriptions' test_readme idea)."""

from __future__ import annotations

import re

from mjscope.cli import build_parser
from tests.utils import REPO

README = (REPO / "README.md").read_text()


def _bash_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", README, flags=re.S)


def test_two_setup_commands() -> None:
    blocks = _bash_blocks()
    assert blocks[0].strip() == 'pip install -e ".[dev,cluster]" && mjscope demo'
    assert blocks[1].strip() == "pytest"


def test_ci_runs_the_readme_commands() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert 'pip install -q -e ".[dev,cluster]"' in ci and "mjscope demo" in ci
    assert "\npytest\n" in ci


def test_every_mjscope_command_in_readme_exists() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    known = set(sub.choices)  # type: ignore[arg-type]
    used = set(re.findall(r"^\s*(?:\$ )?mjscope ([a-z-]+)", README, flags=re.M))
    used |= set(re.findall(r"`mjscope ([a-z-]+)", README))
    assert used <= known, used - known


def test_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})  # uses bundled names only


def test_example_files_are_bundled_or_said_where_they_come_from() -> None:
    # Every file an example names is made by an earlier example, ships in the repository, or
    # is one of the user files whose origin the README states.
    said = {"rm_75.urdf", "linkerhand_l20_left.urdf"}
    made: set[str] = set()
    for line in README.splitlines():
        words = line.split("#")[0].split()
        if words[:1] == ["cp"]:
            made.add(words[-1])
        if words[:1] != ["mjscope"]:
            continue
        outputs = {"--csv", "--json", "--report", "--record", "--snapshot", "--log", "--contacts"}
        for prev, w in zip(["", *words[:-1]], words, strict=True):
            if prev in outputs:
                made.add(w.rsplit("/", 1)[-1])
            elif re.fullmatch(r"[\w./~-]+\.(xml|urdf|yaml|csv)", w):
                name = w.rsplit("/", 1)[-1]
                ok = name in said or name in made or (REPO / w).exists()
                assert ok, f"README example names {w!r}: bundle it or say where it comes from"
        made |= {w.rsplit("/", 1)[-1] for w in words}
