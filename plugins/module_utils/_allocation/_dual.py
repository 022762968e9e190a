# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""``family: dual``: one IPv4 and one IPv6 address for each owner, in one transaction (docs/design.md#dynamic-reservations).

This is a private module: it may change at any time.

The rules of a single address (returning owners, allocation, history) are the service's: ``reserve`` runs in
``Service._rerun_or_change``'s transaction and asks the service for each half, as ``_align`` does.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument

# pylint: disable=protected-access


def reserve(service, pool, requests, key, namespace, ttl, reassign, check, probe=None):
    """``((changed, before, after) of IPv4, the same of IPv6)`` for each ``(owner, address, metadata)`` of
    ``requests``, in one transaction. What an owner and key already hold of a family is kept (a single-family
    reservation of theirs is one half, static or not); the missing halves take free addresses, every IPv4 one in
    list order, then every IPv6 one. A pool without both families is ``invalid_argument`` naming the missing one;
    one family exhausted fails the whole and changes nothing. ``probe``: the new addresses are probed (not in check
    mode), every IPv4 one at once, then every IPv6 one."""
    ttl, requests = _checks.dual_arguments(namespace, pool, requests, key, ttl, reassign)
    return service._rerun_or_change(namespace, pool, [owner for owner, _a, _m in requests], key, check, False,
                                    as_rerun=lambda held: rerun(service, requests, held, ttl),
                                    change=lambda p, held: pairs(service, p, requests, held, key, ttl, check,
                                                                 None if check else probe))


def rerun(service, requests, held, ttl):
    """What ``Service._rerun`` is for ``family: dual``: a pair of ``(False, r, r)`` for each request when every
    owner holds both halves already; else None."""
    now, results = service._stamp(), []
    for owner, _a, metadata in requests:
        pair = held.get(owner, [])
        if ttl is not None or len(pair) != 2 or any(
                r.expired(now) or (metadata is not None and metadata != r.metadata) for r in pair):
            return None
        results.append(tuple((False, r, r) for r in (service.results.reservation(r) for r in pair)))
    return results


def pairs(service, p, requests, held, key, ttl, check, probe=None):
    """Inside ``Service._rerun_or_change``'s transaction: the missing halves of ``reserve``'s requests, every IPv4 one
    in list order, then every IPv6 one."""
    missing = [v for v in (4, 6) if not any(s.version == v for s in p.subnets)]
    if missing:
        raise InvalidArgument("Pool '%s' has no IPv%d subnet: family: dual reserves one IPv4 and one IPv6 "
                              "address for each owner. Add an IPv%d subnet to the pool, or give family ipv%d."
                              % (p.name, missing[0], missing[0], 10 - missing[0]))
    owners, results = [owner for owner, _a, _m in requests], {}
    for version in (4, 6):
        currents = [next((r for r in held.get(owner, ()) if r.version == version), None) for owner in owners]
        fresh = dict((i, service._new_reservation(p, owner, key, metadata, ttl)) for i, (owner, _a, metadata)
                     in enumerate(requests) if currents[i] is None)
        done = service._returns(p, fresh, key, version, check)
        service._allocate(p, [fresh[i] for i in sorted(fresh) if i not in done], version, probe)
        results[version] = [done[i] if i in done else service._reserve_one(
            p, owner, key, currents[i], None, version, metadata, ttl, False, False, check, fresh.get(i))
            for i, (owner, _a, metadata) in enumerate(requests)]
    return list(zip(results[4], results[6]))
