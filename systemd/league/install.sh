#!/usr/bin/env bash
# Installs (or upgrades, or removes) the league's server from this checkout on an
# ordinary Debian server, as root: sudo systemd/league/install.sh [options]. See
# --help, systemd/league/README.md and docs/network/league.md.
set -euo pipefail
umask 022    # the venv and the docs must be readable by the units' user

usage() {
    cat <<'EOF'
usage: sudo systemd/league/install.sh [options]

Installs the league's server from this checkout on Debian (12 or later) and
starts it: PostgreSQL and Mosquitto from Debian, shutbox-hw with its league
and web extras in /opt/shutbox-league/.venv, the system user shutbox-league, the
units shutbox-league-migrate, shutbox-league-ingest@1..N and shutbox-league-web
(the league's pages), and the settings in
/etc/shutbox-league/league.env (written from league.env.example the first time,
never overwritten). It runs `shutbox-hw league migrate`, starts the ingests and
the pages (checked: they answer on LEAGUE_WEB_LISTEN); run it again to upgrade (the settings and the database are kept).

Before it runs: the league broker's user:password in
/etc/shutbox-league/mqtt.credentials, and a PostgreSQL role and database that
LEAGUE_DSN reaches (--local-database makes them on this machine's PostgreSQL).

options:
  --ingests N              how many ingest processes to run (default 2, 1..32)
  --local-database         make the role shutbox-league and the database league
                           in this machine's PostgreSQL (as league.env.example's
                           LEAGUE_DSN names them), unless they exist
  --wheels DIR             install from a folder of wheels only, no index
                           (pip --no-index --find-links DIR); run again with
                           the same wheels, it leaves the venv as they made it
  --skip-system-packages   no apt-get: python3-venv, postgresql and mosquitto
                           must already be there
  --no-web                 leave the league's pages out (shutbox-league-web is not
                           installed; one installed before is stopped and removed)
  --uninstall              stop and remove the units and /opt/shutbox-league; keep
                           /etc/shutbox-league, the user and the database
  --root DIR               act on a scratch tree DIR (DIR/etc, DIR/opt) and only
                           print, prefixed "would run:", the commands that would
                           touch the running system (league migrate runs, against
                           the LEAGUE_DSN of DIR/etc/shutbox-league/league.env)
  -h, --help               this text
EOF
}

die() { echo "install.sh: $*" >&2; exit 2; }
fail() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "install.sh: $*"; }

ROOT="" WHEELS="" SKIP_APT=0 UNINSTALL=0 LOCAL_DB=0 INGESTS=2 WEB=1
# how long an ingest must stay up after it started (the tests set 0)
SETTLE=${SHUTBOX_INSTALL_SETTLE:-5}
# how long the pages have to answer on their address after they started
WEB_WAIT=${SHUTBOX_INSTALL_WEB_WAIT:-15}
while (($#)); do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --root|--wheels|--ingests)
            (($# >= 2)) && [[ -n $2 ]] || die "$1 needs a value"
            case $1 in --root) ROOT=$2 ;; --wheels) WHEELS=$2 ;; --ingests) INGESTS=$2 ;; esac
            shift ;;
        --root=*) ROOT=${1#*=} ;;
        --wheels=*) WHEELS=${1#*=} ;;
        --ingests=*) INGESTS=${1#*=} ;;
        --skip-system-packages) SKIP_APT=1 ;;
        --local-database) LOCAL_DB=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --no-web) WEB=0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
[[ $INGESTS =~ ^[0-9]+$ ]] && ((INGESTS >= 1 && INGESTS <= 32)) \
    || die "--ingests: '$INGESTS' is not a number of processes 1..32"
