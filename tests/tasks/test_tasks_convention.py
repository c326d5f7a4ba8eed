"""The task layer's convention (builder/tasks/__init__.py): no click and no CLI import; run_NAME(options, report)
-> a TaskResult, with frozen options."""
from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path

import pytest

import builder.tasks
from builder.tasks.base import TaskResult

TASKS = Path(builder.tasks.__file__).parent
MODULES = sorted(p.stem for p in TASKS.glob("*.py") if p.stem not in ("__init__", "base"))


@pytest.mark.parametrize("name", MODULES)
def test_no_task_module_imports_click(name):
    tree = ast.parse((TASKS / f"{name}.py").read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    assert not {m for m in imported if m == "click" or m.startswith(("click.", "builder.cli"))}


@pytest.mark.parametrize("name", MODULES)
def test_every_run_function_takes_frozen_options_and_returns_a_task_result(name):
    module = importlib.import_module(f"builder.tasks.{name}")
    runs = [f for n, f in vars(module).items() if n.startswith("run_") and inspect.isfunction(f)
            and f.__module__ == module.__name__]
    assert runs, f"builder.tasks.{name} defines no run_NAME"
    for run in runs:
        hints = inspect.get_annotations(run, eval_str=True)
        options, result = hints["options"], hints["return"]
        assert dataclasses.is_dataclass(options) and options.__dataclass_params__.frozen, run.__name__
        assert issubclass(result, TaskResult), run.__name__
        assert list(inspect.signature(run).parameters) == ["options", "report"], run.__name__
