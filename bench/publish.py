# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How long do the publish filters take?

N reservations with a MAC in one dual-stack SQLite pool with a domain (N/2 IPv4, N/2 IPv6), then each filter
on the info result: Kea DHCPv4 and DHCPv6, dnsmasq, /etc/hosts, BIND zones, and BIND zones again given the
zones just rendered as the previous files (what the role does on a rerun: same serials, same text), and given
previous files whose SOA is not in their head (read whole: a file written by hand, and how every previous file
was read at first). Median of three runs of each.

    .venv/bin/python bench/publish.py                 # N = 1000 and 5000
    .venv/bin/python bench/publish.py --n 20000
"""

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'collections'))

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service  # noqa: E402
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store  # noqa: E402
from ansible_collections.netpool.ipam.plugins.plugin_utils import _publish  # noqa: E402


def median(work):
    times = []
    for _run in range(3):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(n):
    with tempfile.TemporaryDirectory() as directory:
        store = open_store(os.path.join(directory, 'ipam.sqlite'))
        svc = Service(store)
        svc.pool('lan', subnets=[{'cidr': '10.0.0.0/16'}, {'cidr': '2001:db8::/64'}], metadata={'domain': 'example.test'})
        for i in range(n):
            svc.reserve('lan', 'h%06d' % i, family='ipv4' if i % 2 else 'ipv6',
                        metadata={'mac': '52:54:%02x:%02x:%02x:%02x' % (i >> 24 & 255, i >> 16 & 255, i >> 8 & 255, i & 255)})
        info = svc.info()
        store.close()
    zones = _publish.bind_zones(info)
    assert _publish.bind_zones(info, previous=zones) == zones
    # the same files with four comment lines on top: their SOA is not in the head, so each is read whole by
    # dnspython - how every previous file was read before the head was read first
    by_hand = dict((name, ';\n' * 4 + text) for name, text in zones.items())
    for name, work in (('kea_dhcp4', lambda: _publish.kea(info, 4)), ('kea_dhcp6', lambda: _publish.kea(info, 6)),
                       ('dnsmasq_hosts', lambda: _publish.dnsmasq(info)), ('etc_hosts', lambda: _publish.hosts(info)),
                       ('bind_zones', lambda: _publish.bind_zones(info)),
                       ('bind_zones(previous)', lambda: _publish.bind_zones(info, previous=zones)),
                       ('bind_zones(whole)', lambda: _publish.bind_zones(info, previous=by_hand))):
        print('%-22s N=%-6d %6.2f s' % (name, n, median(work)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, action='append')
    args = parser.parse_args()
    print('# %s, %s CPUs, Python %s, load %s' % (platform.platform(), os.cpu_count(), platform.python_version(),
                                                 ' '.join('%.2f' % x for x in os.getloadavg())))
    for n in args.n or [1000, 5000]:
        bench(n)


if __name__ == '__main__':
    main()
