# Sourced by tests/vm/rehearse: builds (and caches) what the VM needs under .vm/.
# Each function prints its reason on stderr and returns non-zero when it cannot.

# debian_mirror: the Debian mirror the host's apt already uses (with a trailing /)
debian_mirror() {
    local mirror
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | grep -E '^[[:space:]]*(deb|URIs:)' | grep -oE 'https?://[^ ]+/debian/?( |$)' | head -1 | tr -d ' ' || true)
    mirror=${mirror:-http://deb.debian.org/debian/}
    echo "${mirror%/}/"
}

# build_kernel DIR LOG: DIR/vmlinux (uncompressed, booted through PVH: no decompressor
# under TCG), DIR/modules/<release>/, DIR/release. Kept once built.
build_kernel() {
    local K=$1 LOG=$2
    if [ -f "$K/vmlinux" ] && [ -f "$K/release" ] && [ -d "$K/modules/$(cat "$K/release")" ]; then
        return 0
    fi
    step "kernel: fetching trixie-backports' kernel (about 120 MB, once)"
    rm -rf "$K" && mkdir -p "$K/apt/lists/partial" "$K/apt/archives/partial" "$K/debs" "$K/root"
    # the Debian mirror the host already uses, with a private list of sources and state
    local mirror; mirror=$(debian_mirror)
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror%/} trixie-backports main" \
        >"$K/apt/sources.list"
    local A=(-o "Dir::Etc::SourceList=$K/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=$K/apt/lists" -o "Dir::Cache=$K/apt" -o "Dir::State::status=/dev/null")
    apt-get "${A[@]}" update >"$LOG" 2>&1 || { echo "rehearse: cannot read trixie-backports from $mirror (see $LOG)" >&2; return 1; }
    # linux-image-amd64 depends on the versioned image package
    local image release
    image=$(apt-cache "${A[@]}" depends linux-image-amd64 2>>"$LOG" | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1)
    [ -n "$image" ] || { echo "rehearse: no linux-image-amd64 in trixie-backports (see $LOG)" >&2; return 1; }
    release=${image#linux-image-}
    # newer kernels split the image into linux-binary-* and linux-modules-*
    local pkgs=("$image")
    for p in $(apt-cache "${A[@]}" depends "$image" 2>>"$LOG" | sed -n 's/^ *Depends: \(linux-\(base\|binary\|modules\)-[0-9][^ ]*\)$/\1/p'); do
        pkgs+=("$p")
    done
    (cd "$K/debs" && apt-get "${A[@]}" download "${pkgs[@]}") >>"$LOG" 2>&1 \
        || { echo "rehearse: cannot download ${pkgs[*]} (see $LOG)" >&2; return 1; }
    local deb; for deb in "$K"/debs/*.deb; do dpkg-deb -x "$deb" "$K/root"; done
    local mods
    mods=$(ls -d "$K"/root/usr/lib/modules/"$release" "$K"/root/lib/modules/"$release" 2>/dev/null | head -1)
    [ -n "$mods" ] && [ -f "$mods/config" -o -f "$K/root/boot/config-$release" ] \
        || { echo "rehearse: $image has no modules or config" >&2; return 1; }
    local config; config=$(ls "$mods/config" "$K/root/boot/config-$release" 2>/dev/null | head -1)
    local opt
    for opt in CONFIG_GPIO_SIM CONFIG_I2C_STUB CONFIG_I2C_CHARDEV CONFIG_NET_9P_VIRTIO CONFIG_9P_FS CONFIG_OVERLAY_FS CONFIG_PVH; do
        grep -Eq "^$opt=(m|y)" "$config" || { echo "rehearse: kernel $release lacks $opt (needed for the rehearsal)" >&2; return 1; }
    done
    depmod -b "$(dirname "$(dirname "$(dirname "$mods")")")" "$release" 2>>"$LOG" \
        || depmod -b "$(dirname "$(dirname "$mods")")" "$release" >>"$LOG" 2>&1
    # the ELF vmlinux sits zstd-compressed inside the bzImage: find the frame that inflates to ELF
    local vmlinuz; vmlinuz=$(ls "$mods/vmlinuz" "$K/root/boot/vmlinuz-$release" 2>/dev/null | head -1)
    local pos
    for pos in $(grep -abo $'\x28\xb5\x2f\xfd' "$vmlinuz" | cut -d: -f1); do
        tail -c +$((pos + 1)) "$vmlinuz" | zstd -dcq >"$K/vmlinux.part" 2>/dev/null || true
        [ "$(head -c4 "$K/vmlinux.part" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && break
    done
    if [ "$(head -c4 "$K/vmlinux.part" 2>/dev/null | od -An -tx1 | tr -d ' ')" != 7f454c46 ]; then
        cp "$vmlinuz" "$K/vmlinux.part"   # QEMU boots a bzImage too, only slower
    fi
    mkdir -p "$K/modules" && ln -sfn "$mods" "$K/modules/$release"
    rm -rf "$K/debs" "$K/apt/archives"
    echo "$release" >"$K/release"
    mv "$K/vmlinux.part" "$K/vmlinux"
}

# build_wheels SRC DIR PIPVENV LOG: DIR holds a wheel of the checkout (made anew every run)
# and of every dependency, including the pi extra (lgpio); the dependencies are fetched again
# only when pyproject.toml changes.
build_wheels() {
    local SRC=$1 W=$2 P=$3 LOG=$4
    mkdir -p "$W"
    # setuptools in this venv: the project's wheel is built without fetching it every run
    [ -f "$P/.ready" ] || { rm -rf "$P" && /usr/bin/python3 -m venv "$P" \
        && "$P/bin/pip" install -q --disable-pip-version-check 'setuptools>=68' wheel \
        && touch "$P/.ready"; } >>"$LOG" 2>&1 \
        || { echo "rehearse: cannot make a venv with setuptools for /usr/bin/python3 (see $LOG)" >&2; return 1; }
    local tmp; tmp=$(mktemp -d)
    # every file git knows (tracked or new, not ignored): what a clone would build from,
    # whatever the packaging needs (setup.py maps firmware/dice into the package)
    (cd "$SRC" && git ls-files -z -co --exclude-standard | xargs -0 tar -c --ignore-failed-read 2>/dev/null) \
        | tar -x -C "$tmp"
    # the extras the rehearsal installs: pi (lgpio) and web (install.sh --web)
    local extras="pi,web"
    local stamp; stamp=$( { echo "$extras"; cat "$SRC/pyproject.toml"; } | sha256sum | cut -c1-16)
    if [ "$(cat "$W/.deps" 2>/dev/null)" != "$stamp" ]; then
        step "wheels: downloading the dependencies"
        rm -f "$W"/*.whl
        "$P/bin/pip" download -q --disable-pip-version-check --only-binary :all: -d "$W" \
            "$tmp[$extras]" >>"$LOG" 2>&1 \
            || "$P/bin/pip" download -q --disable-pip-version-check -d "$W" "$tmp[$extras]" >>"$LOG" 2>&1 \
            || { rm -rf "$tmp"; echo "rehearse: pip download failed (see $LOG)" >&2; return 1; }
        echo "$stamp" >"$W/.deps"
    fi
    rm -f "$W"/shutbox_hw-*
    "$P/bin/pip" wheel -q --disable-pip-version-check --no-deps --no-build-isolation -w "$W" "$tmp" >>"$LOG" 2>&1 \
        || { rm -rf "$tmp"; echo "rehearse: cannot build the project's wheel (see $LOG)" >&2; return 1; }
    rm -rf "$tmp"
}

# build_refusing_version SRC OUT WHEELS PIPVENV LOG: OUT/src, the checkout as version 9.9.9
# with ROLL's BCM 23 kept back (a new refusal, as tests/test_upgrade.py makes one), and
# OUT/wheels, its wheel beside links to the dependencies' wheels in WHEELS.
build_refusing_version() {
    local SRC=$1 OUT=$2 W=$3 P=$4 LOG=$5
    rm -rf "$OUT" && mkdir -p "$OUT/src" "$OUT/wheels"
    (cd "$SRC" && git ls-files -z -co --exclude-standard | xargs -0 tar -c --ignore-failed-read 2>/dev/null) \
        | tar -x -C "$OUT/src"
    sed -i 's/^version = ".*"/version = "9.9.9"/' "$OUT/src/pyproject.toml"
    # the module that holds the pin plan's reserved pins (found, so a move of it cannot hide)
    local plan
    plan=$(grep -rl --include='*.py' '^RESERVED_PINS = {' "$OUT"/src/shutbox_hw/hal | head -1)
    [ -n "$plan" ] && sed -i 's/^RESERVED_PINS = {/RESERVED_PINS = {23: "kept back by 9.9.9", /' "$plan" \
        && grep -q 'kept back by 9.9.9' "$plan" \
        || { echo "rehearse: no 'RESERVED_PINS = {' line to patch in shutbox_hw/hal/" >&2; return 1; }
    "$P/bin/pip" wheel -q --disable-pip-version-check --no-deps --no-build-isolation -w "$OUT/wheels" \
        "$OUT/src" >>"$LOG" 2>&1 || { echo "rehearse: cannot build version 9.9.9's wheel (see $LOG)" >&2; return 1; }
    local whl
    for whl in "$W"/*.whl; do
        case ${whl##*/} in shutbox_hw-*) ;; *) ln -s "$whl" "$OUT/wheels/" ;; esac
    done
}

