# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Free space is derived state: what a pool may hand out, less what is held and what rests.

This is a private module: it may change at any time. The stores that keep
free spans (SQLite, PostgreSQL, and the JSON store in memory) keep a cache
of ``derive``: the service updates it address by address, and whoever
doubts it (an import, ``info verify``/``repair``, a document just read)
computes it again from what it derives from, never from a file.
"""

from ansible_collections.netpool.ipam.plugins.module_utils import _intervals as iv


def carved(subnet, children):
    """The spans of ``subnet`` given to ``children`` (child pools), merged."""
    return iv.merge([(cs.first, cs.last) for child in children for cs in child.subnets if cs.overlaps(subnet)])


def derive(pool, pools, held, resting):
    """The free spans of ``pool``, sorted ``(version, first, last)``.

    ``pools`` are the pools of its namespace (its child pools are carved out of it); ``held(version, first,
    last)`` lists the addresses held by any reservation of the namespace in that span (a parent's forced
    reservation inside a child is held for the child too); ``resting`` maps a version to the addresses resting
    under a reuse delay in any pool of the namespace: pools of a namespace overlap only within a parent/child
    family, so an address resting in one pool of a family is free in none of them until its delay is over."""
    children = [p for p in pools if p.parent == pool.name]
    spans = []
    for subnet in pool.subnets:
        taken = [(n, n) for n in held(subnet.version, subnet.first, subnet.last)]
        taken += [(n, n) for n in resting.get(subnet.version, ()) if subnet.first <= n <= subnet.last]
        spans += [(subnet.version, a, b) for a, b in iv.subtract(subnet.allocatable(carved(subnet, children)), taken)]
    return sorted(spans)


def expected(store, pool):
    """``derive`` over the store interface, inside a transaction."""
    pools = store.list_pools(pool.namespace)
    resting = {}
    for other in pools:
        for v, n, _until in store.released(pool.namespace, other.name):
            resting.setdefault(v, []).append(n)

    def held(version, first, last):
        return [r.address for r in store.find_reservations(pool.namespace, version=version, first=first, last=last)]

    return derive(pool, pools, held, resting)


def rebuild(store, pool):
    """Replace the pool's free spans by the derived ones."""
    store.clear_free(pool.namespace, pool.name)
    store.add_free(pool.namespace, pool.name, expected(store, pool))
