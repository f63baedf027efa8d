"""The package's imports and its layers, from the source alone: what bench/structure.py
counts and tests/python/project/test_layers.py holds to zero (issue 39).

An import is any way a module of src/benchlab reaches another by name:
  - `import benchlab.x`, `from benchlab.x import y`, relative imports, lazy ones inside
    functions (`from pkg import module` is an arrow to the module; `from pkg import name`,
    to pkg: for `from benchlab import __version__`, to the package's own __init__.py);
  - `importlib.import_module(NAME)` and `__import__(NAME)`, NAME a string or an f-string:
    `f"benchlab.cli.{module}"` (or `f"{__name__}.{module}"` there) reaches every module
    its pattern can name, a name without dots in each pair of braces;
  - a string that is a module's whole name (`"benchlab.wasi"` in a table another module
    hands to importlib), except the one after "-m" in a command line: `python -m NAME` runs
    NAME in a child process, it does not import it; and a module's own package, named for
    its data files (importlib.resources, jinja2's PackageLoader): a package is imported
    before any module in it.
A call of importlib or __import__ whose name is none of these (a variable) is listed apart
(`unread_names`): what it loads must be named as a string somewhere the analysis reads.

No imports of benchlab: it reads files, so it measures any checkout, old or new.
"""
from __future__ import annotations

import ast
import dataclasses
import pathlib
import re

#: The line of docs/architecture.md that names the layers, bottom to top.
LAYERS_LINE = re.compile(r"^Layers, bottom to top: (.+)$", re.M)
#: Modules that sit on top, in the `cli` layer, though not in cli/: the package's own
#: __init__.py (the public API, re-exporting from the layers below), the installed command's
#: entry point (start.py), `python -m benchlab` and `python -m benchlab.callgrind`.
ENTRY_MODULES = ("benchlab", "benchlab.start", "benchlab.__main__", "benchlab.callgrind")
#: A whole module name of the package's, as a string ("benchlab" alone is its name, not a module's).
MODULE_NAME = re.compile(r"benchlab(\.[A-Za-z_]\w*)+")