# build_quick_venv WHEELS DIR LOG: the libraries the quick checks drive, made on the host
# (its absolute paths are the same inside the VM, which sees the host's /).
build_quick_venv() {
    local W=$1 V=$2 LOG=$3
    [ -x "$V/bin/python" ] && "$V/bin/python" -c 'import lgpio, gpiozero, smbus2' 2>/dev/null && return 0
    rm -rf "$V"
    /usr/bin/python3 -m venv "$V" >>"$LOG" 2>&1 \
        && "$V/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$W" \
            lgpio gpiozero smbus2 >>"$LOG" 2>&1 \
        || { echo "rehearse: cannot make the quick venv (see $LOG)" >&2; return 1; }
}

# build_initramfs KERNEL INIT OUT: busybox, the 9p and overlay modules, and INIT as /init.
build_initramfs() {
    local K=$1 INIT=$2 OUT=$3
    local I; I=$(mktemp -d)
    mkdir -p "$I/bin" "$I/mod"
    local bb; bb=$(ls /bin/busybox /usr/bin/busybox 2>/dev/null | head -1)
    [ -n "$bb" ] || { echo "rehearse: no busybox (apt-get install busybox-static)" >&2; return 1; }
    cp "$bb" "$I/bin/busybox"
    local md="$K/modules/$(cat "$K/release")"
    local m f
    # in load order; modules built into the kernel are simply absent
    for m in netfs 9pnet 9pnet_virtio 9p overlay; do
        f=$(find "$md/kernel" -name "$m.ko*" | head -1)
        [ -n "$f" ] || continue
        case $f in
            *.xz) xz -dc "$f" >"$I/mod/$m.ko" ;;
            *.zst) zstd -dcq "$f" >"$I/mod/$m.ko" ;;
            *.gz) gzip -dc "$f" >"$I/mod/$m.ko" ;;
            *) cp "$f" "$I/mod/$m.ko" ;;
        esac
        echo "$m" >>"$I/mod/order"
    done
    install -m 0755 "$INIT" "$I/init"
    (cd "$I" && find . | cpio -o -H newc --quiet | gzip -1 >"$OUT.part") && mv "$OUT.part" "$OUT"
    rm -rf "$I"
}

