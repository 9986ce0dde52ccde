"""No function of the product above cyclomatic complexity 20 as radon counts it: radon counts
each boolean operator as a decision too, which ruff's mccabe check (C901, pyproject.toml)
does not, so a condition of many ``and``/``or`` parts cannot hide a tangle from review
(ARCHITECTURE.md, "The layers")."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class, Function

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("table", "bot", "handlers", "rules")
LIMIT = 20


def _blocks(block: Function | Class) -> list[Function | Class]:
    inner: list[Function | Class] = [block]
    for child in getattr(block, "methods", []) + list(getattr(block, "closures", [])):
        inner += _blocks(child)
    return inner


def test_no_function_of_the_product_is_above_the_limit() -> None:
    over: list[str] = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            for top in cc_visit(path.read_text(encoding="utf-8")):
                for block in _blocks(top):
                    if block.complexity > LIMIT:
                        where = path.relative_to(ROOT)
                        over.append(f"{where}:{block.lineno} {block.name} {block.complexity}")
    assert not over, "above complexity 20 (radon cc -s -n D):\n" + "\n".join(over)


def test_the_check_sees_a_tangle() -> None:
    """The check itself counts boolean operators: a function of 21 decisions fails it."""
    conditions = " or ".join(f"x == {n}" for n in range(21))
    (block,) = cc_visit(f"def tangled(x):\n    return {conditions}\n")
    assert block.complexity > LIMIT
