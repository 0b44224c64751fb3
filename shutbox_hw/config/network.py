"""The ``[network]`` and ``[web]`` tables of the config file: where the box reports, and
where its pages are served.

``[network] mqtt = "mqtt://host:1883"`` (``mqtts://`` for TLS) turns the outbox
on; credentials come from a file (``user:password`` on its first line) that
only the service can read, never from the config itself, which anybody on the
box may read. ``[web] listen`` is the address of ``shutbox-hw web``; its
backup download is off unless ``token_file`` names a file with a token.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.errors import UserError
from ..base.textfile import read_text_file
from ..base.validate import FilePath, Flag, Integer, Problems, Rule, Spec, first_line

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


def parse_web_url(text: str) -> str:
    """``http://host[:port]/...`` (Home Assistant's "visit device" link); ValueError."""
    from urllib.parse import urlsplit
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"expected http://host:port/, got {text[:60]!r}")
    return text


def parse_listen(text: str) -> tuple[str, int]:
    """``host:port`` (``[::]:8080`` for IPv6); ValueError with the reason."""
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"expected host:port such as \"0.0.0.0:8080\", got {text[:60]!r}")
    return host, int(port)


DEFAULT_RUNTIME = "/run/shutbox-hw"   # the box's unit's RuntimeDirectory=
MAX_SOCKET_PATH = 100                  # sun_path holds 108 bytes


class SocketPath(Rule):
    """An absolute path for a Unix socket, or "" (off)."""

    def problem(self, value: Any) -> str | None:
        if value == "":
            return None
        if not isinstance(value, str) or not value.startswith("/"):
            return f'expected an absolute path such as "/run/shutbox-hw/claims.sock" ' \
                   f'or "" (off), got {value!r}'[:160]
        if len(value.encode()) > MAX_SOCKET_PATH or not value.isprintable():
            return f"a socket's path has at most {MAX_SOCKET_PATH} printable bytes"
        return None


CPUINFO = Path("/proc/cpuinfo")
MACHINE_ID = Path("/etc/machine-id")


def default_box_id(cpuinfo: Path = CPUINFO, machine_id: Path = MACHINE_ID) -> str:
    """Something unique to this machine, never the host name (``raspberrypi`` on
    many Pis): ``pi-`` and the last 8 hex digits of the Pi's serial number, else
    ``box-`` and the first 12 of the systemd machine id; the host name only on
    a machine that has neither."""
    try:
        serial = re.search(r"^Serial\s*:\s*([0-9a-fA-F]{8,})\s*$",
                           cpuinfo.read_text(errors="replace"), re.MULTILINE)
    except OSError:
        serial = None
    if serial and serial.group(1).strip("0"):
        return f"pi-{serial.group(1)[-8:].lower()}"
    try:
        machine = machine_id.read_text().strip().lower()
    except OSError:
        machine = ""
    if re.fullmatch(r"[0-9a-f]{32}", machine) and machine.strip("0"):
        return f"box-{machine[:12]}"
    import socket
    name = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname().split(".")[0])[:64]
    return name or "shutbox"


def private_file_problem(path: str | Path, what: str) -> str | None:
    """Why a secret file must not be used: readable by the group or by everyone
    (the web unit's user is in the box's group), so that only the box's user
    reads it. None when only its owner can."""
    import stat
    try:
        mode = Path(path).stat().st_mode
    except OSError:
        return None   # read_secret says what is wrong with a missing file
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        who = "everyone" if mode & stat.S_IRWXO else "its group"
        return (f"{what} can be read by {who} (mode {stat.S_IMODE(mode):04o}): "
                f"chmod 600 {path}")
    return None


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

    def describe(self) -> str:
        """The parser's docstring up to its first ";": what it accepts."""
        return first_line(self.parse.__doc__).split(";")[0].replace("``", "`")


def _box_id(text: str) -> str:
    """1-64 letters, digits, - or _; ValueError with the reason (``league`` is the
    league's own: its roster's topics are ``shutbox/league/roster/...``)."""
    if not BOX_ID.fullmatch(text):
        raise ValueError(f"expected 1-64 letters, digits, - or _, got {text[:60]!r}")
    if text.lower() == "league":
        raise ValueError("'league' is the league's own topic (shutbox/league/roster): "
                         "choose another box id")
    return text


