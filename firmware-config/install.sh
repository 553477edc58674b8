#!/bin/sh
# Installs the appliance's configuration on 64-bit Raspberry Pi OS Lite.
# Usage: sudo ./install.sh kiosk|clerk|backup
set -eu
role=${1:?usage: install.sh kiosk|clerk|backup}
here=$(cd "$(dirname "$0")" && pwd)
[ "$(getconf LONG_BIT)" = 64 ] || { echo "64-bit Raspberry Pi OS is required (the ledger store loses data on 32-bit)"; exit 1; }
[ -f "$here/nodes/$role.env" ] || { echo "unknown role $role"; exit 1; }
id appliance >/dev/null 2>&1 || useradd --system --home /var/lib/appliance --shell /usr/sbin/nologin appliance
install -d -m 0750 -o appliance -g appliance /var/lib/appliance
install -d -m 0755 /etc/appliance
install -m 0644 "$here/nodes/$role.env" /etc/appliance/node.env
install -m 0644 "$here/systemd/appliance.service" "$here/systemd/appliance-backup.service" "$here/systemd/appliance-backup.timer" /etc/systemd/system/
apt-get install -y chrony
install -m 0644 "$here/chrony/chrony.conf" /etc/chrony/chrony.conf
grep -q i2c-rtc /boot/firmware/config.txt || cat "$here/boot/config.txt.append" >> /boot/firmware/config.txt
if [ "$role" = kiosk ]; then
  apt-get install -y cage chromium
  id kiosk >/dev/null 2>&1 || useradd --create-home --uid 1001 --shell /usr/sbin/nologin kiosk
  install -m 0644 "$here/kiosk-session/kiosk.service" /etc/systemd/system/
fi
systemctl daemon-reload
echo "installed the $role node; now: systemctl enable --now appliance appliance-backup.timer"
