# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The operations of netpool.ipam (docs/design.md#rules-at-a-glance), written once over a ``Store``.

This is a private module: it may change at any time.

Each public method is one all-or-nothing transaction: it returns a result
dict (``changed``, ``diff`` and the objects of docs/design.md#what-tasks-return) or raises an
``IpamError``, in which case the store is exactly as it was. ``check=True``
does the same work and discards it.

The allocation rules live here (``family: dual`` in ``_dual``, what a plan predicts in ``_nextfree``), the pool
and range operations in ``_pools`` (the base of ``Service``); checks in ``_checks``, reshaping in ``_reshape``,
verify and repair in ``_verify``, reads and result shapes in ``_results``. Each store's free-space component
(``store.free_space()``) allocates, takes, gives back, ends reuse delays and rebuilds, and knows no rule: the
service decides what is taken and given back, and when.
"""

import random
import time

from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _align, _dual, _nextfree, _owners, _probe
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks, _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._space import _tree
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance import _verify
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    AddressExcluded, AddressInUse, AddressOutOfPool, DamagedRow, InvalidArgument, PoolExhausted, pool_not_found)
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Reservation
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._requests import InfoRequest, ReservationRequest
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._pools import PoolOperations
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._results import Results


class Service(PoolOperations):
    """docs/design.md#rules-at-a-glance over one store. ``clock`` returns epoch seconds (tests move it). The pool and range operations
    are ``_pools.PoolOperations``'s."""

    def __init__(self, store, clock=time.time, rng=None):
        self.store = store
        self.clock = clock
        self.rng = rng or random.SystemRandom()
        self.results = Results(store, self.stamp)

    # -- helpers --------------------------------------------------------
    #: ``(epoch second, its ISO text)`` of the last stamp made
    _stamped = (None, None)

    def stamp(self, offset=0):
        second = int(self.clock()) + offset
        if self._stamped[0] != second:
            self._stamped = (second, time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(second)))
        return self._stamped[1]

    def record_history(self, obj, action, namespace, pool=None, old=None, new=None, reservation=None):
        entry = {'time': self.stamp(), 'namespace': namespace, 'pool': pool, 'object': obj, 'action': action,
                 'owner': None, 'key': None, 'address': None, 'old': old, 'new': new}
        if reservation is not None:
            entry.update(owner=reservation.owner, key=reservation.key, address=reservation.address_str)
        self.store.add_history(entry)

    def existing_pool(self, namespace, name):
        pool = self.store.get_pool(namespace, name)
        if pool is None:
            raise pool_not_found(name, namespace, [p.name for p in self.store.list_pools(namespace)],
                                 ' Create it with netpool.ipam.pool first.')
        return pool

    def tree(self, namespace):
        return _tree.Tree.of(self.store, namespace)

    # -- releasing --------------------------------------------------------
    def _free(self, pool, version, n):
        """Free an address the pool held: give it back now, or once the pool's reuse delay is over."""
        self.store.free_space().give_back(pool, version, n, pool.rest_end(self.stamp))

    def release_reservation(self, r, pool, action='release'):
        self.store.delete_reservation(r)
        if pool is not None:
            self._free(pool, r.version, r.address)
        self.record_history('reservation', action, r.namespace, r.pool, old=r.to_data(), reservation=r)

    def _expire(self, pool):
        """Release the expired leases and end the reuse delays that are over, in every pool of ``pool``'s
        tree (docs/design.md#release, #leases-and-ttls): an address of a parent may lie in its child, so what the child hands out
        depends on the parent's leases and delays too. The caller holds the tree's lock (``_tree.lock``). Whether a
        lease was released."""
        now = self.stamp()
        free = self.store.free_space()
        expired = False
        for member in self.tree(pool.namespace).related(pool):
            for r in self.store.find_reservations(member.namespace, member.name, expires_before=now):
                self.release_reservation(r, member, 'expire')
                expired = True
            free.end_rests(member, now)
        return expired

    # -- reservations (docs/design.md#reservations) --------------------------
    def reserve(self, pool, owner=None, **options):
        """One owner's reservation; with ``family: dual`` one of each family (``reservation``, ``reservation6``);
        with ``align_with``, at the address aligned with the owner's in that pool (``_align``); with ``owners``, a
        batch (``reserve_owners``).

        ``pool`` is a ``ReservationRequest`` (what every entry point hands), or the pool's name with ``owner`` and
        the request's other fields as keywords (``key``, ``namespace``, ``address``, ``family``, ``metadata``,
        ``ttl``, ``force``, ``reassign``, ``check``, ``align_with``, ``planned``, ``probe``).

        ``planned``: ``address`` is one that ``free_addresses`` gave a plan (the Terraform provider plans a new
        reservation's address, then reserves exactly that one). It is taken as dynamic allocation would take it,
        recorded ``static: false``, and only while dynamic allocation may still hand it out: held by another
        reservation is ``address_in_use`` naming the holder; excluded, resting or out of the ranges since is
        ``address_excluded``; an owner that holds another address already is ``invalid_argument``. Nothing is
        written then: the plan is stale, and planning again gives another address. ``probe``: ``_probe.screen``."""
        if owner is not None:
            options['owner'] = owner
        request = ReservationRequest.of(pool, options, 'pool').checked()
        probe = _probe.of(request.probe)
        if request.align_with is not None:
            found = _align.reserve(self, request)
            if request.dual:
                return self.results.dual(found, batch=request.batch)
            if request.batch:
                return self.results.batch(found)
            (changed, before, after), = found
            return {'changed': changed, 'reservation': after, 'diff': {'before': before, 'after': after}}
        if request.dual:
            found = _dual.reserve(self, request, probe)
            return _probe.into(self.results.dual(found, batch=request.batch), probe)
        found = self._reserve(request, probe)
        if request.batch:
            return _probe.into(self.results.batch(found), probe)
        (changed, before, after), = found
        return _probe.into({'changed': changed, 'reservation': after, 'diff': {'before': before, 'after': after}}, probe)

    def reserve_owners(self, pool, owners, **options):
        """``reserve`` for each of ``owners``, in list order, in one transaction (docs/design.md#what-tasks-return ``owners``).

        An element is an owner, or a dict with ``owner`` and its own ``address`` and/or ``metadata`` (which
        replace ``metadata`` for it). ``address`` names one address: with several owners it is given per
        element. The result lists ``reservations`` in the order of ``owners`` (``probe``: as ``reserve``'s)."""
        if owners is None:
            _checks.owner_requests(owners, None, None)      # says what owners must be
        return self.reserve(ReservationRequest(pool=pool, owners=owners, **options))

    def _reserve(self, request, probe=None):
        """``(changed, before, after)`` for each owner the checked ``request`` asks for, reserved in order in one
        transaction (``planned``, ``probe``: see ``reserve``)."""
        return self.reservation_task(
            request, request.reassign,
            as_rerun=lambda held: self.rerun(request.asked, held, request.ttl, request.version),
            change=lambda p, held: self.reserve_all(p, request, held,
                                                    None if request.check or request.planned else probe))

    def reservation_task(self, request, whole_namespace, as_rerun, change):
        """One reservation task (``_reserve``, ``_dual.reserve``, ``_align.reserve``) of the checked ``request``, in
        the store's ``reservation_transaction``: ``as_rerun(held)`` is the task's results when the owners hold what
        they ask for already (a rerun, which only reads), else None; ``change(pool, held)`` is the task's results
        once it has changed what it must, under the pool tree's lock (the namespace's with ``whole_namespace``: two
        pools may change) after the leases that ran out are released. ``held``: what the owners hold under the
        request's key (``Store.get_reservations``)."""
        namespace, pool, owners, key = request.namespace, request.pool, request.owners_asked, request.key
        if not owners:
            return []

        def under_lock():
            if whole_namespace:    # two pools may change: take the namespace, not one pool after the other
                self.store.lock_namespace(namespace)
            else:
                _tree.lock(self.store, namespace, pool)
            p = self.existing_pool(namespace, pool)
            held = self.store.get_reservations(namespace, pool, owners, key)
            results = as_rerun(held)
            if results is not None:     # a rerun, here too: what ran out is released by the next change
                return results
            if self._expire(p):
                held = self.store.get_reservations(namespace, pool, owners, key)
            return change(p, held)

        return self.store.reservation_transaction(namespace, pool, owners, key, not request.check, as_rerun,
                                                  under_lock)

    def reserve_all(self, p, request, held, probe=None):
        """Inside ``reservation_task``'s transaction: the owners the checked ``request`` asks for (``asked``)
        reserved, statics first (``statics_first``); ``probe`` (not in check mode) screens the new dynamic
        addresses."""
        namespace, pool, requests, key, version = p.namespace, p.name, request.asked, request.key, request.version
        results = [None] * len(requests)
        order = self.statics_first(requests, held)
        currents, statics = {}, any(at is not None for _o, at, _m in requests)
        for i in order:
            owner, at, _metadata = requests[i]
            # a static address of this task may have moved or taken over one read above: read it again
            currents[i] = current = self.acted_on(
                self.store.get_reservations(namespace, pool, [owner], key).get(owner) if statics
                else held.get(owner), version if at is None else at[0])
            if at is not None:
                results[i] = self.reserve_one(p, request, requests[i], current, version)
        # the new dynamics, in list order, take their addresses at once (one request per range on NetBox)
        fresh = dict((i, self.new_reservation(p, requests[i][0], key, requests[i][2], request.ttl)) for i in order
                     if requests[i][1] is None and currents[i] is None)
        done = self.returns(p, request, fresh, version)
        self.allocate(p, [fresh[i] for i in order if i in fresh and i not in done], version, probe)
        for i in order:
            if requests[i][1] is None:
                results[i] = done[i] if i in done else self.reserve_one(p, request, requests[i], currents[i], version,
                                                                        fresh.get(i))
        return results

    def returns(self, p, request, fresh, version):
        """``{index: (changed, before, after)}`` of the new dynamic reservations ``fresh`` whose owner comes back for
        the address it left resting (``_owners.returning``): written before the others allocate (NetBox, which
        allocates for itself, must see them held). The others are left to ``allocate``."""
        done = {}
        for i, r in sorted(fresh.items()):
            found = _owners.returning(self.store, p, r.owner, request.key, version)
            if found is not None:
                self.store.free_space().take(p, *found)
                r.version, r.address = found
                done[i] = self.reserve_one(p, request, (r.owner, None, r.metadata), None, version, r, True)
        return done

    def rerun(self, requests, held, ttl, version):
        """``(False, r, r)`` for each request when every one asks for what its owner holds already (a rerun,
        which only reads); else None."""
        now, results = self.stamp(), []
        for owner, wanted, metadata in requests:
            current = self.acted_on(held.get(owner), version if wanted is None else wanted[0])
            if current is None or ttl is not None or (metadata is not None and metadata != current.metadata) \
                    or (current.expires_at is not None and current.expires_at <= now) \
                    or (wanted is not None and wanted != (current.version, current.address)) \
                    or (version is not None and version != current.version):
                return None
            r = self.results.reservation(current)
            results.append((False, r, r))
        return results

    @staticmethod
    def acted_on(held, version):
        """Of the reservations ``held`` by one owner and key (IPv4 first; two after ``family: dual``), the one a
        request of family ``version`` acts on: the one of that family; else the one it holds of the other family
        (which a static request moves, docs/design.md#static-reservations, and a dynamic one refuses); with no family, the first."""
        if not held:
            return None
        return next((r for r in held if r.version == version), held[0])

    @staticmethod
    def statics_first(requests, held):
        """The order in which a batch is applied (docs/design.md#batches): the statics first, then the dynamics in list
        order. A static whose address another owner of the batch holds and leaves (a static of its own elsewhere)
        goes after that owner; otherwise statics keep their list order."""
        statics = [i for i, (_o, wanted, _m) in enumerate(requests) if wanted is not None]
        moving = dict((i, Service.acted_on(held.get(requests[i][0]), requests[i][1][0])) for i in statics)
        leaving = dict(((moving[i].version, moving[i].address), requests[i][0]) for i in statics
                       if moving[i] is not None and (moving[i].version, moving[i].address) != requests[i][1])
        order, pending = [], statics
        while pending:
            waiting = set(requests[i][0] for i in pending)
            ready = next((i for i in pending if leaving.get(requests[i][1]) not in waiting - set([requests[i][0]])),
                         pending[0])    # a cycle (two owners swapping) is left to reassign: the list order
            order.append(ready)
            pending = [i for i in pending if i != ready]
        return order + [i for i, (_o, wanted, _m) in enumerate(requests) if wanted is None]

    def new_reservation(self, p, owner, key, metadata, ttl):
        """What a new reservation is, but for its address: complete before free space is asked for one."""
        now = self.stamp()
        return Reservation(p.namespace, p.name, owner, key, None, None, metadata=metadata, created_at=now,
                           updated_at=now, expires_at=self.stamp(ttl) if ttl is not None else None)

    def allocate(self, pool, fresh, version, probe=None):
        """Give each of the new reservations ``fresh`` a free address, in list order: subnet after subnet in pool
        order, by the pool's strategy (docs/design.md#dynamic-reservations); ``pool_exhausted`` naming the first one left without (``probe``: that
        do not answer it)."""
        if not fresh:
            return
        if probe is not None:
            return _probe.screen(self, pool, fresh, version, probe)
        subnets = [s for s in pool.subnets if version is None or s.version == version]
        new = fresh[0]
        if not subnets:
            # docs/design.md#dynamic-reservations: family restricts the subnets tried; none has a free address: pool_exhausted
            raise PoolExhausted("Pool '%s' has no IPv%d subnet, so no free IPv%d address for %s/%s. Add an IPv%d "
                                "subnet to the pool, or leave family out." % (pool.name, version, version, new.owner,
                                                                              new.key, version))
        free, left = self.store.free_space(), list(fresh)
        for subnet in subnets:
            for r, n in zip(left, free.allocate_many(pool, subnet, left, self.rng)):
                r.version, r.address = subnet.version, n
            left = [r for r in left if r.address is None]
            if not left:
                return
        raise PoolExhausted("Pool '%s' has no free %saddress left for %s/%s%s. Add a range or a subnet, or release "
                            "addresses." % (pool.name, 'IPv%d ' % version if version else '', left[0].owner,
                                            left[0].key, ' (and %d more owners)' % (len(left) - 1)
                                            if len(left) > 1 else ''))

    def reserve_one(self, p, request, asked, current, version, placed=None, returned=False, note=None):
        """Inside the locked transaction: ``(changed, before, after)`` of one reservation (docs/design.md#dynamic-reservations, #static-reservations)
        of the checked ``request``: ``asked`` is ``(owner, (version, n) or None, metadata)``, ``current`` what the owner
        holds of ``version``. ``placed``: a new dynamic reservation already given its address (``allocate``),
        ``returned``: the one its owner left resting (``returns``). A new static one for the address its owner
        left resting is a return too. ``note``: what the history entry's ``new`` data carries besides the
        reservation (``align_with``); the request's ``planned``: the address asked for is one a plan took from
        ``free_addresses`` (``reserve``)."""
        owner, wanted, metadata = asked
        key, ttl = request.key, request.ttl
        namespace, pool = p.namespace, p.name
        before = self.results.reservation(current, p) if current else {}
        now = self.stamp()
        expires_at = self.stamp(ttl) if ttl is not None else None
        fresh = placed or self.new_reservation(p, owner, key, metadata, ttl)
        if wanted is None:
            r, predicted = self._reserve_dynamic(p, current, fresh, version)
        else:
            returned = current is None and _owners.returning(self.store, p, owner, key, wanted[0]) == wanted
            r, predicted = self._reserve_static(p, current, fresh, wanted, request.force, request.reassign,
                                                request.planned, returned)
        if current is not None:
            if metadata is not None:
                r.metadata = metadata
            if ttl is not None:
                r.expires_at = expires_at
            if r.to_data() == current.to_data():
                return False, before, before
            r.updated_at = now
        self.store.save_reservation(r)
        if current is None:
            action = 'return' if returned else 'reserve'
        elif current.address != r.address or current.version != r.version:
            action = 'move'
        elif current.expires_at != r.expires_at:
            action = 'renew'
        else:
            action = 'update'
        self.record_history('reservation', action, namespace, pool, old=current.to_data() if current else None,
                            new=dict(r.to_data(), **note) if note else r.to_data(), reservation=r)
        after = self.results.reservation(r, p)
        if predicted and request.check:
            after['predicted'] = True
        return True, before, after

    def _reserve_dynamic(self, pool, current, fresh, version):
        """A new reservation (``fresh`` completed with an address) or ``current``."""
        owner, key = fresh.owner, fresh.key
        if current is not None:
            if version is not None and current.version != version:
                raise InvalidArgument("%s/%s already holds %s in pool '%s', not an IPv%d address. Give family: dual to "
                                      "hold one address of each family under this key, or use another key for each "
                                      "family." % (owner, key, current.address_str, pool.name, version))
            return current.copy(), False
        r = fresh.copy()
        if r.address is None:
            self.allocate(pool, [r], version)
        return r, True

    def _reserve_static(self, pool, current, fresh, wanted, force, reassign, planned=False, returned=False):
        """``current`` moved to ``wanted``, or a new reservation (``fresh`` completed with it); ``planned``: a
        dynamic reservation of the address a plan took (``reserve``); ``returned``: ``wanted`` is the address
        its owner left resting and gets back (a plan may take it: ``_nextfree.returning``)."""
        owner, key = fresh.owner, fresh.key
        version, n = wanted
        text = iv.to_str(version, n)
        if current is not None and (current.version, current.address) == wanted:
            return current.copy(), False
        if planned and current is not None:
            raise InvalidArgument("%s/%s holds %s in pool '%s' already: %s was planned for it while it held none. "
                                  "Plan again." % (owner, key, current.address_str, pool.name, text))
        subnet = pool.subnet_of(version, n)
        if subnet is None:      # a child by ranges holds its ranges only
            raise AddressOutOfPool("%s is not in any %s of pool '%s' (%s)." % (
                text, 'range' if pool.by_ranges else 'subnet', pool.name, ', '.join(
                    [iv.format_span(*span) for span in _tree.footprint(pool)] if pool.by_ranges
                    else [s.cidr for s in pool.subnets])))
        # A holder in another pool is in this pool's tree (pools of a namespace overlap only there), whose
        # lock is held already (or the namespace's, with reassign).
        holder = self.store.holder(pool.namespace, version, n)
        if holder is not None and holder.expired(self.stamp()):
            self.release_reservation(holder, self.store.get_pool(holder.namespace, holder.pool), 'expire')
            holder = None
        if holder is not None and planned:
            raise AddressInUse("%s, planned for %s/%s/%s, is held by owner '%s' key '%s' in pool '%s' since it was "
                               "planned." % (text, pool.name, owner, key, holder.owner, holder.key, holder.pool),
                               holder={'pool': holder.pool, 'owner': holder.owner, 'key': holder.key})
        if holder is not None and not reassign:
            raise AddressInUse("%s is already held by owner '%s' key '%s' in pool '%s'. Choose another address, "
                               "release it first, or set reassign: true to take it over."
                               % (text, holder.owner, holder.key, holder.pool),
                               holder={'pool': holder.pool, 'owner': holder.owner, 'key': holder.key})
        if planned and holder is None and not returned and not self.store.free_space().spans(pool, version, n, n):
            raise AddressExcluded("%s is no longer free in pool '%s' for dynamic allocation (an exclusion, a change "
                                  "of ranges or a reuse delay since it was planned). Plan again." % (text, pool.name))
        if not force and self.tree(pool.namespace).excluded(pool, subnet, n):
            raise AddressExcluded("%s is excluded from pool '%s' (an exclusion, the gateway, the network or "
                                  "broadcast address, a child pool, or one of those of a pool it is carved from). "
                                  "Set force: true to reserve it anyway." % (text, pool.name))
        if holder is not None:
            self.store.delete_reservation(holder)
            self.record_history('reservation', 'reassign', holder.namespace, holder.pool, old=holder.to_data(),
                                new={'owner': owner, 'key': key, 'pool': pool.name}, reservation=holder)
        self.store.free_space().take(pool, version, n)
        if current is not None:
            self.store.delete_reservation(current)
            self._free(pool, current.version, current.address)
        r = (current if current is not None else fresh).copy()
        r.version, r.address, r.static = version, n, not planned
        return r, False

    def release(self, namespace='default', pool=None, owner=None, key=None, keep_owners=None, check=False,
                owners=None, family=None):
        """Release what ``owner`` holds (one key, one pool, or the namespace), what each of ``owners`` holds
        (in list order, one transaction), or, with ``keep_owners``, what every other owner of ``pool`` holds;
        with ``family`` ipv4 or ipv6, only the reservations of that family (``dual`` or none: of both)."""
        owners = _checks.release_arguments(namespace, pool, owner, owners, key, keep_owners)
        version = _checks.family(family, dual=True)
        version = None if version == _checks.DUAL else version
        keep = set(keep_owners) if keep_owners is not None else None
        with self.store.transaction(commit=not check):
            if pool is not None:
                _tree.lock(self.store, namespace, pool)
            else:
                # an owner's reservations across the namespace: keep every pool of it still meanwhile
                self.store.lock_namespace(namespace)
            if keep_owners is not None:
                targets = [r for r in self.store.find_reservations(namespace, pool, version=version)
                           if r.owner not in keep]
            else:
                targets = [r for owner in owners for r in self.store.find_reservations(namespace, pool, owner, key,
                                                                                       version=version)]
            pools, released = {}, []
            for r in targets:
                if r.pool not in pools:
                    pools[r.pool] = self.store.get_pool(namespace, r.pool)
                released.append(self.results.reservation(r, pools[r.pool]))
                self.release_reservation(r, pools[r.pool])
            return self.results.released(released)

    # -- reading --------------------------------------------------------
    def get(self, pool, owner, key='default', namespace='default', family=None):
        """The reservation dict (of ``family`` ipv4 or ipv6, if given), or None (the lookup without allocate):
        ``Results.get``."""
        return self.results.get(pool, owner, key, namespace, self.existing_pool, _checks.family(family))

    def free_addresses(self, pool, namespace='default', family=None, count=1, skip=(), at=None):
        """Up to ``count`` addresses a dynamic reservation in ``pool`` may take now, read only: what a plan
        predicts (``_nextfree.free_addresses``)."""
        return _nextfree.free_addresses(self, pool, namespace, family, count, skip, at)

    def returning(self, pool, owner, key='default', namespace='default', family=None, replacing=False):
        """The address ``owner`` would get back in ``pool``, read only (``_nextfree.returning``), or None."""
        return _nextfree.returning(self, pool, owner, key, namespace, family, replacing)

    def reservations(self, namespace='default', pools=None, keys=None):
        """Every reservation of the namespace, for the inventory plugin (``Results.reservations``)."""
        return self.results.reservations(namespace, pools, keys)

    def verify(self, namespace=None, repair=False, check=False):
        """The store checked against the invariants of docs/design.md#stores, and with ``repair`` its derived state rebuilt
        (``_verify.verify``)."""
        if namespace is not None:
            _checks.check_name(namespace, 'namespace')
        return _verify.verify(self.store, namespace, repair, check, self.record_history)

    def info(self, namespace='default', **options):
        """What the filters select; with ``verify`` (or ``repair``) also ``verify(namespace, repair, check)``'s
        result, run after the read (the figures read are those from before a repair). A damaged row that stops
        the read (``DamagedRow``) fails a plain read; with ``verify`` it is one of the problems, and the read
        gives no pools and no reservations (after a repair that fixed it, the read is made again). ``namespace``
        is an ``InfoRequest``, or the namespace with the request's other fields as keywords (``pool``, ``owner``,
        ``key``, ``address``, ``history``, ``map``, ``verify``, ``repair``, ``check``)."""
        request = InfoRequest.of(namespace, options, 'namespace')
        read, verify, repair = request.filters, request.verify, request.repair
        try:
            result = self.results.info(*read)
        except DamagedRow:
            if not (verify or repair):
                raise
            result = None
        if verify or repair:
            checked = self.verify(request.namespace, repair=repair, check=request.check)
            if result is None:
                try:
                    result = self.results.info(*read)
                except DamagedRow:
                    result = {'changed': False, 'pools': [], 'reservations': []}
            result.update(checked)
        return result