@dataclass(frozen=True)
class NetworkConfig:
    """``[network]``: the MQTT broker, Home Assistant, the phones' claims."""
    mqtt: str | None = None               # None: no outbox, no publisher
    credentials_file: str | None = None   # "user:password" on the first line
    ca_file: str | None = None            # mqtts: the CA to trust (default: the system's)
    box: str | None = None                # the box's id in topics (default: default_box_id)
    homeassistant: bool = False           # Home Assistant's MQTT discovery
    # the outbox while the broker is away (store/tables/outbox.py): past either limit the
    # oldest events are dropped and counted; a month of heavy play by default
    outbox_max: int = 100_000             # events (50 games a night x ~60 events x 31)
    outbox_max_days: int = 31             # days
    web_url: str | None = None            # the box's web page, for Home Assistant's device
    #                                       and the join page's QR codes (claims/)
    claims_socket: str | None = None      # the phones' claims, web -> daemon; "" off,
    #                                       None the default (claims_path)

    @property
    def claims_path(self) -> str | None:
        """Where the daemon listens for the phones' claims (None: off): the key, else
        the daemon's runtime directory under systemd, /run/shutbox-hw (the web's view
        of it) otherwise."""
        if self.claims_socket is not None:
            return self.claims_socket or None
        import os
        runtime = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
        return f"{runtime or DEFAULT_RUNTIME}/claims.sock"

    @property
    def broker(self) -> Broker | None:
        return None if self.mqtt is None else parse_broker(self.mqtt)

    @property
    def box_id(self) -> str:
        return self.box or default_box_id()


@dataclass(frozen=True)
class WebConfig:
    """``[web]``: the pages ``shutbox-hw web`` serves."""
    listen: str = "0.0.0.0:8080"         # where the pages are served
    token_file: str | None = None         # None: the backup download is off
    proxies: str = ""                     # reverse proxies whose X-Forwarded-For is believed

    @property
    def proxy_list(self) -> list[str]:
        """The proxies' addresses and networks ([] none: no forwarded header is believed)."""
        return parse_proxies(self.proxies)


def parse_proxies(text: str) -> list[str]:
    """``[web] proxies``: addresses or networks, comma-separated ("" none); ValueError."""
    import ipaddress
    items = [item.strip() for item in text.split(",") if item.strip()]
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"expected the reverse proxies' addresses such as "
                             f"\"127.0.0.1\" or \"192.168.1.0/24\", comma-separated, or \"\" "
                             f"(none), got {item[:60]!r}") from None
    return items


NETWORK = Spec(NetworkConfig, {"mqtt": Parsed(parse_broker), "credentials_file": FilePath(),
                               "ca_file": FilePath(), "box": Parsed(_box_id),
                               "homeassistant": Flag(),
                               "outbox_max": Integer(100, 10_000_000, "a number of events"),
                               "outbox_max_days": Integer(1, 3650, "a number of days"),
                               "web_url": Parsed(parse_web_url),
                               "claims_socket": SocketPath()})
WEB = Spec(WebConfig, {"listen": Parsed(parse_listen), "token_file": FilePath(),
                       "proxies": Parsed(parse_proxies)})


def parse_network(table: Mapping[str, Any], problems: list[str]) -> NetworkConfig:
    values = NETWORK.read(table, Problems(problems, "network"))
    config = NetworkConfig(**values)
    if config.mqtt is None and (config.homeassistant or config.credentials_file):
        Problems(problems, "network").add("mqtt", "homeassistant and credentials_file need "
                                          "mqtt = \"mqtt://host:1883\"")
    broker = _broker_or_none(config.mqtt)
    if config.ca_file and broker is not None and not broker.tls:
        Problems(problems, "network").add(
            "ca_file", "mqtt:// sends all in clear text, ca_file is for mqtts://host:8883")
    return config


def _broker_or_none(text: str | None) -> Broker | None:
    try:
        return None if text is None else parse_broker(text)
    except ValueError:
        return None   # already a problem of the key mqtt


def network_file_problems(network: NetworkConfig) -> list[str]:
    """``check-config``: the secret files of ``[network]`` that are not private."""
    problem = network.credentials_file and private_file_problem(
        network.credentials_file, "[network] credentials_file")
    return [problem] if problem else []


MIN_TOKEN_CHARS = 16    # the backup's token: "openssl rand -hex 16" gives 32


def read_token(path: str) -> str:
    """The backup's token from ``[web] token_file``, checked like the MQTT credentials
    (only its owner may read the file) and at least :data:`MIN_TOKEN_CHARS` long;
    ValueError naming the problem, never the token."""
    problem = private_file_problem(path, f"[web] token_file {path}")
    if problem:
        raise ValueError(problem)
    token = read_secret(path, "token file")
    if len(token) < MIN_TOKEN_CHARS:
        n = len(token)
        raise ValueError(f"the token in {path} has {n} character{'' if n == 1 else 's'}, at least "
                         f"{MIN_TOKEN_CHARS} are needed: openssl rand -hex 16 > {path}")
    return token


def web_file_problems(web: WebConfig) -> list[str]:
    """``check-config``: the backup's token file readable by others, or too short (the
    length is checked where this user may read the file: the web's user owns it)."""
    path = web.token_file
    if not path:
        return []
    problem = private_file_problem(path, f"[web] token_file {path}")
    if problem is None and os.access(path, os.R_OK):
        try:
            read_token(path)
        except ValueError as error:
            problem = str(error)
    return [problem] if problem else []


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
