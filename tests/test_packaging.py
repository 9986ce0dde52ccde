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


def hashed_pins(lock: str) -> dict[str, tuple[str, list[str]]]:
    """Each pin of a lock in pip's hash-checking form: name → (version, its sha256 hashes)."""
    text = (ROOT / lock).read_text().replace("\\\n", " ")  # continuation lines joined
    found: dict[str, tuple[str, list[str]]] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            pin, *options = line.split()
            name, version = pin.split("==")
            hashes = [o.removeprefix("--hash=sha256:") for o in options]
            assert all(o.startswith("--hash=sha256:") for o in options), line
            found[canonicalize_name(name)] = (version, hashes)
    return found


def pins(lock: str) -> dict[str, str]:
    return {name: version for name, (version, _) in hashed_pins(lock).items()}


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


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-dev.lock"])
def test_every_pin_carries_the_hashes_pip_checks(lock: str) -> None:
    """scripts/install and the Dockerfile install with --require-hashes: a pin without a
    hash would stop them, and one a release file does not match is refused."""
    for name, (_version, hashes) in hashed_pins(lock).items():
        assert hashes, f"{lock}: {name} has no --hash"
        assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes), (name, hashes)


def test_both_installs_check_the_hashes() -> None:
    install = (ROOT / "scripts" / "install").read_text()
    assert re.search(r"pip install --require-hashes -r \"\$LOCK\"", install)
    docker = (ROOT / "Dockerfile").read_text()
    assert "--require-hashes -r requirements.lock" in docker


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


def test_every_image_is_pinned_by_digest() -> None:
    """The Dockerfile's base and every image the compose file runs name a digest, so a tag
    moved on the registry cannot change what is built or run (README "Dependencies")."""
    pinned = re.compile(r"^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$")
    docker = ROOT / "Dockerfile"
    bases = [
        line.split()[1] for line in docker.read_text().splitlines() if line.startswith("FROM ")
    ]
    compose = (ROOT / "docker-compose.yml").read_text().splitlines()
    images = [line.split("image:", 1)[1].strip() for line in compose if "image:" in line]
    assert bases
    assert images
    for image in bases + images:
        assert pinned.match(image), image
