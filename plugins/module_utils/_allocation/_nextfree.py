# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Which addresses allocation would hand out next, read without writing: what a plan predicts.

This is a private module: it may change at any time.

The Terraform provider plans a new reservation's address with ``free_addresses`` (and ``returning`` for an owner
that comes back for the address it left resting), and its apply reserves exactly that address
(``Service.reserve(address=..., planned=True)``). Each function takes the ``Service`` (its store, its pools, its
result shapes, its random draws) and runs one read transaction.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks
from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _owners
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Reservation

#: the keys of a reservation dict that an address nobody holds yet has not
_OWNED = ('owner', 'key', 'metadata', 'created_at', 'updated_at', 'expires_at')


def _unowned(service, p, version, n):
    """The reservation dict of address ``n`` of pool ``p``, without what only a holder gives it."""
    r = Reservation(p.namespace, p.name, None, None, version, n)
    return dict((k, v) for k, v in service.results.reservation(r, p).items() if k not in _OWNED)


def free_addresses(service, pool, namespace='default', family=None, count=1, skip=(), at=None):
    """Up to ``count`` addresses that a dynamic reservation in ``pool`` may take now (of ``family`` ipv4 or
    ipv6 only, if given), as reservation dicts without an owner (``address``, ``cidr``, ``gateway``, ``dns``
    ...), in the order allocation hands them out: subnet after subnet in pool order, the lowest first
    (strategy ``first``) or drawn (``random``); the addresses of ``skip`` (strings) left out. Fewer when the
    pool has fewer; ``pool_not_found`` for no such pool. ``at``: that address only (none when it is not
    free).

    Conservative: an address whose lease ran out or whose reuse delay ended is free only once a change has
    released it."""
    version = _checks.family(family)
    _checks.check_name(namespace, 'namespace')
    skipped = set(_checks.address(a) for a in skip)
    wanted = None if at is None else _checks.address(at)
    with service.store.transaction(write=False):
        p = service.existing_pool(namespace, pool)
        free = service.store.free_space()
        found = []
        for subnet in p.subnets:
            if (version is not None and subnet.version != version) or (
                    wanted is not None and (subnet.version != wanted[0] or wanted[1] not in subnet)):
                continue
            lo, hi = (subnet.first, subnet.last) if wanted is None else (wanted[1], wanted[1])
            spans = [(a, b) for _v, a, b in free.spans(p, subnet.version, lo, hi)]
            for n in free_in(service.rng, spans, p.strategy, subnet.version, count - len(found), skipped):
                found.append(_unowned(service, p, subnet.version, n))
            if len(found) >= count:
                break
        return found


def returning(service, pool, owner, key='default', namespace='default', family=None, replacing=False):
    """The reservation dict (without an owner) of the address ``owner`` gets back in ``pool`` under ``key`` if it
    asks now: the one it left resting under the pool's reuse delay (``_owners.returning``); with ``replacing``
    (its reservation is about to be released and made again: a Terraform replacement), the one it holds now
    when the pool has a reuse delay, which the release lets rest for it. None when there is none."""
    version = _checks.family(family)
    _checks.check_name(namespace, 'namespace')
    with service.store.transaction(write=False):
        p = service.existing_pool(namespace, pool)
        if not p.reuse_delay:
            return None
        found = _owners.returning(service.store, p, owner, key, version)
        if found is None and replacing:
            now = service.stamp()
            held = [r for r in service.store.get_reservations(namespace, pool, [owner], key).get(owner) or ()
                    if (version is None or r.version == version) and not r.expired(now)]
            found = (held[0].version, held[0].address) if held else None
        return None if found is None else _unowned(service, p, *found)


def free_in(rng, spans, strategy, version, count, skipped):
    """Up to ``count`` addresses of the free ``spans`` (sorted (first, last) pairs) not in ``skipped``: the
    lowest first, or drawn with ``rng`` for ``random`` (the lowest ones left once draws keep missing)."""
    found = []
    if strategy == 'random':
        sizes = [b - a + 1 for a, b in spans]
        total = sum(sizes)
        for _try in range(4 * count + len(skipped)):
            if len(found) >= count or not total:
                break
            i = rng.randrange(total)
            for (a, _b), size in zip(spans, sizes):
                if i < size:
                    n = a + i
                    break
                i -= size
            if (version, n) not in skipped and n not in found:
                found.append(n)
    for a, b in spans:
        n = a
        while len(found) < count and n <= b:
            if (version, n) not in skipped and n not in found:
                found.append(n)
            n += 1
        if len(found) >= count:
            break
    return found
