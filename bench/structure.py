#!/usr/bin/env python3
"""How easy is the house to change? The figures issue 19 asks for, from the source alone.

    .venv/bin/python bench/structure.py            # this tree
    .venv/bin/python bench/structure.py --root DIR  # another checkout (e.g. a worktree at an old commit)

Prints:
  - the 10 longest functions of include/benchlab.h and of src/benchlab (lines, signature to
    closing brace / last line of the body);
  - imports from the domain (src/benchlab outside the cli layer: cli/, the entry points and
    the package's __init__.py) into the CLI, and import cycles among the CLI's modules;
    imports between CLI command modules. Imports by name count (bench/importgraph.py, the
    analysis tests/python/project/test_layers.py holds to zero);
  - the folders as layers (docs/architecture.md, *Layers*, names their order): imports from
    a lower layer into a higher one, and cycles between folders;
  - hand-typed name lists: lines that spell out most of a family of names (the header's
    output formats, the statistics, the build targets), and the files holding them. Adding a
    member to the family means editing each of those lines, so fewer is better;
  - meaning kept in strings or spelled twice (issue 30): the store's statements per query
    language, its classes and openers, how often a records column is spelled there; the
    "median_ci" literals and the string keys read from a record's summary; code reading a
    fault's kind out of its reason text; the header's tests that stop sampling on time;
  - the tests against the source: test files whose folder and name mirror a module of
    src/benchlab (tests/python/<folder>/test_<module>[_<aspect>].py; header/ and project/
    hold the tests of what is outside src/: include/benchlab.h, the docs, packaging).

No imports of benchlab: it reads files, so it measures any checkout, old or new.
"""
from __future__ import annotations

import argparse
import ast
import pathlib
import re
import sys

# The imports and the layers: bench/importgraph.py, which tests/python/project/test_layers.py
# shares (this script's folder is on sys.path when it runs).
from importgraph import cycles, folder_graph, imports, is_cli, layer_order

#: Families of names that grow: (title, names, how many of them a line must spell to be a list).
#: A name is a word, or a pattern: a member with several spellings (`samples`, `--samples`)
#: counts once, and a dialect is spelled in any case, in identifiers too (BL__CSB, csb_b63).
def _any_case(name: str) -> re.Pattern:
    return re.compile(rf"(?<![A-Za-z0-9]){name}(?![A-Za-z0-9])", re.IGNORECASE)


def _spellings(*names: str) -> re.Pattern:
    return re.compile("|".join(rf"(?<![\w-]){re.escape(n)}(?![\w-])" for n in names))


FAMILIES = (
    ("header output formats", ("table", "csv", "jsonl", "lind", "csb"), 4),
    ("statistics", ("median", "min", "max", "mean", "stddev", "p75", "p90", "p99", "mad"), 5),
    # issue 39: the flags `run` gives the binary, each as option, field, toml key or binary flag
    ("run flags that reach the binary", (
        _spellings("samples", "--samples"), _spellings("time_limit", "--time-limit"), _spellings("seed", "--seed"),
        _spellings("filters", "--filter"), _spellings("counters", "--counters"),
        _spellings("process_precision", "--process-precision", "precision", "--precision"),
        _spellings("schedule", "--schedule"), _spellings("subtract", "no_subtract", "--no-subtract")), 3),
    ("header flag dialects", (_any_case("csb"), _any_case("b63"), _any_case("libloong")), 3),
    # the --format choices of the commands that print their own results (compare, gate, ab, profile, history)
    ("result formats typed as strings", ('"table"', '"json"', '"markdown"'), 2),
)
#: One member of a family, where a new one would be spelled: the run flag --schedule in the
#: files the run's flags pass through (statistics/sequential.py's `schedule` is another thing).
MEMBER = ("the run flag --schedule", _spellings("schedule", "--schedule"),
          ("src/benchlab/cli/*.py", "src/benchlab/config.py", "src/benchlab/runflags.py", "src/benchlab/measuring/*.py"))
#: Build targets: a new one is a new row where the target is spelled or compared against.
TARGET_SPELLINGS = re.compile(r'"wasm32-wasi"|== *WASM_TARGET|WASM_TARGET *==|!= *WASM_TARGET')
SOURCE_GLOBS = ("include/*.h", "src/benchlab/**/*.py", "src/benchlab/**/*.c", "scripts/*", "CMakeLists.txt")


