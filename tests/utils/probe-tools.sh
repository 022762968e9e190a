#!/usr/bin/env bash
# Install what the probe tests use (the reservation module's probe option): iproute2 (`ip netns`, veth pairs,
# and the controller's interfaces for ARP), iputils-ping (ICMP echo) and iputils-arping (ARP). Debian packages,
# installed only when missing (a second run does nothing and needs no network). None ships a service.
#
# Without root or apt-get (a developer's laptop), say why and exit 0 unless NETPOOL_IPAM_TEST_NETNS=required
# (CI): the tests then skip with a message.
set -euo pipefail

packages=(iproute2 iputils-ping iputils-arping)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
    echo "probe-tools: ${packages[*]} installed"
    exit 0
fi

why=""
command -v apt-get >/dev/null || why="no apt-get to install ${missing[*]}"
[ -n "$why" ] || [ "$(id -u)" -eq 0 ] || why="${missing[*]} missing and not root (install them: apt-get install ${missing[*]})"
if [ -n "$why" ]; then
    echo "probe-tools: $why; the probe tests will skip" >&2
    [ "${NETPOOL_IPAM_TEST_NETNS:-}" != required ] || { echo "probe-tools: NETPOOL_IPAM_TEST_NETNS=required: failing" >&2; exit 1; }
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
echo "probe-tools: installing ${missing[*]}"
if ! apt-get install -y --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
    apt-get update -qq >/dev/null 2>&1 || true     # an old or absent package list: update once, try again
    apt-get install -y --no-install-recommends "${missing[@]}" >"$log" 2>&1 || { tail -20 "$log" >&2; rm -f "$log"; exit 1; }
fi
rm -f "$log"
echo "probe-tools: installed ${missing[*]}"
