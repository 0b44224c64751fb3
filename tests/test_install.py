"""systemd/install.sh on a scratch tree (--root): the files it writes, what it
keeps when run again, the commands it would run, and how it refuses mistakes."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import CHECKOUT, INSTALLER, SHIPPED_CONFIG_TXT, run_installer
from other_user import setpriv
from wheel_folder import copy_tree

PREFIX = "would run: "


def would_run(out: str) -> list[str]:
    return [line[len(PREFIX):] for line in out.splitlines() if line.startswith(PREFIX)]


def test_the_tree_holds_unit_config_modules_and_docs(installed):
    root = installed.root
    assert (root / "etc/systemd/system/shutbox-hw.service").read_text() == \
        (CHECKOUT / "systemd/shutbox-hw.service").read_text()
    assert (root / "etc/modules-load.d/shutbox-hw.conf").read_text().split() == ["i2c-dev"]
    assert (root / "opt/shutbox-hw/README.md").read_text() == (CHECKOUT / "README.md").read_text()
    assert (root / "opt/shutbox-hw/hardware/gpio-9/README.md").is_file()
    assert (root / "opt/shutbox-hw/docs/build/hardware.md").read_text() == \
        (CHECKOUT / "docs/build/hardware.md").read_text()   # the pages the README links
    venv_cfg = (root / "opt/shutbox-hw/.venv/pyvenv.cfg").read_text()
    assert "include-system-site-packages = true" in venv_cfg


def test_config_txt_gets_i2c_at_400khz_once_and_keeps_the_rest(installed):
    text = (installed.root / "boot/firmware/config.txt").read_text()
    lines = [line.strip() for line in text.splitlines()]
    assert lines.count("dtparam=i2c_arm=on") == 1
    assert lines.count("dtparam=i2c_arm_baudrate=400000") == 1
    assert text.startswith(SHIPPED_CONFIG_TXT)      # nothing of the Pi's own removed
    # the lines are in force on every board, not inside the [pi4] section
    assert lines[lines.index("dtparam=i2c_arm=on") - 1] == "[all]"


def test_a_dice_table_gets_its_i2c_gpio_bus_in_config_txt_once(installed):
    """The edited config added an empty [hardware.dice] (the reference wiring:
    bus 4 on BCM 10/11); the second run wrote its overlay, the first had none."""
    lines = [line.strip() for line in
             (installed.root / "boot/firmware/config.txt").read_text().splitlines()]
    overlay = "dtoverlay=i2c-gpio,bus=4,i2c_gpio_sda=10,i2c_gpio_scl=11"
    assert lines.count(overlay) == 1 and lines[lines.index(overlay) - 1] == "[all]"
    assert "i2c-gpio" not in installed.first.stdout and overlay in installed.second.stdout


def test_a_second_run_keeps_the_edited_config(installed):
    config = installed.root / "etc/shutbox-hw/shutbox.toml"
    assert config.read_text() == installed.edited
    assert "keeping" in installed.second.stdout
    # the first run chose the default build, gpio-9; --build does not overwrite
    assert 'backend = "gpio"' in installed.edited


def test_the_installed_command_works(installed):
    exe = installed.root / "opt/shutbox-hw/.venv/bin/shutbox-hw"
    out = subprocess.run([str(exe), "rules"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "klappenspiel" in out.stdout
    check = subprocess.run([str(exe), "check-config",
                            str(installed.root / "etc/shutbox-hw/shutbox.toml")],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr


def test_it_prints_the_system_commands_instead_of_running_them(installed):
    first = would_run(installed.first.stdout)
    assert "apt-get update" in first
    install = next(c for c in first if "apt-get install" in c)
    # the archive is a Raspberry Pi OS Bookworm's (tests/fake_apt_cache): what it has in a
    # version the pins accept comes from it; luma.oled 3.10 is older than the >=3.13 pinned
    for package in ("python3-venv", "i2c-tools", "sqlite3", "python3-lgpio", "python3-pil",
                    "python3-smbus2", "python3-gpiozero"):
        assert package in install.split()
    assert "python3-luma.oled" not in install.split()
    assert "groupadd --system gpio" in first and "groupadd --system i2c" in first
    useradd = next(c for c in first if c.startswith("useradd"))
    assert "--groups gpio,i2c" in useradd and useradd.split()[-1] == "shutbox"
    assert first[-3:] == ["systemctl daemon-reload", "systemctl enable shutbox-hw.service",
                          "systemctl restart shutbox-hw.service"]
    second = would_run(installed.second.stdout)
    assert not any("apt-get" in c for c in second)     # --skip-system-packages


def test_it_installed_from_the_wheels_alone(installed):
    # pip ran with --no-index: every distribution in the venv came from the folder
    site = next((installed.root / "opt/shutbox-hw/.venv/lib").glob("python3*/site-packages"))
    names = {p.name.split("-")[0].lower().replace("_", "-")
             for p in site.glob("*.dist-info")}
    offered = {p.name.split("-")[0].lower().replace("_", "-")
               for p in installed.wheels.glob("*.whl")}
    assert {"shutbox-hw", "gpiozero", "smbus2", "luma-oled", "pillow"} <= names
    assert names - {"shutbox-hw", "pip", "setuptools"} <= offered


def _copy(installed, tmp_path):
    root = tmp_path / "root"
    copy_tree(installed.root, root)
    db = root / "var/lib/shutbox-hw/shutbox.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"games")
    return root, db


def test_uninstall_keeps_config_and_database_and_purge_removes_them(installed, tmp_path):
    root, db = _copy(installed, tmp_path)
    out = run_installer("--root", root, "--uninstall")
    assert out.returncode == 0, out.stderr
    assert "systemctl disable --now shutbox-hw.service" in would_run(out.stdout)
    assert not (root / "etc/systemd/system/shutbox-hw.service").exists()
    assert not (root / "opt/shutbox-hw").exists()
    assert db.read_bytes() == b"games"
    assert (root / "etc/shutbox-hw/shutbox.toml").read_text() == installed.edited

    out = run_installer("--root", root, "--uninstall", "--purge")
    assert out.returncode == 0, out.stderr
    assert not db.exists() and not (root / "etc/shutbox-hw").exists()
    assert not (root / "etc/modules-load.d/shutbox-hw.conf").exists()
    ran = would_run(out.stdout)
    # the web's user (a member of the group shutbox) before the box's, then the group:
    # userdel keeps a group with a member left, and the next install's useradd fails on it
    assert ran.index("userdel shutbox-web") < ran.index("userdel shutbox") \
        < ran.index("groupdel shutbox")
    assert "dtparam=i2c_arm=on" in (root / "boot/firmware/config.txt").read_text()


def test_purge_empties_a_record_folder_that_is_a_mount_point(installed, tmp_path):
    # a builder whose root forgets mounts a partition at /var/lib/shutbox-hw: rm cannot
    # remove a mount point, and the purge stopped there (set -e) before removing the users
    if shutil.which("unshare") is None or subprocess.run(
            ["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs a mount namespace of its own (unshare -m, as root)")
    root, db = _copy(installed, tmp_path)
    lib = db.parent
    script = (f'mount -t tmpfs card "{lib}" && echo games > "{lib}/shutbox.db"'
              f' && mkdir "{lib}/backups"'
              f' && bash "{INSTALLER}" --root "{root}" --uninstall --purge;'
              f' echo "rc=$?"; ls -A "{lib}"; mountpoint -q "{lib}" && echo still-mounted')
    out = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                         capture_output=True, text=True, timeout=600)
    lines = out.stdout.splitlines()
    assert "rc=0" in lines, out.stdout + out.stderr
    assert lines[lines.index("rc=0") + 1:] == ["still-mounted"], out.stdout
    assert f"emptied {lib}" in out.stdout
    ran = would_run(out.stdout)
    assert "userdel shutbox" in ran and "groupdel shutbox" in ran
    assert not (root / "etc/shutbox-hw").exists()


def _one_line_error(out: subprocess.CompletedProcess, words: str) -> None:
    assert out.returncode == 2, out
    assert out.stderr.count("\n") == 1 and words in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def test_mistakes_are_one_line(tmp_path):
    _one_line_error(run_installer("--frobnicate"), "unknown option --frobnicate")
    _one_line_error(run_installer("--root"), "--root needs a value")
    _one_line_error(run_installer("--root", tmp_path, "--build", "gpio-99"), "gpio-9")
    _one_line_error(run_installer("--root", tmp_path, "--purge"), "--uninstall")
    _one_line_error(run_installer("--root", tmp_path, "--wheels", tmp_path / "none"),
                    "--wheels: no directory")
    empty = tmp_path / "empty"
    empty.mkdir()
    _one_line_error(run_installer("--root", tmp_path / "r", "--wheels", empty), "setuptools")
    assert not (tmp_path / "r" / "opt").exists()        # refused before doing anything


def test_outside_a_checkout_it_refuses(tmp_path):
    lone = tmp_path / "systemd" / "install.sh"
    lone.parent.mkdir()
    shutil.copy(INSTALLER, lone)
    out = subprocess.run(["bash", str(lone), "--root", str(tmp_path / "r")],
                         capture_output=True, text=True)
    _one_line_error(out, "checkout")


@pytest.mark.other_user
def test_without_root_it_refuses(public_copy):
    # another user may not reach the checkout (a private folder): a copy of what makes a
    # checkout for the installer is where it can
    for part in ("pyproject.toml", "shutbox_hw", "systemd", "hardware"):
        public_copy.add(CHECKOUT / part, f"checkout/{part}")
    installer = public_copy.root / "checkout" / "systemd" / INSTALLER.name
    out = subprocess.run([*setpriv(), "bash", str(installer)], capture_output=True, text=True,
                         cwd="/")
    _one_line_error(out, "must run as root")


def test_help_names_every_option():
    out = run_installer("--help")
    assert out.returncode == 0
    for option in ("--root", "--wheels", "--skip-system-packages", "--build",
                   "--uninstall", "--purge"):
        assert option in out.stdout


def test_it_says_what_comes_from_debian_and_what_from_pypi(installed):
    said = installed.first.stdout
    assert "install.sh: from Debian: python3-gpiozero 2.0.1 (gpiozero>=2.0.1), " \
           "python3-smbus2 0.4.2 (smbus2>=0.4), python3-pil 9.4.0 (Pillow<14), " \
           "python3-segno 1.4.1 (segno>=1.4), python3-lgpio 0.2.2 (lgpio>=0.2)\n" in said
    assert "install.sh: from PyPI's wheels: luma.oled (Debian's python3-luma.oled is " \
           "3.10.0, the box needs luma.oled>=3.13), and what they need\n" in said
    # pip's report: everything came as a wheel
    assert "install.sh: pip built nothing from source; wheels installed: " in said


def test_on_plain_debian_pillow_is_debians_and_lgpio_a_wheel(installed, tmp_path):
    """Debian bookworm's own archive (no python3-lgpio, gpiozero 1.6.2): Pillow and smbus2
    from apt, lgpio and gpiozero from the wheels."""
    bookworm = ("python3-pil=9.4.0-1.1+deb12u1 python3-smbus2=0.4.2-1 "
                "python3-luma.oled=3.10.0-1 python3-gpiozero=1.6.2-1+b1")
    out = run_installer("--root", tmp_path / "r", "--wheels", installed.wheels, apt=bookworm)
    assert out.returncode == 0, out.stderr
    site = next((tmp_path / "r/opt/shutbox-hw/.venv/lib").glob("python3*/site-packages"))
    assert list(site.glob("lgpio-*.dist-info")) and list(site.glob("gpiozero-*.dist-info"))
    install = next(c for c in would_run(out.stdout) if "apt-get install" in c).split()
    assert {"python3-pil", "python3-smbus2"} <= set(install)
    assert not {"python3-lgpio", "python3-gpiozero", "python3-luma.oled"} & set(install)
    assert "lgpio (no python3-lgpio here)" in out.stdout
    assert "gpiozero (Debian's python3-gpiozero is 1.6.2, the box needs gpiozero>=2.0.1)" \
        in out.stdout


def test_a_missing_wheel_fails_in_one_line_naming_it(installed, tmp_path):
    """No wheel of colorzero (gpiozero's dependency) and no index: pip may not build it
    from source, so the installer stops, in one line that names it, and leaves no venv."""
    wheels = tmp_path / "wheels"
    copy_tree(installed.wheels, wheels)
    for whl in wheels.glob("colorzero-*.whl"):
        whl.unlink()
    root = tmp_path / "root"
    out = run_installer("--root", root, "--wheels", wheels, "--skip-system-packages")
    _one_line_error(out, "no wheel of colorzero for this machine")
    assert f"in {wheels}" in out.stderr and "builds nothing from source" in out.stderr
    assert not any((root / "opt/shutbox-hw/versions").iterdir())
