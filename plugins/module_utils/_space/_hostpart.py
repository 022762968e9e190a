# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Host parts: an address's offset in its subnet, and the address of another pool with the same offset.

This is a private module: it may change at any time.

Arithmetic only, over pools and reservations as the model holds them: ``_align`` reserves at the address ``place``
gives (``align_with``), and verify reports a reservation that no longer sits there (``_verify``). Whether a pool
hands the address out is the tree's question (``_align.check_allocatable``), not this module's.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import AddressOutOfPool


def family_name(version):
    return 'IPv%d' % version


def offset(pool, r):
    """``(subnet, offset)`` of reservation ``r`` in its ``pool``; ``(None, None)`` for a reservation outside
    every subnet of its pool (which verify reports as such)."""
    subnet = pool.subnet_of(r.version, r.address)
    if subnet is None:
        return None, None
    return subnet, r.address - subnet.first


def place(pool, source_pool, source):
    """``(version, n)``: the address of ``pool`` aligned with reservation ``source`` of ``source_pool``
    (arithmetic only: whether the pool hands it out is ``check_allocatable``'s). ``address_out_of_pool`` when
    ``pool`` has no subnet of that family, or the offset lies beyond its first one."""
    version = source.version
    theirs, off = offset(source_pool, source)
    if theirs is None:
        raise AddressOutOfPool(
            "%s/%s holds %s in pool '%s', outside every subnet of that pool, so it has no host part to align "
            "with. Run netpool.ipam.info with verify: true, and fix pool '%s' first."
            % (source.owner, source.key, source.address_str, source_pool.name, source_pool.name))
    subnet = next((s for s in pool.subnets if s.version == version), None)
    if subnet is None:
        raise AddressOutOfPool(
            "Pool '%s' has no %s subnet, so nothing in it aligns with %s/%s's %s in pool '%s'. Add an %s subnet "
            "to pool '%s', or give the family of a subnet it has."
            % (pool.name, family_name(version), source.owner, source.key, source.address_str, source_pool.name,
               family_name(version), pool.name))
    n = subnet.first + off
    if n > subnet.last:
        raise AddressOutOfPool(
            "%s/%s holds %s in pool '%s', offset %d of %s; pool '%s''s first %s subnet %s has no offset %d. "
            "Align with a pool of subnets no larger than this one's, or widen %s."
            % (source.owner, source.key, source.address_str, source_pool.name, off, theirs.cidr, pool.name,
               family_name(version), subnet.cidr, off, subnet.cidr))
    return version, n
