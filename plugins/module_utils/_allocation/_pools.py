# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The pool and range operations of the service (docs/design.md#pools-and-ranges, #trees): a part of ``_service.Service``.

This is a private module: it may change at any time.

``PoolOperations`` is the base of ``Service`` and uses what ``Service`` keeps: the store, ``results``, and its
steps ``stamp``, ``record_history``, ``existing_pool``, ``tree`` and ``release_reservation``. As there, each public
method is one all-or-nothing transaction. Subnet arithmetic is ``_reshape``'s.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks, _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _reshape
from ansible_collections.netpool.ipam.plugins.module_utils._space import _tree
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument, PoolInUse
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._requests import PoolRequest


class PoolOperations(object):
    """Create, change and delete pools and their ranges (``Service.pool``, ``Service.range``)."""

    # -- pools (docs/design.md#pools-and-ranges, #trees) ------------------------------------------
    def pool(self, name, **options):
        """Create, change or delete a pool: ``name`` a ``PoolRequest`` (what every entry point hands), or the pool's
        name with the request's other fields as keywords (``namespace``, ``state``, ``subnets``, ``parent`` ...)."""
        request = PoolRequest.of(name, options, 'name').checked()
        name, namespace, state, subnets, parent = (request.name, request.namespace, request.state, request.subnets,
                                                   request.parent)
        force, ranges = request.force, request.ranges
        with self.store.transaction(commit=not request.check):
            self.store.lock_namespace(namespace)
            old = self.store.get_pool(namespace, name)
            if state == 'absent':
                return self._delete_pool(old, force)
            if old is None and parent is None and subnets is None:
                raise InvalidArgument("Pool '%s' does not exist in namespace '%s': give subnets (or cidr) to "
                                      "create it, or parent and prefix_length (or ranges) to make it a child of "
                                      "another pool." % (name, namespace))
            now = self.stamp()
            new = Pool(namespace, name, created_at=now) if old is None else old.copy()
            for field, value in (('strategy', request.strategy), ('reuse_delay', request.reuse_delay),
                                 ('description', request.description), ('metadata', request.metadata)):
                if value is not None:
                    setattr(new, field, value)
            if parent is not None and ranges is not None:
                _reshape.hold_ranges(old, new, self.existing_pool(namespace, parent), ranges, force)
            elif parent is not None:
                _reshape.carve(self.store, old, new, parent, request.prefix_length, self.existing_pool)
            elif subnets is not None:
                if old is not None and old.parent is not None:
                    raise InvalidArgument("Pool '%s' is a child of '%s': its subnet is carved, not given."
                                          % (name, old.parent))
                sources = _reshape.sources(name, subnets, old.subnets if old else [], force)
                new.subnets = [_reshape.subnet(spec, source, force) for spec, source in zip(subnets, sources)]
            if old is not None and new.to_data() == old.to_data():
                return self.results.pool_result(False, old, new, released=[])
            new.updated_at = now
            return self._save_shape(old, new, force, 'pool', 'create' if old is None else 'update')

    def _save_shape(self, old, new, force, obj, action):
        """Save ``new`` (``old`` changed; None: created) and what its shape derives. Only a new shape (subnets,
        ranges, exclusions) is checked (``_reshape.check_shape``) and rebuilds free spans (its own, its parent's,
        those below it): a description, metadata, strategy or reuse_delay change is one write."""
        namespace = new.namespace
        tree = self.tree(namespace)
        children = tree.children(new)
        released, moved = [], []
        reshaped = old is None or [s.to_data() for s in old.subnets] != [s.to_data() for s in new.subnets]
        if reshaped:
            _reshape.check_shape(self.store, self.stamp(), old, new, tree)
            released = self._release_outside(old, new, children, force)
            moved = _reshape.follow(new, children)
        for saved in [new] + [rehomed for _child, rehomed in moved]:
            self.store.save_pool(saved)
        if reshaped:
            self.store.free_space().rebuild(new)
            if new.parent is not None:
                self.store.free_space().rebuild(self.store.get_pool(namespace, new.parent))
            self._rebuild_below(tree, new)
        self.record_history(obj, action, namespace, new.name, old=old.to_data() if old else None, new=new.to_data())
        for child, rehomed in moved:
            self.record_history('pool', 'update', namespace, child.name, old=child.to_data(), new=rehomed.to_data())
        return self.results.pool_result(True, old, new, self.tree(namespace) if moved else tree, released)

    def _rebuild_below(self, tree, pool):
        """Rebuild the free space of every pool below ``pool``, whose shape just changed: what it withholds
        (gateway, exclusions, network and broadcast addresses) holds in them at once (``_tree``)."""
        for below in tree.descendants(pool):
            self.store.free_space().rebuild(self.store.get_pool(below.namespace, below.name))     # as saved now

    def _release_outside(self, old, new, children, force):
        """What the new subnets leave outside (``_reshape.outside``), released, as reservation dicts."""
        if old is None:
            return []
        outside = _reshape.outside(self.store, new, children, force)
        released = [self.results.reservation(r, old) for r in outside]
        for r in outside:
            self.release_reservation(r, None)      # outside every subnet: nothing to give back
        return released

    def _delete_pool(self, pool, force):
        """Delete the pool (and, with force, its child pools and every reservation of both).

        A child's addresses still resting under its reuse delay rest on in its parent until their time (docs/design.md
        #trees), and so do the addresses of the reservations force releases with it, for the child's delay: its
        prefix goes back to the parent, not its recent holders' addresses.

        A pool without a parent leaves its resting addresses (and, under its reuse delay, those of the
        reservations force releases with it) resting in the namespace, under its name, until their time: a pool
        created again with that name (``terraform destroy`` then ``apply`` of a configuration that holds the
        pool) starts with them, so its owners get their addresses back and nobody else takes them meanwhile."""
        if pool is None:
            return self.results.deleted(None, [])
        children = self.tree(pool.namespace).children(pool)
        reservations = self.store.find_reservations(pool.namespace, pool.name)
        if (children or reservations) and not force:
            raise PoolInUse("Pool '%s' still has %d reservation(s) and %d child pool(s)%s. Release them first, "
                            "or set force: true to delete them with the pool."
                            % (pool.name, len(reservations), len(children),
                               (' (%s)' % ', '.join(c.name for c in children)) if children else ''),
                            addresses=[r.address_str for r in reservations], pools=[c.name for c in children])
        released = []
        for child in children:
            released += self._delete_pool(child, force)['released']
        released += [self.results.reservation(r, pool) for r in reservations]
        parent = self.store.get_pool(pool.namespace, pool.parent) if pool.parent is not None else None
        free, now = self.store.free_space(), self.stamp()
        resting = []
        if parent is None:
            free.end_rests(pool, now)       # the rests that are over end with the pool
        else:
            resting = [(v, n, until) for v, n, until in free.resting(pool) if until > now]
            rest_end = pool.rest_end(self.stamp)
            if rest_end is not None:
                resting += [(r.version, r.address, rest_end) for r in reservations]
        for r in reservations:      # the pool goes: nothing to give back to it, but a rest outlives it
            self.release_reservation(r, pool if parent is None and pool.reuse_delay else None)
        self.store.delete_pool(pool.namespace, pool.name, keep_resting=parent is None)
        self.record_history('pool', 'delete', pool.namespace, pool.name, old=pool.to_data())
        if parent is not None:
            already = set((v, n) for v, n, _until in free.resting(parent))
            for v, n, until in resting:
                if (v, n) not in already:
                    free.give_back(parent, v, n, until)
            free.rebuild(parent)
        return self.results.deleted(pool, released)

    # -- ranges (docs/design.md#pools-and-ranges) -----------------------------------------------
    def range(self, pool, ranges, namespace='default', kind='allocatable', state='present', force=False,
              check=False):
        specs = _checks.range_arguments(namespace, pool, ranges, kind, state)
        with self.store.transaction(commit=not check):
            # a child by ranges' ranges are what it holds: their edit is its resize, under ``pool``'s lock
            probe = self.store.get_pool(namespace, pool) if kind == 'allocatable' else None
            if probe is not None and probe.by_ranges:
                self.store.lock_namespace(namespace)
            else:
                _tree.lock(self.store, namespace, pool)
            old = self.existing_pool(namespace, pool)
            shape = old.by_ranges and kind == 'allocatable'
            if shape and not probe.by_ranges:       # made a child by ranges meanwhile
                self.store.lock_namespace(namespace)
            new = _reshape.edit_ranges(old, specs, kind, state, force)
            if new.to_data() == old.to_data():
                return self.results.pool_result(False, old, old)
            new.updated_at = self.stamp()
            if shape:
                _reshape.hold_ranges(old, new, self.existing_pool(namespace, old.parent),
                                     [iv.format_span(*span) for span in _tree.footprint(new)], force=True)
                return self._save_shape(old, new, force, 'range', 'add' if state == 'present' else 'remove')
            self.store.save_pool(new)
            self.store.free_space().rebuild(new)
            self._rebuild_below(self.tree(namespace), new)
            self.record_history('range', 'add' if state == 'present' else 'remove', namespace, pool,
                                old=old.to_data(), new=new.to_data())
            return self.results.pool_result(True, old, new)
