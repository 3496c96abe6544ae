#!/usr/bin/env bash
# Runs the README's two blocks, read from the README itself, on a Debian machine that has nothing
# installed: a root built fresh with `debootstrap --variant=minbase`, plus `sudo` (a user's machine
# has it) and the host's CA bundle (for networks reached through a TLS proxy the host trusts).
# The blocks run as an ordinary user with sudo rights, in a clone of the commit checked out here,
# so a system package, header or library that the README forgets fails here as it would for a
# user. Only one thing differs from a user's run: the main job gets a short budget
# (--total-timesteps 2048 after the script name), because its default takes hours.
#
#   sudo tools/fresh_machine.sh bookworm        # Debian 12 (CI runs this)
#   sudo tools/fresh_machine.sh trixie          # Debian 13
#   sudo tools/fresh_machine.sh trixie --keep   # keep the root afterwards, to look around in it
#
# Needs root (debootstrap, chroot, mounts), debootstrap and git; about 12 GB of free disk under
# ${FRESH_MACHINE_DIR:-/var/tmp}. Prints the time each step took.
set -euo pipefail
cd "$(dirname "$0")/.."

suite=${1:?usage: tools/fresh_machine.sh bookworm|trixie [--keep]}
keep=${2:-}
case "$suite" in bookworm | trixie) ;; *) echo "suite must be bookworm or trixie, not '$suite'" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "needs root (debootstrap, chroot, mounts): run it with sudo" >&2; exit 2; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# The Nth ```bash block of the README.
readme_block() {
  awk -v n="$1" '/^```bash$/ {k++; inside = (k == n); next} /^```$/ {inside = 0} inside' README.md
}
setup=$(readme_block 1)
tests=$(readme_block 2)
grep -q '^python ppo_atari_envpool.py' <<<"$setup" || { echo "README block 1 has no main job" >&2; exit 1; }
setup=$(sed -E 's/^python ppo_atari_envpool\.py/& --total-timesteps 2048/' <<<"$setup")

# Network steps outside the README's blocks retry; inside them, apt and pip retry by their own
# settings (below), so the blocks themselves run verbatim.
retry() {
  local attempt
  for attempt in 1 2 3; do
    "$@" && return 0
    echo "+ attempt $attempt of 3 failed: $*" >&2
    sleep $((attempt * 10))
  done
  return 1
}
step_start=$SECONDS
timed() {  # timed NAME: prints how long the step since the last call took
  echo "+ [$suite] $1: $((SECONDS - step_start)) s"
  step_start=$SECONDS
}

work=$(mktemp -d "${FRESH_MACHINE_DIR:-/var/tmp}/fresh-$suite.XXXXXX")
root=$work/root
cleanup() {
  for mount_point in dev/shm dev/pts dev sys proc; do
    mountpoint -q "$root/$mount_point" && umount -l "$root/$mount_point"
  done
  if [ "$keep" = --keep ]; then echo "+ root kept at $root"; else rm -rf "$work"; fi
}
trap cleanup EXIT

echo "+ building a $suite root in $root"
retry debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log"; exit 1; }
mount -t proc proc "$root/proc"
mount --bind /sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs -o mode=1777 shm "$root/dev/shm"  # shared memory a user may write (multiprocessing)
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo "127.0.1.1 $(hostname)" >>"$root/etc/hosts"  # sudo looks the host's name up
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/host-ca-bundle.crt"
printf 'Acquire::Retries "5";\n' >"$root/etc/apt/apt.conf.d/80retries"
timed debootstrap

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
retry in_root apt-get update -q >/dev/null
retry in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q sudo >/dev/null
in_root useradd --create-home --shell /bin/bash user
echo 'user ALL=(ALL) NOPASSWD: ALL' >"$root/etc/sudoers.d/user"
chmod 0440 "$root/etc/sudoers.d/user"
git clone -q . "$root/home/user/envpool_core"
git -C "$root/home/user/envpool_core" checkout -q "$(git rev-parse HEAD)"
in_root chown -R user:user /home/user/envpool_core
timed "sudo, user, clone"

# As the user, in the clone: the host's CA bundle for pip (a proxy the host trusts), retries for
# pip's downloads, and whatever CI sets; nothing else of the host's environment.
as_user() {
  chroot "$root" /usr/sbin/runuser -u user -- /usr/bin/env -i HOME=/home/user USER=user \
    LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin TERM=dumb CI="${CI:-}" \
    PIP_CERT=/etc/host-ca-bundle.crt SSL_CERT_FILE=/etc/host-ca-bundle.crt PIP_RETRIES=5 \
    PIP_DEFAULT_TIMEOUT=120 \
    bash -c "cd ~/envpool_core && set -eo pipefail && $1"
}
printf '+ README block 1:\n%s\n' "$setup"
as_user "$setup"
timed "README block 1"
printf '+ README block 2:\n%s\n' "$tests"
as_user "$tests"
timed "README block 2"
echo "+ [$suite] root size: $(du -shx "$root" 2>/dev/null | cut -f1)"  # -x: not /proc, /sys, /dev
