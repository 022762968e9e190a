# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Aligned host parts (``align_with: POOL`` of ``reservation``): the same host part in every network.

This is a private module: it may change at any time.

An aligned request asks for the address whose offset in its subnet equals the offset of the owner's reservation
(same key, same family) in POOL, within that reservation's subnet there. The offset is placed in this pool's first
subnet of that family (pool order): a server at 10.1.0.23 of POOL's 10.1.0.0/24 is 10.2.0.23 of this pool's
10.2.0.0/24, and its address in a /16 is the network address plus 23. Placing in the first subnet of the family,
never in another one where the offset would fit, keeps the answer the same whatever else the pool holds.

The aligned address is a requested address, like a static one: it is reserved ``static: true`` and moves an
address the owner holds already, as ``address`` would. Unlike a static address it must be one the pool hands
out (inside its ranges, not excluded, not the gateway, not in a child pool; else ``address_out_of_pool``), and
an owner that holds nothing in POOL fails ``not_reserved``: aligning never reserves in POOL on the fly, so a
mistyped POOL creates nothing anywhere.

The reservation remembers its alignment in its history entry: the entry of the write (``reserve``, ``move``,
``update``, ``renew``) carries ``align_with`` in its ``new`` data. ``_verify`` reads the
namespace's history once and reports an aligned reservation that no longer sits at its aligned address
(``alignment_mismatch``): POOL's reservation moved, was released, or POOL changed. Cleared history forgets the
alignments, and so does a later write of the reservation by a task without ``align_with``.

``reserve`` runs the checked request (``_requests.ReservationRequest.checked``) through the service
(``Service.reservation_task`` and ``Service.reserve_one``), passed in as ``svc``; this module imports no service.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks, _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._space import _hostpart
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    AddressInUse, AddressOutOfPool, InvalidArgument, NotReserved)
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Reservation


def check_allocatable(tree, pool, source_pool, source, aligned):
    """``address_out_of_pool`` unless ``aligned`` (the aligned address) is one ``pool`` hands out (``Tree.allocatable``:
    inside its ranges, not excluded, not the gateway, not in a child pool)."""
    version, n = aligned
    subnet = pool.subnet_of(version, n)
    if subnet is not None and iv.contains(tree.allocatable(pool, subnet), n):
        return
    raise AddressOutOfPool(
        "%s, aligned with %s/%s's %s in pool '%s', is not an address pool '%s' hands out (outside its ranges, "
        "excluded, its gateway, the network or broadcast address, or in a child pool). Add it to the pool's ranges "
        "(netpool.ipam.range) or remove the exclusion, or move %s/%s in pool '%s' to a host part this pool has."
        % (iv.to_str(version, n), source.owner, source.key, source.address_str, source_pool.name, pool.name,
           source.owner, source.key, source_pool.name))


def _source(held, owner, key, version, source_pool, now):
    """The reservation of ``owner`` in the pool aligned with, of family ``version`` (None: the first, IPv4
    first); ``not_reserved`` when there is none."""
    found = [r for r in held.get(owner, ()) if not r.expired(now) and (version is None or r.version == version)]
    if not found:
        raise NotReserved(
            "Owner '%s' holds no %saddress under key '%s' in pool '%s' (namespace '%s'), so there is no host part "
            "to align with. Reserve it there first (netpool.ipam.reservation with pool: %s, owner: %s, key: %s), "
            "or check align_with, owner and key for a typo."
            % (owner, _hostpart.family_name(version) + ' ' if version else '', key, source_pool.name, source_pool.namespace,
               source_pool.name, owner, key))
    return found[0]


def targets(svc, p, source_pool, requests, key, versions, strict=True):
    """``{(i, version): (version, n)}``: the aligned address of each request (``(owner, _, metadata)``) for each
    of ``versions`` (``[None]``: the family of the owner's reservation in ``source_pool``). ``strict`` also checks
    that each address not yet the owner's own is one the pool hands out; two owners aligned to one address are
    ``invalid_argument`` naming both."""
    store, now = svc.store, svc.stamp()
    owners = [owner for owner, _a, _m in requests]
    held = store.get_reservations(p.namespace, source_pool.name, owners, key)
    mine = store.get_reservations(p.namespace, p.name, owners, key) if strict else {}
    tree = svc.tree(p.namespace) if strict else None
    found, asked = {}, {}
    for version in versions:
        for i, owner in enumerate(owners):
            source = _source(held, owner, key, version, source_pool, now)
            aligned = _hostpart.place(p, source_pool, source)
            if aligned in asked:
                raise InvalidArgument(
                    "owners '%s' and '%s' both align with pool '%s' to %s (the same host part in two subnets of "
                    "'%s'): an address has one holder. Align them with a pool where their host parts differ."
                    % (asked[aligned], owner, source_pool.name, iv.to_str(*aligned), source_pool.name))
            asked[aligned] = owner
            if strict and not any((r.version, r.address) == aligned for r in mine.get(owner, ())):
                check_allocatable(tree, p, source_pool, source, aligned)
            found[(i, version)] = aligned
    return found


