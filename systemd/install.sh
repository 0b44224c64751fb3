#!/usr/bin/env bash
# Installs (or upgrades, or removes) shutbox-hw on a Raspberry Pi from this
# checkout, as root: sudo systemd/install.sh [options]. See --help and
# systemd/README.md for what it does and why.
set -euo pipefail
umask 022    # the venv, config and docs must be readable by the service's user

usage() {
    cat <<'EOF'
usage: sudo systemd/install.sh [options]

Installs shutbox-hw from this checkout on Raspberry Pi OS (Bookworm or
Trixie, 32- or 64-bit) and starts it; run again to upgrade in place (the
config in /etc/shutbox-hw and the games in /var/lib/shutbox-hw are kept).

options:
  --build NAME             the reference config for a new /etc/shutbox-hw/shutbox.toml:
                           gpio-9 (default) or mcp23017-12 (see hardware/)
  --wheels DIR             install from a folder of wheels only, no index
                           (pip --no-index --find-links DIR)
  --skip-system-packages   no apt-get: python3-venv, python3-lgpio and i2c-tools
                           must already be there
  --web                    also the web pages: the unit shutbox-hw-web (its own user,
                           read-only access to the database) and the web extra
  --mqtt                   let the box's unit reach the network for [network] mqtt,
                           and install the mqtt extra
  --uninstall              stop and remove the service, unit and venv; keep the
                           config and the database
  --purge                  with --uninstall: also remove /etc/shutbox-hw,
                           /var/lib/shutbox-hw, /var/cache/shutbox-hw and the user
  --root DIR               act on a scratch tree DIR (DIR/etc, DIR/opt, DIR/boot)
                           and only print, prefixed "would run:", the commands
                           that would touch the running system
  -h, --help               this text
EOF
}

die() { echo "install.sh: $*" >&2; exit 2; }
say() { echo "install.sh: $*"; }

ROOT="" WHEELS="" BUILD="gpio-9" SKIP_APT=0 UNINSTALL=0 PURGE=0 WEB=0 MQTT=0
while (($#)); do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --root|--wheels|--build)
            (($# >= 2)) && [[ -n $2 ]] || die "$1 needs a value"
            case $1 in --root) ROOT=$2 ;; --wheels) WHEELS=$2 ;; --build) BUILD=$2 ;; esac
            shift ;;
        --root=*) ROOT=${1#*=} ;;
        --wheels=*) WHEELS=${1#*=} ;;
        --build=*) BUILD=${1#*=} ;;
        --skip-system-packages) SKIP_APT=1 ;;
        --web) WEB=1 ;;
        --mqtt) MQTT=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --purge) PURGE=1 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
((PURGE)) && ! ((UNINSTALL)) && die "--purge goes with --uninstall"

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -f $SRC/pyproject.toml && -d $SRC/shutbox_hw && -f $SRC/systemd/shutbox-hw.service ]] \
    && grep -q '^name = "shutbox-hw"' "$SRC/pyproject.toml" \
    || die "run it from a shutbox-hw checkout: $SRC has no pyproject.toml, shutbox_hw/ and systemd/"
[[ -f $SRC/hardware/$BUILD/shutbox.toml ]] \
    || die "--build: no reference build '$BUILD' (one of: $(cd "$SRC/hardware" && ls -d */ | tr -d / | tr '\n' ' '))"
if [[ -n $ROOT ]]; then
    mkdir -p "$ROOT" 2>/dev/null && [[ -w $ROOT ]] || die "--root: cannot write to $ROOT"
    ROOT=$(cd "$ROOT" && pwd)
    [[ $ROOT != / ]] || die "--root: give a scratch directory, not /"
elif ((EUID != 0)); then
    die "must run as root: sudo $0"
