#!/bin/sh
# Installs the appliance on 64-bit Raspberry Pi OS Lite (Debian 12 based).
#
#   sudo ./install.sh [--bin FILE] kiosk|clerk|backup
#   sudo ./install.sh --root DIR [--bin FILE] kiosk|clerk|backup
#
# --bin installs the appliance binary (make build-pi: bin/appliance-linux-arm64)
# as /usr/local/bin/appliance. --root installs into DIR instead of / (an
# image being prepared, or the install test): users are made in DIR's
# /etc/passwd, and nothing is installed from Debian's packages nor started.
set -eu
usage="usage: install.sh [--root DIR] [--bin FILE] kiosk|clerk|backup"
root=
bin=
while [ $# -gt 0 ]; do
  case $1 in
    --root) root=${2:?$usage}; shift 2 ;;
    --bin) bin=${2:?$usage}; shift 2 ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) break ;;
  esac
done
role=${1:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$here/nodes/$role.toml" ] || { echo "unknown role $role (kiosk, clerk or backup)" >&2; exit 2; }
if [ -z "$root" ]; then
  [ "$(getconf LONG_BIT)" = 64 ] || { echo "64-bit Raspberry Pi OS is required (the ledger store loses data on 32-bit)" >&2; exit 1; }
fi
[ "$(id -u)" = 0 ] || { echo "install.sh sets owners: run it as root (sudo ./install.sh ...)" >&2; exit 1; }
[ -z "$root" ] || root=$(cd "$root" && pwd)

# user NAME [useradd options]: a user of the target system, made once.
user() {
  name=$1; shift
  grep -q "^$name:" "$root/etc/passwd" 2>/dev/null || useradd ${root:+--root "$root"} "$@" "$name"
}
# ids NAME: the user's uid:gid in the target system's files (the host's
# names do not apply to another root).
ids() { awk -F: -v n="$1" '$1 == n { print $3 ":" $4 }' "$root/etc/passwd"; }

user appliance --system --home-dir /var/lib/appliance --no-create-home --shell /usr/sbin/nologin --user-group
app=$(ids appliance)
gid=${app#*:}

install -d -m 0755 "$root/etc/appliance" "$root/etc/systemd/system" "$root/usr/local/bin" "$root/usr/share/doc/appliance" "$root/media"
install -d -m 0750 -o "${app%:*}" -g "$gid" "$root/var/lib/appliance"
# The USB backup drive's mount point; the drive's own top folder is made the
# appliance user's after it is first mounted (README).
install -d -m 0750 -o "${app%:*}" -g "$gid" "$root/media/backup"
# The configuration: readable by the appliance, changed by root only.
install -m 0640 -o 0 -g "$gid" "$here/nodes/$role.toml" "$root/etc/appliance/node.toml"
install -m 0644 "$here/systemd/appliance.service" "$root/etc/systemd/system/"
if [ "$role" != kiosk ]; then
  # The kiosk serves no staff listener to take a backup from; the clerk's
  # and the backup node's drives hold the ledger.
  install -m 0644 "$here/systemd/appliance-backup.service" "$here/systemd/appliance-backup.timer" \
    "$here/systemd/appliance-drill.service" "$here/systemd/appliance-drill.timer" "$root/etc/systemd/system/"
  grep -q ' /media/backup ' "$root/etc/fstab" 2>/dev/null ||
    echo 'LABEL=VHBACKUP /media/backup ext4 defaults,nofail,noatime,x-systemd.device-timeout=10s 0 2' >> "$root/etc/fstab"
fi
install -m 0644 "$here/README.md" "$root/usr/share/doc/appliance/README.md"
[ -z "$bin" ] || install -m 0755 "$bin" "$root/usr/local/bin/appliance"
install -d -m 0755 "$root/etc/chrony"
install -m 0644 "$here/chrony/chrony.conf" "$root/etc/chrony/chrony.conf"
install -d -m 0755 "$root/boot/firmware"
grep -q i2c-rtc "$root/boot/firmware/config.txt" 2>/dev/null || cat "$here/boot/config.txt.append" >> "$root/boot/firmware/config.txt"
if [ "$role" = kiosk ]; then
  user kiosk --uid 1001 --create-home --shell /usr/sbin/nologin --user-group
  install -m 0644 "$here/kiosk-session/kiosk.service" "$root/etc/systemd/system/"
  install -d -m 0755 "$root/etc/chromium/policies/managed"
  install -m 0644 "$here/kiosk-session/chromium-policy.json" "$root/etc/chromium/policies/managed/appliance-kiosk.json"
fi

if [ -n "$root" ]; then
  echo "installed the $role node into $root"
  exit 0
fi
apt-get install -y chrony
[ "$role" != kiosk ] || apt-get install -y cage chromium
systemctl daemon-reload
echo "installed the $role node; check its settings with: appliance config check /etc/appliance/node.toml"
if [ "$role" = kiosk ]; then
  echo "then: systemctl enable --now appliance kiosk"
else
  echo "then: systemctl enable --now appliance appliance-backup.timer appliance-drill.timer"
fi
