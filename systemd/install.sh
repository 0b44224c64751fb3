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
Trixie, 32- or 64-bit) and starts it; run again to upgrade (the config in
/etc/shutbox-hw and the games in /var/lib/shutbox-hw are kept). Each version
goes into a venv of its own beside the running one; it must accept the
config and the database before it is switched to, and must report ready
after the restart, or the running version is put back (exit status 1).

options:
  --build NAME             the reference config for a new /etc/shutbox-hw/shutbox.toml:
                           gpio-9 (default) or mcp23017-12 (see hardware/)
  --wheels DIR             install from a folder of wheels only, no index
                           (pip --no-index --find-links DIR)
  --skip-system-packages   no apt-get: python3-venv, python3-lgpio and i2c-tools
                           must already be there
  --rollback               switch back to the version installed before this one
                           (kept in /opt/shutbox-hw/versions) and restart it
  --ready-timeout SECONDS  how long a restarted version may take to report ready
                           (default 90), and stay up after it (10 more seconds)
  --web                    also the web pages: the unit shutbox-hw-web (its own user,
                           read-only access to the database) and the web extra
  --mqtt                   let the box's unit reach the network for [network] mqtt,
                           and install the mqtt extra
  --uninstall              stop and remove the service, unit and venvs; keep the
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

ROOT="" WHEELS="" BUILD="gpio-9" SKIP_APT=0 UNINSTALL=0 PURGE=0 ROLLBACK=0 READY_TIMEOUT=90 WEB=0 MQTT=0
# how long a version must stay up after it reported ready (the tests set 0)
SETTLE=${SHUTBOX_INSTALL_SETTLE:-10}
while (($#)); do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --root|--wheels|--build|--ready-timeout)
            (($# >= 2)) && [[ -n $2 ]] || die "$1 needs a value"
            case $1 in --root) ROOT=$2 ;; --wheels) WHEELS=$2 ;; --build) BUILD=$2 ;;
                       --ready-timeout) READY_TIMEOUT=$2 ;; esac
            shift ;;
        --root=*) ROOT=${1#*=} ;;
        --wheels=*) WHEELS=${1#*=} ;;
        --build=*) BUILD=${1#*=} ;;
        --ready-timeout=*) READY_TIMEOUT=${1#*=} ;;
        --skip-system-packages) SKIP_APT=1 ;;
        --rollback) ROLLBACK=1 ;;
        --web) WEB=1 ;;
        --mqtt) MQTT=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --purge) PURGE=1 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
((PURGE)) && ! ((UNINSTALL)) && die "--purge goes with --uninstall"
((ROLLBACK && UNINSTALL)) && die "--rollback and --uninstall do not go together"
[[ $READY_TIMEOUT =~ ^[0-9]+$ ]] && ((READY_TIMEOUT >= 1 && READY_TIMEOUT <= 3600)) \
    || die "--ready-timeout: '$READY_TIMEOUT' is not a number of seconds 1..3600"
[[ $SETTLE =~ ^[0-9]+$ ]] || die "SHUTBOX_INSTALL_SETTLE: '$SETTLE' is not a number of seconds"

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
# .venv is a symlink to the version in use, versions/<version>-<time>; previous points
# to the one before it (for --rollback). The unit runs /opt/shutbox-hw/.venv/bin/shutbox-hw.
VENV=$OPT/.venv
VERSIONS=$OPT/versions
PREVIOUS=$OPT/previous
STATE=$ROOT/var/lib/$NAME
# the unit can write only its state directory (ProtectSystem=strict): the database is there
DB=$STATE/shutbox.db
if [[ -n $ROOT ]]; then
    BOOTCFG=$ROOT/boot/firmware/config.txt
    [[ ! -f $BOOTCFG && -f $ROOT/boot/config.txt ]] && BOOTCFG=$ROOT/boot/config.txt
else
    BOOTCFG=/boot/firmware/config.txt                 # Bookworm and later
    [[ ! -f $BOOTCFG && -f /boot/config.txt ]] && BOOTCFG=/boot/config.txt
fi
ETC=$ROOT/etc/$NAME
CONFIG=$ETC/shutbox.toml
UNIT=$ROOT/etc/systemd/system/$NAME.service
UNIT_WEB=$ROOT/etc/systemd/system/$NAME-web.service
MODULES=$ROOT/etc/modules-load.d/$NAME.conf
PYTHON=/usr/bin/python3
[[ -x $PYTHON ]] || PYTHON=$(command -v python3) || die "no python3 (apt-get install python3)"

