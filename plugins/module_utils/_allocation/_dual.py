# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""``family: dual``: one IPv4 and one IPv6 address for each owner, in one transaction (docs/design.md#dynamic-reservations).

This is a private module: it may change at any time.

The rules of a single address (returning owners, allocation, history) are the service's: ``reserve`` takes the
checked request (``_requests.ReservationRequest.checked``), runs in ``Service.reservation_task``'s transaction and
asks the service for each half (its steps ``new_reservation``, ``returns``, ``allocate``, ``reserve_one``), as
``_align`` does.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument


def reserve(service, request, probe=None):
    """``((changed, before, after) of IPv4, the same of IPv6)`` for each owner of the checked ``request``, in one
    transaction. What an owner and key already hold of a family is kept (a single-family reservation of theirs is
    one half, static or not); the missing halves take free addresses, every IPv4 one in list order, then every IPv6
    one. A pool without both families is ``invalid_argument`` naming the missing one; one family exhausted fails the
    whole and changes nothing. ``probe``: the new addresses are probed (not in check mode), every IPv4 one at once,
    then every IPv6 one."""
    return service.reservation_task(request, False,
                                    as_rerun=lambda held: rerun(service, request.asked, held, request.ttl),
                                    change=lambda p, held: pairs(service, p, request, held,
                                                                 None if request.check else probe))


def rerun(service, requests, held, ttl):
    """What ``Service.rerun`` is for ``family: dual``: a pair of ``(False, r, r)`` for each request when every
    owner holds both halves already; else None."""
    now, results = service.stamp(), []
    for owner, _a, metadata in requests:
        pair = held.get(owner, [])
        if ttl is not None or len(pair) != 2 or any(
                r.expired(now) or (metadata is not None and metadata != r.metadata) for r in pair):
            return None
        results.append(tuple((False, r, r) for r in (service.results.reservation(r) for r in pair)))
    return results


def pairs(service, p, request, held, probe=None):
    """Inside ``Service.reservation_task``'s transaction: the missing halves of ``reserve``'s requests, every IPv4 one
    in list order, then every IPv6 one."""
    missing = [v for v in (4, 6) if not any(s.version == v for s in p.subnets)]
    if missing:
        raise InvalidArgument("Pool '%s' has no IPv%d subnet: family: dual reserves one IPv4 and one IPv6 "
                              "address for each owner. Add an IPv%d subnet to the pool, or give family ipv%d."
                              % (p.name, missing[0], missing[0], 10 - missing[0]))
    requests, results = request.asked, {}
    for version in (4, 6):
        currents = [next((r for r in held.get(owner, ()) if r.version == version), None)
                    for owner in request.owners_asked]
        fresh = dict((i, service.new_reservation(p, owner, request.key, metadata, request.ttl))
                     for i, (owner, _a, metadata) in enumerate(requests) if currents[i] is None)
        done = service.returns(p, request, fresh, version)
        service.allocate(p, [fresh[i] for i in sorted(fresh) if i not in done], version, probe)
        results[version] = [done[i] if i in done else service.reserve_one(
            p, request, asked, currents[i], version, fresh.get(i)) for i, asked in enumerate(requests)]
    return list(zip(results[4], results[6]))