# ---------------------------------------------------------------- the arm rehearsal's roots
# What a Raspberry Pi OS Lite has before the box is installed: Python, systemd, the CA
# certificates, apt; no compiler, no headers. apt's lists are kept (the installer's
# apt-get update then only checks them).
ARM_ROOT_PACKAGES=python3,ca-certificates,systemd

# arm_binfmt: QEMU's user-mode emulation of arm64 and armhf programs through binfmt_misc
# (qemu-user-static's entries, registered here if they are not: update-binfmts). Their F
# flag opens the emulator once, at registration, so it runs inside a chroot too.
arm_binfmt() {
    local d=/proc/sys/fs/binfmt_misc e
    [ -e $d/status ] || mount -t binfmt_misc binfmt_misc $d 2>/dev/null \
        || { echo "binfmt_misc is not mounted and cannot be (mount -t binfmt_misc failed)" >&2; return 1; }
    grep -qx enabled $d/status || { echo "binfmt_misc is disabled ($d/status)" >&2; return 1; }
    for e in qemu-aarch64 qemu-arm; do
        [ -e $d/$e ] || update-binfmts --enable $e >/dev/null 2>&1 || true
        grep -qx enabled $d/$e 2>/dev/null \
            || { echo "no binfmt_misc entry $e: update-binfmts --enable $e failed (is qemu-user-static installed?)" >&2; return 1; }
        grep -Eq '^flags: .*F' $d/$e \
            || { echo "binfmt_misc entry $e lacks the F flag: a chroot cannot reach its emulator" >&2; return 1; }
    done
}

