"""The release's version (bot/version.py): one number in pyproject.toml, the same where the
package is not installed (the Docker image runs the code from /app)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from bot import version as module

ROOT = Path(__file__).resolve().parents[2]


def test_the_fallback_is_pyproject_s_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == module.FALLBACK


def test_without_metadata_the_fallback_stands_in(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> str:
        raise module.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(module.metadata, "version", missing)
    module.version.cache_clear()
    try:
        assert module.version() == module.FALLBACK
    finally:
        module.version.cache_clear()


def test_the_changelog_has_this_release() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog
    assert f"## [{module.FALLBACK}]" in changelog
