"""Paths shared by the reader tests."""
from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def sources() -> Path:
    """The real samples, read-only."""
    return DATA / "sources"


@pytest.fixture
def crafted() -> Path:
    """Crafted bad inputs, one failure mode per folder."""
    return DATA / "readers"