[[ $SETTLE =~ ^[0-9]+$ ]] || die "SHUTBOX_INSTALL_SETTLE: '$SETTLE' is not a number of seconds"
[[ $WEB_WAIT =~ ^[0-9]+$ ]] || die "SHUTBOX_INSTALL_WEB_WAIT: '$WEB_WAIT' is not a number of seconds"

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
UNITS_SRC=$SRC/systemd/league
[[ -f $SRC/pyproject.toml && -d $SRC/shutbox_hw && -f $UNITS_SRC/shutbox-league-ingest@.service ]] \
    && grep -q '^name = "shutbox-hw"' "$SRC/pyproject.toml" \
    || die "run it from a shutbox-hw checkout: $SRC has no pyproject.toml, shutbox_hw/ and systemd/league/"
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
    BUILT=$(ls "$WHEELS"/shutbox_hw-"$VERSION"-*.whl 2>/dev/null | head -1 || true)
    [[ -n $BUILT ]] || ls "$WHEELS"/setuptools-*.whl >/dev/null 2>&1 \
        || die "--wheels: $WHEELS has neither shutbox_hw-$VERSION-*.whl nor a setuptools wheel to build it with"
fi

USER_NAME=shutbox-league
OPT=$ROOT/opt/shutbox-league
VENV=$OPT/.venv
ETC=$ROOT/etc/shutbox-league
ENV_FILE=$ETC/league.env
CREDENTIALS=$ETC/mqtt.credentials
UNIT_DIR=$ROOT/etc/systemd/system
MIGRATE_UNIT=shutbox-league-migrate.service
INGEST_UNIT=shutbox-league-ingest@.service
WEB_UNIT=shutbox-league-web.service
PYTHON=/usr/bin/python3
[[ -x $PYTHON ]] || PYTHON=$(command -v python3) || die "no python3 (apt-get install python3)"

