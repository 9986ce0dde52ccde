"""The lock files, pyproject.toml's ranges and the Dockerfile agree (README "Dependencies").

CI, scripts/install and the image install the lock files, never the ranges; a range that
drifts from its pin, or a package the image forgets, would only show on someone else's
machine.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def pins(lock: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in (ROOT / lock).read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            found[canonicalize_name(name)] = version.strip()
    return found


@pytest.mark.parametrize(
    ("lock", "requirements"),
    [
        ("requirements.lock", PYPROJECT["project"]["dependencies"]),
        (
            "requirements-dev.lock",
            PYPROJECT["project"]["dependencies"]
            + PYPROJECT["project"]["optional-dependencies"]["dev"],
        ),
    ],
)
def test_every_dependency_is_pinned_within_its_bounded_range(
    lock: str, requirements: list[str]
) -> None:
    pinned = pins(lock)
    for text in requirements:
        requirement = Requirement(text)
        assert any(s.operator in ("<", "<=", "==", "~=") for s in requirement.specifier), text
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in {lock}"
        assert requirement.specifier.contains(pinned[name]), f"{lock}: {name}=={pinned[name]}"


def test_the_dev_lock_runs_the_same_versions_as_the_image() -> None:
    runtime, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    assert {name: dev.get(name) for name in runtime} == runtime


def test_the_image_installs_the_lock_before_the_code_and_holds_every_package() -> None:
    steps = [
        line.split()
        for line in (ROOT / "Dockerfile").read_text().splitlines()
        if line.startswith(("COPY", "RUN"))
    ]
    copied = [step[1] for step in steps if step[0] == "COPY"]
    assert copied[0] == "requirements.lock"
    lock = steps.index(["COPY", "requirements.lock", "./"])
    install = " ".join(steps[lock + 1])
    assert install.startswith("RUN pip install")
    assert "-r requirements.lock" in install
    packages = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    assert {re.sub(r"\*$", "", p) for p in packages} | {"locales"} <= set(copied[1:])
