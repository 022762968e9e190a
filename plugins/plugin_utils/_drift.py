# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The drift role's machinery (``roles/drift``): where a host and the store disagree.

This is a private module: it may change at any time.

- ``configured`` turns what a host has configured (``ipam_drift_addresses``, or its gathered facts) into a list
  of addresses, or fails naming what is wrong;
- ``drift`` compares them with one read of the store (the result of ``netpool.ipam.info`` for the namespace):
  ``missing`` (held by the host, not configured on it), ``unreserved`` (configured, in a pool, held by no one) and
  ``foreign`` (configured, held by another owner);
- ``table``: the lines the role shows for the hosts that drift.
"""

from __future__ import annotations

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _metadata
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    InvalidArgument, PoolNotFound, missing_library)

#: None where the controller's Python lacks it: the functions below then fail saying what to install
netaddr = _metadata.netaddr

#: the columns of the table, in order
COLUMNS = ('missing', 'unreserved', 'foreign')


def _need_netaddr():
    if netaddr is None:
        raise missing_library('netaddr', 'to compare the hosts with the store')


def _address(value, host):
    """``value`` (an address, or an interface address with its prefix length) as a ``netaddr.IPAddress``."""
    text = str(value).strip()
    try:
        return netaddr.IPAddress(text.split('/', 1)[0])
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise InvalidArgument('netpool.ipam.drift: %r, an address %s has configured, is not an IP address '
                              '(ipam_drift_addresses, or its gathered facts)' % (text, host))


def configured(addresses, host):
    """The addresses ``host`` has configured, each once, in address order (IPv4 first)."""
    _need_netaddr()
    if addresses is None:
        raise InvalidArgument('netpool.ipam.drift: no addresses for %s: gather its facts (ansible_all_ipv4_addresses, '
                              'ansible_all_ipv6_addresses) or set ipam_drift_addresses' % host)
    if isinstance(addresses, (str, bytes)) or not isinstance(addresses, (list, tuple)):
        raise InvalidArgument('netpool.ipam.drift: ipam_drift_addresses of %s is not a list of addresses' % host)
    found = sorted(set(_address(value, host) for value in addresses), key=lambda a: (a.version, a))
    return [str(address) for address in found]


def _scope(store, pool):
    """The subnets compared, of ``pool`` alone or of every pool of the namespace: ``(name, IPNetwork, IPSet of
    its ranges for a child by ranges else None, whether it is a child)`` for each."""
    pools = store.get('pools') or []
    if pool and not any(p['name'] == pool for p in pools):
        raise PoolNotFound("netpool.ipam.drift: ipam_pool '%s' is not a pool of the namespace" % pool)
    return [(p['name'], netaddr.IPNetwork(s['cidr']), _ranges(s) if p.get('by_ranges') else None,
             bool(p.get('parent'))) for p in pools if not pool or p['name'] == pool for s in p.get('subnets') or []]


def _ranges(subnet):
    return netaddr.IPSet(netaddr.IPRange(*text.split('-', 1)) for text in subnet.get('ranges') or [])


def _pool_of(address, subnets):
    """The innermost pool holding ``address`` (a child pool before its parent), or None."""
    holding = [(net.prefixlen, child, name) for name, net, ranges, child in subnets
               if address in net and (ranges is None or address in ranges)]
    return max(holding)[2] if holding else None


def drift(store, owner, addresses, pool=None):
    """``{missing, unreserved, foreign}`` of ``owner``, whose host has configured ``addresses``, against ``store``
    (a result of ``netpool.ipam.info`` for the whole namespace), in ``pool`` or every pool."""
    _need_netaddr()
    subnets = _scope(store, pool)
    names = set(item[0] for item in subnets)
    holders = dict((netaddr.IPAddress(r['address']), r) for r in store.get('reservations') or [])
    mine = set(netaddr.IPAddress(a) for a in addresses)
    missing = [dict(address=r['address'], pool=r['pool'], key=r['key'])
               for address, r in sorted(holders.items(), key=lambda i: (i[0].version, i[0]))
               if r['owner'] == owner and r['pool'] in names and address not in mine]
    unreserved, foreign = [], []
    for text in addresses:
        address = netaddr.IPAddress(text)
        where = _pool_of(address, subnets)
        held = holders.get(address)
        if held is not None and held['owner'] != owner and (held['pool'] in names or where):
            foreign.append(dict(address=text, pool=held['pool'], owner=held['owner'], key=held['key']))
        elif held is None and where:
            unreserved.append(dict(address=text, pool=where))
    return dict(missing=missing, unreserved=unreserved, foreign=foreign)


def _cell(column, item):
    if column == 'foreign':
        return '%s (%s/%s)' % (item['address'], item['owner'], item['key'])
    return item['address']


def table(found):
    """The lines showing ``found`` (host -> its ``drift`` result, in the order to show), for the hosts that drift."""
    rows = [[host] + [', '.join(_cell(c, item) for item in result[c]) or '-' for c in COLUMNS]
            for host, result in found.items() if any(result[c] for c in COLUMNS)]
    if not rows:
        return ['no drift: %d host(s) configure exactly what the store holds for them' % len(found)]
    rows.insert(0, ['host'] + list(COLUMNS))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ['  '.join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
