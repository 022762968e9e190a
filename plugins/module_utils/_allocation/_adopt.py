# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Adopting the addresses a network already uses (``netpool.ipam.adopt``): each one a static reservation.

This is a private module: it may change at any time.

The whole task is one write transaction of the store, whatever the number of entries: the namespace is locked
(entries may fall in any of its pools), its pools and reservations are read once, every entry is sorted out in
memory, and only then is anything written. Each entry is:

- ``adopted``: a static reservation of (owner, key) is made for it, in the pool it names, else in the innermost
  pool of the namespace holding the address (a child before its parent); an address resting under a reuse delay
  is taken (it is in use); an expired lease holding it, or held by the same owner and key, is released first;
- ``unchanged``: the owner and key hold that address already (a rerun; what they hold is left as it is, its
  metadata too: ``netpool.ipam.reservation`` changes a reservation);
- ``conflicts``: held by another owner (or the same owner under another key), the owner and key hold another
  address of that family in that pool, a gateway, an exclusion, a network or broadcast address (the pool's or a
  pool's it is carved from), in a child pool of the pool named, or outside the pool named;
- ``outside``: in no pool of the namespace.

Entries are taken in order: a later entry for an address an earlier one adopts is a conflict (or unchanged, for
the same owner and key). With ``on_conflict: fail`` a conflict fails the task (``adopt_conflict``) before any
write; with ``skip`` the others are adopted. History records each adoption (action ``adopt``) with the source
and line it came from (``new.source``).
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv, _checks, _sources
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    AdoptConflict, InvalidArgument, pool_not_found)
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Reservation
from ansible_collections.netpool.ipam.plugins.module_utils._space._tree import Tree, footprint

#: how many conflicts the message of ``adopt_conflict`` spells out (the result lists them all)
SHOWN = 5
KINDS = ('adopted', 'unchanged', 'conflicts', 'outside')


def read_source(service, entries=None, csv=None, leases=None, leases_format=None, key=None, pool=None):
    """``(entries, source)``: the ``Entry`` objects of the one source given, and its name for history."""
    given = [name for name, value in (('entries', entries), ('csv', csv), ('leases', leases)) if value is not None]
    if len(given) != 1:
        raise InvalidArgument('Give exactly one source to adopt from: entries, csv or leases (got %s).'
                              % (', '.join(given) or 'none'))
    if entries is not None:
        return _sources.from_entries(entries, key, pool), 'entries'
    if csv is not None:
        return _sources.from_csv(csv, key, pool), 'csv'
    if leases_format not in _sources.READERS:
        raise InvalidArgument('leases needs leases_format: kea or dnsmasq, got %r.' % (leases_format,))
    return _sources.READERS[leases_format](leases, int(service.clock()), key, pool), '%s leases' % leases_format


def adopt(service, entries, namespace='default', on_conflict='fail', check=False, source='entries'):
    """Adopt ``entries`` (``_sources.Entry``) into ``namespace`` in one transaction; the task's result."""
    _checks.check_name(namespace, 'namespace')
    if on_conflict not in ('fail', 'skip'):
        raise InvalidArgument("on_conflict must be 'fail' or 'skip', got %r." % (on_conflict,))
    store = service.store
    with store.transaction(commit=not check):
        store.lock_namespace(namespace)
        tree = Tree.of(store, namespace)
        for e in entries:
            if e.pool is not None and tree.get(e.pool) is None:
                raise pool_not_found(e.pool, namespace, list(tree.pools), ' (%s) Create it with netpool.ipam.pool '
                                     'first, or leave pool out to adopt into the pool holding the address.' % e.where)
        book = Book(store.find_reservations(namespace), service.stamp())
        found = dict((kind, []) for kind in KINDS)
        todo = []
        for e in entries:
            kind, pool, reason = sort_out(e, tree, book)
            found[kind].append(item(e, pool, reason))
            if kind == 'adopted':
                todo.append((e, pool))
        if found['conflicts'] and on_conflict == 'fail':
            raise AdoptConflict(conflict_message(found['conflicts']), conflicts=found['conflicts'])
        after = [write(service, e, pool, book, source) for e, pool in todo]
    result = dict(found, changed=bool(todo), diff={'before': {'reservations': []}, 'after': {'reservations': after}})
    return result


def item(e, pool, reason):
    """An entry as the result lists it."""
    return {'address': iv.to_str(e.version, e.address), 'owner': e.owner, 'key': e.key,
            'pool': pool.name if pool is not None else e.pool, 'source': e.where, 'reason': reason}


def conflict_message(conflicts):
    shown = '; '.join('%s (%s) for %s/%s: %s' % (c['address'], c['source'], c['owner'], c['key'], c['reason'])
                      for c in conflicts[:SHOWN])
    more = ' and %d more' % (len(conflicts) - SHOWN) if len(conflicts) > SHOWN else ''
    return ('%d entr%s cannot be adopted: %s%s. Nothing was written: fix the source, release what holds them, or '
            'set on_conflict: skip to adopt the others (the result lists them all under conflicts).'
            % (len(conflicts), 'y' if len(conflicts) == 1 else 'ies', shown, more))