# Whether systemd runs this system (sd_booted: /run/systemd/system). It does not in a
# chroot, where an SD card's image is prepared (or the arm rehearsal installs): there
# units are enabled offline (systemctl --root=/) and nothing is reloaded, started or
# stopped; the box starts at the next boot.
SYSTEMD_UP=1
[[ -n $ROOT || -d /run/systemd/system ]] || SYSTEMD_UP=0
systemctl_here() {
    if ((SYSTEMD_UP)); then systemctl "$@"; return; fi
    local args=() a
    case $1 in
        enable|disable)
            for a in "$@"; do [[ $a == --now ]] || args+=("$a"); done
            systemctl --root=/ "${args[@]}" ;;
        *) return 0 ;;
    esac
}

# A command that changes the running system: run it, or with --root print it.
system() {
    if [[ -n $ROOT ]]; then
        echo "would run: $*"
    elif [[ $1 == systemctl ]]; then
        shift; systemctl_here "$@"
    else
        "$@"
    fi
}

# systemctl: with --root printed, and answered by $SHUTBOX_SYSTEMCTL if the tests give
# one (a stand-in playing a unit that does or does not report ready)
ctl() {
    if [[ -z $ROOT ]]; then
        systemctl_here "$@"
    else
        echo "would run: systemctl $*"
        [[ -z ${SHUTBOX_SYSTEMCTL:-} ]] || "$SHUTBOX_SYSTEMCTL" "$@"
    fi
}
# whether the service can be watched (a real system, or the tests' stand-in)
watched() { [[ -z $ROOT || -n ${SHUTBOX_SYSTEMCTL:-} ]]; }
# a question to systemctl (changes nothing, so never printed)
ask() { if [[ -z $ROOT ]]; then systemctl "$@"; else "$SHUTBOX_SYSTEMCTL" "$@"; fi; }

# a command as the service's user: it leaves no root-owned file beside the database
as_service() {
    if [[ -z $ROOT ]] && id shutbox >/dev/null 2>&1; then
        runuser -u shutbox -- "$@"
    else
        "$@"
    fi
}

# the version directory (relative to $OPT) a link points to; empty if none
target() { if [[ -L $1 ]]; then readlink "$1"; fi; }

# point the link $1 at $2 (relative to $OPT) with one rename: there is never a moment
# without it, and a power cut leaves either the old or the new one
relink() { ln -sfn "$2" "$1.new" && mv -T "$1.new" "$1"; }

# the version in $OPT/$1 checks the config, the kernel's pins (config.txt) and the
# database: what it will meet when it starts. Its problems go to stderr.
accepts() {
    local args=("$CONFIG" --db "$DB")
    [[ ! -f $BOOTCFG ]] || args+=(--boot-config "$BOOTCFG")
    as_service "$OPT/$1/bin/shutbox-hw" check-config "${args[@]}" >/dev/null
}

# restart the service; true once it reported ready (Type=notify: systemctl restart
# returns when READY=1 came, and fails if the daemon exits first) within
# $READY_TIMEOUT s and is still up, not restarted, $SETTLE s later; else REASON says why
started() {
    local before="" after=""
    REASON=""
    if [[ -z $ROOT ]]; then
        timeout "$READY_TIMEOUT" systemctl restart "$NAME.service"
    else
        echo "would run: systemctl restart $NAME.service"
        ! watched || timeout "$READY_TIMEOUT" "$SHUTBOX_SYSTEMCTL" restart "$NAME.service"
    fi || { REASON="it did not report ready within $READY_TIMEOUT s"; return 1; }
    watched || return 0
    # counted from here: a restart asked for by hand sets systemd's count back to 0
    before=$(ask show -p NRestarts --value "$NAME.service" 2>/dev/null || true)
    sleep "$SETTLE"
    after=$(ask show -p NRestarts --value "$NAME.service" 2>/dev/null || true)
    if ! ask is-active --quiet "$NAME.service" || [[ $before != "$after" ]]; then
        REASON="it stopped again within $SETTLE s of reporting ready"
        return 1
    fi
}

