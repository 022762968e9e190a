# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The returning owner: which address an owner that comes back gets (docs/design.md#release).

This is a private module: it may change at any time.

An owner that released an address (or whose lease ran out) in a pool with a reuse delay, and asks again in the same
pool, with the same key and family, while that address still rests, gets it back: the rest kept it from everyone
else for exactly this. It does not get it back once another owner took it (and released it) meanwhile, nor once the
delay is over (the address is free to anyone then). The service asks ``returning`` for each new dynamic
reservation, and for a static one to name the history action (``return``); nothing here writes.

Every question is an indexed one (the owner's history in the pool, one resting address, the address's history in the
namespace), so the cost of a request does not grow with the addresses the pool holds or lets rest.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._space._tree import Tree

#: the history actions that leave an address resting in the pool that held it
LEFT = ('release', 'expire')


def returning(store, pool, owner, key, version):
    """The address ``n`` (of family ``version``; of either family with None) that ``owner`` left resting in
    ``pool`` under ``key`` and gets back, as ``(version, n)``; None when there is none.

    The owner's last history entry in the pool for that key (and family) is its release (or expiry) of the
    address, the address still rests in the pool, the last history entry of the address in the namespace is that
    same release (no other owner took it since, in this pool or another of its tree), and the pool may still hand
    it out (its shape may have changed while the address rested)."""
    if not pool.reuse_delay:
        return None
    last = None
    for entry in store.find_history(pool.namespace, pool.name, owner=owner):
        if entry.get('object') == 'reservation' and entry.get('key') == key and entry.get('address') \
                and (version is None or _family(entry['address']) == version):
            last = entry
    if last is None or last.get('action') not in LEFT:
        return None
    address = iv.parse_address(last['address'])
    v, n = address.version, int(address)
    if store.free_space().rests(pool, v, n) is None:
        return None
    # of the namespace, not the pool: pools overlap within a tree, and a child's owner may have held it meanwhile
    since = store.find_history(pool.namespace, address=last['address'])
    if not since or not _same(since[-1], last):
        return None
    subnet = pool.subnet_of(v, n)
    if subnet is None or not iv.contains(Tree.of(store, pool.namespace).allocatable(pool, subnet), n) \
            or store.holder(pool.namespace, v, n) is not None:
        return None
    return v, n


def _family(text):
    return 6 if ':' in text else 4


def _same(a, b):
    """Whether two history entries read apart are the one entry (the ``id`` a store gives, where it gives one)."""
    if a.get('id') is not None and b.get('id') is not None:
        return a['id'] == b['id']
    return a == b
