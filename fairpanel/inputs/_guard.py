"""Checks on a composed YAML node graph before any Python data is built from it.

YAML aliases let a few hundred bytes stand for billions of values (``&a [x, x], &b [*a, *a],
...``), or for a value that contains itself; building, indexing or validating such a document
would hang or overflow the stack. Deep nesting does the second without aliases. Duplicate keys
are legal for PyYAML, which keeps the last one silently, so a key given twice is a typo nobody
sees. Numbers like ``.inf`` and ``.nan`` pass ``ge``/``gt`` bounds (``timeout_s: .inf``).

The walk is iterative and sizes shared (aliased) nodes once, so it is linear in the size of
the file whatever the document expands to.
"""

from __future__ import annotations

import re

import yaml

__all__ = ["MAX_DEPTH", "MAX_EXPANDED_NODES", "Problem", "structure_problems"]

MAX_EXPANDED_NODES = 200_000
"""Values a document may expand to once aliases are followed (the built-in files need ~3,000)."""
MAX_DEPTH = 64
_SHOWN_DEPTH = 4
"""A too-deep value is reported at its ancestor this many levels down (the path is noise)."""
_FLOAT_TAG = "tag:yaml.org,2002:float"
_NOT_FINITE = re.compile(r"^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$")
_MERGE_KEY = "<<"

Location = tuple[str | int, ...]
Problem = tuple[int, Location, str]
"""A 1-based line, the field path there and what is wrong."""


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _children(node: yaml.Node, loc: Location) -> list[tuple[yaml.Node, Location]]:
    """Child nodes with their field paths (a mapping's keys sit at the path of their value)."""
    if isinstance(node, yaml.MappingNode):
        found: list[tuple[yaml.Node, Location]] = []
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else "?"
            found += [(key, (*loc, name)), (value, (*loc, name))]
        return found
    if isinstance(node, yaml.SequenceNode):
        return [(item, (*loc, index)) for index, item in enumerate(node.value)]
    return []


def _expanded_sizes(root: yaml.Node) -> tuple[dict[int, int], list[Problem]]:
    """Values under ``root`` with aliases followed; a cycle or too deep a nesting is reported."""
    sizes: dict[int, int] = {}
    heights: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, Location, bool]] = [(root, (), False)]
    while stack:
        node, loc, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            children = [id(child) for child, _ in _children(node, loc)]
            sizes[key] = min(1 + sum(sizes[c] for c in children), 2**62)
            heights[key] = 1 + max((heights[c] for c in children), default=0)
            continue
        if key in on_path:
            return {}, [(_line(node), loc, "a YAML alias refers to a value that contains it")]
        if len(loc) + heights.get(key, 1) > MAX_DEPTH:
            message = f"nested more than {MAX_DEPTH} levels deep below this field"
            return {}, [(_line(node), loc[:_SHOWN_DEPTH], message)]
        if key in sizes:
            continue
        on_path.add(key)
        stack.append((node, loc, True))
        stack.extend((child, where, False) for child, where in _children(node, loc))
    return sizes, []


def _too_big(root: yaml.Node, sizes: dict[int, int]) -> Problem:
    """The deepest value that alone expands past the limit, where the bomb is."""
    node: yaml.Node = root
    loc: Location = ()
    while True:
        bigger = [
            (child, where)
            for child, where in _children(node, loc)
            if sizes[id(child)] > MAX_EXPANDED_NODES
        ]
        if not bigger:
            break
        node, loc = bigger[0]
    message = (
        f"expands to more than {MAX_EXPANDED_NODES:,} values once its YAML aliases are "
        "followed (an alias bomb?)"
    )
    return (_line(node), loc, message)


def _local_problems(root: yaml.Node) -> list[Problem]:
    """Duplicate keys and non-finite numbers, each distinct node visited once."""
    problems: list[Problem] = []
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, Location]] = [(root, ())]
    while stack:
        node, loc = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _FLOAT_TAG and _NOT_FINITE.match(str(node.value)):
                problems.append((_line(node), loc, f"{node.value} is not a finite number"))
        elif isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key_node, _value in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.value == _MERGE_KEY:
                    continue
                name = str(key_node.value)
                if name in first:
                    message = f"duplicate key {name!r} (first at line {first[name]})"
                    problems.append((_line(key_node), (*loc, name), message))
                else:
                    first[name] = _line(key_node)
        stack.extend(_children(node, loc))
    return sorted(problems, key=lambda problem: problem[0])


def structure_problems(root: yaml.Node | None) -> list[Problem]:
    """What makes a composed document unsafe or ambiguous to load, by line (empty if fine)."""
    if root is None:
        return []
    sizes, problems = _expanded_sizes(root)
    if problems:
        return problems
    if sizes[id(root)] > MAX_EXPANDED_NODES:
        return [_too_big(root, sizes)]
    return _local_problems(root)