class Book(object):
    """What the namespace holds, read once: by address and by (pool, owner, key, family). Expired leases are kept
    apart (they are held no longer: an adoption releases them first). Adoptions of this task are entered as they
    are decided."""

    def __init__(self, reservations, now):
        self.by_address, self.by_claim = {}, {}
        self.expired_at, self.expired_claims = {}, {}
        for r in reservations:
            if r.expired(now):
                self.expired_at[(r.version, r.address)] = r
                self.expired_claims[(r.pool, r.owner, r.key, r.version)] = r
            else:
                self.enter(r)

    def enter(self, r):
        self.by_address[(r.version, r.address)] = r
        self.by_claim[(r.pool, r.owner, r.key, r.version)] = r

    def expired(self, e, pool):
        """The expired leases an adoption of entry ``e`` in ``pool`` releases first: the one at its address, the
        one of its owner and key (often the same one)."""
        found = {}
        for r in (self.expired_at.get((e.version, e.address)),
                  self.expired_claims.get((pool.name, e.owner, e.key, e.version))):
            if r is not None and r.ident not in found:
                found[r.ident] = r
                del self.expired_at[(r.version, r.address)]         # released once, whichever entry meets it
                del self.expired_claims[(r.pool, r.owner, r.key, r.version)]
        return list(found.values())


def innermost(tree, version, n):
    """The pool of the tree holding ``n`` that is carved deepest (a child before its parent), or None."""
    holding = [p for p in tree.pools.values() if p.subnet_of(version, n) is not None]
    return max(holding, key=lambda p: (len(tree.ancestors(p)), p.name)) if holding else None


def withheld(tree, pool, subnet, n):
    """Why a static reservation of ``n`` in ``subnet`` of ``pool`` would need ``force`` (in words), or None."""
    for owner, theirs in [(None, subnet)] + [(a, s) for a in tree.ancestors(pool) for s in a.subnets
                                             if s.overlaps(subnet)]:
        of = " of pool '%s'" % owner.name if owner is not None else ''
        if theirs.gateway == n:
            return 'the gateway of %s%s' % (theirs.cidr, of)
        if iv.contains(theirs.exclude, n):
            return 'an exclusion of %s%s' % (theirs.cidr, of)
        if iv.contains(theirs.withheld(), n):
            return '%s of %s%s' % ('the network address' if n == theirs.first else 'the broadcast address',
                                   theirs.cidr, of)
    for child in tree.descendants(pool):
        if child.subnet_of(subnet.version, n) is not None:
            return "in child pool '%s' of pool '%s': leave pool out (or give pool: %s) to adopt it there" % (
                child.name, pool.name, child.name)
    return None


def sort_out(e, tree, book):
    """``(kind, pool, reason)`` of entry ``e``; an adoption is entered in ``book``."""
    text = iv.to_str(e.version, e.address)
    if e.pool is None:
        pool = innermost(tree, e.version, e.address)
        if pool is None:
            return 'outside', None, '%s is in no pool of the namespace' % text
    else:
        pool = tree.get(e.pool)
    subnet = pool.subnet_of(e.version, e.address)
    if subnet is None:
        return 'conflicts', pool, "%s is outside pool '%s' (%s)" % (
            text, pool.name, ', '.join(iv.format_span(*span) for span in footprint(pool)) if pool.by_ranges
            else ', '.join(s.cidr for s in pool.subnets) or 'no subnet')
    holder = book.by_address.get((e.version, e.address))
    if holder is not None and (holder.owner, holder.key, holder.pool) == (e.owner, e.key, pool.name):
        return 'unchanged', pool, "%s/%s holds %s in pool '%s' already" % (e.owner, e.key, text, pool.name)
    if holder is not None:
        return 'conflicts', pool, "%s is held by owner '%s' key '%s' in pool '%s'" % (
            text, holder.owner, holder.key, holder.pool)
    other = book.by_claim.get((pool.name, e.owner, e.key, e.version))
    if other is not None:
        return 'conflicts', pool, "%s/%s holds another address in pool '%s': %s" % (
            e.owner, e.key, pool.name, other.address_str)
    why = withheld(tree, pool, subnet, e.address)
    if why is not None:
        return 'conflicts', pool, '%s is %s' % (text, why)
    book.enter(Reservation(pool.namespace, pool.name, e.owner, e.key, e.version, e.address, static=True))
    return 'adopted', pool, "%s adopted as a static reservation of %s/%s in pool '%s'" % (
        text, e.owner, e.key, pool.name)


def write(service, e, pool, book, source):
    """The static reservation of an adopted entry, written (inside ``adopt``'s transaction); its result dict."""
    store, now = service.store, service.stamp()
    for old in book.expired(e, pool):
        service.release_reservation(old, store.get_pool(old.namespace, old.pool), 'expire')
    store.free_space().take(pool, e.version, e.address)
    r = Reservation(pool.namespace, pool.name, e.owner, e.key, e.version, e.address, static=True,
                    metadata=e.metadata, created_at=now, updated_at=now)
    store.adopt_reservation(r)
    where = e.where if source == 'entries' else '%s %s' % (source, e.where)
    service.record_history('reservation', 'adopt', pool.namespace, pool.name, new=dict(r.to_data(), source=where),
                           reservation=r)
    return service.results.reservation(r, pool)
