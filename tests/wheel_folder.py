"""A folder of wheels for systemd/install.sh --wheels, made here without a network.

- The project's own wheel is built from the checkout (pure Python: the package,
  firmware/dice as ``shutbox_hw.dice_firmware`` as setup.py maps it, metadata from
  pyproject.toml), so no setuptools or wheel package is needed.
- Every dependency (the project's, its ``pi`` extra's, and theirs) is packed again
  from the distribution installed in the Python running the tests, file by file
  from its RECORD (console scripts are left out: pip writes them anew), under
  the tag its WHEEL file names. That only fits the installer's Python if both
  are the same minor version (Pillow is compiled for one).
- lgpio: packed the same way when this Python has it; otherwise a stand-in with
  its name and version and no code (nothing the installer test runs drives pins).

:func:`make_wheel_folder` returns None when it made the folder, else the reason.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata as md
import re
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import Requirement

NOT_PACKED = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}


def copy_tree(src: Path, dest: Path) -> None:
    """``src`` copied to ``dest`` (which must not exist yet) as ``cp -a`` copies: symbolic
    links as links, modes and times kept, as shutil.copytree(symlinks=True) did, in a
    fifth of its CPU on an installed tree (117 MB, 5,800 files: 0.4 s against 2.2 s)."""
    if dest.exists() or dest.is_symlink():
        raise FileExistsError(dest)
    subprocess.run(["cp", "-a", "--", str(src), str(dest)], check=True)


def checkout_as(checkout: Path, dest: Path, version: str, parts: Iterable[str]) -> Path:
    """The ``parts`` of ``checkout`` an installer reads, copied into ``dest`` with the
    project's version set to ``version`` (a newer release to upgrade to)."""
    import shutil
    for part in parts:
        (dest / part).parent.mkdir(parents=True, exist_ok=True)
        if (checkout / part).is_dir():
            shutil.copytree(checkout / part, dest / part,
                            ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(checkout / part, dest / part)
    pyproject = dest / "pyproject.toml"
    text = pyproject.read_text()
    assert text.count('\nversion = "') == 1
    pyproject.write_text(re.sub(r'\nversion = "[^"]*"', f'\nversion = "{version}"', text))
    return dest


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _write_wheel(path: Path, files: Iterable[tuple[str, bytes]], dist_info: str) -> None:
    records = []
    # stored, not deflated: a wheel may be either, and these go no further than a folder
    # on this machine (deflating Pillow and psycopg-binary took most of the folder's CPU)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as whl:
        for arcname, data in files:
            whl.writestr(arcname, data)
            records.append(_record_line(arcname, data))
        records.append(f"{dist_info}/RECORD,,")
        whl.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")


def _wheel_text(tag: str, purelib: bool = True) -> bytes:
    return (f"Wheel-Version: 1.0\nGenerator: shutbox-hw tests\n"
            f"Root-Is-Purelib: {'true' if purelib else 'false'}\nTag: {tag}\n").encode()


def project_wheel(checkout: Path, dest: Path) -> Path:
    """The checkout as a py3-none-any wheel."""
    project = tomllib.loads((checkout / "pyproject.toml").read_text())["project"]
    name, version = project["name"], project["version"]
    dist = f"{name.replace('-', '_')}-{version}"
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
            f"Requires-Python: {project['requires-python']}"]
    meta += [f"Requires-Dist: {r}" for r in project["dependencies"]]
    for extra, reqs in project.get("optional-dependencies", {}).items():
        meta.append(f"Provides-Extra: {extra}")
        for text in reqs:
            req = Requirement(text)
            marker = f'extra == "{extra}"'
            if req.marker is not None:
                marker = f"({req.marker}) and {marker}"
            req.marker = None
            meta.append(f"Requires-Dist: {req}; {marker}")
    scripts = "".join(f"{k} = {v}\n" for k, v in project.get("scripts", {}).items())
    files: list[tuple[str, bytes]] = []
    for path in sorted((checkout / "shutbox_hw").rglob("*.py")):
        files.append((path.relative_to(checkout).as_posix(), path.read_bytes()))
    for path in sorted((checkout / "firmware" / "dice").glob("*.py")):
        files.append((f"shutbox_hw/dice_firmware/{path.name}", path.read_bytes()))
    files += [(f"{dist}.dist-info/METADATA", ("\n".join(meta) + "\n").encode()),
              (f"{dist}.dist-info/WHEEL", _wheel_text("py3-none-any")),
              (f"{dist}.dist-info/entry_points.txt", f"[console_scripts]\n{scripts}".encode())]
    out = dest / f"{dist}-py3-none-any.whl"
    _write_wheel(out, files, f"{dist}.dist-info")
    return out


