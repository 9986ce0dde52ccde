"""The release this code is (CHANGELOG.md), for ``python -m bot --version``, the start-up
log line and the ``storyteller_build_info`` metric.

The installed package's metadata is the truth (pyproject.toml's version, written there by
``pip install``); the Docker image runs the code from /app without installing it, so
:data:`FALLBACK` stands in, and a test keeps it equal to pyproject.toml's. Standard library
only: ``--version`` must answer before anything heavy is imported.
"""

from __future__ import annotations

from functools import cache
from importlib import metadata

DISTRIBUTION = "storyteller-dice-bot"
FALLBACK = "0.2.0"  # pyproject.toml's version (tests/bot/test_version.py)


@cache
def version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return FALLBACK