# arm_snapshot MIRROR CACHE: the Debian snapshot the roots come from, named by bookworm's
# point release and its Release file's date (12.15-20260711T101637Z) and the root's
# package list; with the mirror out of reach, the newest snapshot already in CACHE.
arm_snapshot() {
    local mirror=$1 cache=$2 name
    name=$(python3 -c 'import email.utils, sys, urllib.request
text = urllib.request.urlopen(sys.argv[1], timeout=60).read().decode()
fields = dict(l.split(": ", 1) for l in text.splitlines() if ": " in l and l[:1].isupper())
date = email.utils.parsedate_to_datetime(fields["Date"])
print(fields["Version"] + "-" + date.strftime("%Y%m%dT%H%M%SZ"))' "${mirror}dists/bookworm/InRelease" 2>/dev/null) || name=""
    if [ -n "$name" ]; then
        echo "$name-$(echo "minbase $ARM_ROOT_PACKAGES" | sha256sum | cut -c1-8)"
        return 0
    fi
    name=$(ls -t "$cache" 2>/dev/null | grep -E '^[0-9.]+-[0-9T]+Z-[0-9a-f]{8}$' | head -1)
    [ -n "$name" ] || { echo "cannot read ${mirror}dists/bookworm/InRelease and no root is cached" >&2; return 1; }
    echo "rehearse: ${mirror} out of reach: the cached snapshot $name" >&2
    echo "$name"
}

# build_arm_root ARCH DIR MIRROR LOG: DIR, a Debian bookworm root for ARCH (arm64, armhf)
# from MIRROR, made by mmdebstrap under emulation (minutes); kept once built.
build_arm_root() {
    local arch=$1 dir=$2 mirror=$3 log=$4
    [ -f "$dir.ready" ] && return 0
    rm -rf "$dir.part" && mkdir -p "$(dirname "$dir")"
    mmdebstrap --mode=root --arch="$arch" --variant=minbase --include="$ARM_ROOT_PACKAGES" \
        --skip=cleanup/apt/lists bookworm "$dir.part" "$mirror" >"$log" 2>&1 \
        || { echo "rehearse: mmdebstrap could not make the $arch root (see $log)" >&2; return 1; }
    rm -rf "$dir" && mv "$dir.part" "$dir" && touch "$dir.ready"
}