# A command that changes the running system: run it, or with --root print it.
system() {
    if [[ -n $ROOT ]]; then echo "would run: $*"; else "$@"; fi
}
# systemctl: with --root printed, and answered by $SHUTBOX_SYSTEMCTL if the tests give
# one (a stand-in playing units that do or do not start)
ctl() {
    if [[ -z $ROOT ]]; then
        systemctl "$@"
    else
        echo "would run: systemctl $*"
        [[ -z ${SHUTBOX_SYSTEMCTL:-} ]] || "$SHUTBOX_SYSTEMCTL" "$@"
    fi
}
# a question to systemctl (changes nothing, so never printed)
ask() {
    if [[ -z $ROOT ]]; then systemctl "$@"
    elif [[ -n ${SHUTBOX_SYSTEMCTL:-} ]]; then "$SHUTBOX_SYSTEMCTL" "$@"
    else return 0; fi
}
# a command as the units' user (PostgreSQL's peer authentication knows it by that name)
as_league() {
    if [[ -z $ROOT ]]; then runuser -u "$USER_NAME" -- "$@"; else "$@"; fi
}
# the value of KEY in league.env, as systemd reads it (one pair a line; quotes around
# the whole value are removed)
setting() {
    local value
    value=$(sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$ENV_FILE" | tail -1)
    value=${value%"${value##*[![:space:]]}"}
    if [[ $value == \"*\" || $value == \'*\' ]]; then value=${value:1:${#value}-2}; fi
    printf '%s' "$value"
}
# the journal's last lines of a unit (with --root printed, and answered by
# $SHUTBOX_JOURNALCTL if the tests give one)
journal() {
    if [[ -z $ROOT ]]; then
        journalctl -u "$1" -n 15 --no-pager -o cat
    else
        echo "would run: journalctl -u $1 -n 15 --no-pager -o cat" >&2
        [[ -z ${SHUTBOX_JOURNALCTL:-} ]] || "$SHUTBOX_JOURNALCTL" -u "$1" -n 15 --no-pager -o cat
    fi
}
# the pages answer on LISTEN within WEB_WAIT s: prints the address asked (and how long
# they took), exits 1 if they never answered (an HTTP answer below 500 counts: the
# gate and the pages ran)
web_answers() {
    "$VENV/bin/python" - "$1" "$WEB_WAIT" <<'PY'
import sys, time, urllib.error, urllib.request
listen, wait = sys.argv[1], float(sys.argv[2])
host, _, port = listen.rpartition(":")
host = host.strip("[]")
host = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
url = f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"
start = time.monotonic()
while True:
    try:
        with urllib.request.urlopen(url, timeout=2):
            break
    except urllib.error.HTTPError as answer:
        if answer.code < 500:
            break
    except (OSError, ValueError):
        pass
    if time.monotonic() - start >= wait:
        print(url)
        sys.exit(1)
    time.sleep(0.2)
print(f"{url} after {time.monotonic() - start:.1f} s")
PY
}
# the ingest units now enabled (their instance names), one a line
enabled_ingests() {
    local f
    for f in "$ROOT"/etc/systemd/system/multi-user.target.wants/shutbox-league-ingest@*.service; do
        [[ -e $f || -L $f ]] && basename "$f"
    done
    return 0
}

# --- uninstall -------------------------------------------------------------------
if ((UNINSTALL)); then
    units=($(enabled_ingests) "$MIGRATE_UNIT")
    [[ ! -e $UNIT_DIR/$WEB_UNIT ]] || units=("$WEB_UNIT" "${units[@]}")
    system systemctl disable --now "${units[@]}" || true
    rm -f "$UNIT_DIR/$INGEST_UNIT" "$UNIT_DIR/$MIGRATE_UNIT" "$UNIT_DIR/$WEB_UNIT"
    system systemctl daemon-reload
    rm -rf "$OPT"
    say "removed the league's units and $OPT; kept $ETC, the user $USER_NAME and the database"
    exit 0
fi

# --- system packages: PostgreSQL and Mosquitto from Debian -------------------------
if ((SKIP_APT)); then
    say "skipping system packages (--skip-system-packages)"
else
    system apt-get update || say "apt-get update failed; trying the packages already known"
    system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3-venv postgresql mosquitto || die "apt-get could not install python3-venv, postgresql and mosquitto (above)"
fi

# --- the user --------------------------------------------------------------------
if [[ -n $ROOT ]] || ! id "$USER_NAME" >/dev/null 2>&1; then
    system useradd --system --user-group --home-dir /nonexistent --no-create-home \
        --shell /usr/sbin/nologin "$USER_NAME" || die "cannot create the user $USER_NAME (above)"
fi

# --- the software: the league extra in its venv ----------------------------------
BUILD_DIR=$(mktemp -d)
trap 'rm -rf "$BUILD_DIR"' EXIT
chmod 0755 "$BUILD_DIR"
# pip builds in the source tree: build from a copy, so that root leaves no files in the checkout
cp -r "$SRC/pyproject.toml" "$SRC/setup.py" "$SRC/README.md" "$SRC/shutbox_hw" "$SRC/firmware" "$BUILD_DIR/"
find "$BUILD_DIR" -name __pycache__ -prune -exec rm -rf {} +
# the wheels pip last installed the venv from, with --wheels and this version's wheel:
# a re-run from exactly the same wheels (a changed setting, more ingests) leaves the venv
# as it is, and pip's run of seconds (a minute on a small server) out
STAMP=$VENV/.installed-from-wheels
if [[ ! -x $VENV/bin/python ]]; then
    rm -f "$STAMP"
    "$PYTHON" -m venv "$VENV" || die "cannot make a venv with $PYTHON (apt-get install python3-venv)"
fi
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check
     --root-user-action=ignore --upgrade-strategy only-if-needed)
[[ -z $WHEELS ]] || PIP+=(--no-index --find-links "$WHEELS")
if [[ -n $BUILT ]]; then SPEC="shutbox-hw[league,web] @ file://$BUILT"; else SPEC="$BUILD_DIR[league,web]"; fi
WANT=""
if [[ -n $BUILT ]]; then
    # what was asked for, of which Python, and every wheel of the folder by its content
    WANT=$( { echo "$SPEC"; "$VENV/bin/python" -c 'import sys; print(sys.version)'
              cd "$WHEELS" && sha256sum -- *.whl; } | sha256sum) || WANT=""
    WANT=${WANT%% *}
fi
if [[ -n $WANT && -f $STAMP && $(<"$STAMP") == "$WANT" ]]; then
    say "$VENV holds what the wheels of $WHEELS give already (installed from them, unchanged since): pip not run"
else
    rm -f "$STAMP"
    if ! "${PIP[@]}" "$SPEC" 2>"$BUILD_DIR/pip.err"; then
        missing=$(sed -n 's/.*No matching distribution found for \([A-Za-z0-9._-]*\).*/\1/p' "$BUILD_DIR/pip.err" | head -1)
        [[ -z $missing ]] || die "pip found no $missing for this machine${WHEELS:+ in $WHEELS}: the league's software is unchanged"
        cat "$BUILD_DIR/pip.err" >&2
        die "pip could not install shutbox-hw[league,web] (above): the league's software is unchanged"
    fi
    [[ -z $WANT ]] || echo "$WANT" >"$STAMP"
fi
say "installed $("$VENV/bin/python" -I -c 'import importlib.metadata as m; print("shutbox-hw", m.version("shutbox-hw"), "with psycopg", m.version("psycopg"), "and paho-mqtt", m.version("paho-mqtt"))') in $VENV"
# the page the units' Documentation= names
rm -rf "$OPT/docs"
install -m 0644 -D "$SRC/docs/network/league.md" "$OPT/docs/network/league.md"
install -m 0644 -D "$UNITS_SRC/README.md" "$OPT/systemd/league/README.md"

# --- the settings: written once, never overwritten ---------------------------------
mkdir -p "$ETC"
chmod 0755 "$ETC"
if [[ -e $ENV_FILE ]]; then
    say "keeping $ENV_FILE"
    # every setting the example gives a value (the pages' only with them)
    for key in $(sed -n 's/^\([A-Z_]*\)=..*/\1/p' "$UNITS_SRC/league.env.example"); do
        ((WEB)) || [[ $key != LEAGUE_WEB_* ]] || continue
        [[ -n $(setting "$key") ]] \
            || die "$ENV_FILE has no $key (league.env.example has it): add it and run again"
    done
else
    install -m 0640 "$UNITS_SRC/league.env.example" "$ENV_FILE"
    say "wrote $ENV_FILE from league.env.example: check LEAGUE_DSN and LEAGUE_MQTT in it"
fi
system chown "root:$USER_NAME" "$ENV_FILE"
DSN=$(setting LEAGUE_DSN)
if [[ ! -s $CREDENTIALS ]] || ! grep -q ':' "$CREDENTIALS"; then
    die "no user:password in $CREDENTIALS: write the league broker's account for the ingests there (docs/network/league.md, The brokers) and run again"
fi
chmod 0600 "$CREDENTIALS"
system chown "$USER_NAME:$USER_NAME" "$CREDENTIALS"

# --- the units ---------------------------------------------------------------------
mkdir -p "$UNIT_DIR"
install -m 0644 "$UNITS_SRC/$MIGRATE_UNIT" "$UNIT_DIR/$MIGRATE_UNIT"
install -m 0644 "$UNITS_SRC/$INGEST_UNIT" "$UNIT_DIR/$INGEST_UNIT"
if ((WEB)); then
    install -m 0644 "$UNITS_SRC/$WEB_UNIT" "$UNIT_DIR/$WEB_UNIT"
elif [[ -e $UNIT_DIR/$WEB_UNIT ]]; then
    ctl disable --now "$WEB_UNIT" || true
    rm -f "$UNIT_DIR/$WEB_UNIT"
    say "--no-web: stopped and removed $WEB_UNIT"
fi
ctl daemon-reload

# --- the database: made if asked, then migrated ------------------------------------
if ((LOCAL_DB)); then
    # in Debian's cluster, as its superuser postgres; each only if it is not there yet
    psql_as_postgres() { runuser -u postgres -- psql -XtAc "$1" 2>/dev/null; }
    if [[ -n $ROOT ]] || [[ $(psql_as_postgres "SELECT 1 FROM pg_roles WHERE rolname = '$USER_NAME'") != 1 ]]; then
        system runuser -u postgres -- createuser "$USER_NAME" \
            || die "cannot create the PostgreSQL role $USER_NAME (above): is PostgreSQL running? (systemctl status postgresql)"
    fi
    if [[ -n $ROOT ]] || [[ $(psql_as_postgres "SELECT 1 FROM pg_database WHERE datname = 'league'") != 1 ]]; then
        system runuser -u postgres -- createdb -O "$USER_NAME" league \
            || die "cannot create the PostgreSQL database league (above)"
    fi
fi
[[ -n $DSN ]] || die "$ENV_FILE: LEAGUE_DSN is empty"
if ! migrated=$(cd / && as_league "$VENV/bin/shutbox-hw" league migrate --dsn "$DSN" 2>"$BUILD_DIR/migrate.err"); then
    why=$(tr '\n' ' ' <"$BUILD_DIR/migrate.err" | sed 's/^shutbox-hw: //; s/ *$//')
    die "league migrate failed with LEAGUE_DSN of $ENV_FILE ($DSN): ${why:-no reason given}; make the role and database it names (--local-database does it on this machine) or fix LEAGUE_DSN, then run again"
fi
say "$migrated"

# --- enabled and started ---------------------------------------------------------
INSTANCES=()
for ((i = 1; i <= INGESTS; i++)); do INSTANCES+=("shutbox-league-ingest@$i.service"); done
WEB_UNITS=()
((WEB == 0)) || WEB_UNITS=("$WEB_UNIT")
ctl enable "$MIGRATE_UNIT" "${INSTANCES[@]}" "${WEB_UNITS[@]}"
# ingests enabled before beyond --ingests: left as they are, and said
extra=()
for unit in $(enabled_ingests); do
    n=${unit#shutbox-league-ingest@}; n=${n%.service}
    [[ $n =~ ^[0-9]+$ ]] && ((n <= INGESTS)) || extra+=("$unit")
done
((${#extra[@]} == 0)) || say "also enabled from before (left running): ${extra[*]}"
ctl restart "$MIGRATE_UNIT" || fail "$MIGRATE_UNIT failed: journalctl -u $MIGRATE_UNIT -n 50"
failed=()
for unit in "${INSTANCES[@]}"; do
    ctl restart "$unit" || failed+=("$unit")
done
if ((${#failed[@]} == 0)) && [[ -z $ROOT || -n ${SHUTBOX_SYSTEMCTL:-} ]]; then
    # Type=exec: started means the program ran; still up SETTLE s later means it took
    # its settings (a refused one exits 2 and is not restarted)
    sleep "$SETTLE"
    for unit in "${INSTANCES[@]}"; do
        ask is-active --quiet "$unit" || failed+=("$unit")
    done
fi
if ((${#failed[@]})); then
    fail "${failed[*]} did not start or stopped again within $SETTLE s: journalctl -u ${failed[0]} -n 50 says why"
fi
if ((WEB)); then
    LISTEN=$(setting LEAGUE_WEB_LISTEN)
    ctl restart "$WEB_UNIT" || fail "$WEB_UNIT did not start: journalctl -u $WEB_UNIT -n 50 says why"
    if [[ -z $ROOT || -n ${SHUTBOX_SYSTEMCTL:-} ]]; then
        if ! url=$(web_answers "$LISTEN"); then
            {
                echo "install.sh: $WEB_UNIT does not answer on ${url:-$LISTEN} (LEAGUE_WEB_LISTEN) within $WEB_WAIT s; its journal's last lines:"
                journal "$WEB_UNIT" | sed 's/^/    /'
            } >&2
            exit 1
        fi
        say "the league's pages answer on $url"
    fi
fi
if [[ -n $ROOT ]]; then
    say "installed into $ROOT"
else
    say "running ${#INSTANCES[@]} ingest(s); follow them with: journalctl -u 'shutbox-league-ingest@*' -f"
fi
