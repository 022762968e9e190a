# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The pool tree: parent and child pools, and what an ancestor withholds from the pools below it.

This is a private module: it may change at any time.

Everything here is derived from the pools alone (their ``parent`` and subnets), never stored: a child keeps
no copy of what its parent withholds, so a gateway or exclusion the parent gets later holds in every pool
below it at once. The parent/child walk is written here once (``lineage``); ``Tree`` answers the rest over
the pools of one namespace:

- ``parent``, ``ancestors``, ``root``, ``children``, ``descendants``, ``related`` (the root and every pool
  below it: the pools one address of the tree may concern);
- ``carved(pool, subnet)``: the spans of ``subnet`` given to the pool's child pools (each child's
  ``footprint``: a carved child's subnet whole, a child by ranges its ranges);
- ``withheld(pool, subnet)``: the spans of ``subnet`` an ancestor withholds: the gateway, the network and
  broadcast (IPv6: subnet-router) addresses and the exclusions of every ancestor's subnets
  (``Subnet.withheld``);
- ``allocatable(pool, subnet)``: what dynamic allocation may hand out there: the subnet's ranges less its
  own exclusions and gateway, less ``carved`` and ``withheld``;
- ``excluded(pool, subnet, n)``: whether a static request of ``n`` needs ``force``.

