# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The objects of netpool.ipam: pools, subnets and reservations.

This is a private module: it may change at any time. ``to_data()`` is the
form a store keeps (for a pool, also what modules return, with its figures);
``Reservation.to_dict()`` is what modules return for a reservation: its data
and its subnet's network facts (docs/design.md#the-model, #what-tasks-return).
Addresses are held as Python ints with their IP version; spans are inclusive
``(first, last)`` int pairs within one subnet.
"""

import copy

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv


#: prefix length -> the dotted netmask netaddr gives for it: made once per length, not for every reservation shown
_NETMASKS = {}


def _netmask(subnet):
    """The dotted netmask of an IPv4 subnet (netaddr's)."""
    text = _NETMASKS.get(subnet.prefix_length)
    if text is None:
        text = _NETMASKS[subnet.prefix_length] = str(subnet.network.netmask)
    return text


def _fields(obj, fields):
    """``fields`` (given by name) with the defaults of ``obj``'s ``FIELDS`` for those not given; a name that is
    not a field is a ``TypeError``, as an unknown keyword argument is."""
    given = dict(obj.DEFAULTS, **fields)
    if len(given) != len(obj.DEFAULTS):
        raise TypeError('%s has no field %s' % (type(obj).__name__, ', '.join(sorted(set(given) - set(obj.DEFAULTS)))))
    return given


class Subnet(object):
    """One subnet of a pool: a CIDR, its gateway and DNS, its ranges and exclusions."""

    def __init__(self, network, gateway=None, dns=None, ranges=None, exclude=None):
        self.network = network                  # netaddr.IPNetwork
        self.version = network.version
        self.first = int(network.first)
        self.last = int(network.last)
        self.gateway = gateway                  # int or None
        self.dns = list(dns or [])              # canonical address strings
        if ranges is None:
            usable = iv.usable(network)
            ranges = [usable] if usable else []
        self.ranges = iv.merge(ranges)
        self.exclude = iv.merge(exclude or [])

    @property
    def cidr(self):
        return str(self.network.cidr)

    @property
    def prefix_length(self):
        return self.network.prefixlen

    def __contains__(self, n):
        return self.first <= n <= self.last

    def covers(self, version, first, last):
        """True if the span [first, last] of IP ``version`` lies inside the subnet."""
        return self.version == version and self.first <= first and last <= self.last

    def overlaps(self, other):
        """True if the two subnets share an address."""
        return self.version == other.version and self.first <= other.last and other.first <= self.last

    def allocatable(self, carved=()):
        """Addresses dynamic allocation may hand out: ranges less exclusions, the gateway
        and ``carved`` spans (child pools)."""
        removed = list(self.exclude) + list(carved)
        if self.gateway is not None:
            removed.append((self.gateway, self.gateway))
        return iv.subtract(self.ranges, removed)

    def withheld(self):
        """The spans a static request may only take with ``force``, and that no pool carved from this subnet
        hands out (``_tree``): the exclusions, the gateway, and the network and broadcast addresses (IPv4 up
        to /30; IPv6: the subnet-router address, up to /127). Merged."""
        spans = list(self.exclude)
        if self.gateway is not None:
            spans.append((self.gateway, self.gateway))
        if self.version == 4 and self.network.prefixlen <= 30:
            spans += [(self.first, self.first), (self.last, self.last)]
        if self.version == 6 and self.network.prefixlen <= 127:
            spans.append((self.first, self.first))
        return iv.merge(spans)

    def is_excluded(self, n):
        """True for an address a static request may only take with ``force`` (``withheld``)."""
        return iv.contains(self.withheld(), n)

    def to_data(self):
        return {
            'cidr': self.cidr,
            'gateway': None if self.gateway is None else iv.to_str(self.version, self.gateway),
            'dns': list(self.dns),
            'ranges': [iv.format_span(self.version, a, b) for a, b in self.ranges],
            'exclude': [iv.format_span(self.version, a, b) for a, b in self.exclude],
        }

    @classmethod
    def from_data(cls, data):
        """Build a subnet from its stored (already validated) form."""
        network = iv.parse_network(data['cidr'])
        gateway = data.get('gateway')
        return cls(
            network,
            gateway=None if gateway is None else int(iv.parse_address(gateway)),
            dns=data.get('dns'),
            ranges=[iv.parse_range(r)[1:] for r in data['ranges']],
            exclude=[iv.parse_range(r)[1:] for r in data.get('exclude', [])],
        )


class Pool(object):
    """A named set of subnets in a namespace."""

    #: the fields given by name, and their defaults
    DEFAULTS = {'strategy': 'first', 'reuse_delay': 0, 'description': '', 'metadata': None, 'created_at': None,
                'updated_at': None, 'by_ranges': False}

    def __init__(self, namespace, name, subnets=None, parent=None, **fields):
        self.namespace = namespace
        self.name = name
        self.subnets = list(subnets or [])
        self.parent = parent
        given = _fields(self, fields)
        # a child by ranges (docs/design.md#trees) takes of its parent exactly its subnets' ranges, on the parent's cidrs;
        # any other pool takes its subnets whole (``_tree.footprint``)
        self.by_ranges = given['by_ranges']
        self.strategy = given['strategy']
        self.reuse_delay = given['reuse_delay']
        self.description = given['description']
        self.metadata = dict(given['metadata'] or {})
        self.created_at = given['created_at']
        self.updated_at = given['updated_at']

    def rest_end(self, stamp):
        """Until when an address this pool gives back now rests (the reuse-delay rule, written here once):
        ``stamp(reuse_delay)`` (``stamp(offset)``: the clock's time plus ``offset`` seconds, an ISO string), or None
        without a reuse delay, when the address is free again at once."""
        return stamp(self.reuse_delay) if self.reuse_delay else None

    def subnet_of(self, version, n):
        """The subnet holding address ``n``, or None. A child by ranges holds only its ranges: an address of its
        parent's cidr outside them is not in the pool."""
        for subnet in self.subnets:
            if subnet.version == version and n in subnet and (not self.by_ranges or iv.contains(subnet.ranges, n)):
                return subnet
        return None

    def copy(self):
        return copy.deepcopy(self)

    def to_data(self):
        data = {
            'namespace': self.namespace,
            'name': self.name,
            'subnets': [s.to_data() for s in self.subnets],
            'parent': self.parent,
            'strategy': self.strategy,
            'reuse_delay': self.reuse_delay,
            'description': self.description,
            'metadata': copy.deepcopy(self.metadata),
            'created_at': self.created_at,
            'updated_at': self.updated_at,
        }
        if self.by_ranges:      # kept only where true: the stored pools of earlier versions stay as they were
            data['by_ranges'] = True
        return data

    @classmethod
    def from_data(cls, data):
        return cls(
            data['namespace'], data['name'],
            subnets=[Subnet.from_data(s) for s in data['subnets']],
            parent=data.get('parent'),
            strategy=data.get('strategy', 'first'),
            reuse_delay=data.get('reuse_delay', 0),
            description=data.get('description', ''),
            metadata=data.get('metadata'),
            created_at=data.get('created_at'),
            updated_at=data.get('updated_at'),
            by_ranges=data.get('by_ranges') is True,
        )


class Reservation(object):
    """One address held by ``(namespace, pool, owner, key)``: at most one of each family (``family: dual`` holds
    both), so a reservation's identity is ``(namespace, pool, owner, key, version)``."""

    #: the fields given by name, and their defaults
    DEFAULTS = {'static': False, 'metadata': None, 'created_at': None, 'updated_at': None, 'expires_at': None}

    def __init__(self, namespace, pool, owner, key, version, address, **fields):
        self.namespace = namespace
        self.pool = pool
        self.owner = owner
        self.key = key
        self.version = version
        self.address = address
        given = _fields(self, fields)
        self.static = given['static']
        self.metadata = dict(given['metadata'] or {})
        self.created_at = given['created_at']
        self.updated_at = given['updated_at']
        self.expires_at = given['expires_at']

    @property
    def ident(self):
        return (self.namespace, self.pool, self.owner, self.key, self.version)

    @property
    def address_key(self):
        return iv.key(self.version, self.address)

    @property
    def address_str(self):
        return iv.to_str(self.version, self.address)

    def expired(self, now):
        """True for a lease whose ``expires_at`` is at or before ``now`` (an ISO time): it is no longer held."""
        return self.expires_at is not None and self.expires_at <= now

    def copy(self):
        """A copy to change: its own metadata (its one mutable value, deep-copied); the other values are strings,
        numbers, booleans or None, shared."""
        new = copy.copy(self)
        new.metadata = copy.deepcopy(self.metadata) if self.metadata else {}
        return new

    def to_data(self):
        return {
            'namespace': self.namespace,
            'pool': self.pool,
            'owner': self.owner,
            'key': self.key,
            'address': self.address_str,
            'static': self.static,
            'metadata': copy.deepcopy(self.metadata) if self.metadata else {},
            'created_at': self.created_at,
            'updated_at': self.updated_at,
            'expires_at': self.expires_at,
        }

    @classmethod
    def from_data(cls, data):
        address = iv.parse_address(data['address'])
        return cls(
            data['namespace'], data['pool'], data['owner'], data['key'], address.version, int(address),
            static=data.get('static', False), metadata=data.get('metadata'),
            created_at=data.get('created_at'), updated_at=data.get('updated_at'),
            expires_at=data.get('expires_at'),
        )

    def to_dict(self, subnet=None):
        """The reservation as modules return it (docs/design.md#the-model), with its subnet's network facts."""
        result = self.to_data()
        result.update(prefix_length=None, cidr=None, netmask=None, network=None, gateway=None, dns=[])
        if subnet is not None:
            result.update(
                prefix_length=subnet.prefix_length,
                cidr='%s/%d' % (self.address_str, subnet.prefix_length),
                netmask=_netmask(subnet) if subnet.version == 4 else None,
                network=subnet.cidr,
                gateway=None if subnet.gateway is None else iv.to_str(subnet.version, subnet.gateway),
                dns=list(subnet.dns),
            )
        return result
