"""Parsing ``host``, ``host:port`` and ``[v6]:port`` server addresses."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PORT = 7777  # the same as protocol.messages.DEFAULT_PORT, without importing it


class AddressError(ValueError):
    """Text that is not a server address; the message says why, in one line."""


@dataclass(frozen=True)
class Address:
    host: str
    port: int = DEFAULT_PORT

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_address(text: str) -> Address:
    """``example.org``, ``example.org:7000``, ``[::1]:7777``, ``[::1]`` or a bare ``::1``."""
    text = text.strip()
    if not text:
        raise AddressError("empty server address")
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or not host:
            raise AddressError(f"bad address {text!r}: expected [IPv6]:port")
        if rest and not rest.startswith(":"):
            raise AddressError(f"bad address {text!r}: expected [IPv6]:port")
        port_text = rest[1:] if rest else None
    elif text.count(":") > 1:  # a bare IPv6 address: no port possible
        host, port_text = text, None
    else:
        host, sep, port_text_ = text.partition(":")
        port_text = port_text_ if sep else None
        if not host:
            raise AddressError(f"bad address {text!r}: the host name is missing")
    if any(c.isspace() or c in "/@" for c in host):
        raise AddressError(f"bad address {text!r}: not a host name")
    if port_text is None:
        return Address(host)
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise AddressError(f"bad port {port_text!r} in {text!r}: expected a number from 1 to 65535")
    return Address(host, int(port_text))