fi
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$SRC/pyproject.toml")
BUILT=""
if [[ -n $WHEELS ]]; then
    [[ -d $WHEELS ]] || die "--wheels: no directory $WHEELS"
    WHEELS=$(cd "$WHEELS" && pwd)
    # a wheel of this very version is installed as is; otherwise pip builds
    # the checkout and needs setuptools among the wheels
    BUILT=$(ls "$WHEELS"/shutbox_hw-"$VERSION"-*.whl 2>/dev/null | head -1 || true)
    [[ -n $BUILT ]] || ls "$WHEELS"/setuptools-*.whl >/dev/null 2>&1 \
        || die "--wheels: $WHEELS has neither shutbox_hw-$VERSION-*.whl nor a setuptools wheel to build it with"
fi

NAME=shutbox-hw
OPT=$ROOT/opt/$NAME
VENV=$OPT/.venv
ETC=$ROOT/etc/$NAME
CONFIG=$ETC/shutbox.toml
UNIT=$ROOT/etc/systemd/system/$NAME.service
UNIT_WEB=$ROOT/etc/systemd/system/$NAME-web.service
MODULES=$ROOT/etc/modules-load.d/$NAME.conf
PYTHON=/usr/bin/python3
[[ -x $PYTHON ]] || PYTHON=$(command -v python3) || die "no python3 (apt-get install python3)"

# A command that changes the running system: run it, or with --root print it.
system() {
    if [[ -n $ROOT ]]; then
        echo "would run: $*"
    else
        "$@"
    fi
}

# --- uninstall ---------------------------------------------------------------
if ((UNINSTALL)); then
    if [[ -n $ROOT || -f $UNIT ]]; then
        system systemctl disable --now "$NAME.service" || true
    fi
    # the web unit and the drop-ins of --web / --mqtt
    if [[ -n $ROOT || -f $UNIT_WEB ]]; then
        system systemctl disable --now "$NAME-web.service" || true
    fi
    rm -rf "$UNIT_WEB" "$UNIT.d"
    rm -f "$UNIT"
    system systemctl daemon-reload
    rm -rf "$OPT"
    if ((PURGE)); then
        rm -rf "$ETC" "$ROOT/var/lib/$NAME" "$ROOT/var/cache/$NAME" "$MODULES"
        if [[ -n $ROOT ]] || id shutbox >/dev/null 2>&1; then
            system userdel shutbox || true
        fi
        if [[ -n $ROOT ]] || id shutbox-web >/dev/null 2>&1; then
            system userdel shutbox-web || true
        fi
        say "removed the service, $OPT, $ETC and the database; I2C stays enabled in config.txt"
    else
        say "removed the service and $OPT; kept $ETC and /var/lib/$NAME (--purge removes them)"
    fi
    exit 0
fi

# --- system packages ---------------------------------------------------------
# python3-lgpio: the lgpio that gpiozero drives the pins with, built for this
# OS's Python (PyPI's wheels stop at Python 3.12; Trixie has 3.13);
# sqlite3 for backups of the database; i2c-tools for i2cdetect.
PACKAGES=(python3-venv python3-lgpio i2c-tools sqlite3)
if ((SKIP_APT)); then
    say "skipping system packages (--skip-system-packages)"
else
    system apt-get update || say "apt-get update failed; trying the packages already known"
    system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        "${PACKAGES[@]}" || die "apt-get could not install ${PACKAGES[*]} (above)"
fi

# --- I2C at 400 kHz, i2c-dev at boot -------------------------------------------
if [[ -n $ROOT ]]; then
    BOOTCFG=$ROOT/boot/firmware/config.txt
    [[ ! -f $BOOTCFG && -f $ROOT/boot/config.txt ]] && BOOTCFG=$ROOT/boot/config.txt
else
    BOOTCFG=/boot/firmware/config.txt                 # Bookworm and later
    [[ ! -f $BOOTCFG && -f /boot/config.txt ]] && BOOTCFG=/boot/config.txt
fi
if command -v raspi-config >/dev/null 2>&1; then
    system raspi-config nonint do_i2c 0               # 0 means "enable"
