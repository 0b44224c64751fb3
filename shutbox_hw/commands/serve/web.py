"""``shutbox-hw web``: the box's pages on the LAN (its own process and systemd unit).

It only reads the database, so the box never waits for it, and it can be
stopped, restarted or left out without the box noticing. It stops within a
few seconds even with TVs connected: on SIGTERM the event streams end (the
pages reconnect to the next process by themselves) and whatever is still
running after :data:`GRACE_S` is cancelled.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
from pathlib import Path
from typing import Any

from ...base.errors import UserError, shown_path

GRACE_S = 3              # uvicorn's graceful shutdown: what still runs after this is cancelled
KEEP_ALIVE_S = 5         # an idle kept-alive connection is closed after this


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("web", help="serve the live scoreboard, results and backup on the LAN")
    p.add_argument("--config", metavar="FILE", help="the box's config file ([storage] db, [web])")
    p.add_argument("--db", metavar="PATH", help="the database (default: the box's)")
    p.add_argument("--listen", metavar="HOST:PORT",
                   help='where to serve (default: [web] listen, else "0.0.0.0:8080")')
    p.add_argument("--host", metavar="NAME", action="append", default=[],
                   help="a further name the pages may be opened by (a name of your own "
                        "network's DNS; its addresses, localhost and the box's host name "
                        "are always accepted); may be given again")
    p.set_defaults(run=run)


def listening_socket(host: str, port: int) -> socket.socket:
    """Bound and listening, or one line saying why not (a port in use, a bad host)."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        raise UserError(f"cannot listen on {host}:{port}: "
                        f"{error.strerror or error}") from None
    return sock


def run(args: argparse.Namespace) -> int:
    from ...config.config_file import default_db_path, load_config
    from ...config.network import parse_listen, read_token
    config = load_config(args.config)
    try:
        import uvicorn  # noqa: F401  (installed? the web extra)

        from ...web.app import make_app
    except ImportError:
        raise UserError("shutbox-hw web needs the web extra: "
                        "pip install 'shutbox-hw[web]'") from None
    try:
        host, port = parse_listen(args.listen or config.web.listen)
    except ValueError as error:
        raise UserError(f"--listen: {error}") from None
    db = Path(args.db) if args.db else (config.db or default_db_path())
    _check_folder(db, "--db" if args.db else "[storage] db" if config.db else "the database")
    from ...store.read.shown import use_folder
    use_folder(config.runtime)   # where the box's mirror for the TV is (RAM)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    token = None
    if config.web.token_file:
        try:
            token = read_token(config.web.token_file)
        except ValueError as error:   # the pages serve on; the backup waits for a good token
            logging.getLogger("shutbox_hw.web").warning(
                "[web] token_file: %s (the backup is off until it is fixed)", error)
    from ...web.gate.guard import box_names
    sock = listening_socket(host, port)
    logging.getLogger("shutbox_hw.web").info(
        "serving %s on http://%s:%d/ (backup %s)", db, host, port, "on" if token else "off")
    from ...claims.place import for_web
    from ...web.join import Announcer, web_base
    # the box's socket, or that of a simulator on the same record (sim --db)
    claims, base = for_web(config.network, db), web_base(config.network.web_url, host, port)
    announcer = Announcer(claims, base) if claims and base else None
    if announcer is not None:
        announcer.start()    # the daemon shows the QR codes while it hears from the web
    try:
        make_server(make_app(db, token, names=box_names(host, args.host),
                             language=config.box.language, public=config.players.public,
                             claims_path=claims, join_base=base),
                    config.web.proxy_list).run(sockets=[sock])
    finally:
        if announcer is not None:
            announcer.stop()
    return 0


def _check_folder(db: Path, where: str) -> None:
    """A database in a folder that does not exist would be "no games yet" for ever
    (the box can never write it there): refused, naming the folder."""
    if db.is_dir():
        raise UserError(f"{where}: {shown_path(db)} is a folder, not a database file")
    if not db.parent.is_dir():
        raise UserError(f"{where}: there is no folder {shown_path(db.parent)} for "
                        f"{shown_path(db)}; give the path of the box's database")


def make_server(app: Any, proxies: list[str] | None = None) -> Any:
    """uvicorn with the guarded protocol (web/gate/protocol.py) and a stop that ends the streams.
    ``proxies``: ``[web] proxies``, the only peers whose X-Forwarded-For is believed (none:
    uvicorn would otherwise believe any from the loopback)."""
    import uvicorn

    from ...web.gate.protocol import GuardedH11

    class Server(uvicorn.Server):
        loop: asyncio.AbstractEventLoop | None = None

        async def serve(self, sockets: list[socket.socket] | None = None) -> None:
            self.loop = asyncio.get_running_loop()
            await super().serve(sockets)

        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            if self.loop is not None:
                self.loop.call_soon_threadsafe(app.stop)

    return Server(uvicorn.Config(
        app, http=GuardedH11, loop="asyncio", lifespan="off", access_log=False,
        log_level="warning", server_header=False, limit_concurrency=None,
        proxy_headers=bool(proxies), forwarded_allow_ips=proxies or [],
        timeout_keep_alive=KEEP_ALIVE_S, timeout_graceful_shutdown=GRACE_S,
        h11_max_incomplete_event_size=16 * 1024))
