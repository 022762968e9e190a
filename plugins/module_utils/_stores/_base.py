# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The store interface: where pools, reservations, free space and history are kept.

This is a private module: it may change at any time.

A store knows no allocation rule: it keeps objects and answers indexed
questions ("who holds address Y", "the reservations of this owner"). Every
rule of docs/design.md#rules-at-a-glance lives once, in ``_service.Service``.

How free space is found and kept is one component behind this interface
(docs/design.md#stores, ``_freespace``): ``Store.free_space()`` returns the store's ``FreeSpace``, which
allocates an address, takes a requested one, gives one back (now or after
the pool's reuse delay), ends the rests that are over and rebuilds a
pool's free space. The stores that keep free spans (SQLite, PostgreSQL,
JSON) are ``SpanStore``s: they offer span primitives and share one
implementation of it, ``_space._spans.Spans``; a store that allocates for
itself (NetBox's available-ips) implements ``FreeSpace`` its own way.

Every method but ``transaction`` and ``close`` is called inside
``with store.transaction(...):``. A transaction that ends with an exception,
or that was opened with ``commit=False`` (check mode), leaves the store
exactly as it was. Stores whose write transactions exclude every other
writer (SQLite, JSON) need nothing in ``lock_pool``/``lock_namespace``;
a store shared by many writers (PostgreSQL) takes its row or advisory
locks there, so unrelated pools are not serialised. What a write
transaction reads before its first lock only chooses what to lock: it may
change before the lock is had, and such a store may answer it as an
earlier transaction read it; what the transaction acts on is read again
once locked. Under a lock, a store may keep what it read with the lock
for the pools that lock covers (``lock_namespace``: the namespace's;
``lock_pool``: that pool and the pools carved from it), whatever is asked
in what order.

Addresses are ``(version, int)``; a free span is ``(version, first, last)``
and never crosses a subnet of its pool. Times are ISO 8601 UTC strings of
one fixed width, so comparing strings compares times.
"""

import abc

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreAbsent, StoreUnavailable, StoreVersion


#: 4: a reservation is one per family of (namespace, pool, owner, key) (``family: dual``)
SCHEMA_VERSION = 4


def check_schema_version(version, migrations, store):
    """Refuse a version newer than this collection's (``store_version``), or one it never wrote and has no
    migration from (``store_unavailable``: below 1, or a step missing in ``migrations``). ``store`` names the
    store in messages ("JSON store PATH"); None (a new store) and the current version pass."""
    if version is None or version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise StoreVersion('The %s has schema version %d, newer than this netpool.ipam understands (%d). '
                           'Upgrade the netpool.ipam collection; the store was not touched.'
                           % (store, version, SCHEMA_VERSION))
    if version < 1 or any(v not in migrations for v in range(version, SCHEMA_VERSION)):
        raise StoreUnavailable('The %s has schema_version %d, which is not one this netpool.ipam collection wrote '
                               '(it writes %d). It was edited or damaged: restore it from version control or a '
                               'backup; the store was not touched.' % (store, version, SCHEMA_VERSION))


class Store(abc.ABC):
    """One state store. Subclasses are registered in ``_registry.STORES``."""

    #: a short name used in messages and docs
    kind = None

    #: True for a store file opened with ``create=False`` that does not exist: it reads as empty and takes
    #: any work in memory; a write transaction that would commit a change raises ``StoreAbsent`` instead
    #: (nothing is written, the file is not created). Reads, check mode and work that fails never create it.
    absent = False

    #: True once this store object made the store it names (its file, or its tables in a PostgreSQL database that had
    #: none), until that was reported (``_runner.with_service`` reports it once, naming where)
    created = False

    #: the schema version of a store older than this collection's, opened not to migrate it (a read, check mode:
    #: ``_sql_migration``), else None: it is read as today's version without being changed, and a write transaction
    #: that would commit a change raises ``StoreAbsent`` instead (the task opens it again to migrate it)
    behind = None

    def _refuse_absent(self, write, commit, changed):
        """At the end of a transaction on an absent store, or one behind: ``StoreAbsent`` if it would commit a
        change."""
        if (self.absent or self.behind) and write and commit and changed:
            if self.behind:
                raise StoreAbsent('The store %s is of schema version %d and was opened not to migrate it; nothing '
                                  'was written.' % (getattr(self, 'path', self.kind), self.behind))
            raise StoreAbsent('The store %s does not exist and was opened not to create it; nothing was '
                              'written.' % getattr(self, 'path', self.kind))

    # -- transactions ---------------------------------------------------
    @abc.abstractmethod
    def transaction(self, write=True, commit=True):
        """A context manager around one all-or-nothing unit of work.

        ``write=False`` reads a consistent snapshot. ``commit=False`` discards
        every change at the end (check mode). Waiting longer than the store's
        ``timeout`` for a lock raises ``StoreBusy``.
        """

    @abc.abstractmethod
    def lock_pool(self, namespace, name):
        """Keep other writers off this pool until the transaction ends."""

    @abc.abstractmethod
    def lock_namespace(self, namespace):
        """Keep other writers from changing the pools of this namespace until the transaction ends."""

    @abc.abstractmethod
    def close(self):
        """Release connections and file handles."""

    # -- a reservation task -----------------------------------------------
    def reservation_transaction(self, namespace, pool, owners, key, commit, as_rerun, change):
        """Run one reservation task of ``owners`` under ``key`` in ``pool`` the way that costs this store least,
        and return its results. ``change()`` is the task, run inside a write transaction of the store (``commit``
        False: check mode, nothing kept): it locks, reads, answers a rerun itself and changes what it must.
        ``as_rerun(held)`` is the task's results when the owners hold what they ask for already (``held`` as
        ``get_reservations(namespace, pool, owners, key)`` gives it), else None.

        A store may answer a rerun with ``as_rerun`` in a read transaction first, and change in a write
        transaction only when that gives None (``_rerun_read_first``: where a write transaction takes the store's
        write lock from its start); it may fetch the owners' reservations in the write transaction's first
        round trip (PostgreSQL, NetBox). Either way a rerun only reads. Here: the write transaction, at once (a
        store whose write transaction costs nothing until it locks or writes)."""
        with self.transaction(commit=commit):
            return change()

    def _rerun_read_first(self, namespace, pool, owners, key, commit, as_rerun, change):
        """``reservation_transaction`` for a store whose write transaction holds the store's write lock from its
        start (SQLite's BEGIN IMMEDIATE, JSON's lock file): a rerun is answered in a read transaction, which waits
        for no writer; ``change`` runs in a write transaction only when it is not one."""
        with self.transaction(write=False):
            results = as_rerun(self.get_reservations(namespace, pool, owners, key))
            if results is not None:
                return results
        with self.transaction(commit=commit):
            return change()

    def commit_landed(self, evidence):
        """Whether the transaction that wrote ``evidence`` is in the store: asked (by ``_retry``) only of a store
        that raised an error marked ``_retry.COMMIT`` with that evidence, after the answer to its COMMIT was
        lost. A store that never does needs no answer."""
        raise NotImplementedError('the %s store marks no lost commit' % self.kind)

    # -- pools ----------------------------------------------------------
    # A store may hand out the same Pool object again while the pool is unchanged:
    # callers treat pools as read-only and change a ``pool.copy()``.
    def get_pool(self, namespace, name):
        """The ``Pool`` or None (of ``list_pools``; a store that can look one up overrides this)."""
        return next((p for p in self.list_pools(namespace) if p.name == name), None)

    @abc.abstractmethod
    def list_pools(self, namespace=None):
        """Pools sorted by (namespace, name)."""

    @abc.abstractmethod
    def save_pool(self, pool):
        """Insert or replace the pool ``(pool.namespace, pool.name)``."""

    @abc.abstractmethod
    def delete_pool(self, namespace, name, keep_resting=False):
        """Remove the pool with its free space and resting addresses (not its reservations). With
        ``keep_resting``, its resting addresses stay, under the pool's name, until their time: a pool created
        later with that name starts with them (its ``free_space().resting``)."""

    # -- reservations ---------------------------------------------------
    def get_reservation(self, namespace, pool, owner, key, version=None):
        """The ``Reservation`` of that family (``version`` 4 or 6), or None. Without ``version``: the one
        ``(owner, key)`` holds, the IPv4 one where it holds one of each family (``family: dual``). (The first that
        ``find_reservations`` gives; a store that can look one up overrides this.)"""
        return next(iter(self.find_reservations(namespace, pool, owner, key, version)), None)

    def get_reservations(self, namespace, pool, owners, key):
        """``{owner: [Reservation, ...]}`` (one or two, IPv4 first) for those of ``owners`` that hold ``key`` in
        ``pool`` (one question for many owners; a store that can ask it at once overrides this)."""
        found = {}
        for owner in owners:
            held = [r for r in (self.get_reservation(namespace, pool, owner, key, v) for v in (4, 6)) if r is not None]
            if held:
                found[owner] = held
        return found

    def holder(self, namespace, version, address):
        """The reservation holding this address in the namespace, or None (of ``find_reservations``; a store that
        can look it up by its address overrides this)."""
        return next(iter(self.find_reservations(namespace, version=version, first=address, last=address)), None)

    @abc.abstractmethod
    def find_reservations(self, namespace=None, pool=None, owner=None, key=None, version=None,
                          first=None, last=None, expires_before=None):
        """Reservations matching every filter given, sorted by (namespace, pool, version, address).

        ``first``/``last`` bound the address (with ``version``); ``expires_before``
        keeps leased reservations whose ``expires_at`` is at or before that time.
        """

    def count_reservations(self, namespace=None, pool=None, owner=None, key=None, version=None,
                           first=None, last=None, expires_before=None):
        """How many reservations ``find_reservations`` would return for the same filters (a store that can count
        them without building them overrides this)."""
        return len(self.find_reservations(namespace, pool, owner, key, version, first, last, expires_before))

    @abc.abstractmethod
    def save_reservation(self, reservation):
        """Insert or replace the reservation by its identity (namespace, pool, owner, key, version).

        Raises ``AddressInUse`` if another reservation of the namespace holds the address:
        the last guard under the service's own check.
        """

    def adopt_reservation(self, reservation):
        """``save_reservation`` of a reservation adopted from the network as it is (``netpool.ipam.adopt``). A store
        that keeps addresses of its own outside this collection (NetBox: an IP address made by hand or by another
        tool) claims the one it keeps at that address rather than refusing it; here, ``save_reservation``."""
        self.save_reservation(reservation)

    @abc.abstractmethod
    def delete_reservation(self, reservation):
        """Remove the reservation."""

    # -- free space ----------------------------------------------------
    _free_space = None

    def free_space(self):
        """The store's ``FreeSpace`` (one per store object), the one the registry handed it (``use_free_space``)."""
        return self._free_space

    def use_free_space(self, free):
        """Take ``free`` (a ``FreeSpace`` over this store) as this store's free space: done once, by
        ``_registry.open_store``, which knows which component each kind of store has."""
        self._free_space = free

    # -- history --------------------------------------------------------
    @abc.abstractmethod
    def add_history(self, entry):
        """Append a history entry (a dict of docs/design.md#the-model fields)."""

    @abc.abstractmethod
    def find_history(self, namespace=None, pool=None, owner=None, address=None):
        """History entries, oldest first, matching every filter given."""

    @abc.abstractmethod
    def clear_history(self):
        """Forget all history (only an import that replaces a whole state does this)."""

    # -- damage ---------------------------------------------------------
    def damaged_rows(self, namespace=None):
        """The stored objects of ``namespace`` (of every namespace with None) that cannot be read, each a dict
        of ``table``, ``namespace``, ``pool``, ``row`` (what names it) and ``error``. A store that refuses a
        damaged document whole when it opens it (JSON) or reads another system's objects (NetBox) has none."""
        return []

    def namespaces(self):
        """Every namespace that holds a pool or a reservation, sorted (read even where rows are damaged)."""
        found = set(p.namespace for p in self.list_pools())
        found.update(r.namespace for r in self.find_reservations())
        return sorted(found)


class SpanStore(Store):
    """A store that keeps each pool's free space as spans, and the addresses resting under a reuse delay
    (SQLite, PostgreSQL, JSON): the registry hands it ``_space._spans.Spans``, written once over these
    primitives."""

    # -- free spans -----------------------------------------------------
    def free_first(self, namespace, pool, version, lo, hi):
        """The free span of the pool with the lowest ``first`` in [lo, hi], or None (of ``free_spans``; a store
        that can ask for the first one alone overrides this)."""
        return next(iter(self.free_spans(namespace, pool, version, lo, hi)), None)

    def free_at(self, namespace, pool, version, address):
        """The free span of the pool holding ``address``, or None (of ``free_spans``; a store that can look it up
        overrides this)."""
        below = self.free_spans(namespace, pool, version, 0, address)
        return below[-1] if below and below[-1][2] >= address else None

    @abc.abstractmethod
    def free_spans(self, namespace, pool, version=None, lo=None, hi=None):
        """The pool's free spans (all, or those starting in [lo, hi]), sorted."""

    @abc.abstractmethod
    def add_free(self, namespace, pool, spans):
        """Add ``(version, first, last)`` spans; they do not overlap existing ones."""

    @abc.abstractmethod
    def remove_free(self, namespace, pool, spans):
        """Remove these exact spans."""

    def replace_free(self, namespace, pool, old, new):
        """Remove the exact spans ``old`` and add ``new`` (a span taken from or merged with its neighbours; a store
        that can change one span in place overrides this)."""
        self.remove_free(namespace, pool, old)
        self.add_free(namespace, pool, new)

    def clear_free(self, namespace, pool):
        """Remove every free span of the pool (a store that can at once overrides this)."""
        self.remove_free(namespace, pool, self.free_spans(namespace, pool))

    # -- released addresses waiting out the pool's reuse delay ------------
    @abc.abstractmethod
    def add_released(self, namespace, pool, version, address, until):
        """Keep ``address`` out of dynamic allocation until ``until``."""

    @abc.abstractmethod
    def released(self, namespace, pool, due=None, address=None):
        """``(version, address, until)`` of the pool, sorted; with ``due``, those with until <= due; with
        ``address`` (``(version, n)``), that one address if it rests (one indexed look-up)."""

    @abc.abstractmethod
    def remove_released(self, namespace, pool, version, address):
        """Forget a released address (it is free again, or taken by a static request)."""
