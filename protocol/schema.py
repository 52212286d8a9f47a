"""The schema language of the wire maps (sans-I/O): field specs, the struct machinery, the message bases.

Every wire map with a fixed set of fields -- a message, a record nested in one, a game's action -- is
a frozen, slotted, keyword-only class whose fields carry a :class:`Spec` in their metadata
(``_f(spec, default)``). The specs check a value once, on construction or when a decoded map is
parsed, so an invalid map never becomes an object:

* :class:`Int`, :class:`Bool`, :class:`Str`, :class:`Scalar` -- the scalar types;
* :class:`Nullable`, :class:`ListOf`, :class:`Nested`, :class:`OpaqueMap` -- nil, arrays, records,
  maps the protocol does not interpret;
* :class:`Record` -- a nested map (no tag); :class:`Message` -- a map tagged by ``type``, a
  :class:`Request`, :class:`Reply` or :class:`Push`; ``@_message`` registers one in
  :data:`MESSAGE_TYPES`.

The protocol's own field types and limits are in :mod:`protocol.fields`; the messages, grouped by
purpose, in :mod:`protocol.session`, :mod:`protocol.lobby`, :mod:`protocol.table`,
:mod:`protocol.fairness` and :mod:`protocol.past`; :mod:`protocol.messages` is the one import point.
"""

import dataclasses
import re
from dataclasses import MISSING, dataclass, field
from typing import Any, Callable, ClassVar, TypeVar

from .errors import BAD_MESSAGE, TOO_LONG, LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import MAX_DEPTH, check_structure

_ErrorType = Callable[..., ProtocolError]  # an error class, or _remote_from_frame


# ---------------------------------------------------------------------------
# Field specs
# ---------------------------------------------------------------------------


