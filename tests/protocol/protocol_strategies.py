"""Hypothesis strategies built from the message dataclasses' own field specs.

Nothing here is written per message: every strategy is derived from the
``Spec`` objects that ``protocol.messages`` uses to validate, so a new message or
field is covered automatically.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

from hypothesis import strategies as st

from protocol import messages as m

# JSON-like leaves for opaque maps (the only value types the wire allows).
_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)


def opaque_values(max_leaves: int = 8) -> st.SearchStrategy:
    # max_leaves bounds the nesting too, so this stays well inside MAX_DEPTH.
    return st.recursive(
        _LEAVES,
        lambda children: st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=10), children, max_size=4),
        max_leaves=max_leaves,
    )


def opaque_maps(require_kind: bool = False, max_keys: int | None = None) -> st.SearchStrategy:
    size = 5 if max_keys is None else min(5, max_keys - require_kind)
    maps = st.dictionaries(st.text(max_size=10), opaque_values(), max_size=size)
    if require_kind:
        kinds = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
        maps = st.builds(lambda d, k: {**d, "kind": k}, maps, kinds)
    return maps


def for_spec(spec: m.Spec) -> st.SearchStrategy:
    if isinstance(spec, m.Int):
        if spec.choices is not None:
            return st.sampled_from(spec.choices)
        return st.integers(spec.lo, spec.hi)
    if isinstance(spec, m.Bool):
        return st.booleans()
    if isinstance(spec, m.Str):
        if spec.choices is not None:
            return st.sampled_from(spec.choices)
        if spec.pattern is not None:
            return st.from_regex(f"(?:{spec.pattern})", fullmatch=True).filter(
                lambda s: spec.lo <= len(s) <= spec.hi
            )
        return st.text(min_size=spec.lo, max_size=spec.hi)
    if isinstance(spec, m.Nullable):
        return st.none() | for_spec(spec.inner)
    if isinstance(spec, m.ListOf):
        return st.lists(for_spec(spec.item), min_size=spec.lo, max_size=min(spec.hi, max(spec.lo, 4)))
    if isinstance(spec, m.Nested):
        return for_class(spec.cls)
    if isinstance(spec, m.OpaqueMap):
        return opaque_maps(spec.require_kind, spec.max_keys)
    if isinstance(spec, m.Scalar):
        return st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=spec.hi)
    raise TypeError(f"no strategy for {spec!r}")


@lru_cache(maxsize=None)
def for_class(cls: type) -> st.SearchStrategy:
    """Valid instances of a message or record class."""
    kwargs = {}
    for f in dataclasses.fields(cls):
        strategy = for_spec(f.metadata["spec"])
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            # Exercise the default too (the constructor fills it in).
            strategy = st.one_of(st.just(_OMIT), strategy)
        kwargs[f.name] = strategy
    return st.fixed_dictionaries(kwargs).map(
        lambda kw: cls(**{k: v for k, v in kw.items() if v is not _OMIT})
    )


_OMIT = object()


def messages() -> st.SearchStrategy:
    return st.one_of([for_class(cls) for cls in m.MESSAGE_TYPES.values()])
