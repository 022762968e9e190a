# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the modules return: reservations, pools with their figures and maps (SPEC §4.1).

This is a private module: it may change at any time.

``Results`` shapes the store's objects into result dicts, inside the service's
transaction and as allocation sees the store at the clock's time: an expired
lease is not held (the next allocation releases it first). It only reads;
free space comes from the store's free-space component (``free_space()``).
"""

from ansible_collections.netpool.ipam.plugins.module_utils import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._tree import Tree


#: ranges larger than this get no map
MAP_LIMIT = 4096
#: A time after every expires_at (ttl is at most ``_checks.MAX_DURATION``): ``expires_before=FOREVER`` is every lease.
FOREVER = '9999-12-31T23:59:59Z'


def percent(part, whole):
    return round(100.0 * part / whole, 2) if whole else 0.0


class Results(object):
    """Result dicts over ``store``; ``stamp()`` is the clock's time as an ISO string."""

    def __init__(self, store, stamp):
        self.store = store
        self.stamp = stamp

    def _tree(self, pool, tree=None):
        return tree if tree is not None else Tree.of(self.store, pool.namespace)

    def reservation(self, r, pool=None):
        """A reservation as modules return it (with its subnet's prefix, gateway and dns)."""
        if pool is None:
            pool = self.store.get_pool(r.namespace, r.pool)
        return r.to_dict(pool.subnet_of(r.version, r.address) if pool else None)

    def pool_result(self, changed, old, new, tree=None, released=None):
        """A pool or range task's result; a pool task's also lists the reservations it ``released``."""
        before = old.to_data() if old is not None else {}
        result = {'changed': changed, 'pool': self.pool(new, tree),
                  'diff': {'before': before, 'after': new.to_data()}}
        if released is not None:
            result['released'] = released
        return result

    def pool(self, pool, tree=None, with_map=False):
        """A pool as modules return it: its data, its figures and those of each subnet, its child pools and,
        ``with_map``, the map of each range. ``tree``: the namespace's pool tree (``_tree.Tree``), if read."""
        tree = self._tree(pool, tree)
        result = pool.to_data()
        total, per_subnet = self.stats(pool, tree)
        result.update(total)
        result['children'] = sorted(c.name for c in tree.children(pool))
        for subnet, data, stats in zip(pool.subnets, result['subnets'], per_subnet):
            data.update(stats)
            if with_map:
                data['map'] = self.map(pool, subnet, tree)
        return result

    def stats(self, pool, tree=None):
        """size/used/free/utilization of the pool and of each of its subnets, as allocation sees them now: an
        expired lease is not held (the next allocation releases it first), and its address is free if it goes
        straight back to this pool (``lapsed``)."""
        tree = self._tree(pool, tree)
        count = self.store.count_reservations
        free_space = self.store.free_space()
        now = self.stamp()
        subnets, total = [], {'size': 0, 'used': 0, 'free': 0}
        rested = self.rested(pool, tree)
        for subnet in pool.subnets:
            allocatable = tree.allocatable(pool, subnet)
            size = iv.count(allocatable)
            free = free_space.count(pool, subnet.version, subnet.first, subnet.last)
            free += len(self.lapsed(pool, subnet, allocatable, subnet.first, subnet.last))
            free += len(self.back(pool, rested, subnet, allocatable, subnet.first, subnet.last))
            used = count(pool.namespace, pool.name, version=subnet.version, first=subnet.first, last=subnet.last) \
                - count(pool.namespace, pool.name, version=subnet.version, first=subnet.first, last=subnet.last,
                        expires_before=now)
            subnets.append({'size': size, 'used': used, 'free': free, 'utilization': percent(size - free, size)})
            for k in total:
                total[k] += subnets[-1][k]
        total['utilization'] = percent(total['size'] - total['free'], total['size'])
        total['leased'] = count(pool.namespace, pool.name, expires_before=FOREVER)
        total['expired'] = count(pool.namespace, pool.name, expires_before=now)
        return total, subnets

    def lapsed(self, pool, subnet, allocatable, first, last):
        """The addresses in [first, last] of ``subnet`` held by an expired lease (of any pool of the family) that
        go straight back to ``pool``'s free space when the lease is released: allocatable here, and the
        lease's pool has no reuse delay."""
        found, where = [], dict(version=subnet.version, first=first, last=last, expires_before=self.stamp())
        if not self.store.count_reservations(pool.namespace, **where):      # the usual case: counted, none built
            return found
        for r in self.store.find_reservations(pool.namespace, **where):
            holder = pool if r.pool == pool.name else self.store.get_pool(r.namespace, r.pool)
            if iv.contains(allocatable, r.address) and holder is not None and not holder.reuse_delay:
                found.append(r.address)
        return found

    def rested(self, pool, tree):
        """The addresses (version, address) whose reuse delay is over in some pool of ``pool``'s family: the next
        allocation in the family gives them back (``FreeSpace.settle``), so a read reports them free now,
        without writing (``back`` says which go back to ``pool``)."""
        now = self.stamp()
        free_space = self.store.free_space()
        return set((v, n) for member in tree.family(pool)
                   for v, n, _until in free_space.resting(member, due=now))

    def back(self, pool, rested, subnet, allocatable, first, last):
        """Of ``rested``, the addresses in [first, last] of ``subnet`` that go back to ``pool`` (whose
        ``allocatable`` this is): allocatable here and held by no reservation."""
        return [n for v, n in sorted(rested) if v == subnet.version and first <= n <= last
                and iv.contains(allocatable, n) and self.store.holder(pool.namespace, v, n) is None]

    def map(self, pool, subnet, tree=None):
        """Per range of at most MAP_LIMIT addresses (Ganeti's map): X held (by any reservation of the namespace:
        a parent's forced address in a child too), . free (dynamic allocation could take it now: what ``free``
        counts), - neither (an exclusion, the gateway, a child pool, what a parent withholds, an address resting
        under reuse_delay)."""
        ns, version = pool.namespace, subnet.version
        tree = self._tree(pool, tree)
        allocatable = tree.allocatable(pool, subnet)
        free_space = self.store.free_space()
        maps = []
        for first, last in subnet.ranges:
            entry = {'range': iv.format_span(version, first, last), 'map': None}
            if last - first + 1 <= MAP_LIMIT:
                now = self.stamp()
                held = set(r.address for r in self.store.find_reservations(ns, version=version, first=first, last=last)
                           if not r.expired(now))
                lapsed = self.lapsed(pool, subnet, allocatable, first, last)
                lapsed += self.back(pool, self.rested(pool, tree), subnet, allocatable, first, last)
                free = iv.merge([(a, b) for _v, a, b in free_space.spans(pool, version, first, last)]
                                + [(n, n) for n in lapsed])
                entry['map'] = ''.join(
                    'X' if n in held else '.' if iv.contains(free, n) else '-' for n in range(first, last + 1))
            maps.append(entry)
        return maps
