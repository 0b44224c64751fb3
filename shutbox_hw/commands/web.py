"""``shutbox-hw web``: the box's pages on the LAN (its own process and systemd unit).

It only reads the database, so the box never waits for it, and it can be
stopped, restarted or left out without the box noticing.
"""

from __future__ import annotations

import argparse
import logging
import socket
from pathlib import Path

from ..errors import UserError


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("web", help="serve the live scoreboard, results and backup on the LAN")
    p.add_argument("--config", metavar="FILE", help="the box's config file ([storage] db, [web])")
    p.add_argument("--db", metavar="PATH", help="the database (default: the box's)")
    p.add_argument("--listen", metavar="HOST:PORT",
                   help='where to serve (default: [web] listen, else "0.0.0.0:8080")')
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
    from ..config import default_db_path, load_config
    from ..netconfig import parse_listen, read_secret
    config = load_config(args.config)
    try:
        import uvicorn

        from ..web.app import make_app
    except ImportError:
        raise UserError("shutbox-hw web needs the web extra: "
                        "pip install 'shutbox-hw[web]'") from None
    try:
        host, port = parse_listen(args.listen or config.web.listen)
    except ValueError as error:
        raise UserError(f"--listen: {error}") from None
    token = None
    if config.web.token_file:
        try:
            token = read_secret(config.web.token_file, "token file")
        except ValueError as error:
            raise UserError(f"[web] token_file: {error}") from None
    db = Path(args.db) if args.db else (config.db or default_db_path())
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    sock = listening_socket(host, port)
    logging.getLogger("shutbox_hw.web").info(
        "serving %s on http://%s:%d/ (backup %s)", db, host, port, "on" if token else "off")
    server = uvicorn.Server(uvicorn.Config(
        make_app(db, token), http="h11", loop="asyncio", lifespan="off", access_log=False,
        log_level="warning", server_header=False, limit_concurrency=64,
        timeout_keep_alive=5, h11_max_incomplete_event_size=16 * 1024))
    server.run(sockets=[sock])
    return 0