def reserve(svc, request):
    """``Service.reserve`` with ``align_with``: ``(changed, before, after)`` for each owner of the checked
    ``request`` (a pair of them, IPv4 then IPv6, with ``family: dual``), in one transaction under the namespace's
    lock (two pools are read together)."""
    versions = [4, 6] if request.dual else [request.version]
    return svc.reservation_task(request, True, as_rerun=lambda held: _rerun(svc, request, held, versions),
                                change=lambda p, held: _change(svc, p, request, versions))


def _rerun(svc, request, held, versions):
    """What ``Service.rerun`` gives when every owner holds its aligned address(es) already; else None (the
    locked transaction decides, and says what is wrong)."""
    namespace, requests = request.namespace, request.asked
    p, source_pool = svc.store.get_pool(namespace, request.pool), svc.store.get_pool(namespace, request.align_with)
    if p is None or source_pool is None:
        return None
    try:
        aligned_by = targets(svc, p, source_pool, requests, request.key, versions, strict=False)
    except (AddressOutOfPool, InvalidArgument, NotReserved):
        return None
    per_version, dual = [], len(versions) == 2
    for version in versions:
        pinned = [(owner, aligned_by[(i, version)], metadata) for i, (owner, _a, metadata) in enumerate(requests)]
        results = svc.rerun(pinned, dict((owner, [r for r in rs if not dual or r.version == version])
                                         for owner, rs in held.items()), request.ttl, version)
        if results is None:
            return None
        per_version.append(results)
    return per_version[0] if len(per_version) == 1 else list(zip(*per_version))


def _change(svc, p, request, versions):
    """Inside ``Service.reservation_task``'s transaction: every request moved or reserved at its aligned address(es)."""
    source_pool = svc.existing_pool(p.namespace, request.align_with)
    if versions == [4, 6]:
        missing = [v for v in (4, 6) if not any(s.version == v for s in p.subnets)]
        if missing:
            raise InvalidArgument("Pool '%s' has no IPv%d subnet: family: dual reserves one IPv4 and one IPv6 "
                                  "address for each owner. Add an IPv%d subnet to the pool, or give family ipv%d."
                                  % (p.name, missing[0], missing[0], 10 - missing[0]))
    aligned_by = targets(svc, p, source_pool, request.asked, request.key, versions)
    dual = len(versions) == 2
    results = [_apply(svc, p, request, [(owner, aligned_by[(i, version)], metadata)
                                        for i, (owner, _a, metadata) in enumerate(request.asked)],
                      version if dual else None)
               for version in versions]
    return results[0] if len(results) == 1 else list(zip(*results))


def _apply(svc, p, request, pinned, version):
    """``(changed, before, after)`` of each ``(owner, (version, n), metadata)`` of ``pinned``, reserved as a
    static would be, in the order of a batch of statics (``Service.statics_first``). With ``version`` (one half of
    ``family: dual``) an owner's reservation of the other family is left alone; without, it is moved as a static
    moves it.
    ``address_in_use`` names the holder."""
    namespace, pool, key, align_with = p.namespace, p.name, request.key, request.align_with

    def own(rs):
        return [r for r in rs or () if version is None or r.version == version]
    owners = [owner for owner, _a, _m in pinned]
    held = svc.store.get_reservations(namespace, pool, owners, key)
    order = svc.statics_first(pinned, dict((owner, own(rs)) for owner, rs in held.items()))
    results = [None] * len(pinned)
    for i in order:
        owner, aligned, _metadata = pinned[i]
        current = svc.acted_on(own(svc.store.get_reservations(namespace, pool, [owner], key).get(owner)),
                               aligned[0])
        try:
            results[i] = svc.reserve_one(p, request, pinned[i], current, aligned[0], note={'align_with': align_with})
        except AddressInUse as e:
            holder = e.details.get('holder') or {}
            raise AddressInUse(
                "%s, the address of pool '%s' aligned with pool '%s' for %s/%s, is already held by owner '%s' key "
                "'%s' in pool '%s'. Release it first, or move %s/%s in pool '%s' to a host part that is free here."
                % (iv.to_str(*aligned), pool, align_with, owner, key, holder.get('owner'), holder.get('key'),
                   holder.get('pool'), owner, key, align_with), holder=holder)
    return results


def aligned(svc, pool, owner, key='default', namespace='default', family=None, align_with=None):
    """The reservation dict (without an owner, ``static: true``) of the address ``reserve`` with ``align_with``
    would give ``owner`` in ``pool`` now, read only (a Terraform plan); None when the owner holds nothing in
    ``align_with`` yet (the apply may reserve there first). ``address_out_of_pool`` as ``reserve`` for an aligned
    address the pool does not hand out; whether it is held by another is the apply's to say."""
    _checks.align_arguments(pool, align_with, [(owner, None, None)], False, False)
    version = _checks.family(family)
    with svc.store.transaction(write=False):
        p = svc.existing_pool(namespace, pool)
        source_pool = svc.existing_pool(namespace, align_with)
        try:
            aligned = targets(svc, p, source_pool, [(owner, None, None)], key, [version])[(0, version)]
        except NotReserved:
            return None
        r = svc.results.reservation(Reservation(p.namespace, p.name, None, None, aligned[0], aligned[1],
                                                static=True), p)
        owned = ('owner', 'key', 'metadata', 'created_at', 'updated_at', 'expires_at')
        return dict((k, v) for k, v in r.items() if k not in owned)
