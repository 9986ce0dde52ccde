"""No import cycle anywhere in the product, TYPE_CHECKING and function-level imports counted
(ARCHITECTURE.md, "The layers"): import-linter holds the packages' order, this holds the
modules', so a type or a late import cannot close a circle the layers do not see."""

from __future__ import annotations

import grimp

PRODUCT = ("rules", "table", "bot", "handlers")


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    imports = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(imports):
        if root in index:
            continue
        work = [(root, iter(imports[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(imports.get(child, ()))))
                elif child in stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_product_has_no_import_cycle() -> None:
    graph = grimp.build_graph(*PRODUCT, include_external_packages=False)
    assert cycles(graph) == []


def test_a_cycle_is_found() -> None:
    """The finder itself: a circle of three modules beside a module outside it."""
    graph = grimp.ImportGraph()
    for module in ("a", "b", "c", "d"):
        graph.add_module(module)
    graph.add_import(importer="a", imported="b")
    graph.add_import(importer="b", imported="c")
    graph.add_import(importer="c", imported="a")
    graph.add_import(importer="d", imported="a")
    assert cycles(graph) == [["a", "b", "c"]]
