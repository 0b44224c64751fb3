"""The fixture ``league`` (tests/league/league_parts.py's parts): a PostgreSQL cluster as
nobody, a central Mosquitto on TLS, two pub brokers bridged to it, two ingests.

Not a conftest.py: a second module named ``conftest`` would stand in for tests/conftest.py
in the other tests' ``from conftest import ...``. A test file imports the fixture by its
function's name (``from league_setup import league_fixture``); pytest finds it as
``league``."""

from __future__ import annotations

from collections.abc import Iterator
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


@pytest.fixture(name="league")
def league_fixture(tmp_path: Path) -> Iterator[League]:
    need_parts()
    pg = Postgres()
    brokers: list[LeagueBroker] = []
    ingests: list[IngestProcess] = []
    try:
        pg.start()
        migrated = run_cli("league", "migrate", "--dsn", pg.dsn, cwd=CHECKOUT)
        assert migrated.returncode == 0, migrated.stderr
        users = {LEAGUE_USER: (LEAGUE_PASSWORD, ["topic read shutbox/+/game",
                                                 "topic read shutbox/+/state",
                                                 "topic read shutbox/+/league/join",
                                                 "topic write shutbox/+/resend",
                                                 "topic write shutbox/league/roster/#",
                                                 "topic write shutbox/league/forget/#",
                                                 "topic write shutbox/league/table/#"])}
        for pub, boxes in PUBS.items():
            users[pub] = (f"{pub}-secret", [line for box in boxes for line in (
                [f"topic write shutbox/{box}/{k}" for k in ("event", "state", "status",
                                                           "game")]
                + [f"topic read shutbox/{box}/resend",
                   f"topic write shutbox/{box}/league/join",
                   f"topic read shutbox/league/table/{box}"])]
                + ["topic read shutbox/league/roster/#",
                   "topic read shutbox/league/forget/#"])
        central = LeagueBroker(tmp_path / "central", users, tls=True)   # TLS, as the docs
        brokers.append(central)
        central.start()
        pubs, configs = {}, {}
        for pub, boxes in PUBS.items():
            broker = LeagueBroker(tmp_path / pub, {box: (f"{box}-pw", box_user(box))
                                                   for box in boxes},
                                  bridge_lines(pub, central, f"{pub}-secret", boxes))
            brokers.append(broker)
            broker.start()
            pubs[pub] = broker
            for box in boxes:
                configs[box] = box_config(tmp_path / "boxes", box, broker, f"{box}-pw")
        credentials = tmp_path / "league.credentials"
        credentials.write_text(f"{LEAGUE_USER}:{LEAGUE_PASSWORD}\n")
        credentials.chmod(0o600)
        league = League(tmp_path, pg, central, pubs, configs, credentials, ingests)
        for _ in range(2):
            league.start_ingest()
        yield league
    finally:
        for ingest in ingests:
            ingest.stop()
        for broker in brokers:
            broker.kill()
        pg.destroy()
