# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Every input check of netpool.ipam, written once.

This is a private module: it may change at any time.

The modules, the action plugins, the lookup, the inventory plugin, the runner,
the service and the Terraform provider all check what they are given here:
``option_errors`` (raw task arguments, before Ansible's own validation), the
values (names, durations, metadata, addresses, ranges, a subnet dict) and the
arguments of each operation (``pool_arguments``, ``range_arguments``,
``reserve_arguments``, ``release_arguments``). A check returns the value
normalised or raises ``InvalidArgument`` with a message that says what is
wrong and what to do; it reads no store.
"""

import re

from collections.abc import Mapping, Sequence, Set

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv, _metadata
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument


STRATEGIES = ('first', 'random')
FAMILIES = {'ipv4': 4, 'ipv6': 6}
NAME_LIMIT = 255
#: the longest ttl or reuse_delay: 100 years (a time past year 9999 cannot be stored or compared)
MAX_DURATION = 100 * 365 * 86400
_UNITS = {'s': 1, 'm': 60, 'h': 3600, 'd': 86400, 'w': 604800}
#: the keys of a subnet dict
SUBNET_KEYS = ('cidr', 'gateway', 'dns', 'ranges', 'exclude')


# -- raw task arguments ----------------------------------------------------

#: the options that name a namespace, pool, owner or key: an empty string is refused, not taken as unset
NAMES = ('name', 'pool', 'parent', 'owner', 'key', 'namespace', 'align_with')


def _container(value):
    """A list, tuple, set or dict (Ansible's lazy containers included), not a string."""
    if isinstance(value, (str, bytes, bytearray)):
        return False
    return isinstance(value, (Mapping, Sequence, Set))


def _kind(value):
    return 'dict' if isinstance(value, Mapping) else 'list'


def option_errors(argument_spec, params, context=''):
    """Messages for what Ansible's type conversion would not refuse in ``params`` (raw task arguments).

    A list or dict given for a ``str`` option, or as an element of a ``list`` of ``str``, would be turned into
    its ``repr``; numbers and booleans still become strings the usual way (``key: 1`` is ``'1'``). An empty
    string for one of ``NAMES`` is refused too. Sub-options (``subnets``) are checked the same way; values
    are never echoed (one could hold a secret). An empty list means nothing is wrong.
    """
    errors = []
    for option, spec in argument_spec.items():
        for name in [option] + list(spec.get('aliases') or ()):
            if name not in params or params[name] is None:
                continue
            value, where = params[name], "argument '%s'%s" % (name, context)
            kind, elements = spec.get('type') or 'str', spec.get('elements')
            if kind == 'str':
                if _container(value):
                    errors.append('%s must be a string (type str), got a %s.' % (where, _kind(value)))
                elif option in NAMES and isinstance(value, str) and not value.strip():
                    errors.append('%s is an empty string: give a non-empty string, or leave the option out '
                                  '(default(omit)) if it is optional.' % where)
            elif kind == 'list' and _container(value) and not isinstance(value, Mapping):
                for i, element in enumerate(value):
                    if elements == 'str' and _container(element):
                        errors.append('%s must be a list of strings (elements str), got a %s as element %d.'
                                      % (where, _kind(element), i + 1))
                    elif elements == 'dict' and spec.get('options') and isinstance(element, Mapping):
                        errors.extend(option_errors(spec['options'], element, " found in '%s[%d]'" % (name, i)))
            elif kind == 'dict' and spec.get('options') and isinstance(value, Mapping):
                errors.extend(option_errors(spec['options'], value, " found in '%s'" % name))
    return errors


def timeout(value):
    """The store's timeout in seconds (30 when not given): a positive number."""
    if value is None:
        value = 30
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise InvalidArgument('timeout must be a positive number of seconds, got %r.' % (value,))
    return value


# -- values ------------------------------------------------------------------

def parse_duration(value, what):
    """Seconds from an int or a string like ``90``, ``30m``, ``12h``, ``7d``."""
    given = value
    if isinstance(value, bool):
        value = None
    if isinstance(value, int):
        seconds = value
    else:
        match = re.match(r'^\s*(\d+)\s*([smhdw]?)\s*$', value if isinstance(value, str) else '')
        if not match:
            raise InvalidArgument("%s must be a number of seconds or a duration like '30m', '12h' or '7d', got %r."
                                  % (what, given))
        seconds = int(match.group(1)) * _UNITS[match.group(2) or 's']
    if seconds < 0:
        raise InvalidArgument('%s must not be negative, got %r.' % (what, value))
    if seconds > MAX_DURATION:
        raise InvalidArgument('%s must be at most %d seconds (100 years), got %r.' % (what, MAX_DURATION, value))
    return seconds


def check_name(value, what):
    """A namespace, pool, owner or key: a non-empty printable string of at most 255 characters."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument('%s must be a non-empty string, got %r.' % (what, value))
    if len(value) > NAME_LIMIT:
        raise InvalidArgument('%s is %d characters long; at most %d are allowed.' % (what, len(value), NAME_LIMIT))
    if not value.isprintable():
        raise InvalidArgument('%s %r contains control characters.' % (what, value))
    return value


def check_metadata(value):
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidArgument('metadata must be a dict of names to strings, numbers or booleans, got %r.' % (value,))
    for k, v in value.items():
        check_name(k, 'a metadata name')
        if v is None or not isinstance(v, (str, int, float, bool)):
            raise InvalidArgument('metadata %r must be a string, a number or a boolean, got %r. '
                                  'Nested values are not kept: flatten them.' % (k, v))
    return dict(value)


#: the ``family`` of a reservation that holds one address of each family under one owner and key (docs/design.md#dynamic-reservations)
DUAL = 'dual'


def family(value, dual=False):
    """4 or 6 for ``ipv4`` or ``ipv6``; None for None; with ``dual``, ``DUAL`` for ``dual``."""
    if value is None:
        return None
    if dual and value == DUAL:
        return DUAL
    if value not in FAMILIES:
        raise InvalidArgument("family must be %s, got %r." % ("'ipv4', 'ipv6' or 'dual'" if dual else
                                                              "'ipv4' or 'ipv6'", value))
    return FAMILIES[value]


def as_list(value, what):
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)):
        raise InvalidArgument('%s must be a string or a list of strings, got %r.' % (what, value))
    return list(value)


def address(text, what='address'):
    """``(version, n)`` of an address."""
    try:
        a = iv.parse_address(text)
    except (ValueError, TypeError) as e:
        raise InvalidArgument('%s: %s' % (what, e))
    return a.version, int(a)


def span(text, what):
    """``(version, first, last)`` of a range such as ``10.0.0.10-10.0.0.50``."""
    try:
        return iv.parse_range(text)
    except (ValueError, TypeError) as e:
        raise InvalidArgument('%s: %s' % (what, e))


def spans(subnet, specs, what):
    """The spans of a list of ranges (or one range) that must lie inside ``subnet``; None for None."""
    specs = as_list(specs, what)
    if specs is None:
        return None
    found = []
    for spec in specs:
        version, first, last = span(spec, what)
        if not subnet.covers(version, first, last):
            raise InvalidArgument('The range %s in %s lies outside the subnet %s.' % (spec, what, subnet.cidr))
        found.append((first, last))
    return found


def subnet_network(spec):
    """The parsed cidr of a subnet dict, once its keys are checked."""
    if not isinstance(spec, dict):
        raise InvalidArgument('Each subnet must be a dict with at least cidr, got %r.' % (spec,))
    unknown = set(spec) - set(SUBNET_KEYS)
    if unknown:
        raise InvalidArgument('Unknown subnet option(s) %s; a subnet takes cidr, gateway, dns, ranges and exclude.'
                              % ', '.join(sorted(unknown)))
    if not spec.get('cidr'):
        raise InvalidArgument('A subnet needs a cidr such as 10.0.0.0/24, got %r.' % (spec,))
    try:
        return iv.parse_network(spec['cidr'])
    except (ValueError, TypeError) as e:
        raise InvalidArgument('subnet cidr: %s' % e)


def gateway(text, network):
    """The address ``n`` of a gateway, which must lie inside ``network``."""
    version, n = address(text, 'gateway')
    if version != network.version or not network.first <= n <= network.last:
        raise InvalidArgument('The gateway %s is outside the subnet %s.' % (text, network.cidr))
    return n


def dns(value):
    """Name server addresses, as strings."""
    return [iv.to_str(*address(d, 'dns')) for d in as_list(value, 'dns')]


# -- the arguments of each operation ------------------------------------------

def pool_arguments(request):
    """The fields of ``Service.pool``'s request (``_requests.PoolRequest``) checked: ``(reuse_delay, metadata,
    ranges)`` normalised (``ranges``: the range specs of a child by ranges, or None)."""
    name, namespace, state, subnets, parent = (request.name, request.namespace, request.state, request.subnets,
                                               request.parent)
    prefix_length, strategy, reuse_delay, description, metadata, ranges = (
        request.prefix_length, request.strategy, request.reuse_delay, request.description, request.metadata,
        request.ranges)
    check_name(namespace, 'namespace')
    check_name(name, 'pool name')
    if state not in ('present', 'absent'):
        raise InvalidArgument("state must be 'present' or 'absent', got %r." % (state,))
    if strategy is not None and strategy not in STRATEGIES:
        raise InvalidArgument("strategy must be 'first' or 'random', got %r." % (strategy,))
    if reuse_delay is not None:
        reuse_delay = parse_duration(reuse_delay, 'reuse_delay')
    metadata = _metadata.pool(check_metadata(metadata))
    if description is not None and not isinstance(description, str):
        raise InvalidArgument('description must be a string, got %r.' % (description,))
    if subnets is not None and (not isinstance(subnets, list) or not subnets):
        raise InvalidArgument('subnets must be a non-empty list of subnets (each with a cidr).')
    if ranges is not None:
        if parent is None or subnets is not None:
            raise InvalidArgument('ranges without cidr (or subnets) make a child pool by ranges: give parent with '
                                  'them, or give cidr for a pool of one subnet.')
        if prefix_length is not None:
            raise InvalidArgument('A child pool takes prefix_length (a prefix carved from its parent) or ranges '
                                  '(exactly those ranges of its parent), not both.')
        ranges = as_list(ranges, 'ranges')
        if not ranges:
            raise InvalidArgument('ranges needs at least one range spec such as 10.0.0.240-10.0.0.250.')
    if parent is not None:
        check_name(parent, 'parent')
        if parent == name:
            raise InvalidArgument("Pool '%s' cannot be its own parent." % name)
        if subnets is not None:
            raise InvalidArgument('A child pool takes parent and prefix_length (or ranges), not subnets: '
                                  'its subnet is carved from the parent.')
        if prefix_length is None and ranges is None:
            raise InvalidArgument('parent needs prefix_length (the size of the prefix to carve from it) or ranges '
                                  '(the ranges of its subnets the child holds).')
    if prefix_length is not None and (parent is None or isinstance(prefix_length, bool)
                                      or not isinstance(prefix_length, int) or not 0 <= prefix_length <= 128):
        raise InvalidArgument('prefix_length must be an integer from 0 to 128, given with parent.')
    return reuse_delay, metadata, ranges


def range_arguments(namespace, pool, ranges, kind, state):
    """The arguments of ``Service.range``: the list of range specs."""
    check_name(namespace, 'namespace')
    check_name(pool, 'pool')
    if kind not in ('allocatable', 'excluded'):
        raise InvalidArgument("kind must be 'allocatable' or 'excluded', got %r." % (kind,))
    if state not in ('present', 'absent'):
        raise InvalidArgument("state must be 'present' or 'absent', got %r." % (state,))
    specs = as_list(ranges, 'range')
    if not specs:
        raise InvalidArgument('range needs at least one range spec such as 10.0.0.10-10.0.0.50.')
    return specs


#: the values of ``probe``
PROBE_METHODS = ('none', 'icmp', 'arp')
#: ``probe_timeout`` (milliseconds) and ``probe_tries`` when not given
PROBE_TIMEOUT = 300
PROBE_TRIES = 16


def probe_options(method=None, timeout=None, tries=None):
    """The options ``probe``, ``probe_timeout`` and ``probe_tries`` checked: ``(method, timeout, tries)``, None for
    ``none`` (or none given); ``invalid_argument`` for a value out of its range. ``_probe.of`` makes the probe."""
    if method is None or method == 'none':
        return None
    if method not in PROBE_METHODS:
        raise InvalidArgument('probe must be one of %s, got %r.' % (', '.join(PROBE_METHODS), method))
    timeout = PROBE_TIMEOUT if timeout is None else timeout
    tries = PROBE_TRIES if tries is None else tries
    for name, value, low, high in (('probe_timeout', timeout, 1, 60000), ('probe_tries', tries, 1, 1024)):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidArgument('%s must be a whole number from %d to %d, got %r.' % (name, low, high, value))
    return method, timeout, tries


def owner_requests(owners, address, metadata):
    """``(owner, address, metadata)`` for each element of ``owners`` (see ``Service.reserve_owners``)."""
    if not isinstance(owners, (list, tuple)):
        raise InvalidArgument('owners must be a list of owners, got %r.' % (owners,))
    if address is not None and len(owners) > 1:
        raise InvalidArgument('address names the address of one owner: with several owners, give each its '
                              'own in its element of owners ({owner: NAME, address: ADDRESS}).')
    requests, seen = [], set()
    for i, element in enumerate(owners):
        if isinstance(element, dict):
            unknown = sorted(set(element) - set(('owner', 'address', 'metadata')))
            if unknown:
                raise InvalidArgument('owners[%d] has %s: an element of owners takes owner, address and '
                                      'metadata only.' % (i, ', '.join(repr(k) for k in unknown)))
            owner = element.get('owner')
            request = (owner, element.get('address', address), element.get('metadata', metadata))
        else:
            owner, request = element, (element, address, metadata)
        check_name(owner, 'owners[%d] (an owner)' % i)
        if owner in seen:
            raise InvalidArgument('owners lists %r twice: each owner holds one address per key and pool; '
                                  'list it once.' % (owner,))
        seen.add(owner)
        requests.append(request)
    return requests


def reserve_arguments(namespace, pool, requests, key, family_, ttl, reassign):
    """The arguments of ``Service.reserve`` / ``reserve_owners``: ``(version, ttl, requests)`` with each request
    ``(owner, (version, n) or None, metadata)``."""
    check_name(namespace, 'namespace')
    check_name(pool, 'pool')
    for owner, _address_, _metadata_ in requests:
        check_name(owner, 'owner')
    check_name(key, 'key')
    version = family(family_)
    if ttl is not None:
        ttl = parse_duration(ttl, 'ttl')
        if ttl == 0:
            raise InvalidArgument('ttl must be at least one second; leave it out for a reservation that '
                                  'never expires.')
    wanted = {}
    for owner, text, _metadata_ in requests:
        if text is not None:
            wanted[owner] = address(text)
            if version is not None and wanted[owner][0] != version:
                raise InvalidArgument('address %s is not of family %s.' % (text, family_))
        if reassign and text is None:
            raise InvalidArgument('reassign needs address: the address to take over.')
    asked = {}
    for owner, _a, _m in requests:
        if owner in wanted and wanted[owner] in asked:
            # docs/design.md#batches: one address has one holder, whatever reassign says
            raise InvalidArgument("owners '%s' and '%s' both ask for %s: an address has one holder. Give each "
                                  "owner an address of its own."
                                  % (asked[wanted[owner]], owner, iv.to_str(*wanted[owner])))
        if owner in wanted:
            asked[wanted[owner]] = owner
    requests = [(owner, wanted.get(owner), _metadata.reservation(check_metadata(metadata)))
                for owner, _a, metadata in requests]
    return version, ttl, requests


def dual_arguments(namespace, pool, requests, key, ttl, reassign):
    """The arguments of ``Service.reserve`` / ``reserve_owners`` with ``family: dual``: ``(ttl, requests)`` as
    ``reserve_arguments`` gives them. ``address`` names one address of one family: dual takes none (a static address
    is reserved with its own family and the same key; dual then adds the other family's)."""
    for owner, text, _metadata_ in requests:
        if text is not None:
            raise InvalidArgument("address %s (for owner '%s') cannot be given with family: dual, which reserves one "
                                  "dynamic address of each family. Reserve the static address with family ipv4 or "
                                  "ipv6 and the same key; family: dual then keeps it and adds the other family's."
                                  % (text, owner))
    _version, ttl, requests = reserve_arguments(namespace, pool, requests, key, None, ttl, reassign)
    return ttl, requests


def release_arguments(namespace, pool, owner, owners, key, keep_owners):
    """The arguments of ``Service.release``: the owners to release (None with ``keep_owners``)."""
    check_name(namespace, 'namespace')
    if pool is not None:
        check_name(pool, 'pool')
    if keep_owners is not None:
        if owner is not None or owners is not None or key is not None:
            raise InvalidArgument('keep_owners sweeps a whole pool: give it without owner, owners and key.')
        if pool is None:
            raise InvalidArgument('keep_owners needs pool: the pool to sweep.')
        if not isinstance(keep_owners, (list, tuple)) or not all(isinstance(o, str) for o in keep_owners):
            raise InvalidArgument('keep_owners must be a list of owners (strings), got %r.' % (keep_owners,))
        return None
    if owner is not None and owners is not None:
        raise InvalidArgument('owner and owners are mutually exclusive: give one owner, or a list.')
    if owner is None and owners is None:
        raise InvalidArgument('Releasing needs owner (and optionally key and pool), or pool and keep_owners '
                              'to sweep every other owner.')
    if owners is not None:
        owners = [o for o, _a, _m in owner_requests(owners, None, None)]
    else:
        owners = [check_name(owner, 'owner')]
    if key is not None:
        check_name(key, 'key')
    if key is not None and pool is None:
        raise InvalidArgument('key needs pool: a key names a reservation within one pool.')
    return owners


def reservation_state(state, keep_owners):
    """``keep_owners`` has a meaning with ``state: absent`` only."""
    if state != 'absent' and keep_owners is not None:
        raise InvalidArgument('keep_owners sweeps with state: absent; it has no meaning with state: present.')


def align_arguments(pool, align_with, requests, force, reassign):
    """``align_with`` names another pool, and the aligned address is the only address asked for: no ``address``
    (of any owner), no ``force`` (an aligned address is one the pool hands out), no ``reassign`` (it takes an
    address over from nobody)."""
    check_name(align_with, 'align_with')
    if align_with == pool:
        raise InvalidArgument("align_with names pool '%s' itself: give the pool whose host parts this one follows."
                              % pool)
    for owner, text, _metadata_ in requests:
        if text is not None:
            raise InvalidArgument("address %s (for owner '%s') cannot be given with align_with, which asks for the "
                                  "address aligned with pool '%s'. Give one of them." % (text, owner, align_with))
    if force or reassign:
        raise InvalidArgument('%s cannot be given with align_with: an aligned address must be one the pool hands '
                              'out, free or already the owner\'s. Leave %s out.' % (('force', 'force') if force
                                                                                    else ('reassign', 'reassign')))
