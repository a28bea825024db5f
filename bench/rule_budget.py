"""The size of the rules in the wing that reads customer text: regular expressions, their alternatives, phrase
lists, and the most complex functions.

The wing is agents/intents/, agents/workflows/, agents/reading/, agents/route.py and agents/requests.py. Read from
the source (no Django, no database):

- regular expressions: every pattern given to a function of `re` (compile, search, match, fullmatch, sub, subn,
  split, findall, finditer), with module-level string constants put in where a pattern names them; their
  alternatives are counted as the parser reads them (1 + one for every further branch of an `|`, at any depth,
  so a class such as `[|]` or an escaped `\\|` counts nothing); negative look-arounds counted beside them.
- phrase entries: the strings of tuples, lists and sets of two or more strings (word lists such as
  `CHANGE_WORDS`).
- complexity: radon's cyclomatic complexity of every function and method (boolean operators included), the
  largest listed, with how many are above 20.

    .venv/bin/python bench/rule_budget.py [--top 15]     # from the checkout's root
"""

from __future__ import annotations

import argparse
import ast
import re
from dataclasses import dataclass
from pathlib import Path

try:  # Python 3.11: the parser is public under this name until 3.13
    import re._parser as sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    import sre_parse  # type: ignore[no-redef]

ROOT = Path.cwd()  # the checkout it is run in (an older one too, to compare)
WING = ("agents/intents", "agents/workflows", "agents/reading", "agents/route.py", "agents/requests.py")
RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}
TOO_COMPLEX = 20


@dataclass
class Tally:
    patterns: int = 0
    alternatives: int = 0
    negative_lookarounds: int = 0
    phrases: int = 0
    unreadable: int = 0


def wing_files(root: Path = ROOT) -> list[Path]:
    found: list[Path] = []
    for part in WING:
        path = root / part
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return found


def _constants(tree: ast.Module, known: dict[str, str]) -> dict[str, str]:
    """Names bound to a string (a literal, an f-string or a concatenation of them) anywhere in the module, over
    the `known` ones of the wing's other modules."""
    found: dict[str, str] = dict(known)
    for node in ast.walk(tree):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        value = getattr(node, "value", None)
        for target in targets:
            if isinstance(target, ast.Name) and value is not None and (text := _string(value, found)) is not None:
                found[target.id] = text
    return found


def _string(node: ast.expr, names: dict[str, str]) -> str | None:
    """The text of a string expression, names of module constants put in; None when it cannot be told."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                part = _string(value.value, names)
                if part is None:
                    return None
                parts.append(part)
            else:
                parts.append(_string(value, names) or "")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string(node.left, names), _string(node.right, names)
        return None if left is None or right is None else left + right
    return None


def _alternatives(parsed: sre_parse.SubPattern) -> tuple[int, int]:
    """(further branches, negative look-arounds) in a parsed pattern, at any depth."""
    branches = negatives = 0
    for op, argument in parsed:
        name = str(op)
        children: list[sre_parse.SubPattern] = []
        if name == "BRANCH":
            branches += len(argument[1]) - 1
            children = list(argument[1])
        elif name in ("SUBPATTERN",):
            children = [argument[-1]]
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            children = [argument[2]]
        elif name in ("ASSERT", "ASSERT_NOT"):
            negatives += name == "ASSERT_NOT"
            children = [argument[1]]
        elif name == "GROUPREF_EXISTS":
            children = [child for child in argument[1:] if child is not None]
        elif name == "ATOMIC_GROUP":
            children = [argument]
        for child in children:
            more, nots = _alternatives(child)
            branches, negatives = branches + more, negatives + nots
    return branches, negatives


def _is_re_call(node: ast.Call) -> bool:
    function = node.func
    return (
        isinstance(function, ast.Attribute)
        and function.attr in RE_FUNCTIONS
        and isinstance(function.value, ast.Name)
        and function.value.id == "re"
    )


def _wrappers(tree: ast.Module) -> set[str]:
    """The module's functions that compile their first argument (`def _rx(pattern): return re.compile(pattern,
    …)`): a call of one is a regular expression too."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.args.args:
            first = node.args.args[0].arg
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and _is_re_call(call) and call.args:
                    if isinstance(call.args[0], ast.Name) and call.args[0].id == first:
                        found.add(node.name)
    return found


def tally_file(path: Path, tally: Tally, known: dict[str, str]) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names, wrappers = _constants(tree, known), _wrappers(tree)
    for node in ast.walk(tree):
        wrapped = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in wrappers
        if isinstance(node, ast.Call) and (_is_re_call(node) or wrapped) and node.args:
            pattern = _string(node.args[0], names)
            if pattern is None:
                tally.unreadable += 1
                continue
            try:
                parsed = sre_parse.parse(pattern, re.IGNORECASE | re.VERBOSE * ("(?x)" in pattern))
            except re.error:
                tally.unreadable += 1
                continue
            branches, negatives = _alternatives(parsed)
            tally.patterns += 1
            tally.alternatives += 1 + branches
            tally.negative_lookarounds += negatives
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            strings = [e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(strings) >= 2 and len(strings) == len(node.elts):
                tally.phrases += len(strings)


def word_list_entries(root: Path = ROOT) -> int:
    """The phrases of the wing's word lists (JSON files such as agents/intents/data/small_talk.json): words moved
    out of the code are still words to keep, so they are counted beside the code's phrase entries."""
    import json

    def phrases(node: object) -> int:
        if isinstance(node, dict):
            return sum(phrases(value) for key, value in node.items() if not str(key).startswith("_") and key != "about")
        if isinstance(node, list):
            return sum(phrases(value) for value in node)
        return int(isinstance(node, str))

    files = [path for part in WING if (root / part).is_dir() for path in sorted((root / part).rglob("*.json"))]
    return sum(phrases(json.loads(path.read_text(encoding="utf-8"))) for path in files)


def complexities(files: list[Path], root: Path = ROOT) -> list[tuple[int, str]]:
    from radon.complexity import cc_visit

    found = []
    for path in files:
        for block in cc_visit(path.read_text(encoding="utf-8")):
            name = f"{block.classname}.{block.name}" if getattr(block, "classname", None) else block.name
            found.append((block.complexity, f"{path.relative_to(root)}:{block.lineno} {name}"))
    return sorted(found, reverse=True)


def wing_tally(files: list[Path]) -> Tally:
    """The regular expressions and phrase entries of the wing's code."""
    tally = Tally()
    known: dict[str, str] = {}
    for path in files:  # a pattern may name a constant of another module of the wing
        known = _constants(ast.parse(path.read_text(encoding="utf-8")), known)
    for path in files:
        tally_file(path, tally, known)
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--top", type=int, default=15, help="how many of the most complex functions to list")
    args = parser.parse_args()
    files = wing_files()
    tally = wing_tally(files)
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in files)
    print(f"wing: {len(files)} files, {lines} lines")
    print(
        f"regular expressions: {tally.patterns} ({tally.unreadable} built at run time, not counted), "
        f"{tally.alternatives} alternatives, {tally.negative_lookarounds} negative look-arounds"
    )
    print(f"phrase entries: {tally.phrases} in the code, {word_list_entries()} in word-list files")
    ranked = complexities(files)
    print(f"functions above complexity {TOO_COMPLEX}: {sum(c > TOO_COMPLEX for c, _ in ranked)} of {len(ranked)}")
    for complexity, where in ranked[: args.top]:
        print(f"  {complexity:4d}  {where}")


if __name__ == "__main__":
    main()