def c_functions(path: pathlib.Path) -> list[tuple[int, str]]:
    """(length, name) of each function defined at column 0 of a C file: a signature line
    ending in '{' (possibly after continuation lines) up to the next '}' at column 0."""
    lines = path.read_text().splitlines()
    found, start, name, in_comment = [], None, None, False
    for number, line in enumerate(lines):
        if in_comment:
            in_comment = "*/" not in line
            continue
        if line.startswith("/*") and "*/" not in line:
            in_comment = True
            continue
        if start is None:
            match = re.match(r"^[A-Za-z_][\w \*]*?\b(\w+)\s*\(", line)
            if match and not line.startswith(("#", "typedef", "struct", "return")) and "=" not in line.split("(")[0]:
                if "{" in line and line.rstrip().endswith("}"):  # a one-line function
                    found.append((1, match.group(1)))
                    continue
                # The opening brace ends this line or one of the next few (wrapped parameters).
                for ahead in range(number, min(number + 6, len(lines))):
                    if lines[ahead].rstrip().endswith("{"):
                        start, name = number, match.group(1)
                        break
                    if lines[ahead].rstrip().endswith(";"):
                        break
        elif line.startswith("}"):
            found.append((number - start + 1, name))
            start = None
    return found


def python_functions(root: pathlib.Path) -> list[tuple[int, str]]:
    found = []
    for path in sorted((root / "src/benchlab").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((node.end_lineno - node.lineno + 1, f"{path.relative_to(root / 'src')}:{node.name}"))
    return found


def source_files(root: pathlib.Path) -> list[pathlib.Path]:
    files = set()
    for pattern in SOURCE_GLOBS:
        files.update(p for p in root.glob(pattern) if p.is_file() and "__pycache__" not in p.parts)
    return sorted(files)


def name_lists(root: pathlib.Path, names: tuple[str, ...], at_least: int) -> list[tuple[str, int]]:
    """(file, line number) of each line that spells at least `at_least` of `names` as words."""
    words = [n if isinstance(n, re.Pattern) else re.compile(rf"(?<![\w-]){re.escape(n)}(?![\w-])") for n in names]
    hits = []
    for path in source_files(root):
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if sum(1 for w in words if w.search(line)) >= at_least:
                hits.append((str(path.relative_to(root)), number))
    return hits


def report(root: pathlib.Path) -> None:
    print(f"# structure of {root}")
    print("\n## 10 longest functions, include/benchlab.h")
    for length, name in sorted(c_functions(root / "include/benchlab.h"), reverse=True)[:10]:
        print(f"  {length:4d}  {name}")
    print("\n## 10 longest functions, src/benchlab (Python)")
    for length, name in sorted(python_functions(root), reverse=True)[:10]:
        print(f"  {length:4d}  {name}")

    graph = imports(root)
    packages = {m for m in graph if (root / "src" / pathlib.Path(*m.split(".")) / "__init__.py").is_file()}
    entry = {m for m in graph if is_cli(m, packages)}  # cli/, the entry points and the package's __init__.py
    cli = {m for m in graph if m == "benchlab.cli" or m.startswith("benchlab.cli.")}
    domain_to_cli = sorted((m, t) for m in graph if m not in entry for t in graph[m] if t in entry)
    print(f"\n## domain -> CLI imports: {len(domain_to_cli)}")
    for source, target in domain_to_cli:
        print(f"  {source} -> {target}")
    cli_cycles = cycles(graph, cli - {"benchlab.cli"})
    print(f"\n## CLI <-> CLI cycles: {len(cli_cycles)}")
    for group in cli_cycles:
        print("  " + " <-> ".join(group))
    commands = cli - {"benchlab.cli", "benchlab.cli.common"}
    command_imports = sorted((m, t) for m in commands for t in graph[m] if t in commands)
    print(f"\n## CLI command -> CLI command imports (cli/common.py aside): {len(command_imports)}")
    for source, target in command_imports:
        print(f"  {source} -> {target}")
    all_cycles = cycles(graph, set(graph) - {"benchlab.cli", "benchlab"})
    print(f"\n## import cycles anywhere in the package: {len(all_cycles)}")
    for group in all_cycles:
        print("  " + " <-> ".join(group))

    layers(root, graph)

    for title, names, at_least in FAMILIES:
        hits = name_lists(root, names, at_least)
        files = sorted({f for f, _ in hits})
        print(f"\n## hand-typed lists of the {title} (lines naming >= {at_least} of {len(names)}): "
              f"{len(hits)} lines in {len(files)} files")
        for path, number in hits:
            print(f"  {path}:{number}")
    title, pattern, globs = MEMBER
    member_hits = [(str(path.relative_to(root)), number) for glob in globs for path in sorted(root.glob(glob))
                   for number, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    print(f"\n## one member spelled: {title}: {len(member_hits)} lines in {len({f for f, _ in member_hits})} files")
    for path, number in member_hits:
        print(f"  {path}:{number}")
    target_hits = []
    for path in source_files(root):
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if TARGET_SPELLINGS.search(line):
                target_hits.append((str(path.relative_to(root)), number))
    files = sorted({f for f, _ in target_hits})
    print(f"\n## build target spelled or compared by hand (\"wasm32-wasi\", == WASM_TARGET): "
          f"{len(target_hits)} lines in {len(files)} files")
    for path, number in target_hits:
        print(f"  {path}:{number}")
    flat = sorted(p.name for p in (root / "src/benchlab").glob("*.py"))
    print(f"\n## modules directly in src/benchlab/: {len(flat)}")
    meanings(root)
    tests_against_source(root)


def layers(root: pathlib.Path, graph: dict[str, set[str]]) -> None:
    """Upward imports against docs/architecture.md's order, and cycles between folders."""
    packages = {m for m in graph if (root / "src" / pathlib.Path(*m.split(".")) / "__init__.py").is_file()}
    arrows = folder_graph(graph, packages)
    order = layer_order(root)
    folders = sorted({f for pair in arrows for f in pair})
    if order is None:
        print("\n## layers: docs/architecture.md names none (a line 'Layers, bottom to top: a, b, ...')")
    else:
        unknown = [f for f in folders if f not in order]
        upward = sorted((a, b, len(lines)) for (a, b), lines in arrows.items()
                        if a in order and b in order and order.index(a) < order.index(b))
        print(f"\n## upward imports (a lower layer importing a higher one; layers: {', '.join(order)}): "
              f"{sum(n for _, _, n in upward)}")
        for a, b, n in upward:
            print(f"  {a} -> {b}: {n}  ({'; '.join(sorted(arrows[(a, b)])[:3])}{'; ...' if n > 3 else ''})")
        if unknown:
            print(f"  folders in no layer: {', '.join(unknown)}")
    folder_arrows = {f: {b for (a, b) in arrows if a == f} for f in folders}
    folder_cycles = cycles(folder_arrows, set(folders))
    print(f"\n## cycles between folders: {len(folder_cycles)}")
    for group in folder_cycles:
        print("  " + " <-> ".join(group))


#: A statement in SQLAlchemy Core, and one in SQL text (a string that starts with a verb).
CORE_STATEMENT = re.compile(r"\bsa\.(select|insert|update|delete)\(|\.(insert|update|delete)\(\)")
SQL_VERB = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b")
SUMMARY_KEY = re.compile(r"""\.summary(?:\[|\.get\()\s*["'](\w+)["']""")
REASON_TEXT = re.compile(r"reason\)?\.(startswith|endswith)\(|\.(match|search|fullmatch)\([^)]*reason")
HEADER_TIME_STOP = re.compile(r">=\s*[\w>.-]*time_limit_s\s*\*\s*1e9")


def storage_modules(root: pathlib.Path) -> list[pathlib.Path]:
    """The store's own modules: src/benchlab/storage without its Alembic revisions."""
    folder = root / "src/benchlab/storage"
    return sorted(p for p in folder.rglob("*.py") if "migrations" not in p.relative_to(folder).parts)


def string_constants(path: pathlib.Path) -> list[str]:
    """The literal strings of a module, an f-string by its first literal part."""
    texts = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            texts.append(node.value)
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            texts.append(str(node.values[0].value))
    return texts


def store_figures(root: pathlib.Path) -> None:
    modules = storage_modules(root)
    core = sum(len(CORE_STATEMENT.findall(p.read_text())) for p in modules)
    sql = sum(1 for p in modules for text in string_constants(p) if SQL_VERB.match(text))
    classes, openers = [], []
    for path in modules:
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                classes.append(node.name)
            if isinstance(node, ast.FunctionDef) and node.name.startswith("open"):
                openers.append(node.name)
    column = sum(p.read_text().count("sample_iterations") for p in modules)
    print(f"\n## the store (src/benchlab/storage, its revisions aside): {core} statements in SQLAlchemy Core, "
          f"{sql} in SQL text; {len(classes)} classes ({', '.join(classes)}); {len(openers)} open* functions "
          f"({', '.join(openers)}); a records column (sample_iterations) spelled {column} times")


def meanings(root: pathlib.Path) -> None:
    store_figures(root)
    python = sorted((root / "src/benchlab").rglob("*.py"))
    ci = [(p, string_constants(p).count("median_ci")) for p in python]
    ci = [(p, n) for p, n in ci if n]
    print(f"\n## \"median_ci\" typed: {sum(n for _, n in ci)} times in {len(ci)} modules")
    reads = [(p, key) for p in python for key in SUMMARY_KEY.findall(p.read_text())]
    print(f"\n## a record's summary read by string key: {len(reads)} reads of {len(set(k for _, k in reads))} "
          f"keys in {len(set(p for p, _ in reads))} modules")
    decoding = [(p, n) for p in python for n, line in enumerate(p.read_text().splitlines(), 1)
                if REASON_TEXT.search(line)]
    print(f"\n## a fault's kind read from its reason text: {len(decoding)} lines")
    for path, number in decoding:
        print(f"  {path.relative_to(root)}:{number}")
    header = (root / "include/benchlab.h").read_text().splitlines()
    stops = [n for n, line in enumerate(header, 1) if HEADER_TIME_STOP.search(line)]
    print(f"\n## the header's tests that stop sampling on time: {len(stops)} "
          f"(lines {', '.join(map(str, stops))})")


def modules_beside(root: pathlib.Path, test: pathlib.Path) -> list[str]:
    """The modules (and packages) of src/benchlab/<folder> for tests/python/<folder>/test_*.py."""
    folder = root / "src/benchlab" / test.relative_to(root / "tests/python").parent
    if not folder.is_dir():
        return []
    modules = [p.stem.rstrip("_") for p in folder.glob("*.py") if p.stem != "__init__"]
    return modules + [p.name for p in folder.iterdir() if (p / "__init__.py").is_file()]


def mirrored(root: pathlib.Path, test: pathlib.Path) -> bool:
    """Whether tests/python/<folder>/test_<module>[_<aspect>].py names a module of src/benchlab/<folder>
    (or header/ and project/, the tests of what is outside src/)."""
    if test.relative_to(root / "tests/python").parts[0] in ("header", "project"):
        return True
    name = test.stem[len("test_"):]
    return any(name == m or name.startswith(m + "_") for m in modules_beside(root, test))


def tests_against_source(root: pathlib.Path) -> None:
    tests = sorted((root / "tests/python").rglob("test_*.py"))
    others = [t for t in tests if not mirrored(root, t)]
    suffixed = [t for t in tests if t.stem.endswith("_cli")]
    exact = [t for t in tests if t.stem[len("test_"):] in modules_beside(root, t)]
    print(f"\n## test files that mirror src/ by folder and name: {len(tests) - len(others)} of {len(tests)} "
          f"({len(exact)} named after their module alone, the others test_<module>_<aspect> or of header/ "
          f"and project/); files named *_cli: {len(suffixed)}")
    for test in others:
        print(f"  {test.relative_to(root)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent,
                        help="the checkout to measure (default: this one)")
    args = parser.parse_args(argv)
    if not (args.root / "include/benchlab.h").is_file():
        print(f"error: {args.root} has no include/benchlab.h (pass --root a benchlab checkout)", file=sys.stderr)
        return 2
    report(args.root.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