def _kind(value: object) -> str:
    """Name a value's wire type for an error message (never its content)."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "binary data"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "map"
    return type(value).__name__


def _quote(text: str, limit: int = 32) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Spec:
    """How one field is checked and written. Subclasses are small and public so
    tests (and docs) can introspect them: ``Int.lo``, ``Str.pattern`` ..."""

    def check(self, value: Any, path: str, depth: int, err: _ErrorType) -> Any:
        """Validate ``value`` at ``path`` (nesting ``depth``); return the stored form."""
        raise NotImplementedError

    def to_wire(self, value: Any) -> Any:
        return value

    def _wrong(self, value: Any, path: str, err: _ErrorType, expected: str) -> ProtocolError:
        return err(BAD_MESSAGE, f"{path} must be {expected}, got {_kind(value)}", field=path)


class Int(Spec):
    """An integer in ``lo..hi`` (bools and floats are not integers)."""

    def __init__(self, lo: int, hi: int, *, choices: tuple[int, ...] | None = None) -> None:
        self.lo, self.hi, self.choices = lo, hi, choices

    def check(self, value, path, depth, err):
        if not _is_int(value):
            raise self._wrong(value, path, err, "an integer")
        if self.choices is not None and value not in self.choices:
            options = " or ".join(str(c) for c in self.choices)
            raise err(BAD_MESSAGE, f"{path} must be {options}", field=path)
        if not self.lo <= value <= self.hi:
            raise err(BAD_MESSAGE, f"{path} must be between {self.lo} and {self.hi}", field=path)
        return int(value)


class Bool(Spec):
    """``true`` or ``false`` (not 0/1)."""

    def check(self, value, path, depth, err):
        if not isinstance(value, bool):
            raise self._wrong(value, path, err, "a bool")
        return value


class Str(Spec):
    """A string of ``lo..hi`` Unicode code points.

    Over ``hi`` is ``too_long`` (a format's string too: its length is checked first); shorter
    than ``lo``, or a string with a ``pattern`` (a format such as a table id) that does not
    match it, is ``bad_message``.
    """

    def __init__(
        self,
        lo: int = 0,
        hi: int = 64,
        *,
        pattern: str | None = None,
        what: str | None = None,
        choices: tuple[str, ...] | None = None,
    ) -> None:
        self.lo, self.hi, self.choices = lo, hi, choices
        self.pattern = pattern
        self._regex = re.compile(pattern) if pattern is not None else None
        self.what = what

    def check(self, value, path, depth, err):
        if not isinstance(value, str):
            raise self._wrong(value, path, err, self.what or "a string")
        size = len(value)
        if size > self.hi:  # checked first, formats too: over its length a string is too long (PROTOCOL.md 3.1)
            raise err(TOO_LONG, f"{path} is {size} characters long, the limit is {self.hi}", field=path)
        if self._regex is not None:
            if not (self.lo <= size and self._regex.fullmatch(value)):
                raise err(BAD_MESSAGE, f"{path} must be {self.what}, got {_quote(value)}", field=path)
        elif size < self.lo:
            raise err(BAD_MESSAGE, f"{path} must be at least {self.lo} characters long", field=path)
        if self.choices is not None and value not in self.choices:
            options = ", ".join(repr(c) for c in self.choices)
            raise err(BAD_MESSAGE, f"{path} must be one of {options}, got {_quote(value)}", field=path)
        return value[:]  # a plain str even for str subclasses / str enums


class Nullable(Spec):
    """``inner`` or nil."""

    def __init__(self, inner: Spec) -> None:
        self.inner = inner

    def check(self, value, path, depth, err):
        return None if value is None else self.inner.check(value, path, depth, err)

    def to_wire(self, value):
        return None if value is None else self.inner.to_wire(value)


class ListOf(Spec):
    """An array of ``lo..hi`` items, each checked by ``item``; stored as a tuple."""

    def __init__(self, item: Spec, lo: int, hi: int) -> None:
        self.item, self.lo, self.hi = item, lo, hi

    def check(self, value, path, depth, err):
        if not isinstance(value, (list, tuple)):
            raise self._wrong(value, path, err, "an array")
        size = len(value)
        if self.lo == self.hi and size != self.lo:
            raise err(BAD_MESSAGE, f"{path} must have exactly {self.lo} items, got {size}", field=path)
        if size > self.hi:
            raise err(TOO_LONG, f"{path} has {size} items, the limit is {self.hi}", field=path)
        if size < self.lo:
            raise err(BAD_MESSAGE, f"{path} must have at least {self.lo} items", field=path)
        item = self.item
        return tuple(item.check(v, f"{path}[{i}]", depth + 1, err) for i, v in enumerate(value))

    def to_wire(self, value):
        return [self.item.to_wire(v) for v in value]


class Nested(Spec):
    """A map that is one of our record classes (strict: no unknown keys)."""

    def __init__(self, cls: type["_Struct"]) -> None:
        self.cls = cls

    def check(self, value, path, depth, err):
        if isinstance(value, self.cls):
            return value
        if not isinstance(value, dict):
            raise self._wrong(value, path, err, "a map")
        return self.cls._parse(value, path, depth, err)

    def to_wire(self, value):
        return value.to_wire()


class OpaqueMap(Spec):
    """Any string-keyed map within the nesting limit (contents not interpreted).

    With ``require_kind``, the map must have a ``kind`` code (events, actions);
    ``max_keys`` bounds its number of keys (``too_long`` past it).
    """

    def __init__(self, *, require_kind: bool = False, max_keys: int | None = None) -> None:
        self.require_kind = require_kind
        self.max_keys = max_keys

    def check(self, value, path, depth, err):
        if not isinstance(value, dict):
            raise self._wrong(value, path, err, "a map")
        if self.max_keys is not None and len(value) > self.max_keys:
            raise err(TOO_LONG, f"{path} has {len(value)} keys, the limit is {self.max_keys}", field=path)
        if err is not _remote_from_frame:  # a decoded frame's whole structure is checked already
            try:
                check_structure(value, max_depth=MAX_DEPTH - depth + 1, error=err, code=BAD_MESSAGE)
            except ProtocolError as exc:
                raise err(exc.code, f"{path}: {exc.message}", field=path) from None
        if self.require_kind:
            _KIND.check(value.get("kind"), _join(path, "kind"), depth + 1, err)
        return value


class Scalar(Spec):
    """nil, a bool, an integer or a string of at most ``hi`` code points (an item of a decision id)."""

    def __init__(self, hi: int = 64) -> None:
        self.hi = hi

    def check(self, value, path, depth, err):
        if value is None or isinstance(value, bool) or _is_int(value):
            return value
        if isinstance(value, str):
            if len(value) > self.hi:
                raise err(TOO_LONG, f"{path} is {len(value)} characters long, the limit is {self.hi}", field=path)
            return value[:]
        raise self._wrong(value, path, err, "nil, a bool, an integer or a string")


_KIND = Str(1, 32, pattern=r"[a-z][a-z0-9_]*", what="a kind (1-32 of a-z 0-9 _, starting a-z)")
"""A ``kind`` code: what an opaque map with ``require_kind`` (an event, an action) must carry."""


def _remote_from_frame(*args: Any, **kwargs: Any) -> RemoteProtocolError:
    """Makes the same errors as :class:`RemoteProtocolError`; passed as ``err`` it
    also tells opaque maps that :func:`~protocol.framing.decode_body` has already
    walked the whole frame (keys, depth, types), so they need not walk it again."""
    return RemoteProtocolError(*args, **kwargs)


# ---------------------------------------------------------------------------
# Struct machinery (shared by messages, records and actions)
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _FieldInfo:
    spec: Spec
    default: Callable[[], Any] | None  # None: the field is required


def _f(spec: Spec, default: Any = MISSING, *, factory: Any = MISSING) -> Any:
    return field(default=default, default_factory=factory, metadata={"spec": spec})


class _Struct:
    """Base of every wire map with a fixed set of fields.

    Each subclass is a frozen, slotted, keyword-only dataclass (``dataclasses.fields``
    lists its fields and their specs), but its methods are these generic ones: a
    dataclass generates and compiles six methods per class, and for the ~40 message
    classes that was a third of the client's own start-up work (~25 ms).
    """

    __slots__ = ()
    _fields: ClassVar[dict[str, _FieldInfo]] = {}
    _tag_key: ClassVar[str | None] = None  # "type" for messages, "kind" for actions

    def __init__(self, **values: Any) -> None:
        fields = self._fields
        for name in values:
            if name not in fields:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {name!r}")
        for name, info in fields.items():
            if name in values:
                value = values[name]
            elif info.default is not None:
                value = info.default()
            else:
                raise TypeError(f"{type(self).__name__}() missing required keyword argument {name!r}")
            object.__setattr__(self, name, info.spec.check(value, name, 2, LocalProtocolError))

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def to_wire(self) -> dict[str, Any]:
        """The plain map to encode (tag first, then every field, nils included)."""
        out: dict[str, Any] = {}
        if self._tag_key is not None:
            out[self._tag_key] = getattr(self, self._tag_key)
        for name, info in self._fields.items():
            out[name] = info.spec.to_wire(getattr(self, name))
        return out

    @classmethod
    def from_wire(cls, obj: Any) -> Any:
        """Parse a decoded map as exactly this class (``RemoteProtocolError`` if not)."""
        if not isinstance(obj, dict):
            raise RemoteProtocolError(BAD_MESSAGE, f"expected a map, got {_kind(obj)}")
        if cls._tag_key is not None:
            tag = getattr(cls, cls._tag_key)
            if obj.get(cls._tag_key) != tag:
                raise RemoteProtocolError(BAD_MESSAGE, f"{cls._tag_key} must be {tag!r}")
        return cls._parse(obj, "", 1, RemoteProtocolError)

    @classmethod
    def _parse(cls, obj: dict[Any, Any], path: str, depth: int, err: _ErrorType) -> Any:
        fields = cls._fields
        for key in obj:
            if key == cls._tag_key:
                continue
            if not isinstance(key, str):
                raise err(BAD_MESSAGE, f"{path or 'message'}: map keys must be strings", field=path or None)
            if key not in fields:
                where = f" in {path}" if path else ""
                raise err(BAD_MESSAGE, f"unexpected field {_quote(key)}{where}", field=_join(path, key))
        values: dict[str, Any] = {}
        for name, info in fields.items():
            if name in obj:
                values[name] = info.spec.check(obj[name], _join(path, name), depth + 1, err)
            elif info.default is not None:
                values[name] = info.default()
            else:
                where = f" in {path}" if path else ""
                raise err(BAD_MESSAGE, f"missing field {name!r}{where}", field=_join(path, name))
        # Already validated: build without checking again.
        instance = object.__new__(cls)
        for name, value in values.items():
            object.__setattr__(instance, name, value)
        return instance


_S = TypeVar("_S", bound=type)


def _struct(cls: _S) -> _S:
    # Frozen and compared by _Struct's own methods (see there): the dataclass generates none.
    cls = dataclass(init=False, repr=False, eq=False, slots=True, kw_only=True)(cls)
    infos: dict[str, _FieldInfo] = {}
    for f in dataclasses.fields(cls):
        spec = f.metadata.get("spec")
        if not isinstance(spec, Spec):
            raise TypeError(f"{cls.__name__}.{f.name} has no wire spec")
        if f.default is not MISSING:
            default: Callable[[], Any] | None = (lambda v=f.default: v)
        elif f.default_factory is not MISSING:
            default = f.default_factory
        else:
            default = None
        infos[f.name] = _FieldInfo(spec, default)
    cls._fields = infos
    return cls


class Record(_Struct):
    """A nested map with fixed fields (no tag)."""

    __slots__ = ()


# ---------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------


class Message(_Struct):
    """Base of all messages; ``type`` is the wire name, ``sender`` who may send it."""

    __slots__ = ()
    _tag_key = "type"
    type: ClassVar[str]
    sender: ClassVar[str]

    @classmethod
    def prevalidated(cls, **fields: Any) -> Any:
        """Build without validating: only for values the sender built itself
        and whose shape its own tests guarantee (the server's views, sent many
        times a second). Everything else goes through the checking constructor."""
        instance = object.__new__(cls)
        for name, info in cls._fields.items():
            value = fields[name] if name in fields else info.default()
            object.__setattr__(instance, name, value)
        return instance


class Request(Message):
    """A client -> server message; carries ``id``, answered by one reply."""

    __slots__ = ()
    sender: ClassVar[str] = "client"


class Reply(Message):
    """A server -> client answer to a request (``welcome``, ``ok``, ``error``)."""

    __slots__ = ()
    sender: ClassVar[str] = "server"


class Push(Message):
    """An unsolicited server -> client message."""

    __slots__ = ()
    sender: ClassVar[str] = "server"


MESSAGE_TYPES: dict[str, type[Message]] = {}
"""Wire ``type`` -> message class, for every message in either direction."""


def _message(cls: _S) -> _S:
    cls = _struct(cls)
    if cls.type in MESSAGE_TYPES:
        raise TypeError(f"duplicate message type {cls.type!r}")
    MESSAGE_TYPES[cls.type] = cls
    return cls
