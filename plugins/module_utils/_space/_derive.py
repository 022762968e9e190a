# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Free space is derived state: what a pool may hand out, less what is held and what rests.

This is a private module: it may change at any time. ``derive`` is pure; ``expected`` reads what it derives
from over the store interface, so any store can be checked with it (``info verify``/``repair``, a rebuild, a
JSON document just read). A store's free-space component keeps a cache of it; whoever doubts the cache computes
it again from here, never from a file.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._space._tree import Tree


def derive(pool, pools, held, resting):
    """The free spans of ``pool``, sorted ``(version, first, last)``.

    ``pools`` are the pools of its namespace: its child pools are carved out of it, and what an ancestor
    withholds (its gateway, network and broadcast addresses, exclusions) is free in none of the pools below it
    (``_tree``); ``held(version, first, last)`` lists the addresses held by any reservation of the namespace in
    that span (a parent's forced reservation inside a child is held for the child too); ``resting`` maps a version to the addresses resting
    under a reuse delay in any pool of the namespace: pools of a namespace overlap only within a pool
    tree, so an address resting in one pool of a tree is free in none of them until its delay is over."""
    tree = Tree(pools)
    spans = []
    for subnet in pool.subnets:
        taken = [(n, n) for n in held(subnet.version, subnet.first, subnet.last)]
        taken += [(n, n) for n in resting.get(subnet.version, ()) if subnet.first <= n <= subnet.last]
        spans += [(subnet.version, a, b) for a, b in iv.subtract(tree.allocatable(pool, subnet), taken)]
    return sorted(spans)


def expected(store, pool, find=None):
    """``derive`` over the store interface, inside a transaction: the pool's free spans as they should be.
    Reads pools, reservations (``find``: the store's ``find_reservations``) and ``free_space().resting``: any
    store can be checked with it."""
    find = find or store.find_reservations
    free = store.free_space()
    pools = store.list_pools(pool.namespace)
    resting = {}
    for other in pools:
        for v, n, _until in free.resting(other):
            resting.setdefault(v, []).append(n)

    def held(version, first, last):
        return [r.address for r in find(pool.namespace, version=version, first=first, last=last)]

    return derive(pool, pools, held, resting)