Two functions answer for one pool without the tree: ``footprint(pool)``, the spans a pool takes in its namespace
(what overlap checks compare), and ``source_subnet(pool, subnet, get)``, the subnet whose gateway and dns hold in
a child by ranges (its parent's, read when a result is shaped).

Addresses resting under a reuse delay are store state, not shape: the free-space derivation
(``_space._derive.derive``) counts an address resting in any pool of the namespace as free in none, which
covers the ancestors' resting addresses. Every answer is spans, never a list of addresses: an IPv6 /64
is never enumerated.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv


def lineage(pool, get):
    """The pools ``pool`` descends from, nearest first. ``get(name)`` returns a pool or None; a parent that
    does not exist, or a cycle (a damaged store), ends the chain."""
    found, seen = [], set([pool.name])
    name = pool.parent
    while name is not None and name not in seen:
        parent = get(name)
        if parent is None:
            break
        found.append(parent)
        seen.add(name)
        name = parent.parent
    return found


def footprint(pool):
    """The spans ``pool`` takes in its namespace, sorted ``(version, first, last)``: its subnets whole, or for a
    child by ranges exactly its ranges, which lie on its parent's cidrs. Pools of a namespace overlap
    only where one descends from the other, and a child's footprint lies inside its parent's."""
    if pool.by_ranges:
        return sorted((s.version, a, b) for s in pool.subnets for a, b in s.ranges)
    return sorted((s.version, s.first, s.last) for s in pool.subnets)


def within(spans, version, first, last):
    """The parts of ``spans`` (``(version, first, last)``) of IP ``version`` inside [first, last], merged."""
    return iv.intersect(iv.merge([(a, b) for v, a, b in spans if v == version]), [(first, last)])


def source_subnet(pool, subnet, get):
    """The subnet whose gateway and dns hold for ``subnet`` of ``pool``: its own, or for a child by ranges the
    subnet of the same cidr of the nearest ancestor that is not one (derived when a result is shaped, never
    copied: a gateway the parent gets later is the child's at once). ``get(name)`` returns a pool or None."""
    seen = set([pool.name])
    while pool.by_ranges and pool.parent is not None and pool.parent not in seen:
        parent = get(pool.parent)
        theirs = next((s for s in parent.subnets if s.cidr == subnet.cidr), None) if parent is not None else None
        if theirs is None:
            break
        seen.add(parent.name)
        pool, subnet = parent, theirs
    return subnet


def root_name(pool, get):
    """The name of the top pool of ``pool``'s tree (``pool``'s own without a parent)."""
    chain = lineage(pool, get)
    return chain[-1].name if chain else pool.name


def lock(store, namespace, name):
    """Keep other writers off the pool ``name``, its parent and its child pools until the transaction ends.

    A forced address of a parent may be taken from its child's free space, a released one given back to
    either, and an expired lease of one released for the other: a tree shares one lock, its root pool's,
    found pool by pool, not by reading the whole namespace (a reservation's lock costs one look-up). (Locking
    the pools one after another could deadlock two writers on a shared store.) A tree changes shape only
    under the namespace lock (``pool``), which waits for this one; if it changed while this one waited, the
    new root is locked too."""
    def root():
        pool = store.get_pool(namespace, name)
        return name if pool is None else root_name(pool, lambda n: store.get_pool(namespace, n))

    locked, top = None, root()
    while top != locked:
        store.lock_pool(namespace, top)
        locked, top = top, root()


class Tree(object):
    """The pool tree of one namespace, over its pools (as ``Store.list_pools(namespace)`` gives them).

    A pool passed to a method need not be the one the tree holds under its name (a changed copy not yet
    saved): children are found by its name, ancestors from its ``parent``, subnets are the ones passed."""

    def __init__(self, pools):
        self.pools = dict((p.name, p) for p in pools)
        self._children = {}
        for p in sorted(pools, key=lambda p: p.name):
            if p.parent is not None and p.parent != p.name:
                self._children.setdefault(p.parent, []).append(p)

    @classmethod
    def of(cls, store, namespace):
        """The tree of ``namespace`` in ``store`` (inside a transaction)."""
        return cls(store.list_pools(namespace))

    def get(self, name):
        return self.pools.get(name)

    # -- the walk -------------------------------------------------------------------------------------
    def parent(self, pool):
        return self.pools.get(pool.parent) if pool.parent is not None else None

    def ancestors(self, pool):
        """The pools ``pool`` descends from, nearest first."""
        return lineage(pool, self.pools.get)

    def root(self, pool):
        """The top pool of ``pool``'s tree (``pool`` itself without a parent)."""
        chain = self.ancestors(pool)
        return chain[-1] if chain else pool

    def children(self, pool):
        """The pools carved from ``pool``, sorted by name."""
        return list(self._children.get(pool.name, []))

    def descendants(self, pool):
        """Every pool below ``pool``, nearest first (children, then grandchildren, ...)."""
        found, seen, todo = [], set([pool.name]), [pool]
        while todo:
            for child in self.children(todo.pop(0)):
                if child.name not in seen:
                    seen.add(child.name)
                    found.append(child)
                    todo.append(child)
        return found

    def related(self, pool):
        """The root of ``pool``'s tree and every pool below it, sorted by name."""
        top = self.root(pool)
        top = self.pools.get(top.name, top)
        return sorted([top] + self.descendants(top), key=lambda p: p.name)

    # -- what the tree means for one subnet -------------------------------------------------------------
    def carved(self, pool, subnet):
        """The spans of ``subnet`` (one of ``pool``'s) given to its child pools (their ``footprint``), merged."""
        return iv.merge([span for child in self.children(pool)
                         for span in within(footprint(child), subnet.version, subnet.first, subnet.last)])

    def withheld(self, pool, subnet):
        """The spans of ``subnet`` (one of ``pool``'s) that an ancestor withholds, merged: the gateway, the
        network and broadcast addresses and the exclusions of the ancestors' subnets."""
        spans = []
        here = [(subnet.first, subnet.last)]
        for ancestor in self.ancestors(pool):
            for theirs in ancestor.subnets:
                if theirs.overlaps(subnet):
                    spans += iv.intersect(theirs.withheld(), here)
        return iv.merge(spans)

    def allocatable(self, pool, subnet):
        """What dynamic allocation may hand out in ``subnet`` of ``pool``: its ranges less its exclusions and
        gateway, less its child pools and what an ancestor withholds."""
        return iv.subtract(subnet.allocatable(self.carved(pool, subnet)), self.withheld(pool, subnet))

    def excluded(self, pool, subnet, n):
        """True for an address of ``subnet`` a static request may take only with ``force``: excluded, the
        gateway, the network or broadcast address, in a child pool, or withheld by an ancestor."""
        return subnet.is_excluded(n) or iv.contains(self.carved(pool, subnet), n) \
            or iv.contains(self.withheld(pool, subnet), n)
