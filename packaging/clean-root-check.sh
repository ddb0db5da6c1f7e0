#!/usr/bin/env bash
# Installs a Scalex package into a clean Debian 12 root and runs it there, so that apt resolves
# the package's Depends and nothing from the build machine is found:
#   sudo bash packaging/clean-root-check.sh [PACKAGE.deb] [WORK_DIR]
# PACKAGE.deb defaults to the newest scalex*_*.deb in build-package/ or build/; WORK_DIR (default
# /var/tmp/scalex-clean-root) gets the root (made with `debootstrap --variant=minbase bookworm`
# from the host's Debian mirror), the screenshot taken inside it and a transcript. Needs root and
# network access to the mirror; takes two to five minutes, most of it debootstrap and apt.
set -euo pipefail
root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deb="${1:-}"
work="${2:-/var/tmp/scalex-clean-root}"
if [ -z "$deb" ]; then
  deb="$(ls -t "$root_dir"/build-package/scalex*_*.deb "$root_dir"/build/scalex*_*.deb 2>/dev/null | head -1 || true)"
fi
[ -f "$deb" ] || { echo "clean-root-check: no package (run bash packaging/package.sh first)"; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "clean-root-check: needs root (debootstrap, chroot)"; exit 2; }
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends debootstrap; }

# The host's Debian mirror, else deb.debian.org.
mirror="$(grep -hoE '^(deb|URIs:) +(\[[^]]*\] +)?https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
  /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -oE 'https?://[^ ]+' | head -1 || true)"
mirror="${mirror:-http://deb.debian.org/debian}"

chroot_dir="$work/root"
transcript="$work/transcript.txt"
cleanup() { umount "$chroot_dir/dev/pts" "$chroot_dir/proc" 2>/dev/null || true; }
trap cleanup EXIT
cleanup
if grep -qF " $chroot_dir/" /proc/mounts; then
  echo "clean-root-check: something is still mounted under $chroot_dir; not removing it"
  exit 1
fi
rm -rf "$work"
mkdir -p "$work"
start=$SECONDS
phase() { echo "[$((SECONDS - start)) s] $*"; }
# Runs a command inside the root with a clean environment and writes it and its output to the
# transcript and to stdout (`inside -q`: only the last lines to stdout).
inside() {
  local show=(cat)
  if [ "$1" = -q ]; then show=(tail -n 4); shift; fi
  echo "# $*" | tee -a "$transcript"
  chroot "$chroot_dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@" 2>&1 | tee -a "$transcript" | "${show[@]}"
  return "${PIPESTATUS[0]}"
}

phase "debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase bookworm "$chroot_dir" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log"; echo "clean-root-check: debootstrap failed (log: $work/debootstrap.log)"; exit 1; }
cat >"$chroot_dir/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SOURCES
mount -t proc proc "$chroot_dir/proc"
mount -t devpts devpts "$chroot_dir/dev/pts"
cp "$deb" "$chroot_dir/tmp/"
pkg="/tmp/$(basename "$deb")"

phase "apt-get install $pkg"
echo "# package $(basename "$deb"), $(stat -c %s "$deb") bytes" | tee "$transcript"
inside apt-get update -qq
inside -q apt-get install -y --no-install-recommends "$pkg"
inside dpkg-query -W -f='${Package} ${Version}\nDepends: ${Depends}\n' "$(dpkg-deb -f "$deb" Package)"

phase "running scalex inside the root"
inside scalex --version
inside scalex check /usr/share/scalex/datasets/example/generated-isoflop.csv
inside scalex fit isoflop --data /usr/share/scalex/datasets/example/generated-isoflop.csv
inside scalex device
inside env QT_QPA_PLATFORM=offscreen scalex /usr/share/scalex/examples/example.scalex --view isoflop \
  --size 1280x800 --screenshot /tmp/scalex-clean-root.png
cp "$chroot_dir/tmp/scalex-clean-root.png" "$work/"
# What the desktop gets: the entry, the MIME type (registered by shared-mime-info's trigger, which
# the Qt libraries bring) and the man page where they belong.
inside ls /usr/share/applications /usr/share/mime/packages /usr/share/metainfo /usr/share/man/man1/scalex.1.gz
inside grep scalex /usr/share/mime/globs2

phase "done: every step passed; transcript $transcript, screenshot $work/scalex-clean-root.png"
