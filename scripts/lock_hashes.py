"""Write each pin of a lock file with the sha256 of its downloaded files (scripts/lock).

``python scripts/lock_hashes.py LOCK DIR``: for every ``name==version`` in LOCK, the files in
DIR of that name and version (wheels whose names follow the wheel spec) are hashed as
``pip hash`` does, and the pin is written again in pip's hash-checking form::

    aiohttp==3.14.5 \\
        --hash=sha256:...

A pin with no file in DIR stops it: pip's --require-hashes would refuse that lock anyway.
Only the standard library, so it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

HEADER = "# Pinned by scripts/lock from pyproject.toml; regenerate, do not edit by hand."


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def files_by_release(directory: Path) -> dict[tuple[str, str], list[Path]]:
    found: dict[tuple[str, str], list[Path]] = {}
    for path in sorted(directory.iterdir()):
        if path.suffix != ".whl":
            continue
        name, version = path.name.split("-")[:2]
        found.setdefault((canonical(name), version), []).append(path)
    return found


def main(lock: Path, directory: Path) -> int:
    pins = [
        line.split("\\")[0].strip()
        for line in lock.read_text().splitlines()
        if re.match(r"[A-Za-z0-9]", line)
    ]
    files = files_by_release(directory)
    lines = [HEADER]
    missing: list[str] = []
    for pin in pins:
        name, version = pin.split("==")
        release = files.get((canonical(name), version), [])
        if not release:
            missing.append(pin)
            continue
        hashes = sorted({sha256(path) for path in release})
        lines.append(f"{pin} \\")
        lines.extend(f"    --hash=sha256:{digest} \\" for digest in hashes[:-1])
        lines.append(f"    --hash=sha256:{hashes[-1]}")
    if missing:
        sys.stderr.write(f"{lock}: no file downloaded for {', '.join(missing)}\n")
        return 1
    lock.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