def installed_wheel(dist: md.Distribution, dest: Path) -> Path:
    """An installed distribution packed again as the wheel it came from."""
    info = dist._path  # type: ignore[attr-defined]   # the .dist-info folder
    site = Path(info).parent
    tags = [line.split(":", 1)[1].strip() for line in
            (Path(info) / "WHEEL").read_text().splitlines() if line.startswith("Tag:")]
    files = []
    for entry in dist.files or ():
        rel = entry.as_posix()
        if rel.startswith("../") or "__pycache__" in rel or rel.endswith(".pyc"):
            continue
        if Path(rel).parent.name == Path(info).name and Path(rel).name in NOT_PACKED:
            continue
        files.append((rel, (site / rel).read_bytes()))
    stem = Path(info).name[:-len(".dist-info")]
    # the tags as a wheel's name writes several: py2.py3-none-any
    parts = [list(dict.fromkeys(tag.split("-")[i] for tag in tags)) for i in range(3)]
    out = dest / f"{stem}-{'-'.join('.'.join(p) for p in parts)}.whl"
    _write_wheel(out, files, Path(info).name)
    return out


def stand_in_wheel(name: str, version: str, dest: Path) -> Path:
    dist = f"{name}-{version}"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" \
           f"Summary: stand-in for the installer test (no code)\n"
    out = dest / f"{dist}-py3-none-any.whl"
    _write_wheel(out, [(f"{dist}.dist-info/METADATA", meta.encode()),
                       (f"{dist}.dist-info/WHEEL", _wheel_text("py3-none-any"))],
                 f"{dist}.dist-info")
    return out


def make_wheel_folder(checkout: Path, dest: Path, target_version: str,
                      extras: tuple[str, ...] = ("pi",)) -> str | None:
    """Fill ``dest`` (the project, its dependencies and those of ``extras``); None when
    done, else why it cannot be done here."""
    here = "{}.{}".format(*sys.version_info[:2])
    if here != target_version:
        return (f"the installer's Python is {target_version} and the tests run on {here}: "
                "the installed dependencies cannot be packed for it")
    project = tomllib.loads((checkout / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(r) for r in project["dependencies"]]
    for extra in extras:
        wanted += [Requirement(r) for r in project["optional-dependencies"][extra]]
    installed = {_normal(d.metadata["Name"]): d for d in md.distributions()}
    done: set[str] = set()
    while wanted:
        req = wanted.pop()
        key = _normal(req.name)
        if key in done or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue
        done.add(key)
        dist = installed.get(key)
        if dist is None:
            if key == "lgpio":
                stand_in_wheel("lgpio", "0.2.2.0", dest)
                continue
            return f"{req.name} is not installed in this Python, and there is no network to use"
        if not req.specifier.contains(dist.version, prereleases=True):
            return f"{req.name} {dist.version} is installed here, the project wants {req}"
        installed_wheel(dist, dest)
        for text in dist.requires or ():
            # its own extras' requirements only when asked for (psycopg[binary])
            sub = Requirement(text)
            if sub.marker is not None and any(sub.marker.evaluate({"extra": e})
                                              for e in req.extras):
                sub.marker = None
            wanted.append(sub)
    project_wheel(checkout, dest)
    return None
