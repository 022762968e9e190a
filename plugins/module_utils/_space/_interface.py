# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The free-space interface: what every store's free-space component answers.

This is a private module: it may change at any time. ``Store.free_space()`` returns one; ``_spans.Spans`` is the
implementation for the stores that keep free spans, NetBox brings its own (``_stores._netbox._freespace``).
"""

import abc


class FreeSpace(abc.ABC):
    """How one store finds and keeps the free addresses of its pools. Called inside the store's
    transactions, under the service's locks; it knows no allocation rule."""

    def __init__(self, store):
        self.store = store

    @abc.abstractmethod
    def allocate(self, pool, subnet, reservation, rng):
        """Find a free address of ``subnet`` (one of ``pool``'s) by ``pool.strategy`` (rng: a random.Random for
        'random') and take it for ``reservation`` (a Reservation complete but for version/address: namespace,
        pool, owner, key, metadata, expires_at, created_at/updated_at already set) in one step. Returns the
        address (int) or None when the subnet has none free. The caller then sets reservation.version/.address and
        calls store.save_reservation(reservation)."""

    def allocate_many(self, pool, subnet, reservations, rng):
        """``allocate`` for each of ``reservations`` in list order, as long as ``subnet`` has free addresses: the
        addresses found, one per reservation from the first (fewer than the reservations when the subnet runs out).
        A store that can allocate many at once (NetBox) overrides this."""
        found = []
        for r in reservations:
            n = self.allocate(pool, subnet, r, rng)
            if n is None:
                break
            found.append(n)
        return found

    @abc.abstractmethod
    def take(self, pool, version, n):
        """A requested (static/forced) address leaves free space: out of the pool's free spans or, for a forced
        address of a parent that lies in a child, the pool of the tree that holds it free; and it stops resting
        under a reuse delay in every pool of the tree."""

    @abc.abstractmethod
    def give_back(self, pool, version, n, until=None):
        """An address ``pool`` held is free again: now (``until`` None: back to the pool of the tree that
        allocates it, unless another reservation holds it meanwhile) or, resting under the reuse delay, once
        ``until`` (an ISO time string) has passed."""

    @abc.abstractmethod
    def end_rests(self, pool, now):
        """End the rests of ``pool`` that are over at ``now``: give those addresses back."""

    @abc.abstractmethod
    def rebuild(self, pool):
        """Derive the pool's free space again from what it derives from (after a change of shape, a repair)."""

    @abc.abstractmethod
    def spans(self, pool, version=None, lo=None, hi=None):
        """The pool's free spans (version, first, last), sorted; with lo/hi those that overlap [lo, hi], clipped
        to it."""

    def unmanaged(self, pool):
        """(version, address) of the addresses the store holds where the pool hands out that are not this
        collection's (no reservation, no rest of its own), sorted: made outside it, by hand or by another tool, in
        a store other tools share (NetBox). They are not handed out, and no rebuild of free space changes them.
        A store that only this collection writes has none."""
        return []

    @abc.abstractmethod
    def resting(self, pool, due=None):
        """(version, address, until) resting in the pool, sorted; with ``due``, those with until <= due."""

    def rests(self, pool, version, n):
        """Until when ``n`` rests in the pool under its reuse delay (an ISO time string), or None: one address
        asked for (the owner that left it may come back for it). A store that can ask for one address at once
        overrides this look-up through every rest of the pool."""
        return next((until for v, m, until in self.resting(pool) if (v, m) == (version, n)), None)

    def count(self, pool, version, lo, hi):
        """How many addresses of [lo, hi] are free in the pool: the sizes of ``spans(pool, version, lo, hi)``."""
        return sum(last - first + 1 for _v, first, last in self.spans(pool, version, lo, hi))
