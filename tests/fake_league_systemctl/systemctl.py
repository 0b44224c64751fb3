#!/usr/bin/env python3
"""A stand-in for systemctl for systemd/league/install.sh --root (SHUTBOX_SYSTEMCTL).

Every call is appended to $FAKE_LOG; a unit whose name contains $FAKE_FAILING fails to
restart (and is not active). The league's pages are started for real, as systemd would
start them: the ExecStart line of the unit installed in $FAKE_UNITS, with the values of
its EnvironmentFile (under $FAKE_ROOT), from /; their process id kept in $FAKE_PIDS.
FAKE_SILENT=1: the pages' restart succeeds and starts nothing.

Standard library only: tests/league/test_league_install.py runs it with its interpreter
and -S (no site-packages: it starts in a tenth of the time an import of the test module,
and pytest with it, took), and imports its helpers from here."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

WEB_UNIT = "shutbox-league-web.service"


def stop_and_wait(pid: int, timeout: float = 10.0) -> None:
    """Stop a process group as systemd's stop does: SIGTERM, wait until the process is
    gone (or a zombie), SIGKILL after the timeout. A restart that did not wait left the
    old pages answering on the port the installer then probes."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.02)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def unit_setting(unit: str, key: str) -> list[str]:
    return [line.split("=", 1)[1] for line in unit.splitlines() if line.startswith(key + "=")]


def systemd_environment(unit: str, root: str) -> dict[str, str]:
    """The environment systemd gives the unit: its Environment= pairs and its
    EnvironmentFile's (under ``root``): KEY=VALUE a line, # comments, quotes around the
    whole value removed), over a bare PATH."""
    env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8"}
    for pair in unit_setting(unit, "Environment"):
        key, _, value = pair.partition("=")
        env[key] = value
    for name in unit_setting(unit, "EnvironmentFile"):
        for line in Path(root + name).read_text().splitlines():
            line = line.strip()
            if not line or line.startswith(("#", ";")) or "=" not in line:
                continue
            key, _, value = line.partition("=")
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            env[key.strip()] = value
    return env


def systemd_command(unit: str, env: dict[str, str], root: str) -> list[str]:
    """The unit's ExecStart line as systemd runs it: split into words as a shell would
    (quotes), then in each word $$ is a $, %% a %, ${VAR} the variable's value, and a
    word that is only $VAR its value split at white space (systemd.service(5),
    "Command lines"); /opt/ is the scratch tree's (``root``), as in a chroot there."""
    line, = unit_setting(unit, "ExecStart")
    words: list[str] = []
    for word in shlex.split(line):
        whole = re.fullmatch(r"\$(\w+)", word)
        if whole:
            words += env.get(whole[1], "").split()
            continue
        words.append(re.sub(r"\$\$|%%|\$\{(\w+)\}",
                            lambda m: {"$$": "$", "%%": "%"}.get(m[0]) or env.get(m[1], ""),
                            word))
    return [w.replace("/opt/shutbox-league/", f"{root}/opt/shutbox-league/") for w in words]


def main(argv: list[str]) -> int:
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(" ".join(argv) + "\n")
    failing = os.environ.get("FAKE_FAILING", "")
    if argv[0] in ("restart", "is-active") and failing and failing in argv[-1]:
        return 1
    pids = os.environ["FAKE_PIDS"]
    if WEB_UNIT in argv and (argv[0] == "restart" or "--now" in argv):
        if os.path.exists(pids):
            for pid in open(pids).read().split():
                stop_and_wait(int(pid))
            os.remove(pids)
        if argv[0] == "restart" and not os.environ.get("FAKE_SILENT"):
            unit = open(os.path.join(os.environ["FAKE_UNITS"], WEB_UNIT)).read()
            env = systemd_environment(unit, os.environ["FAKE_ROOT"])
            command = systemd_command(unit, env, os.environ["FAKE_ROOT"])
            web_process = subprocess.Popen(command, env=env, cwd="/",
                                           stdin=subprocess.DEVNULL,
                                           stdout=subprocess.DEVNULL,
                                           stderr=open(os.environ["FAKE_LOG"] + ".web", "a"),
                                           start_new_session=True)
            with open(pids, "w") as f:
                f.write(str(web_process.pid))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
