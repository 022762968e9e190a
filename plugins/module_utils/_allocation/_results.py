# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the modules return: reservations, pools with their figures and maps.

This is a private module: it may change at any time.

``Results`` shapes the store's objects into result dicts, inside the service's
transaction and as allocation sees the store at the clock's time: an expired
lease is not held (the next allocation releases it first). It only reads;
free space comes from the store's free-space component (``free_space()``).
The reads of ``info`` and of the inventory plugin (``info``, ``reservations``)
are here too: each is one read transaction shaped into its result.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks, _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import PoolNotFound, pool_not_found
from ansible_collections.netpool.ipam.plugins.module_utils._space._tree import Tree, source_subnet


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
        """A reservation as modules return it (with its subnet's prefix, gateway and dns: of a child by ranges,
        its parent's, ``_tree.source_subnet``)."""
        if pool is None:
            pool = self.store.get_pool(r.namespace, r.pool)
        subnet = pool.subnet_of(r.version, r.address) if pool else None
        if subnet is not None and pool.by_ranges:
            subnet = source_subnet(pool, subnet, lambda name: self.store.get_pool(r.namespace, name))
        return r.to_dict(subnet)

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
        result['by_ranges'] = pool.by_ranges
        total, per_subnet = self.stats(pool, tree)
        result.update(total)
        result['children'] = sorted(c.name for c in tree.children(pool))
        for subnet, data, stats in zip(pool.subnets, result['subnets'], per_subnet):
            data.update(stats)
            if pool.by_ranges:      # the parent's gateway and dns hold on its cidr: derived, never stored
                source = source_subnet(pool, subnet, tree.get).to_data()
                data.update(gateway=source['gateway'], dns=source['dns'])
            if with_map:
                data['map'] = self.map(pool, subnet, tree)
        return result

    def stats(self, pool, tree=None):
        """size/used/free/utilization of the pool and of each of its subnets, as allocation sees them now: an
        expired lease is not held (the next allocation releases it first), and its address is free if it goes
        straight back to this pool (``freed_on_expiry``)."""
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
            free += len(self.freed_on_expiry(pool, subnet, allocatable, subnet.first, subnet.last))
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

    def freed_on_expiry(self, pool, subnet, allocatable, first, last):
        """The addresses in [first, last] of ``subnet`` held by an expired lease (of any pool of the tree) that
        go straight back to ``pool``'s free space when the lease is released: allocatable here, and not resting
        after it (``Pool.rest_end``: the lease's pool has no reuse delay)."""
        found, where = [], dict(version=subnet.version, first=first, last=last, expires_before=self.stamp())
        if not self.store.count_reservations(pool.namespace, **where):      # the usual case: counted, none built
            return found
        for r in self.store.find_reservations(pool.namespace, **where):
            holder = pool if r.pool == pool.name else self.store.get_pool(r.namespace, r.pool)
            if iv.contains(allocatable, r.address) and holder is not None and holder.rest_end(self.stamp) is None:
                found.append(r.address)
        return found

    def rested(self, pool, tree):
        """The addresses (version, address) whose reuse delay is over in some pool of ``pool``'s tree: the next
        allocation in the tree gives them back (``FreeSpace.end_rests``), so a read reports them free now,
        without writing (``back`` says which go back to ``pool``)."""
        now = self.stamp()
        free_space = self.store.free_space()
        return set((v, n) for member in tree.related(pool)
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
                freed = self.freed_on_expiry(pool, subnet, allocatable, first, last)
                freed += self.back(pool, self.rested(pool, tree), subnet, allocatable, first, last)
                free = iv.merge([(a, b) for _v, a, b in free_space.spans(pool, version, first, last)]
                                + [(n, n) for n in freed])
                entry['map'] = ''.join(
                    'X' if n in held else '.' if iv.contains(free, n) else '-' for n in range(first, last + 1))
            maps.append(entry)
        return maps

    def deleted(self, pool, released):
        """A pool task's result for a pool deleted (None: there was none)."""
        return {'changed': pool is not None, 'pool': {}, 'released': released,
                'diff': {'before': pool.to_data() if pool is not None else {}, 'after': {}}}

    @staticmethod
    def batch(results):
        """``reserve_owners``' result from the ``(changed, before, after)`` of each owner."""
        return {'changed': any(changed for changed, _b, _a in results),
                'reservations': [after for _c, _b, after in results],
                'diff': {'before': {'reservations': [before for _c, before, _a in results]},
                         'after': {'reservations': [after for _c, _b, after in results]}}}

    @staticmethod
    def dual(results, batch=False):
        """``family: dual``'s result from ``((changed, before, after) of IPv4, the same of IPv6)`` of each owner:
        ``reservation`` and ``reservation6`` (``batch``: ``reservations`` and ``reservations6``, in owners order)."""
        four = [pair[0] for pair in results]
        six = [pair[1] for pair in results]
        keys = ('reservations', 'reservations6') if batch else ('reservation', 'reservation6')

        def values(found, i):
            """Item ``i`` (1: before, 2: after) of every owner's ``(changed, before, after)``; of the one, unbatched."""
            return [r[i] for r in found] if batch else found[0][i]
        return {'changed': any(changed for changed, _b, _a in four + six),
                keys[0]: values(four, 2), keys[1]: values(six, 2),
                'diff': {'before': {keys[0]: values(four, 1), keys[1]: values(six, 1)},
                         'after': {keys[0]: values(four, 2), keys[1]: values(six, 2)}}}

    @staticmethod
    def released(released):
        """A release's result: the reservations it ``released`` (as reservation dicts)."""
        return {'changed': bool(released), 'released': released,
                'diff': {'before': {'reservations': released}, 'after': {'reservations': []}}}

    # -- reads -------------------------------------------------------------
    def get(self, pool, owner, key, namespace, find, version=None):
        """The reservation dict (of family ``version``, 4 or 6, if given), or None; ``find(namespace, pool)`` raises
        ``pool_not_found`` for no such pool."""
        with self.store.transaction(write=False):
            r = self.store.get_reservation(namespace, pool, owner, key, version)
            if r is None or r.expired(self.stamp()):
                find(namespace, pool)
                return None
            return self.reservation(r)

    def reservations(self, namespace, pools, keys):
        """Every reservation of the namespace (the inventory plugin's one read): ``{'pools': [names],
        'reservations': [dicts]}``, in one read transaction of two store questions (the pools, then every
        reservation of the namespace), whatever the number of owners. ``pools`` and ``keys`` (lists) keep those
        pools and keys; a pool of ``pools`` that does not exist is ``pool_not_found``. ``pools`` lists the pool
        names in the order given (else sorted); reservations are sorted by that order, then key, then
        (family, address). An expired lease is not held (as ``info`` reads it)."""
        _checks.check_name(namespace, 'namespace')
        with self.store.transaction(write=False):
            by_name = dict((p.name, p) for p in self.store.list_pools(namespace))
            names = sorted(by_name) if pools is None else list(pools)
            missing = [name for name in names if name not in by_name]
            if missing:
                raise PoolNotFound("Pool(s) %s do not exist in namespace '%s' (it has: %s)."
                                   % (', '.join("'%s'" % m for m in missing), namespace,
                                      ', '.join(sorted(by_name)) or 'none'))
            found = self.store.find_reservations(namespace, names[0] if len(names) == 1 else None)
            now = self.stamp()
        order = dict((name, i) for i, name in enumerate(names))
        wanted = None if keys is None else set(keys)
        kept = sorted((r for r in found if r.pool in order and (wanted is None or r.key in wanted)
                       and not r.expired(now)), key=lambda r: (order[r.pool], r.key, r.version, r.address))
        return {'pools': names, 'reservations': [self.reservation(r, by_name[r.pool]) for r in kept]}

    def info(self, namespace, pool, owner, key, address, history, map):
        """What ``info``'s filters select (``Service.info``): the pools, the reservations held and, with
        ``history``, the history entries."""
        _checks.check_name(namespace, 'namespace')
        wanted = _checks.address(address) if address is not None else None
        with self.store.transaction(write=False):
            pools = self.store.list_pools(namespace)
            by_name = dict((p.name, p) for p in pools)
            if pool is not None:
                if pool not in by_name:
                    raise pool_not_found(pool, namespace, by_name)
                shown = [by_name[pool]]
            else:
                shown = pools
            result = {'changed': False, 'pools': []}
            tree = Tree(pools)
            for p in shown:
                result['pools'].append(self.pool(p, tree, with_map=map))
            if wanted is None:
                reservations = self.store.find_reservations(namespace, pool, owner, key)
            else:       # one indexed look-up, whatever the namespace holds
                holder = self.store.holder(namespace, *wanted)
                reservations = [holder] if holder is not None and all(
                    want is None or want == have
                    for want, have in ((pool, holder.pool), (owner, holder.owner), (key, holder.key))) else []
            now = self.stamp()         # an expired lease is not held: the next allocation releases it
            result['reservations'] = [self.reservation(r, by_name.get(r.pool)) for r in reservations
                                      if not r.expired(now)]
            if history:
                result['history'] = self.store.find_history(
                    namespace, pool, owner, iv.to_str(*wanted) if wanted else None)
        return result
