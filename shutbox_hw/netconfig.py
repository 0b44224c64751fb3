"""The ``[network]`` and ``[web]`` tables of the config file: where the box reports, and
where its pages are served.

``[network] mqtt = "mqtt://host:1883"`` (``mqtts://`` for TLS) turns the outbox
on; credentials come from a file (``user:password`` on its first line) that
only the service can read, never from the config itself, which anybody on the
box may read. ``[web] listen`` is the address of ``shutbox-hw web``; its
backup download is off unless ``token_file`` names a file with a token.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import UserError
from .textfile import read_text_file
from .validate import Flag, Problems, Rule, Spec

BOX_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
SCHEMES = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class Broker:
    """An MQTT broker's address as the config gives it."""
    host: str
    port: int
    tls: bool


def parse_broker(text: str) -> Broker:
    """``mqtt://host[:port]`` or ``mqtts://host[:port]``; ValueError with the reason."""
    from urllib.parse import urlsplit  # here: every command reads the config
    parts = urlsplit(text)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"expected mqtt://host:port or mqtts://host:port, got {text[:60]!r}")
    try:
        port = parts.port or SCHEMES[parts.scheme]
    except ValueError:
        raise ValueError(f"bad port in {text[:60]!r} (1..65535)") from None
    if not parts.hostname:
        raise ValueError(f"no host in {text[:60]!r}")
    if parts.username or parts.password:
        raise ValueError("put the user and password in credentials_file, not in the URL")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"only mqtt://host:port is understood, got {text[:60]!r}")
    return Broker(parts.hostname, port, parts.scheme == "mqtts")


def parse_listen(text: str) -> tuple[str, int]:
    """``host:port`` (``[::]:8080`` for IPv6); ValueError with the reason."""
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"expected host:port such as \"0.0.0.0:8080\", got {text[:60]!r}")
    return host, int(port)


def default_box_id() -> str:
    """The host name, cut to what a topic level may hold."""
    import socket
    name = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname().split(".")[0])[:64]
    return name or "shutbox"


@dataclass(frozen=True)
class Parsed(Rule):
    """Text a parser accepts (its ValueError is the message)."""
    parse: Any

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"expected text, got {value!r}"
        try:
            self.parse(value)
        except ValueError as error:
            return str(error)
        return None


class PathText(Rule):
    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, str) and value.strip() else \
            f"expected a file path, got {value!r}"


def _box_id(text: str) -> str:
    if not BOX_ID.fullmatch(text):
        raise ValueError(f"expected 1-64 letters, digits, - or _, got {text[:60]!r}")
    return text


@dataclass(frozen=True)
class NetworkConfig:
    mqtt: str | None = None               # None: no outbox, no publisher
    credentials_file: str | None = None   # "user:password" on the first line
    ca_file: str | None = None            # mqtts: the CA to trust (default: the system's)
    box: str | None = None                # the box's id in topics (default: the host name)
    homeassistant: bool = False

    @property
    def broker(self) -> Broker | None:
        return None if self.mqtt is None else parse_broker(self.mqtt)

    @property
    def box_id(self) -> str:
        return self.box or default_box_id()


@dataclass(frozen=True)
class WebConfig:
    listen: str = "0.0.0.0:8080"
    token_file: str | None = None         # None: the backup download is off


NETWORK = Spec(NetworkConfig, {"mqtt": Parsed(parse_broker), "credentials_file": PathText(),
                               "ca_file": PathText(), "box": Parsed(_box_id),
                               "homeassistant": Flag()})
WEB = Spec(WebConfig, {"listen": Parsed(parse_listen), "token_file": PathText()})


def parse_network(table: Mapping[str, Any], problems: list[str]) -> NetworkConfig:
    values = NETWORK.read(table, Problems(problems, "network"))
    config = NetworkConfig(**values)
    if config.mqtt is None and (config.homeassistant or config.credentials_file):
        Problems(problems, "network").add("mqtt", "homeassistant and credentials_file need "
                                          "mqtt = \"mqtt://host:1883\"")
    return config


def parse_web(table: Mapping[str, Any], problems: list[str]) -> WebConfig:
    return WebConfig(**WEB.read(table, Problems(problems, "web")))


def read_secret(path: str | Path, what: str) -> str:
    """The first line of a small secret file (ValueError naming the problem, never the secret)."""
    try:
        text = read_text_file(Path(path), what, 4096)
    except UserError as error:
        raise ValueError(str(error)) from None
    line = text.splitlines()[0].strip() if text.strip() else ""
    if not line:
        raise ValueError(f"{what} {path} is empty")
    return line
