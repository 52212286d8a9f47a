"""Walking views and records as plain data (shared by the engine and server tests)."""

from __future__ import annotations


def strings_in(obj) -> set[str]:
    """Every string anywhere inside a view (keys included)."""
    found: set[str] = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def assert_plain_data(obj) -> None:
    """Views cross the wire as msgpack maps with string keys only."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            assert all(isinstance(k, str) for k in item), f"non-string key in {item}"
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            assert item is None or isinstance(item, (str, int, bool)), f"not plain data: {item!r}"
