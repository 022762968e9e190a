#!/usr/bin/env bash
# Install the DHCP and DNS servers whose own checkers and daemon the publish
# tests use: Kea DHCPv4/DHCPv6 (kea-dhcp4 -t, kea-dhcp6 -t),
# dnsmasq (dnsmasq --test), BIND (named-checkzone, a named on loopback) and
# dig. Debian packages, installed only when missing (idempotent: a second run
# does nothing and needs no network).
#
# The packages ship system services that would take ports 53, 67 and 547 on
# a shared machine. They must never start: a policy-rc.d that refuses every
# start is in place for the install (the machine's own is kept when it has
# one), and their units are disabled (stopped too where systemd runs).
# The tests start their own named on 127.0.0.1 on a high port.
#
# Without root or apt-get (a developer's laptop), say why and exit 0 unless
# NETPOOL_IPAM_TEST_PUBLISH=required (CI): the tests then skip with a message.
set -euo pipefail

packages=(kea-dhcp4-server kea-dhcp6-server dnsmasq-base bind9 bind9-utils bind9-dnsutils)
units=(kea-dhcp4-server kea-dhcp6-server kea-dhcp-ddns-server kea-ctrl-agent named bind9 dnsmasq)

unavailable() {
    echo "dhcp-dns-servers: $*; the publish tests that need the real servers will skip" >&2
    if [ "${NETPOOL_IPAM_TEST_PUBLISH:-}" = required ]; then
        echo "dhcp-dns-servers: NETPOOL_IPAM_TEST_PUBLISH=required: failing" >&2
        exit 1
    fi
    exit 0
}

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# The packages enable their units: a machine that boots with systemd would
# start them. Disable them (and stop them where systemd runs now); offline,
# systemctl only removes the links. Idempotent.
disable_units() {
    command -v systemctl >/dev/null || return 0
    local now=()
    [ "$(ps -p 1 -o comm= 2>/dev/null)" = systemd ] && now=(--now)
    for u in "${units[@]}"; do
        if systemctl is-enabled --quiet "$u" 2>/dev/null || [ -e "/etc/systemd/system/multi-user.target.wants/$u.service" ]; then
            systemctl disable "${now[@]}" "$u" >/dev/null 2>&1 || true
        fi
    done
}

if [ "${#missing[@]}" -eq 0 ]; then
    disable_units
    echo "dhcp-dns-servers: ${packages[*]} installed"
    exit 0
fi

command -v apt-get >/dev/null || unavailable "no apt-get to install ${missing[*]}"
[ "$(id -u)" -eq 0 ] || unavailable "${missing[*]} missing and not root (install them: apt-get install ${missing[*]})"

policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
    own_policy=1
    trap 'rm -f "$policy"' EXIT
    printf '#!/bin/sh\n# netpool.ipam tests: no service starts during the install\nexit 101\n' > "$policy"
    chmod 0755 "$policy"
fi

export DEBIAN_FRONTEND=noninteractive
echo "dhcp-dns-servers: installing ${missing[*]}"
if ! apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/netpool-ipam-apt.$$.log 2>&1; then
    # An old or absent package list: update once and try again.
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/netpool-ipam-apt.$$.log 2>&1 \
        || { tail -20 /tmp/netpool-ipam-apt.$$.log >&2; rm -f /tmp/netpool-ipam-apt.$$.log; unavailable "apt-get install ${missing[*]} failed"; }
fi
rm -f /tmp/netpool-ipam-apt.$$.log
[ "$own_policy" -eq 0 ] || { rm -f "$policy"; trap - EXIT; }

disable_units
echo "dhcp-dns-servers: installed ${missing[*]} (no service started, units disabled)"