fi
# active (not commented) setting lines, whatever section they are in
has_line() { grep -Eq "^[[:space:]]*$1[[:space:]]*$" "$BOOTCFG"; }
if [[ -n $ROOT || -d $(dirname "$BOOTCFG") ]]; then
    mkdir -p "$(dirname "$BOOTCFG")" && touch "$BOOTCFG"
    sed -i -E 's/^([[:space:]]*dtparam=i2c_arm)=off[[:space:]]*$/\1=on/' "$BOOTCFG"
    add=()
    has_line 'dtparam=i2c_arm=on' || add+=(dtparam=i2c_arm=on)
    # a speed chosen by hand (a long cable may want less) is kept
    if ! has_line 'dtparam=i2c_arm_baudrate=[0-9]+'; then
        add+=(dtparam=i2c_arm_baudrate=400000)
    elif ! has_line 'dtparam=i2c_arm_baudrate=400000'; then
        say "keeping the I2C speed set in $BOOTCFG: $(grep -E '^[[:space:]]*dtparam=i2c_arm_baudrate=' "$BOOTCFG" | tail -1)"
    fi
    if ((${#add[@]})); then
        # [all]: a line at the end of the file may otherwise land in a [pi4]-like section
        printf '\n# shutbox-hw: I2C bus 1 on, at 400 kHz\n[all]\n' >>"$BOOTCFG"
        printf '%s\n' "${add[@]}" >>"$BOOTCFG"
        say "I2C enabled at 400 kHz in $BOOTCFG (takes effect at the next boot)"
    fi
else
    say "no /boot/firmware/config.txt (not a Raspberry Pi?): leaving the I2C settings alone"
fi
mkdir -p "$(dirname "$MODULES")"
echo "i2c-dev" >"$MODULES"                            # /dev/i2c-1 needs it

# --- groups and user -----------------------------------------------------------
for group in gpio i2c; do
    if [[ -n $ROOT ]] || ! getent group "$group" >/dev/null; then
        system groupadd --system "$group"
    fi
done
if [[ -z $ROOT ]] && id shutbox >/dev/null 2>&1; then
    system usermod --append --groups gpio,i2c shutbox
else
    system useradd --system --user-group --groups gpio,i2c \
        --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin shutbox
fi

# --- the venv and the package ------------------------------------------------
# --system-site-packages: the venv sees python3-lgpio (and its egg-info, so pip
# counts lgpio as installed); a venv left by another Python is made anew.
PYVER='import sys; print("%d.%d" % sys.version_info[:2])'
if [[ -x $VENV/bin/python ]] && "$VENV/bin/python" -c '' 2>/dev/null \
        && grep -q '^include-system-site-packages = true' "$VENV/pyvenv.cfg" \
        && [[ "$("$VENV/bin/python" -c "$PYVER")" == "$("$PYTHON" -c "$PYVER")" ]]; then
    say "upgrading $VENV"
else
    rm -rf "$VENV"
    mkdir -p "$OPT"
    "$PYTHON" -m venv --system-site-packages "$VENV" \
        || die "cannot make a venv with $PYTHON (apt-get install python3-venv)"
fi
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --upgrade
     --upgrade-strategy only-if-needed --only-binary lgpio)
# pip builds in the source tree: build from a copy, so that root leaves no
# files behind in the (user's) checkout
BUILD_DIR=$(mktemp -d)
trap 'rm -rf "$BUILD_DIR"' EXIT
cp -r "$SRC/pyproject.toml" "$SRC/setup.py" "$SRC/README.md" "$SRC/shutbox_hw" "$SRC/firmware" "$BUILD_DIR/"
find "$BUILD_DIR" -name __pycache__ -prune -exec rm -rf {} +
TARGET=${BUILT:-$BUILD_DIR}
[[ -z $WHEELS ]] || PIP+=(--no-index --find-links "$WHEELS")
EXTRA="[pi]"
if "$VENV/bin/python" -c 'import lgpio' 2>/dev/null \
        && ! "$VENV/bin/python" -c 'import importlib.metadata as m; m.version("lgpio")' 2>/dev/null; then
    # the system's lgpio imports but pip cannot see it installed: the pi extra
    # (lgpio) would make pip fetch or build another one, so leave it out
    EXTRA=""
    say "lgpio comes from the system without metadata pip can see: installing without the pi extra"
fi
if [[ $TARGET == *.whl ]]; then SPEC="shutbox-hw$EXTRA @ file://$TARGET"; else SPEC="$TARGET$EXTRA"; fi
"${PIP[@]}" "$SPEC" \
    || die "pip could not install shutbox-hw$EXTRA (above; on a Pi lgpio comes from apt's python3-lgpio)"
SHUTBOX=$VENV/bin/shutbox-hw
say "installed $("$VENV/bin/python" -c 'import importlib.metadata as m; print("shutbox-hw", m.version("shutbox-hw"))')"

# --- config, unit, documents -------------------------------------------------
mkdir -p "$ETC"
if [[ -e $CONFIG ]]; then
    say "keeping $CONFIG"
else
    install -m 0644 "$SRC/hardware/$BUILD/shutbox.toml" "$CONFIG"
    say "wrote $CONFIG from hardware/$BUILD"
fi
"$SHUTBOX" check-config "$CONFIG" || die "$CONFIG has problems (above): fix it and run again"
# the documents the unit's Documentation= names, and the wiring documents
rm -rf "$OPT/systemd" "$OPT/hardware"
install -m 0644 -D "$SRC/README.md" "$OPT/README.md"
install -m 0644 -D "$SRC/systemd/README.md" "$OPT/systemd/README.md"
cp -r "$SRC/hardware" "$OPT/hardware"
mkdir -p "$(dirname "$UNIT")"
install -m 0644 "$SRC/systemd/shutbox-hw.service" "$UNIT"

# --- on the pub's network: --web (the web unit) and --mqtt (the box's unit reaches the broker)
if ((WEB || MQTT)); then
    EXTRAS=$( ((WEB && MQTT)) && echo web,mqtt || { ((WEB)) && echo web || echo mqtt; } )
    if [[ $TARGET == *.whl ]]; then NETSPEC="shutbox-hw[$EXTRAS] @ file://$TARGET"
    else NETSPEC="$TARGET[$EXTRAS]"; fi
    "${PIP[@]}" "$NETSPEC" || die "pip could not install the $EXTRAS extra (above)"
    mkdir -p "$UNIT.d"
    if ((MQTT)); then
        install -m 0644 "$SRC/systemd/shutbox-hw-mqtt.conf" "$UNIT.d/mqtt.conf"
        say "the box's unit may reach the network now (for [network] mqtt)"
    fi
    if ((WEB)); then
        if [[ -n $ROOT ]] || ! id shutbox-web >/dev/null 2>&1; then
            system useradd --system --user-group --groups shutbox --home-dir /nonexistent \
                --no-create-home --shell /usr/sbin/nologin shutbox-web
        fi
        # the database group-readable (new files by the drop-in's UMask, old ones here)
        install -m 0644 "$SRC/systemd/shutbox-hw-web.conf" "$UNIT.d/web.conf"
        for f in "$ROOT/var/lib/$NAME"/shutbox.db*; do
            if [[ -e $f ]]; then chmod g+r "$f"; fi
        done
        if [[ -d $ROOT/var/lib/$NAME ]]; then chmod 0750 "$ROOT/var/lib/$NAME"; fi
        install -m 0644 "$SRC/systemd/shutbox-hw-web.service" "$UNIT_WEB"
        system systemctl daemon-reload
        system systemctl enable "$NAME-web.service"
        system systemctl restart "$NAME-web.service" \
            || say "the web unit did not start: journalctl -u $NAME-web -n 50"
    fi
fi

# --- start ---------------------------------------------------------------------
system systemctl daemon-reload
system systemctl enable "$NAME.service"
if ! system systemctl restart "$NAME.service"; then
    echo "install.sh: installed, but the service did not start: journalctl -u $NAME -n 50" >&2
    exit 1
fi
if [[ -n $ROOT ]]; then
    say "installed into $ROOT"
else
    say "running; follow it with: journalctl -u $NAME -f"
fi
