# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Free space kept as spans: the one implementation for the stores that keep free spans.

This is a private module: it may change at any time.

``Spans`` serves every ``SpanStore`` (SQLite, PostgreSQL, and the JSON store in memory), written once over their
span primitives. It knows no allocation rule: those stay in ``_service``. A span store keeps a cache of the
derived free space (``_derive``), updated address by address.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._space._tree import Tree
from ansible_collections.netpool.ipam.plugins.module_utils._space._derive import expected
from ansible_collections.netpool.ipam.plugins.module_utils._space._interface import FreeSpace


#: draws of the 'random' strategy that may miss before it picks among the free spans (a nearly full subnet)
RANDOM_TRIES = 32


def _top(version):
    return (1 << (32 if version == 4 else 128)) - 1


class Spans(FreeSpace):
    """Free space kept as spans per pool by a ``SpanStore`` (its nine span primitives), and the addresses
    resting under a reuse delay. The next free address is one indexed look-up, whatever the number of held
    addresses; 'random' draws from what the subnet may hand out and checks the draw against the
    span index, so an IPv6 /64 is never enumerated."""

    def allocate(self, pool, subnet, reservation, rng):
        if pool.strategy == 'random':
            n = self._draw(pool, subnet, rng)
            span = None
        else:
            span = self.store.free_first(pool.namespace, pool.name, subnet.version, subnet.first, subnet.last)
            n = span[1] if span else None
        if n is not None:
            self._take(pool, subnet.version, n, span)
        return n

    def take(self, pool, version, n):
        others = self._others_holding(pool, version, n)
        for member in [pool] + others:
            self.store.remove_released(pool.namespace, member.name, version, n)
        if not self._take(pool, version, n):     # a forced address of a parent may be free in its child
            for other in others:
                self._take(other, version, n)

    def give_back(self, pool, version, n, until=None):
        if until is not None:
            self.store.add_released(pool.namespace, pool.name, version, n, until)
        elif not self._give(pool, version, n):   # to the pool of the tree that allocates it
            for other in self._others_holding(pool, version, n):
                if self._give(other, version, n):
                    return

    def end_rests(self, pool, now):
        for v, n, _until in self.store.released(pool.namespace, pool.name, due=now):
            self.store.remove_released(pool.namespace, pool.name, v, n)
            self.give_back(pool, v, n)

    def rebuild(self, pool):
        self.store.clear_free(pool.namespace, pool.name)
        self.store.add_free(pool.namespace, pool.name, expected(self.store, pool))

    def spans(self, pool, version=None, lo=None, hi=None):
        ns, name = pool.namespace, pool.name
        if lo is None and hi is None:
            return self.store.free_spans(ns, name, version)
        if version is None:
            raise ValueError('spans: lo and hi bound the addresses of one version: give version too')
        lo = 0 if lo is None else lo
        hi = _top(version) if hi is None else hi
        found = self.store.free_spans(ns, name, version, lo, hi)
        covering = self.store.free_at(ns, name, version, lo)
        if covering is not None and covering[1] < lo:       # the span that starts before lo and reaches it
            found = [covering] + found
        return [(v, max(a, lo), min(b, hi)) for v, a, b in found]

    def resting(self, pool, due=None):
        return self.store.released(pool.namespace, pool.name, due)

    def rests(self, pool, version, n):
        found = self.store.released(pool.namespace, pool.name, address=(version, n))
        return found[0][2] if found else None

    # -- the spans, address by address ------------------------------------
    def _allocatable(self, pool, subnet):
        """What ``subnet`` of ``pool`` may hand out: its ranges less exclusions, gateway, child pools and what
        an ancestor withholds (``_tree``)."""
        return Tree.of(self.store, pool.namespace).allocatable(pool, subnet)

    def _others_holding(self, pool, version, n):
        """The other pools of ``pool``'s tree with ``n`` in a subnet (pools of a namespace overlap only
        there)."""
        return [p for p in Tree.of(self.store, pool.namespace).related(pool)
                if p.name != pool.name and p.subnet_of(version, n) is not None]

    def _take(self, pool, version, n, span=None):
        """Take ``n`` out of the pool's free spans (``span``: the one holding it, when known); True if it was
        free there."""
        if span is None:
            span = self.store.free_at(pool.namespace, pool.name, version, n)
        if span is None:
            return False
        _v, first, last = span
        self.store.replace_free(pool.namespace, pool.name, [span],
                                [(version, a, b) for a, b in ((first, n - 1), (n + 1, last)) if a <= b])
        return True

    def _give(self, pool, version, n):
        """Return an address to the pool's free spans, merged with its neighbours, if it is allocatable
        there (True).

        An address that another reservation holds meanwhile (a forced address of the family, taken while
        this one waited out its reuse delay) is not free: it is not given back, anywhere."""
        subnet = pool.subnet_of(version, n)
        if subnet is None or not iv.contains(self._allocatable(pool, subnet), n):
            return False
        ns, name = pool.namespace, pool.name
        if self.store.holder(ns, version, n) is not None or self.store.free_at(ns, name, version, n):
            return True
        first = last = n
        merged = []
        if n > subnet.first:
            left = self.store.free_at(ns, name, version, n - 1)
            if left:
                merged.append(left)
                first = left[1]
        if n < subnet.last:
            right = self.store.free_at(ns, name, version, n + 1)
            if right:
                merged.append(right)
                last = right[2]
        self.store.replace_free(ns, name, merged, [(version, first, last)])
        return True

    def _draw(self, pool, subnet, rng):
        """Uniform over the subnet's free addresses without listing them while the subnet is sparse: draw
        from what it may hand out until a draw is free; once draws keep missing (a nearly full subnet), pick
        among the free spans."""
        allocatable = self._allocatable(pool, subnet)
        total = iv.count(allocatable)
        for _try in range(RANDOM_TRIES if total else 0):
            n = iv.nth(allocatable, rng.randrange(total))
            if self.store.free_at(pool.namespace, pool.name, subnet.version, n):
                return n
        spans = [(a, b) for _v, a, b in self.spans(pool, subnet.version, subnet.first, subnet.last)]
        free = iv.count(spans)
        return iv.nth(spans, rng.randrange(free)) if free else None
