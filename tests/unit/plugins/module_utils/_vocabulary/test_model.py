# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Subnet span tests: what lies inside a subnet, and which subnets share addresses."""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Subnet


def subnet(cidr):
    return Subnet(iv.parse_network(cidr))


@pytest.mark.parametrize('a, b, expected', [
    ('10.0.0.0/24', '10.0.0.0/24', True),
    ('10.0.0.0/24', '10.0.0.128/25', True),
    ('10.0.0.0/24', '10.0.0.255/32', True),
    ('10.0.0.0/24', '10.0.1.0/24', False),
    ('10.0.0.0/24', '9.255.255.255/32', False),
    ('0.0.0.0/0', '::/0', False),
    ('::/0', '2001:db8::/64', True),
])
def test_overlaps(a, b, expected):
    assert subnet(a).overlaps(subnet(b)) is expected
    assert subnet(b).overlaps(subnet(a)) is expected


@pytest.mark.parametrize('cidr, span, expected', [
    ('10.0.0.0/24', '10.0.0.0-10.0.0.255', True),
    ('10.0.0.0/24', '10.0.0.7', True),
    ('10.0.0.0/24', '10.0.0.128/25', True),
    ('10.0.0.0/24', '10.0.0.0/23', False),
    ('10.0.0.0/24', '10.0.0.255-10.0.1.0', False),
    ('10.0.0.0/24', '9.255.255.255-10.0.0.0', False),
    ('0.0.0.0/0', '::1', False),
])
def test_covers(cidr, span, expected):
    assert subnet(cidr).covers(*iv.parse_range(span)) is expected


def test_a_reservation_copy_has_its_own_metadata():
    """``Reservation.copy`` (a shallow copy and the metadata deep-copied): changing the copy, nested
    metadata included, leaves the original as it was."""
    from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Reservation
    original = Reservation('default', 'web', 'h1', 'default', 4, 167772161, metadata={'tags': ['a'], 'mac': 'x'})
    copied = original.copy()
    copied.metadata['tags'].append('b')
    copied.metadata['mac'] = 'y'
    copied.address, copied.expires_at = 167772162, '2026-01-01T00:00:00Z'
    assert original.to_data() == Reservation('default', 'web', 'h1', 'default', 4, 167772161,
                                             metadata={'tags': ['a'], 'mac': 'x'}).to_data()
    assert copied.metadata == {'tags': ['a', 'b'], 'mac': 'y'}