# install the unit file kept with the version in $OPT/$1 (the checkout's for a new one)
unit_of() {
    mkdir -p "$(dirname "$UNIT")"
    install -m 0644 "$OPT/$1/$NAME.service" "$UNIT"
    ctl daemon-reload
}

# switch to the version $1 (relative to $OPT): its unit, the link, a restart; false
# (REASON says why) if it does not come up
switch_to() {
    unit_of "$1"
    ctl enable "$NAME.service"
    relink "$VENV" "$1"
    started
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
        # the record's folder may be a mount point of its own (a partition or USB stick
        # mounted there because the root forgets, as docs/operate/storage.md advises):
        # rm cannot remove it and, under set -e, stopped the purge before userdel
        for dir in "$ROOT/var/lib/$NAME" "$ROOT/var/cache/$NAME"; do
            if mountpoint -q "$dir" 2>/dev/null; then
                find "$dir" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
                say "emptied $dir: a mount point of its own, left mounted"
            else
                rm -rf "$dir"
            fi
        done
        rm -rf "$ETC" "$MODULES"
        # shutbox-web first: it is a member of the group shutbox, which userdel keeps
        # while a member is left (a later install then failed: "group shutbox exists")
        if [[ -n $ROOT ]] || id shutbox-web >/dev/null 2>&1; then
            system userdel shutbox-web || true
        fi
        if [[ -n $ROOT ]] || id shutbox >/dev/null 2>&1; then
            system userdel shutbox || true
        fi
        if [[ -n $ROOT ]] || getent group shutbox >/dev/null 2>&1; then
            system groupdel shutbox || true
        fi
        say "removed the service, $OPT, $ETC and the database; I2C stays enabled in config.txt"
    else
        say "removed the service and $OPT; kept $ETC and /var/lib/$NAME (--purge removes them)"
    fi
    exit 0
fi

# --- rollback ------------------------------------------------------------------
if ((ROLLBACK)); then
    CURRENT=$(target "$VENV") BACK=$(target "$PREVIOUS")
    [[ -n $BACK && -x $OPT/$BACK/bin/shutbox-hw ]] \
        || die "no earlier version to roll back to (none kept in $VERSIONS)"
    [[ -n $CURRENT ]] || die "$VENV is not a version link: install this version first"
    if ! accepts "$BACK"; then
        backup=$(ls -t "$STATE"/shutbox.db.before-* 2>/dev/null | head -1 || true)
        die "$BACK refuses the config or the database (above); nothing changed${backup:+ (the database as it was before the last upgrade: $backup)}"
    fi
    say "rolling back from $CURRENT to $BACK"
    if switch_to "$BACK"; then
        relink "$PREVIOUS" "$CURRENT"
        say "running $BACK again; $CURRENT is kept (install.sh --rollback goes back to it)"
        exit 0
    fi
    why=$REASON
    switch_to "$CURRENT" || true
    echo "install.sh: $BACK did not come up: $why; back on $CURRENT${REASON:+ (which did not come up either: $REASON)}" >&2
    exit 1
fi

# --- system packages ---------------------------------------------------------
# python3-venv; sqlite3 for backups of the database; i2c-tools for i2cdetect. And
# each of the box's dependencies whose Debian package (Raspberry Pi OS's archive
# included) this system has in a version the project's pins accept
# (systemd/debian_packages.py): Pillow as python3-pil (PyPI has no 32-bit ARM
# wheel of it), lgpio as Raspberry Pi OS's python3-lgpio (built for the system's
# Python; PyPI's wheels stop at 3.12). The venv sees them (--system-site-packages)
# with their metadata, so pip counts them as installed; PyPI's wheels give the rest.
PACKAGES=(python3-venv i2c-tools sqlite3)
# the extras: pi (lgpio), and with --web / --mqtt theirs, in one pip run
EXTRAS=pi
if ((WEB)); then EXTRAS+=,web; fi
if ((MQTT)); then EXTRAS+=,mqtt; fi
declare -A DEBIAN_HAS=()    # Debian package -> "version" (or "-") for pip's one-line failures
if ((SKIP_APT)); then
    say "skipping system packages (--skip-system-packages)"
else
    system apt-get update || say "apt-get update failed; trying the packages already known"
    FROM_DEBIAN=() TO_PYPI=()
    while IFS=$'\t' read -r where package dist version spec; do
        DEBIAN_HAS[${dist,,}]="$package $version"
        if [[ $where == debian ]]; then
            PACKAGES+=("$package") FROM_DEBIAN+=("$package $version ($spec)")
        elif [[ $version == - ]]; then
            TO_PYPI+=("$dist (no $package here)")
        else
            TO_PYPI+=("$dist (Debian's $package is $version, the box needs $spec)")
        fi
    done < <("$PYTHON" "$SRC/systemd/debian_packages.py" "$SRC/pyproject.toml" "$EXTRAS")
    listed() { local out="" x; for x; do out+="${out:+, }$x"; done; echo "${out:-none}"; }
    say "from Debian: $(listed "${FROM_DEBIAN[@]}")"
    say "from PyPI's wheels: $(listed "${TO_PYPI[@]}"), and what they need"
    system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        "${PACKAGES[@]}" || die "apt-get could not install ${PACKAGES[*]} (above)"
fi

# --- I2C at 400 kHz, i2c-dev at boot -------------------------------------------
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

# --- the new version, beside the running one ---------------------------------
# a venv of its own, made with --system-site-packages (it sees python3-lgpio, and
# its egg-info, so pip counts lgpio as installed), at the path it will run from
STAMP="$VERSION-$(date -u +%Y%m%d-%H%M%S)" ID=""
for n in "" -2 -3 -4 -5 -6 -7 -8 -9; do
    [[ -e $VERSIONS/$STAMP$n ]] || { ID=$STAMP$n; break; }
done
[[ -n $ID ]] || die "$VERSIONS already has $STAMP and its numbered siblings: wait a second"
NEW=versions/$ID
CURRENT=$(target "$VENV")
if [[ -z $CURRENT && -d $VENV && ! -L $VENV ]]; then
    # a box installed before versions were kept: its venv becomes the first kept version
    # (moved in one rename; its programs use the link's path, which stays valid)
    CURRENT=versions/$(cd "$VENV" && { "./bin/python" -c 'import importlib.metadata as m; print(m.version("shutbox-hw"))' 2>/dev/null || echo old; })-before-versions
    mkdir -p "$VERSIONS"
    [[ -f $UNIT ]] && install -m 0644 "$UNIT" "$VENV/$NAME.service"
    mv -T "$VENV" "$OPT/$CURRENT" && relink "$VENV" "$CURRENT"
    say "kept the installed version as $OPT/$CURRENT"
fi
mkdir -p "$VERSIONS"
BUILD_DIR=""
trap 'rm -rf "$BUILD_DIR" "${FAILED:-}"' EXIT
# pip builds in the source tree: build from a copy, so that root leaves no
# files behind in the (user's) checkout (readable: the service's user checks with it)
BUILD_DIR=$(mktemp -d)
chmod 0755 "$BUILD_DIR"
cp -r "$SRC/pyproject.toml" "$SRC/setup.py" "$SRC/README.md" "$SRC/shutbox_hw" "$SRC/firmware" "$BUILD_DIR/"
find "$BUILD_DIR" -name __pycache__ -prune -exec rm -rf {} +
TARGET=${BUILT:-$BUILD_DIR}
# A refusal known at once: the new code (the wheel, or the copy) checks the config
# and the database with the running version's libraries before a venv is built
# for it (minutes on a slow Pi). Only its refusal (exit 2) counts here; anything
# else (the new code needs libraries the old venv lacks) is checked again below
# by the new venv itself.
if [[ -n $CURRENT && -e $CONFIG ]] && "$OPT/$CURRENT/bin/python" -c '' 2>/dev/null; then
    code=$TARGET status=0
    [[ $TARGET == *.whl ]] || code=$BUILD_DIR
    pre=("$CONFIG" --db "$DB")
    [[ ! -f $BOOTCFG ]] || pre+=(--boot-config "$BOOTCFG")
    # from /: python -m looks in the working directory first (a checkout's shutbox_hw)
    (cd / && as_service env PYTHONPATH="$code" "$OPT/$CURRENT/bin/python" -m shutbox_hw \
        check-config "${pre[@]}") >/dev/null 2>"$BUILD_DIR/precheck.err" || status=$?
    if ((status == 2)); then
        cat "$BUILD_DIR/precheck.err" >&2
        die "the new version refuses $CONFIG or the database (above); $CURRENT keeps running, nothing changed: fix it and run again"
    fi
fi
FAILED=$OPT/$NEW        # removed at exit unless the switch to it succeeds
PYVER='import sys; print("%d.%d" % sys.version_info[:2])'
SITE='import sysconfig; print(sysconfig.get_paths()["purelib"])'
WITH_PIP="" from=""  # ensurepip: most of the time a venv takes (5 s on a PC, a minute under QEMU)
if [[ -n $CURRENT ]] && "$OPT/$CURRENT/bin/python" -c '' 2>/dev/null \
        && grep -q '^include-system-site-packages = true' "$OPT/$CURRENT/pyvenv.cfg" \
        && [[ "$("$OPT/$CURRENT/bin/python" -c "$PYVER")" == "$("$PYTHON" -c "$PYVER")" ]]; then
    from=$("$OPT/$CURRENT/bin/python" -c "$SITE")
    # pip comes with the running version's libraries (below)
    [[ ! -d $from/pip ]] || WITH_PIP=--without-pip
fi
"$PYTHON" -m venv --system-site-packages $WITH_PIP "$OPT/$NEW" \
    || die "cannot make a venv with $PYTHON (apt-get install python3-venv)"
if [[ -n $from ]]; then
    # the running version's libraries (and its pip unless the new venv has its own),
    # copied (not moved: it keeps running), so that pip installs only what changed;
    # its own package is left out
    to=$("$OPT/$NEW/bin/python" -c "$SITE") skip=()
    [[ -n $WITH_PIP ]] || skip=(! -name 'pip' ! -name 'pip-*' ! -name 'setuptools*'
        ! -name 'pkg_resources' ! -name '_distutils_hack' ! -name 'distutils-precedence.pth')
    find "$from" -mindepth 1 -maxdepth 1 ! -name 'shutbox_hw*' "${skip[@]}" -exec cp -a -t "$to" {} + \
        || die "cannot copy the libraries of $CURRENT into $OPT/$NEW"
fi
PIP=("$OPT/$NEW/bin/python" -m pip install --quiet --disable-pip-version-check
     --root-user-action=ignore --upgrade-strategy only-if-needed
     --only-binary :all: --report "$BUILD_DIR/pip-report.json")
[[ -z $WHEELS ]] || PIP+=(--no-index --find-links "$WHEELS")
if "$OPT/$NEW/bin/python" -c 'import lgpio' 2>/dev/null \
        && ! "$OPT/$NEW/bin/python" -c 'import importlib.metadata as m; m.version("lgpio")' 2>/dev/null; then
    # the system's lgpio imports but pip cannot see it installed: the pi extra
    # (lgpio) would make pip fetch or build another one, so leave it out
    EXTRAS=${EXTRAS#pi}; EXTRAS=${EXTRAS#,}
    say "lgpio comes from the system without metadata pip can see: installing without the pi extra"
fi
EXTRA=${EXTRAS:+[$EXTRAS]}
if [[ $TARGET == *.whl ]]; then SPEC="shutbox-hw$EXTRA @ file://$TARGET"; else SPEC="$TARGET$EXTRA"; fi
# wheels only (--only-binary :all:): nothing is compiled on the Pi. The box's own
# package is built from the checkout (pure Python) unless it came as a wheel.
pip_status=0
"${PIP[@]}" "$SPEC" 2>"$BUILD_DIR/pip.err" || pip_status=$?
if ((pip_status)); then
    # a missing wheel in one line (pip's resolver report is long); anything else as pip said it
    missing=$(sed -n 's/.*No matching distribution found for \([A-Za-z0-9._-]*\).*/\1/p' "$BUILD_DIR/pip.err" | head -1)
    if [[ -n $missing ]]; then
        read -r deb_pkg deb_version <<<"${DEBIAN_HAS[${missing,,}]:-}"
        deb=""
        if [[ -n ${deb_pkg:-} ]]; then
            if [[ $deb_version == - ]]; then deb="; apt has no $deb_pkg"; else deb="; apt's $deb_pkg is $deb_version, too old"; fi
        fi
        where="on PyPI"; [[ -z $WHEELS ]] || where="in $WHEELS"
        die "no wheel of $missing for this machine ($(uname -m), Python $("$PYTHON" -c "$PYVER")) $where$deb: the installer builds nothing from source; the running version is unchanged"
    fi
    cat "$BUILD_DIR/pip.err" >&2
    die "pip could not install shutbox-hw$EXTRA (above); the running version is unchanged"
fi
cat "$BUILD_DIR/pip.err" >&2
# what pip installed, from its report: a distribution that did not come as a wheel
# (the checkout itself aside) was built here from its source
SDISTS=$("$OPT/$NEW/bin/python" - "$BUILD_DIR/pip-report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for item in report.get("install", []):
    info = item.get("download_info", {})
    if "dir_info" not in info and not info.get("url", "").endswith(".whl"):
        print(item["metadata"]["name"])
PY
) || die "cannot read pip's report of what it installed ($BUILD_DIR/pip-report.json)"
[[ -z $SDISTS ]] || die "pip built $(echo $SDISTS | sed 's/ /, /g') from source: the installer takes wheels only; the running version is unchanged"
say "pip built nothing from source; $("$OPT/$NEW/bin/python" -c 'import json, sys
names = sorted((i["metadata"]["name"] for i in json.load(open(sys.argv[1])).get("install", [])
                if i.get("download_info", {}).get("url", "").endswith(".whl")), key=str.lower)
print("wheels installed: %d%s" % (len(names), " (" + ", ".join(names) + ")" if names else ""))' "$BUILD_DIR/pip-report.json")"
install -m 0644 "$SRC/systemd/$NAME.service" "$OPT/$NEW/$NAME.service"
say "installed $("$OPT/$NEW/bin/python" -c 'import importlib.metadata as m; print("shutbox-hw", m.version("shutbox-hw"))') in $OPT/$NEW"

# --- config and database, checked by the new version before it runs -----------
mkdir -p "$ETC"
if [[ -e $CONFIG ]]; then
    say "keeping $CONFIG"
else
    install -m 0644 "$SRC/hardware/$BUILD/shutbox.toml" "$CONFIG"
    say "wrote $CONFIG from hardware/$BUILD"
fi
if ! accepts "$NEW"; then
    if [[ -n $CURRENT ]]; then
        die "the new version refuses $CONFIG or the database (above); $CURRENT keeps running, nothing changed: fix it and run again"
    fi
    die "$CONFIG has problems (above): fix it and run again"
fi
if [[ -f $DB ]]; then
    # the database as it was, in case the new version changes its schema and an
    # older one has to read it again (the last copy is kept). Read-only, so that
    # root leaves no file of its own beside it (SQLite's backup: consistent while
    # the box writes); the copy gets the database's owner and mode.
    rm -f "$STATE"/shutbox.db.before-*
    BACKUP=$STATE/shutbox.db.before-$ID
    "$OPT/$NEW/bin/python" - "$DB" "$BACKUP" <<'PY' || die "cannot copy $DB before the upgrade (above); nothing changed"
import os, sqlite3, sys, urllib.parse
path, copy = sys.argv[1:]
uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
try:
    src = sqlite3.connect(uri, uri=True)
    src.execute("SELECT count(*) FROM sqlite_master").fetchone()
except sqlite3.Error:
    # a file whose -shm cannot be made here: with no -wal there is nothing in it to miss
    if os.path.exists(path + "-wal") and os.path.getsize(path + "-wal"):
        raise
    src = sqlite3.connect(uri + "&immutable=1", uri=True)
dst = sqlite3.connect(copy)
src.backup(dst)
dst.close()
src.close()
PY
    chown --reference="$DB" "$BACKUP" 2>/dev/null || true
    chmod 0600 "$BACKUP"
fi

# --- the dice module's own I2C bus -------------------------------------------------
# [hardware.dice] with sda_pin/scl_pin names a bit-banged i2c-gpio bus (it waits
# out the Pico's clock stretching; firmware/dice/README.md): its dtoverlay line
# goes into config.txt once; a line for the same bus number with other pins is
# replaced. The line comes from the config's own parser (DiceConfig.overlay).
write_dice_overlay() {
    [[ -f ${BOOTCFG:-} ]] || return 0
    local line bus
    line=$("$OPT/$NEW/bin/python" -c 'import sys
from shutbox_hw.config.config_file import load_config
dice = load_config(sys.argv[1]).hardware.dice
print(dice.overlay if dice is not None and dice.overlay else "")' "$CONFIG") || return 0
    [[ -n $line ]] || return 0
    grep -Fxq "$line" "$BOOTCFG" && return 0
    bus=$(sed -E 's/.*,bus=([0-9]+),.*/\1/' <<<"$line")
    if grep -Eq "^[[:space:]]*dtoverlay=i2c-gpio,bus=$bus," "$BOOTCFG"; then
        sed -i -E "s|^[[:space:]]*dtoverlay=i2c-gpio,bus=$bus,.*$|$line|" "$BOOTCFG"
    else
        printf '\n# shutbox-hw: the dice module on its own I2C bus (i2c-gpio, 100 kHz)\n[all]\n%s\n' \
            "$line" >>"$BOOTCFG"
    fi
    say "the dice module's I2C bus $bus in $BOOTCFG: $line (takes effect at the next boot)"
}
write_dice_overlay

# --- documents ------------------------------------------------------------------
# the documents the unit's Documentation= names, the wiring documents and docs/, the
# pages the README links (a checkout without docs/ installs without them)
rm -rf "$OPT/systemd" "$OPT/hardware" "$OPT/docs"
install -m 0644 -D "$SRC/README.md" "$OPT/README.md"
install -m 0644 -D "$SRC/systemd/README.md" "$OPT/systemd/README.md"
cp -r "$SRC/hardware" "$OPT/hardware"
if [[ -d "$SRC/docs" ]]; then cp -r "$SRC/docs" "$OPT/docs"; fi

# --- on the pub's network: --web (the web unit) and --mqtt (the box's unit reaches the broker)
if ((WEB || MQTT)); then
    # (their extras came with the package above)
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
        system systemctl enable "$NAME-web.service"   # (re)started once the new version runs
    fi
fi

# --- switch, restart, and back if it does not come up ----------------------------
# keep the version now in use and the one before it
prune_versions() {
    for old in "$VERSIONS"/*; do
        case "versions/${old##*/}" in "$NEW"|"$CURRENT") ;; *) rm -rf "$old" ;; esac
    done
}
LATER=""
if ! ((SYSTEMD_UP)); then
    # a chroot (an SD card's image being prepared, the arm rehearsal): systemctl
    # enables units there but starts nothing
    LATER="systemd is not running here, so it was not started"
elif [[ -z $CURRENT && -z $ROOT ]] && ! compgen -G "/dev/i2c-*" >/dev/null; then
    # a first install: I2C comes on at the next boot, and the box needs it
    LATER="I2C comes on then"
fi
if [[ -n $LATER ]]; then
    unit_of "$NEW"
    relink "$VENV" "$NEW"
    FAILED=""
    [[ -z $CURRENT ]] || { relink "$PREVIOUS" "$CURRENT"; prune_versions; }
    ctl enable "$NAME.service"
    say "installed $ID; it starts at the next boot ($LATER): sudo reboot"
    exit 0
fi
if switch_to "$NEW"; then
    FAILED=""
    [[ -z $CURRENT ]] || relink "$PREVIOUS" "$CURRENT"
    prune_versions
    if [[ -n $ROOT ]]; then
        say "installed into $ROOT"
    else
        say "running $ID; follow it with: journalctl -u $NAME -f"
    fi
    [[ -z $CURRENT ]] || say "the version before it is kept: install.sh --rollback goes back to it"
    if ((WEB)); then
        system systemctl restart "$NAME-web.service" \
            || say "the web unit did not start: journalctl -u $NAME-web -n 50"
    fi
    exit 0
fi
why=$REASON
if [[ -z $CURRENT ]]; then
    FAILED=""
    echo "install.sh: installed $ID, but the service did not start: $why (journalctl -u $NAME -n 50)" >&2
    exit 1
fi
echo "install.sh: $ID did not come up: $why (journalctl -u $NAME -n 50); going back to $CURRENT" >&2
if ! accepts "$CURRENT" 2>/dev/null; then
    # the new version changed the database's schema: the old one gets the copy back
    if [[ -f $STATE/shutbox.db.before-$ID ]]; then
        ctl stop "$NAME.service" || true
        install -m 0600 "$STATE/shutbox.db.before-$ID" "$DB"
        rm -f "$DB-wal" "$DB-shm"
        [[ -n $ROOT ]] || chown shutbox:shutbox "$DB"
        echo "install.sh: the database is back as it was before the upgrade" >&2
    fi
fi
if switch_to "$CURRENT"; then
    echo "install.sh: $CURRENT is running again; the upgrade to $ID was not made" >&2
else
    echo "install.sh: $CURRENT did not come up either: $REASON (journalctl -u $NAME -n 50)" >&2
fi
exit 1
