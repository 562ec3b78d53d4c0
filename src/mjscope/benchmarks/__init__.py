"""The performance suite run by ``mjscope bench``: one ``bench_<name>.py`` module per figure.

Each module defines ``run(quick: bool = False) -> list[dict]``; every row has ``metric``,
``value``, ``unit`` and optionally ``ratio`` (against the bare MuJoCo cost of the same work,
measured in the same run), ``target`` and ``note``. Shipped inside the package so that
``mjscope bench`` works from any installation.
"""
