"""The fixture ``league`` (tests/league/league_parts.py's parts): a PostgreSQL cluster as
nobody, a central Mosquitto on TLS, two pub brokers bridged to it, two ingests.

Not a conftest.py: a second module named ``conftest`` would stand in for tests/conftest.py
in the other tests' ``from conftest import ...``. A test file imports the fixture by its
function's name (``from league_setup import league_fixture``); pytest finds it as
``league``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cli_inprocess import run_cli
from league_parts import (
    CHECKOUT,
    IngestProcess,
    LeagueBroker,
    Postgres,
    box_config,
    box_user,
    bridge_lines,
    need_parts,
)

# two pubs: pub A's boxes a1 and a2, pub B's box b1
PUBS = {"pubA": ["a1", "a2"], "pubB": ["b1"]}
LEAGUE_USER, LEAGUE_PASSWORD = "league", "league-secret"


@dataclass
class League:
    folder: Path
    pg: Postgres
    central: LeagueBroker
    pubs: dict[str, LeagueBroker]
    configs: dict[str, Path]                 # box -> its sim config
    credentials: Path                        # the ingests' user:password
    ingests: list[IngestProcess] = field(default_factory=list)

    def start_ingest(self, code: str | None = None,
                     retry_max_s: float | None = None) -> IngestProcess:
        ingest = IngestProcess(self.folder / "ingest", self.pg.dsn, self.central.url,
                               self.credentials, code=code, ca=self.central.ca,
                               retry_max_s=retry_max_s)
        self.ingests.append(ingest)
        return ingest

    def db(self, box: str, card: int = 1) -> Path:
        """The box's database (``card``: its SD card; a new one is a new record)."""
        return self.folder / "boxes" / f"{box}-card{card}.db"

    def logs(self) -> str:
        return "\n".join([i.text()[-1500:] for i in self.ingests]
                         + [b.log() for b in [self.central, *self.pubs.values()]])


def league_users(pubs: dict[str, list[str]]) -> dict[str, tuple[str, list[str]]]:
    """The central broker's users and ACLs, as docs/network/league.md's "The brokers"
    writes them: the league's, and each pub's bridge for its boxes (``pubs``)."""
    users = {LEAGUE_USER: (LEAGUE_PASSWORD, ["topic read shutbox/+/game",
                                             "topic read shutbox/+/state",
                                             "topic read shutbox/+/league/join",
                                             "topic write shutbox/+/resend",
                                             "topic write shutbox/league/roster/#",
                                             "topic write shutbox/league/forget/#",
                                             "topic write shutbox/league/table/#"])}
    for pub, boxes in pubs.items():
        users[pub] = (f"{pub}-secret", [line for box in boxes for line in (
            [f"topic write shutbox/{box}/{k}" for k in ("event", "state", "status",
                                                       "game")]
            + [f"topic read shutbox/{box}/resend",
               f"topic write shutbox/{box}/league/join",
               f"topic read shutbox/league/table/{box}"])]
            + ["topic read shutbox/league/roster/#",
               "topic read shutbox/league/forget/#"])
    return users


@dataclass
class Parts:
    """The league's parts as started (see :func:`league_parts`)."""
    pg: Postgres
    central: LeagueBroker
    pubs: dict[str, LeagueBroker]
    configs: dict[str, Path]                 # box -> its sim config
    credentials: Path                        # the ingests' user:password
    ingests: list[IngestProcess]


@contextmanager
def league_parts(folder: Path, pubs: dict[str, list[str]],
                 central_port: Callable[[str, LeagueBroker], int] | None = None
                 ) -> Iterator[Parts]:
    """PostgreSQL (migrated), the central broker on TLS, a broker per pub bridged to it
    (``central_port``: the port a pub's bridge dials, the central's by default), each
    box's sim config; the ingests' list (empty: the caller starts them); everything
    stopped at the end."""
    need_parts()
    pg = Postgres()
    brokers: list[LeagueBroker] = []
    ingests: list[IngestProcess] = []
    try:
        pg.start()
        migrated = run_cli("league", "migrate", "--dsn", pg.dsn, cwd=CHECKOUT)
        assert migrated.returncode == 0, migrated.stderr
        central = LeagueBroker(folder / "central", league_users(pubs), tls=True)
        brokers.append(central)
        central.start()
        started, configs = {}, {}
        for pub, boxes in pubs.items():
            lines = bridge_lines(pub, central, f"{pub}-secret", boxes)
            if central_port is not None:
                lines = lines.replace(f"address 127.0.0.1:{central.port}",
                                      f"address 127.0.0.1:{central_port(pub, central)}")
            broker = LeagueBroker(folder / pub, {box: (f"{box}-pw", box_user(box))
                                                 for box in boxes}, lines)
            brokers.append(broker)
            broker.start()
            started[pub] = broker
            for box in boxes:
                configs[box] = box_config(folder / "boxes", box, broker, f"{box}-pw")
        credentials = folder / "league.credentials"
        credentials.write_text(f"{LEAGUE_USER}:{LEAGUE_PASSWORD}\n")
        credentials.chmod(0o600)
        yield Parts(pg, central, started, configs, credentials, ingests)
    finally:
        for ingest in ingests:
            ingest.stop()
        for broker in brokers:
            broker.kill()
        pg.destroy()


@pytest.fixture(name="league")
def league_fixture(tmp_path: Path) -> Iterator[League]:
    with league_parts(tmp_path, PUBS) as parts:
        league = League(tmp_path, parts.pg, parts.central, parts.pubs, parts.configs,
                        parts.credentials, parts.ingests)
        for _ in range(2):
            league.start_ingest()
        yield league