def module_name(root: pathlib.Path, path: pathlib.Path) -> str:
    parts = list(path.relative_to(root / "src").with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_import_call(node: ast.AST) -> bool:
    """importlib.import_module(...), import_module(...) or __import__(...)."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    function = node.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
    return name in ("import_module", "__import__")


def _written_name(node: ast.AST, module: str) -> re.Pattern | None:
    """The module names a call can import, as a pattern: a string is itself, an f-string its
    literal parts with one name (no dot) for each value in braces (`__name__` is the calling
    module's name); None when the name does not start with benchlab's written out."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        pattern = re.escape(node.value)
    elif isinstance(node, ast.JoinedStr):
        parts = []
        for index, part in enumerate(node.values):
            if isinstance(part, ast.Constant):
                parts.append(re.escape(str(part.value)))
            elif index == 0 and isinstance(part.value, ast.Name) and part.value.id == "__name__":
                parts.append(re.escape(module))
            else:
                parts.append(r"[A-Za-z_]\w*")
        pattern = "".join(parts)
    else:
        return None
    return re.compile(pattern) if pattern.startswith("benchlab") else None


def _program_names(tree: ast.AST) -> set[int]:
    """ids of the strings run as `python -m NAME` (the element after "-m" of a list or tuple)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            for flag, name in zip(node.elts, node.elts[1:]):
                if isinstance(flag, ast.Constant) and flag.value == "-m":
                    found.add(id(name))
    return found


@dataclasses.dataclass
class Graph:
    #: module -> the benchlab modules it imports.
    arrows: dict[str, set[str]]
    #: "module:line" of each import by a name the analysis cannot read.
    unread_names: list[str]
    #: the modules that are packages (an __init__.py).
    packages: set[str]


def import_graph(root: pathlib.Path) -> Graph:
    """Every module of root/src/benchlab and the benchlab modules it reaches (module docstring)."""
    paths = sorted((root / "src/benchlab").rglob("*.py"))
    known = {module_name(root, path) for path in paths}
    packages = {module_name(root, path) for path in paths if path.name == "__init__.py"}
    arrows, unread = {}, []
    for path in paths:
        name = module_name(root, path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text())
        programs = _program_names(tree)
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                # `from pkg import module` is an arrow to the module; `from pkg import name`, to pkg.
                submodules = {f"{base}.{a.name}" for a in node.names}
                targets.update(submodules & known if submodules <= known else (submodules & known) | {base})
            elif _is_import_call(node):
                written = _written_name(node.args[0], name)
                if written is None:
                    unread.append(f"{name}:{node.lineno}")
                else:
                    targets.update(m for m in known if written.fullmatch(m))
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in programs
                  and MODULE_NAME.fullmatch(node.value) and not name.startswith(node.value + ".")):
                targets.add(node.value)
        arrows[name] = {t for t in targets if t in known and t != name}
    return Graph(arrows, unread, packages)


def imports(root: pathlib.Path) -> dict[str, set[str]]:
    """Module -> the benchlab modules it imports (at any depth in the file, lazy ones and by name too)."""
    return import_graph(root).arrows


def cycles(graph: dict[str, set[str]], members: set[str]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), within `members`."""
    index, low, stack, on_stack, groups, counter = {}, {}, [], set(), [], [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node] & members:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(members):
        if node not in index:
            visit(node)
    return groups


def layer_order(root: pathlib.Path) -> list[str] | None:
    """The layers as docs/architecture.md names them (`base` is the modules directly in
    src/benchlab/), or None when it names none."""
    found = LAYERS_LINE.search((root / "docs/architecture.md").read_text())
    return [name.strip(" `.") for name in found.group(1).split(",")] if found else None


def folder_of(module: str, packages: set[str]) -> str:
    """A module's layer: its folder under benchlab/ (a package there is its own folder),
    `base` for a module directly in benchlab/, `cli` for the entry points and the package."""
    if module in ENTRY_MODULES:
        return "cli"
    parts = module.split(".")
    if len(parts) == 2 and module not in packages:
        return "base"
    return parts[1]


def folder_graph(graph: dict[str, set[str]], packages: set[str]) -> dict[tuple[str, str], list[str]]:
    """(folder, folder) -> the module imports behind that arrow, between different folders."""
    arrows: dict[tuple[str, str], list[str]] = {}
    for source, targets in graph.items():
        for target in targets:
            a, b = folder_of(source, packages), folder_of(target, packages)
            if a != b:
                arrows.setdefault((a, b), []).append(f"{source} -> {target}")
    return arrows


def is_cli(module: str, packages: set[str]) -> bool:
    return folder_of(module, packages) == "cli"


@dataclasses.dataclass
class Breaches:
    """What breaks docs/architecture.md's layer rules; all empty in a house kept in order."""
    #: "source -> target" of imports from a lower layer into a higher one.
    upward: list[str]
    #: Folders that import each other, directly or round about.
    folder_cycles: list[list[str]]
    #: Imports from outside the cli layer into it.
    domain_to_cli: list[str]
    #: Imports between cli/ command modules (cli/common.py and cli/__init__.py aside).
    command_to_command: list[str]
    #: Folders the Layers line does not name (None: docs/architecture.md has no Layers line).
    unlayered: list[str] | None
    #: Imports by a name the analysis cannot read.
    unread_names: list[str]


def breaches(root: pathlib.Path) -> Breaches:
    graph = import_graph(root)
    arrows = folder_graph(graph.arrows, graph.packages)
    order = layer_order(root)
    folders = sorted({folder_of(m, graph.packages) for m in graph.arrows})
    upward = sorted(line for (a, b), lines in arrows.items()
                    if order and a in order and b in order and order.index(a) < order.index(b) for line in lines)
    folder_arrows = {f: {b for (a, b) in arrows if a == f} for f in folders}
    cli = {m for m in graph.arrows if is_cli(m, graph.packages)}
    domain_to_cli = sorted(f"{m} -> {t}" for m in graph.arrows if m not in cli for t in graph.arrows[m] if t in cli)
    commands = {m for m in graph.arrows if m.startswith("benchlab.cli.")} - {"benchlab.cli.common"}
    command_to_command = sorted(f"{m} -> {t}" for m in commands for t in graph.arrows[m] if t in commands)
    return Breaches(upward=upward, folder_cycles=cycles(folder_arrows, set(folders)), domain_to_cli=domain_to_cli,
                    command_to_command=command_to_command,
                    unlayered=None if order is None else [f for f in folders if f not in order],
                    unread_names=graph.unread_names)
