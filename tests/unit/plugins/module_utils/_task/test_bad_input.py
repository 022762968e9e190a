# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Hostile input: every bad request fails with its error code, a clear message, and a store left as it was.

One table per layer, each case run on every store (SQLite, JSON, and
PostgreSQL when a server answers):

- ``SERVICE_CASES`` call ``Service`` directly (what every module and the lookup end in);
- ``TASK_CASES`` go through the argument layer of a module twice: the action plugin
  (``IpamAction.run`` with a fake task, what a playbook runs) and the module file
  itself (``AnsibleModule``, ``fail_json``);
- ``LOOKUP_CASES`` go through ``lookup('netpool.ipam.address', ...)``;
- ``PLAYBOOK_CASES`` run in one real ``ansible-playbook`` (JSON callback) on SQLite.

"Unchanged" is the full content (``export_document``) on every store, and the
file's bytes on JSON. "Clear" is: a message, no traceback, and the words that
say what is wrong (usually the offending value).

The state every case starts from (``seed``) has an expired lease in pool
``web``: a reservation that fails in ``web`` first releases it inside its
transaction, so "unchanged" also proves that work done before the failure is
rolled back.
"""

import json
import os
import re

import pytest
import yaml

from ansible.errors import AnsibleError

from ansible_collections.netpool.ipam.plugins.doc_fragments.probe import ModuleDocFragment as ProbeFragment
from ansible_collections.netpool.ipam.plugins.doc_fragments.store import ModuleDocFragment as StoreFragment
from ansible_collections.netpool.ipam.plugins.lookup import address
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import ERRORS, IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._task._options import LOOKUP_OPTIONS
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.support import stores
from ansible_collections.netpool.ipam.tests.support.clock import Clock
from ansible_collections.netpool.ipam.tests.support.plugins import ACTIONS, lookup, run_action, run_module
from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook
from ansible_collections.netpool.ipam.tests.support.reliability import action, fresh_spec, snapshot

T0 = 1795000000.0


def seed(svc, clock):
    """The state every case starts from (see the module docstring)."""
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.10-10.0.0.20'],
                              'exclude': ['10.0.0.15']}], metadata={'vlan': 10})
    svc.pool('v6', subnets=[{'cidr': '2001:db8::/64'}])
    svc.pool('tiny', subnets=[{'cidr': '10.1.0.0/30'}])
    svc.pool('site', subnets=[{'cidr': '10.16.0.0/16'}])
    svc.pool('kid', parent='site', prefix_length=24)
    svc.pool('host128', subnets=[{'cidr': '2001:db8:ffff::1/128'}])
    svc.pool('one32', subnets=[{'cidr': '10.9.9.9/32'}])
    svc.pool('web', namespace='lab', subnets=[{'cidr': '10.0.0.0/24'}])
    svc.reserve('web', 'h1', metadata={'mac': '52:54:00:00:00:01'})
    svc.reserve('web', 'h2', address='10.0.0.100')
    svc.reserve('web', 'leased', ttl='60')
    svc.reserve('tiny', 't1')
    svc.reserve('tiny', 't2')
    svc.reserve('one32', 'o32')
    svc.reserve('v6', 'h1', key='eth1')
    svc.release(owner='h1', pool='v6')
    clock.advance(3600)             # the lease of 'leased' is over, not yet released


@pytest.fixture(scope='module', params=stores.KINDS)
def seeded(request, tmp_path_factory):
    """``(spec, service)`` over a seeded state, one per store kind and test process."""
    # pytest always finishes a fixture's generator, so the context is exited
    with fresh_spec(request.param, tmp_path_factory.mktemp(request.param)) as spec:  # pylint: disable=contextmanager-generator-missing-cleanup
        store = open_store(spec)
        clock = Clock(T0)
        svc = Service(store, clock=clock)
        seed(svc, clock)
        try:
            yield spec, svc
        finally:
            store.close()


def _clear(msg, words):
    assert msg and isinstance(msg, str)
    assert 'Traceback' not in msg and 'File "' not in msg, msg
    for word in words:
        assert word.lower() in msg.lower(), 'the message %r does not mention %r' % (msg, word)


# -- the service ----------------------------------------------------------------------------------------------

def case(ident, method, args, kwargs, code, *words):
    return pytest.param(method, args, kwargs, code, words, id=ident)


S24 = '10.50.0.0/24'


def net(**extra):
    """subnets=[one /24 subnet of 10.50.0.0 with ``extra``] for pool 'p'."""
    subnet = {'cidr': S24}
    subnet.update(extra)
    return {'subnets': [subnet]}


SERVICE_CASES = [
    # CIDRs
    case('cidr-prefix-33', 'pool', ('p',), {'subnets': [{'cidr': '10.50.0.0/33'}]}, 'invalid_argument', '10.50.0.0/33', 'prefix length'),
    case('cidr-garbage', 'pool', ('p',), {'subnets': [{'cidr': 'not-a-cidr'}]}, 'invalid_argument', 'not-a-cidr'),
    case('cidr-host-bits', 'pool', ('p',), {'subnets': [{'cidr': '10.50.0.1/24'}]}, 'invalid_argument', '10.50.0.1/24'),
    case('cidr-octet-256', 'pool', ('p',), {'subnets': [{'cidr': '10.50.0.256/24'}]}, 'invalid_argument', '10.50.0.256/24'),
    case('cidr-int', 'pool', ('p',), {'subnets': [{'cidr': 12345}]}, 'invalid_argument', '12345'),
    case('cidr-v6-garbage', 'pool', ('p',), {'subnets': [{'cidr': '2001:db8::g/64'}]}, 'invalid_argument', '2001:db8::g/64'),
    case('cidr-v6-prefix-129', 'pool', ('p',), {'subnets': [{'cidr': '2001:db9::/129'}]}, 'invalid_argument', '2001:db9::/129'),
    case('cidr-ipv4-mapped', 'pool', ('p',), {'subnets': [{'cidr': '::ffff:10.50.0.0/120'}]}, 'invalid_argument', 'IPv4-mapped'),
    case('cidr-missing', 'pool', ('p',), {'subnets': [{'gateway': '10.50.0.1'}]}, 'invalid_argument', 'cidr'),
    case('subnet-not-a-dict', 'pool', ('p',), {'subnets': [S24]}, 'invalid_argument', 'dict', S24),
    case('subnets-empty', 'pool', ('p',), {'subnets': []}, 'invalid_argument', 'subnets'),
    case('subnets-not-a-list', 'pool', ('p',), {'subnets': S24}, 'invalid_argument', 'subnets'),
    case('subnet-unknown-option', 'pool', ('p',), net(vlan=5), 'invalid_argument', 'vlan'),
    case('overlap-inside-one-pool', 'pool', ('p',), {'subnets': [{'cidr': S24}, {'cidr': '10.50.0.128/25'}]},
         'invalid_argument', '10.50.0.128/25', 'overlap'),
    case('overlap-other-pool', 'pool', ('p',), {'subnets': [{'cidr': '10.0.0.128/25'}]}, 'pool_overlap', "'web'"),
    case('overlap-slash-0-v4', 'pool', ('p',), {'subnets': [{'cidr': '0.0.0.0/0'}]}, 'pool_overlap', '0.0.0.0/0'),
    case('overlap-slash-0-v6', 'pool', ('p',), {'subnets': [{'cidr': '::/0'}]}, 'pool_overlap', '::/0'),
    case('overlap-dual-stack-v6-half', 'pool', ('p',), {'subnets': [{'cidr': S24}, {'cidr': '2001:db8::/48'}]},
         'pool_overlap', '2001:db8::/48', "'v6'"),
    case('overlap-slash-128', 'pool', ('p',), {'subnets': [{'cidr': '2001:db8::5/128'}]}, 'pool_overlap', "'v6'"),
    case('overlap-slash-32', 'pool', ('p',), {'subnets': [{'cidr': '10.9.9.9/32'}]}, 'pool_overlap', "'one32'"),
    # gateways, dns
    case('gateway-outside', 'pool', ('p',), net(gateway='10.50.1.1'), 'invalid_argument', '10.50.1.1', 'outside'),
    case('gateway-other-family', 'pool', ('p',), net(gateway='2001:db8::1'), 'invalid_argument', '2001:db8::1', 'outside'),
    case('gateway-ipv4-mapped', 'pool', ('p',), net(gateway='::ffff:10.50.0.1'), 'invalid_argument', 'IPv4-mapped'),
    case('gateway-garbage', 'pool', ('p',), net(gateway='router'), 'invalid_argument', 'router'),
    case('dns-garbage', 'pool', ('p',), net(dns=['8.8.8']), 'invalid_argument', '8.8.8'),
    case('dns-nested', 'pool', ('p',), net(dns=[{'ip': '8.8.8.8'}]), 'invalid_argument', 'dns'),
    # ranges and exclusions given with a subnet
    case('ranges-reversed', 'pool', ('p',), net(ranges=['10.50.0.50-10.50.0.10']), 'invalid_argument', 'reversed'),
    case('ranges-outside', 'pool', ('p',), net(ranges=['10.50.1.5']), 'invalid_argument', '10.50.1.5', 'outside'),
    case('ranges-mixed-family', 'pool', ('p',), net(ranges=['10.50.0.5-2001:db8::1']), 'invalid_argument',
         '10.50.0.5-2001:db8::1'),
    case('ranges-v6-in-v4', 'pool', ('p',), net(ranges=['2001:db8::5']), 'invalid_argument', '2001:db8::5', 'outside'),
    case('ranges-ipv4-mapped', 'pool', ('p',), net(ranges=['::ffff:10.50.0.5']), 'invalid_argument', 'IPv4-mapped'),
    case('ranges-not-a-list', 'pool', ('p',), net(ranges={'first': '10.50.0.5'}), 'invalid_argument', 'ranges'),
    case('ranges-int', 'pool', ('p',), net(ranges=[5]), 'invalid_argument', 'ranges'),
    case('exclude-outside', 'pool', ('p',), net(exclude=['10.51.0.1']), 'invalid_argument', '10.51.0.1', 'exclude'),
    # other pool options
    case('strategy-unknown', 'pool', ('p',), dict(net(), strategy='sideways'), 'invalid_argument', 'sideways'),
    case('reuse-delay-negative', 'pool', ('p',), dict(net(), reuse_delay=-5), 'invalid_argument', 'reuse_delay', '-5'),
    case('reuse-delay-bad-unit', 'pool', ('p',), dict(net(), reuse_delay='1y'), 'invalid_argument', 'reuse_delay', '1y'),
    case('reuse-delay-enormous', 'pool', ('p',), dict(net(), reuse_delay=10 ** 12), 'invalid_argument', 'reuse_delay', '100 years'),
    case('pool-metadata-nested', 'pool', ('p',), dict(net(), metadata={'vlan': {'id': 10}}), 'invalid_argument', 'vlan', 'flatten'),
    case('pool-metadata-list', 'pool', ('p',), dict(net(), metadata={'tags': ['a', 'b']}), 'invalid_argument', 'tags'),
    case('pool-metadata-not-a-dict', 'pool', ('p',), dict(net(), metadata=['vlan']), 'invalid_argument', 'metadata'),
    case('pool-metadata-name-empty', 'pool', ('p',), dict(net(), metadata={'': 'x'}), 'invalid_argument', 'metadata name'),
    case('description-not-a-string', 'pool', ('p',), dict(net(), description={'a': 1}), 'invalid_argument', 'description'),
    case('pool-name-empty', 'pool', ('',), net(), 'invalid_argument', 'pool name'),
    case('pool-name-256', 'pool', ('p' * 256,), net(), 'invalid_argument', 'pool name', '256'),
    case('pool-name-control', 'pool', ('a\nb',), net(), 'invalid_argument', 'control'),
    case('namespace-empty', 'pool', ('p',), dict(net(), namespace=''), 'invalid_argument', 'namespace'),
    case('namespace-list', 'pool', ('p',), dict(net(), namespace=['lab']), 'invalid_argument', 'namespace'),
    case('pool-state-unknown', 'pool', ('p',), dict(net(), state='gone'), 'invalid_argument', 'gone'),
    case('pool-create-without-subnets', 'pool', ('p',), {}, 'invalid_argument', "'p'", 'subnets'),
    case('pool-shrink-under-reservations', 'pool', ('web',), {'subnets': [{'cidr': '10.2.0.0/24'}]}, 'pool_in_use',
         '10.0.0.10', '10.0.0.100', 'force'),
    case('pool-delete-in-use', 'pool', ('web',), {'state': 'absent'}, 'pool_in_use', "'web'", 'force'),
    case('pool-delete-parent-of-child', 'pool', ('site',), {'state': 'absent'}, 'pool_in_use', 'kid'),
    case('pool-shrink-below-child', 'pool', ('site',), {'subnets': [{'cidr': '10.17.0.0/16'}]}, 'pool_in_use', 'kid'),
    # child pools: prefix lengths that cannot fit, contradicting options
    case('child-prefix-shorter-than-parent', 'pool', ('c',), dict(parent='site', prefix_length=8), 'invalid_argument',
         '/8', "'site'"),
    case('child-prefix-33-from-v4', 'pool', ('c',), dict(parent='site', prefix_length=33), 'invalid_argument', '/33'),
    case('child-prefix-0', 'pool', ('c',), dict(parent='site', prefix_length=0), 'invalid_argument', '/0'),
    case('child-prefix-129', 'pool', ('c',), dict(parent='v6', prefix_length=129), 'invalid_argument', 'prefix_length'),
    case('child-prefix-negative', 'pool', ('c',), dict(parent='site', prefix_length=-1), 'invalid_argument', 'prefix_length'),
    case('child-prefix-string', 'pool', ('c',), dict(parent='site', prefix_length='24'), 'invalid_argument', 'prefix_length'),
    case('child-prefix-bool', 'pool', ('c',), dict(parent='site', prefix_length=True), 'invalid_argument', 'prefix_length'),
    case('child-with-subnets', 'pool', ('c',), dict(net(), parent='site', prefix_length=24), 'invalid_argument',
         'parent', 'subnets'),
    case('child-without-prefix', 'pool', ('c',), dict(parent='site'), 'invalid_argument', 'prefix_length'),
    case('prefix-without-parent', 'pool', ('c',), dict(prefix_length=24), 'invalid_argument', 'parent'),
    case('own-parent', 'pool', ('site',), dict(parent='site', prefix_length=24), 'invalid_argument', 'own parent'),
    case('child-of-unknown-parent', 'pool', ('c',), dict(parent='nope', prefix_length=24), 'pool_not_found', "'nope'"),
    case('child-resized', 'pool', ('kid',), dict(parent='site', prefix_length=25), 'invalid_argument', 'kid', '/25'),
    case('child-given-subnets', 'pool', ('kid',), {'subnets': [{'cidr': '10.16.5.0/24'}]}, 'invalid_argument', 'kid', 'child'),
    case('child-no-room', 'pool', ('c',), dict(parent='site', prefix_length=16), 'pool_exhausted', "'site'", '/16'),
    case('child-of-full-slash-32', 'pool', ('c',), dict(parent='one32', prefix_length=32), 'pool_exhausted', "'one32'"),
    # range edits
    case('range-reversed', 'range', ('web', '10.0.0.30-10.0.0.25'), {}, 'invalid_argument', 'reversed', '10.0.0.25-10.0.0.30'),
    case('range-outside-subnet', 'range', ('web', '10.0.1.1'), {}, 'address_out_of_pool', '10.0.1.1', "'web'"),
    case('range-straddles-subnet', 'range', ('web', '10.0.0.250-10.0.1.5'), {}, 'address_out_of_pool', '10.0.0.250-10.0.1.5'),
    case('range-v6-in-v4-pool', 'range', ('web', '2001:db8::1'), {}, 'address_out_of_pool', '2001:db8::1'),
    case('range-ipv4-mapped', 'range', ('web', '::ffff:10.0.0.30'), {}, 'invalid_argument', 'IPv4-mapped'),
    case('range-host-bits', 'range', ('web', '10.0.0.5/24'), {}, 'invalid_argument', 'host bits'),
    case('range-prefix-33', 'range', ('web', '10.0.0.0/33'), {}, 'invalid_argument', '10.0.0.0/33'),
    case('range-double-dash', 'range', ('web', '10.0.0.25--10.0.0.30'), {}, 'invalid_argument', 'FIRST-LAST'),
    case('range-empty-list', 'range', ('web', []), {}, 'invalid_argument', 'range'),
    case('range-empty-string', 'range', ('web', ''), {}, 'invalid_argument', 'empty'),
    case('range-none-element', 'range', ('web', [None]), {}, 'invalid_argument', 'range'),
    case('range-kind-unknown', 'range', ('web', '10.0.0.30'), {'kind': 'reserved'}, 'invalid_argument', 'reserved'),
    case('range-state-unknown', 'range', ('web', '10.0.0.30'), {'state': 'maybe'}, 'invalid_argument', 'maybe'),
    case('range-unknown-pool', 'range', ('nope', '10.0.0.30'), {}, 'pool_not_found', "'nope'"),
    case('range-unknown-namespace', 'range', ('web', '10.0.0.30'), {'namespace': 'nowhere'}, 'pool_not_found', "'nowhere'"),
    # owners, keys
    case('owner-empty', 'reserve', ('web', ''), {}, 'invalid_argument', 'owner'),
    case('owner-blank', 'reserve', ('web', '   '), {}, 'invalid_argument', 'owner'),
    case('owner-256', 'reserve', ('web', 'o' * 256), {}, 'invalid_argument', 'owner', '256'),
    case('owner-10000', 'reserve', ('web', 'o' * 10000), {}, 'invalid_argument', 'owner', '10000'),
    case('owner-nul', 'reserve', ('web', 'o\x00'), {}, 'invalid_argument', 'control'),
    case('owner-list', 'reserve', ('web', ['o']), {}, 'invalid_argument', 'owner'),
    case('owner-none', 'reserve', ('web', None), {}, 'invalid_argument', 'owner'),
    case('key-empty', 'reserve', ('web', 'o'), {'key': ''}, 'invalid_argument', 'key'),
    case('key-100000', 'reserve', ('web', 'o'), {'key': 'k' * 100000}, 'invalid_argument', 'key', '100000'),
    case('key-int', 'reserve', ('web', 'o'), {'key': 0}, 'invalid_argument', 'key'),
    # metadata
    case('metadata-nested', 'reserve', ('web', 'o'), {'metadata': {'nic': {'mac': 'x'}}}, 'invalid_argument', 'nic', 'flatten'),
    case('metadata-list', 'reserve', ('web', 'o'), {'metadata': {'macs': ['a', 'b']}}, 'invalid_argument', 'macs'),
    case('metadata-null-value', 'reserve', ('web', 'o'), {'metadata': {'mac': None}}, 'invalid_argument', 'mac'),
    case('metadata-int-name', 'reserve', ('web', 'o'), {'metadata': {1: 'x'}}, 'invalid_argument', 'metadata name'),
    case('metadata-string', 'reserve', ('web', 'o'), {'metadata': 'mac=x'}, 'invalid_argument', 'metadata'),
    case('metadata-change-nested', 'reserve', ('web', 'h1'), {'metadata': {'mac': {'a': 1}}}, 'invalid_argument', 'mac'),
    # ttl
    case('ttl-zero', 'reserve', ('web', 'o'), {'ttl': '0'}, 'invalid_argument', 'ttl'),
    case('ttl-negative', 'reserve', ('web', 'o'), {'ttl': '-1h'}, 'invalid_argument', 'ttl', '-1h'),
    case('ttl-bad-unit', 'reserve', ('web', 'o'), {'ttl': '5 fortnights'}, 'invalid_argument', 'ttl', 'fortnights'),
    case('ttl-fraction', 'reserve', ('web', 'o'), {'ttl': '1.5h'}, 'invalid_argument', '1.5h'),
    case('ttl-float', 'reserve', ('web', 'o'), {'ttl': 1.5}, 'invalid_argument', '1.5'),
    case('ttl-bool', 'reserve', ('web', 'o'), {'ttl': True}, 'invalid_argument', 'ttl', 'True'),
    case('ttl-enormous-days', 'reserve', ('web', 'o'), {'ttl': '99999999999999999999d'}, 'invalid_argument', 'ttl', '100 years'),
    case('ttl-enormous-int', 'reserve', ('web', 'o'), {'ttl': 10 ** 20}, 'invalid_argument', 'ttl', '100 years'),
    case('ttl-renew-enormous', 'reserve', ('web', 'h1'), {'ttl': '999999999w'}, 'invalid_argument', 'ttl'),
    # unknown pools and namespaces
    case('reserve-unknown-pool', 'reserve', ('nope', 'o'), {}, 'pool_not_found', "'nope'", 'netpool.ipam.pool'),
    case('reserve-unknown-namespace', 'reserve', ('web', 'o'), {'namespace': 'nowhere'}, 'pool_not_found', "'nowhere'"),
    case('reserve-pool-of-other-namespace', 'reserve', ('tiny', 'o'), {'namespace': 'lab'}, 'pool_not_found', "'lab'"),
    # addresses
    case('address-octet-256', 'reserve', ('web', 'o'), {'address': '10.0.0.256'}, 'invalid_argument', '10.0.0.256'),
    case('address-with-prefix', 'reserve', ('web', 'o'), {'address': '10.0.0.50/24'}, 'invalid_argument', 'prefix length'),
    case('address-ipv4-mapped', 'reserve', ('web', 'o'), {'address': '::ffff:10.0.0.50'}, 'invalid_argument',
         'IPv4-mapped', '10.0.0.50'),
    case('address-zone-index', 'reserve', ('web', 'o'), {'address': 'fe80::1%eth0'}, 'invalid_argument', 'fe80::1%eth0'),
    case('address-leading-zero', 'reserve', ('web', 'o'), {'address': '010.0.0.50'}, 'invalid_argument', '010.0.0.50'),
    case('address-int', 'reserve', ('web', 'o'), {'address': 167772210}, 'invalid_argument', '167772210'),
    case('address-empty', 'reserve', ('web', 'o'), {'address': ''}, 'invalid_argument', 'empty'),
    case('address-out-of-pool', 'reserve', ('web', 'o'), {'address': '10.200.0.5'}, 'address_out_of_pool', '10.200.0.5', "'web'"),
    case('address-other-family', 'reserve', ('web', 'o'), {'address': '2001:db8::5'}, 'address_out_of_pool', '2001:db8::5'),
    case('address-gateway', 'reserve', ('web', 'o'), {'address': '10.0.0.1'}, 'address_excluded', '10.0.0.1', 'force'),
    case('address-network', 'reserve', ('web', 'o'), {'address': '10.0.0.0'}, 'address_excluded', '10.0.0.0'),
    case('address-broadcast', 'reserve', ('web', 'o'), {'address': '10.0.0.255'}, 'address_excluded', '10.0.0.255'),
    case('address-exclusion', 'reserve', ('web', 'o'), {'address': '10.0.0.15'}, 'address_excluded', '10.0.0.15'),
    case('address-in-child-pool', 'reserve', ('site', 'o'), {'address': '10.16.0.5'}, 'address_excluded', 'child pool'),
    case('address-in-use', 'reserve', ('web', 'o'), {'address': '10.0.0.100'}, 'address_in_use', "'h2'", 'reassign'),
    case('move-onto-held-address', 'reserve', ('web', 'h1'), {'address': '10.0.0.100'}, 'address_in_use', "'h2'"),
    case('slash-32-in-use', 'reserve', ('one32', 'o2'), {'address': '10.9.9.9'}, 'address_in_use', "'o32'"),
    case('slash-128-outside', 'reserve', ('host128', 'o'), {'address': '2001:db8:ffff::2'}, 'address_out_of_pool',
         '2001:db8:ffff::2'),
    # exhausted pools
    case('exhausted-slash-30', 'reserve', ('tiny', 't3'), {}, 'pool_exhausted', "'tiny'"),
    case('exhausted-slash-32', 'reserve', ('one32', 'o2'), {}, 'pool_exhausted', "'one32'"),
    case('exhausted-slash-128', 'reserve', ('host128', 'o'), {}, 'pool_exhausted', "'host128'"),
    case('exhausted-check-mode', 'reserve', ('tiny', 't3'), {'check': True}, 'pool_exhausted', "'tiny'"),
    # families and contradicting options
    case('family-unknown', 'reserve', ('web', 'o'), {'family': 'ipv5'}, 'invalid_argument', 'ipv5'),
    case('family-not-in-pool', 'reserve', ('web', 'o'), {'family': 'ipv6'}, 'pool_exhausted', 'IPv6 subnet', "'web'"),
    case('family-contradicts-address', 'reserve', ('web', 'o'), {'address': '10.0.0.50', 'family': 'ipv6'},
         'invalid_argument', '10.0.0.50', 'ipv6'),
    case('family-contradicts-reservation', 'reserve', ('web', 'h1'), {'family': 'ipv6'}, 'invalid_argument', 'h1', 'IPv6'),
    case('reassign-without-address', 'reserve', ('web', 'o'), {'reassign': True}, 'invalid_argument', 'reassign', 'address'),
    # releases
    case('release-nothing-named', 'release', (), {'pool': 'web'}, 'invalid_argument', 'owner'),
    case('release-key-without-pool', 'release', (), {'owner': 'h1', 'key': 'default'}, 'invalid_argument', 'key', 'pool'),
    case('release-keep-owners-and-owner', 'release', (), {'pool': 'web', 'owner': 'h1', 'keep_owners': ['h1']},
         'invalid_argument', 'keep_owners'),
    case('release-keep-owners-and-key', 'release', (), {'pool': 'web', 'key': 'default', 'keep_owners': ['h1']},
         'invalid_argument', 'keep_owners'),
    case('release-keep-owners-without-pool', 'release', (), {'keep_owners': ['h1']}, 'invalid_argument', 'pool'),
    case('release-keep-owners-string', 'release', (), {'pool': 'web', 'keep_owners': 'h1'}, 'invalid_argument', 'keep_owners'),
    case('release-keep-owners-nested', 'release', (), {'pool': 'web', 'keep_owners': [['h1']]}, 'invalid_argument',
         'keep_owners'),
    case('release-owner-empty', 'release', (), {'owner': ''}, 'invalid_argument', 'owner'),
    case('release-pool-empty', 'release', (), {'owner': 'h1', 'pool': ''}, 'invalid_argument', 'pool'),
    case('release-namespace-empty', 'release', ('',), {'owner': 'h1'}, 'invalid_argument', 'namespace'),
    # aligned host parts
    case('align-nothing-there', 'reserve', ('tiny', 'stranger'), {'align_with': 'site'}, 'not_reserved', "'stranger'",
         "'site'", 'netpool.ipam.reservation'),
    case('align-unknown-pool', 'reserve', ('tiny', 'h1'), {'align_with': 'nope'}, 'pool_not_found', "'nope'"),
    case('align-itself', 'reserve', ('tiny', 'h1'), {'align_with': 'tiny'}, 'invalid_argument', "'tiny'", 'itself'),
    case('align-empty', 'reserve', ('tiny', 'h1'), {'align_with': ''}, 'invalid_argument', 'align_with'),
    case('align-with-address', 'reserve', ('tiny', 'h1'), {'align_with': 'site', 'address': '10.1.0.1'},
         'invalid_argument', 'address', 'align_with'),
    case('align-with-force', 'reserve_owners', ('tiny', ['h1']), {'align_with': 'site', 'force': True},
         'invalid_argument', 'force'),
    # reading
    case('info-unknown-pool', 'info', (), {'pool': 'nope'}, 'pool_not_found', "'nope'"),
    case('info-bad-address', 'info', (), {'address': 'bad'}, 'invalid_argument', "'bad'"),
    case('info-ipv4-mapped', 'info', (), {'address': '::ffff:10.0.0.10'}, 'invalid_argument', 'IPv4-mapped'),
    case('info-namespace-empty', 'info', ('',), {}, 'invalid_argument', 'namespace'),
]


@pytest.mark.parametrize('method, args, kwargs, code, words', SERVICE_CASES)
def test_service(seeded, method, args, kwargs, code, words):
    spec, svc = seeded
    before = snapshot(svc.store, spec)
    with pytest.raises(IpamError) as info:
        getattr(svc, method)(*args, **kwargs)
    assert info.value.code == code, info.value.msg
    _clear(info.value.msg, words)
    assert snapshot(svc.store, spec) == before


def test_slash_128_and_slash_32_edges(seeded):
    """Not bad input, the edges beside it: a /32 hands out its one address; a /128 only by a static request."""
    spec, svc = seeded
    assert svc.info(pool='one32')['pools'][0]['size'] == 1
    assert svc.info(pool='host128')['pools'][0]['size'] == 0     # its one address is the subnet-router anycast address
    result = svc.reserve('host128', 'loopback', address='2001:db8:ffff::1', check=True)
    assert result['changed'] and result['reservation']['cidr'] == '2001:db8:ffff::1/128'


def test_the_table_is_big_and_covers_every_input_code():
    # netpool.ipam.adopt is no method of the service: its cases are tasks (TASK_CASES)
    codes = set(p.values[3] for p in SERVICE_CASES) | set(p.values[2] for p in TASK_CASES if p.values[0] == 'adopt')
    assert len(SERVICE_CASES) >= 50
    assert codes >= set(ERRORS) - set(
        ['store_busy', 'store_unavailable', 'store_version', 'unsupported', 'internal_error'])


# -- the module argument layer: the action plugin and the module file ------------------------------------------

def task(ident, module, args, code, *words):
    return pytest.param(module, args, code, words, id=ident)


TASK_CASES = [
    task('pool-subnets-and-cidr', 'pool', {'name': 'p', 'cidr': S24, 'subnets': [{'cidr': S24}]}, 'invalid_argument',
         'mutually exclusive', 'cidr', 'subnets'),
    task('pool-parent-and-cidr', 'pool', {'name': 'p', 'cidr': S24, 'parent': 'site', 'prefix_length': 24},
         'invalid_argument', 'mutually exclusive'),
    task('pool-gateway-without-cidr', 'pool', {'name': 'p', 'gateway': '10.50.0.1'}, 'invalid_argument', 'cidr'),
    task('pool-parent-without-prefix', 'pool', {'name': 'p', 'parent': 'site'}, 'invalid_argument', 'prefix_length'),
    task('pool-prefix-not-int', 'pool', {'name': 'p', 'parent': 'site', 'prefix_length': 'big'}, 'invalid_argument',
         'prefix_length'),
    task('pool-prefix-cannot-fit', 'pool', {'name': 'p', 'parent': 'site', 'prefix_length': 8}, 'invalid_argument', '/8'),
    task('pool-strategy-choice', 'pool', {'name': 'p', 'cidr': S24, 'strategy': 'sideways'}, 'invalid_argument', 'strategy'),
    task('pool-unknown-option', 'pool', {'name': 'p', 'cidr': S24, 'colour': 'blue'}, 'invalid_argument', 'colour'),
    task('pool-subnet-without-cidr', 'pool', {'name': 'p', 'subnets': [{'gateway': '10.50.0.1'}]}, 'invalid_argument', 'cidr'),
    task('pool-cidr-ipv4-mapped', 'pool', {'name': 'p', 'cidr': '::ffff:10.50.0.0/120'}, 'invalid_argument', 'IPv4-mapped'),
    task('pool-gateway-outside', 'pool', {'name': 'p', 'cidr': S24, 'gateway': '10.0.0.1'}, 'invalid_argument', 'outside'),
    task('pool-overlap', 'pool', {'name': 'p', 'cidr': '10.0.0.0/16'}, 'pool_overlap', "'web'"),
    task('pool-metadata-not-a-dict', 'pool', {'name': 'p', 'cidr': S24, 'metadata': 'vlan'}, 'invalid_argument', 'metadata'),
    task('pool-force-not-bool', 'pool', {'name': 'web', 'state': 'absent', 'force': 'perhaps'}, 'invalid_argument', 'force'),
    task('pool-in-use', 'pool', {'name': 'web', 'state': 'absent'}, 'pool_in_use', "'web'"),
    task('range-missing', 'range', {'pool': 'web'}, 'invalid_argument', 'range'),
    task('range-kind-choice', 'range', {'pool': 'web', 'range': '10.0.0.30', 'kind': 'weird'}, 'invalid_argument', 'kind'),
    task('range-reversed', 'range', {'pool': 'web', 'range': ['10.0.0.40-10.0.0.30']}, 'invalid_argument', 'reversed'),
    task('range-outside', 'range', {'pool': 'web', 'range': '10.0.1.0/28'}, 'address_out_of_pool', '10.0.1.0/28'),
    task('reservation-no-owner', 'reservation', {'pool': 'web'}, 'invalid_argument', 'owner'),
    task('reservation-no-pool', 'reservation', {'owner': 'o'}, 'invalid_argument', 'pool'),
    task('reservation-keep-owners-and-owner', 'reservation',
         {'pool': 'web', 'state': 'absent', 'owner': 'h1', 'keep_owners': ['h1']}, 'invalid_argument', 'keep_owners'),
    task('reservation-keep-owners-without-pool', 'reservation', {'state': 'absent', 'keep_owners': ['h1']},
         'invalid_argument', 'pool'),
    task('reservation-keep-owners-present', 'reservation', {'pool': 'web', 'owner': 'o', 'keep_owners': ['h1']},
         'invalid_argument', 'keep_owners'),
    task('reservation-absent-nothing-named', 'reservation', {'pool': 'web', 'state': 'absent'}, 'invalid_argument', 'owner'),
    task('reservation-state-choice', 'reservation', {'pool': 'web', 'owner': 'o', 'state': 'gone'}, 'invalid_argument', 'state'),
    task('reservation-family-choice', 'reservation', {'pool': 'web', 'owner': 'o', 'family': 'ipv5'}, 'invalid_argument',
         'family'),
    task('reservation-metadata-nested', 'reservation', {'pool': 'web', 'owner': 'o', 'metadata': {'nic': {'a': 1}}},
         'invalid_argument', 'nic'),
    task('reservation-ttl-bad', 'reservation', {'pool': 'web', 'owner': 'o', 'ttl': '5 fortnights'}, 'invalid_argument', 'ttl'),
    task('reservation-ttl-enormous', 'reservation', {'pool': 'web', 'owner': 'o', 'ttl': '9' * 30}, 'invalid_argument', 'ttl'),
    task('reservation-timeout-not-int', 'reservation', {'pool': 'web', 'owner': 'o', 'timeout': 'soon'}, 'invalid_argument',
         'timeout'),
    task('reservation-owner-10000', 'reservation', {'pool': 'web', 'owner': 'o' * 10000}, 'invalid_argument', '10000'),
    task('reservation-namespace-empty', 'reservation', {'pool': 'web', 'owner': 'o', 'namespace': ''}, 'invalid_argument',
         'namespace'),
    task('reservation-address-bad', 'reservation', {'pool': 'web', 'owner': 'o', 'address': '10.0.0.300'}, 'invalid_argument',
         '10.0.0.300'),
    task('reservation-address-excluded', 'reservation', {'pool': 'web', 'owner': 'o', 'address': '10.0.0.1'},
         'address_excluded', '10.0.0.1'),
    task('reservation-address-in-use', 'reservation', {'pool': 'web', 'owner': 'o', 'address': '10.0.0.10'},
         'address_in_use', "'h1'"),
    task('reservation-unknown-pool', 'reservation', {'pool': 'nope', 'owner': 'o'}, 'pool_not_found', "'nope'"),
    task('reservation-exhausted', 'reservation', {'pool': 'tiny', 'owner': 'o'}, 'pool_exhausted', "'tiny'"),
    task('reservation-reassign-without-address', 'reservation', {'pool': 'web', 'owner': 'o', 'reassign': True},
         'invalid_argument', 'reassign'),
    task('store-unknown-scheme', 'reservation', {'pool': 'web', 'owner': 'o', 'store': 'ftp://example.org/ipam'},
         'invalid_argument', 'ftp://'),
    task('store-netbox-without-token', 'reservation', {'pool': 'web', 'owner': 'o',
                                                       'store': 'netbox+https://netbox.example'},
         'invalid_argument', 'store_token'),
    task('store-missing-directory', 'info', {'store': '/nonexistent/dir/ipam.sqlite'}, 'store_unavailable', '/nonexistent/dir'),
    task('info-bad-address', 'info', {'address': 'bad'}, 'invalid_argument', "'bad'"),
    task('info-unknown-pool', 'info', {'pool': 'nope'}, 'pool_not_found', "'nope'"),
    task('info-map-not-bool', 'info', {'map': 'sometimes'}, 'invalid_argument', 'map'),
    task('adopt-conflict', 'adopt', {'entries': [{'address': '10.0.0.30', 'owner': 'a'},
                                                 {'address': '10.0.0.1', 'owner': 'gw'}]},
         'adopt_conflict', 'entries[1]', 'gateway of 10.0.0.0/24', 'Nothing was written'),
    task('adopt-no-source', 'adopt', {}, 'invalid_argument', 'entries', 'csv', 'leases'),
    task('adopt-two-sources', 'adopt', {'entries': [], 'csv': '/nonexistent/hosts.csv'}, 'invalid_argument',
         'mutually exclusive'),
    task('adopt-leases-without-format', 'adopt', {'leases': '/nonexistent/kea-leases4.csv'}, 'invalid_argument',
         'leases_format'),
    task('adopt-missing-file', 'adopt', {'csv': '/nonexistent/hosts.csv'}, 'invalid_argument',
         'Cannot read /nonexistent/hosts.csv'),
    task('adopt-bad-address', 'adopt', {'entries': [{'address': '10.0.0.300', 'owner': 'a'}]}, 'invalid_argument',
         'entries[0]', '10.0.0.300'),
    task('adopt-unknown-pool', 'adopt', {'entries': [{'address': '10.0.0.30', 'owner': 'a'}], 'pool': 'nope'},
         'pool_not_found', "'nope'", 'entries[0]'),
    task('adopt-on-conflict-choice', 'adopt', {'entries': [], 'on_conflict': 'ignore'}, 'invalid_argument',
         'on_conflict'),
    # a list or dict for a string option (or an element of a list of strings) is refused, not turned into its repr
    task('reservation-owner-list', 'reservation', {'pool': 'web', 'owner': ['a', 'b']}, 'invalid_argument',
         "'owner'", 'string', 'list'),
    task('reservation-owner-dict', 'reservation', {'pool': 'web', 'owner': {'a': 1}}, 'invalid_argument',
         "'owner'", 'string', 'dict'),
    task('reservation-key-list', 'reservation', {'pool': 'web', 'owner': 'o', 'key': ['eth0']}, 'invalid_argument',
         "'key'", 'string'),
    task('reservation-pool-list', 'reservation', {'pool': ['web'], 'owner': 'o'}, 'invalid_argument', "'pool'", 'string'),
    task('reservation-keep-owners-dict-element', 'reservation', {'pool': 'web', 'state': 'absent', 'keep_owners': [{'a': 1}]},
         'invalid_argument', "'keep_owners'", 'list of strings', 'dict'),
    task('reservation-keep-owners-list-element', 'reservation', {'pool': 'web', 'state': 'absent', 'keep_owners': [['h1']]},
         'invalid_argument', "'keep_owners'", 'list of strings'),
    task('pool-name-list', 'pool', {'name': ['x'], 'cidr': '10.6.0.0/24'}, 'invalid_argument', "'name'", 'string'),
    task('pool-description-list', 'pool', {'name': 'p', 'cidr': S24, 'description': ['a']}, 'invalid_argument',
         "'description'", 'string'),
    task('pool-subnet-cidr-list', 'pool', {'name': 'p', 'subnets': [{'cidr': [S24]}]}, 'invalid_argument',
         "'cidr'", 'subnets[0]', 'string'),
    task('pool-dns-dict-element', 'pool', {'name': 'p', 'cidr': S24, 'dns': [{'ip': '8.8.8.8'}]}, 'invalid_argument',
         "'dns'", 'list of strings'),
    task('range-alias-list-element', 'range', {'pool': 'web', 'ranges': [['10.0.0.30']]}, 'invalid_argument',
         "'ranges'", 'list of strings'),
    task('store-list', 'reservation', {'pool': 'web', 'owner': 'o', 'store': ['a.json']}, 'invalid_argument',
         "'store'", 'string'),
    task('store-token-list', 'info', {'store_token': ['pw-SECRET']}, 'invalid_argument', "'store_token'", 'string'),
    task('info-namespace-list', 'info', {'namespace': ['a']}, 'invalid_argument', "'namespace'", 'string'),
    task('info-owner-dict', 'info', {'owner': {'a': 1}}, 'invalid_argument', "'owner'", 'dict'),
    # an empty string is not "unset" (store is the one exception: "" is a store not given: the environment's, else the default)
    task('reservation-key-empty', 'reservation', {'pool': 'web', 'owner': 'o', 'key': ''}, 'invalid_argument',
         "'key'", 'empty'),
    task('info-key-empty', 'info', {'key': ''}, 'invalid_argument', "'key'", 'empty'),
    task('info-owner-empty', 'info', {'owner': ''}, 'invalid_argument', "'owner'", 'empty'),
]


def _with_store(args, spec):
    args = dict(args)
    args.setdefault('store', spec)
    return args


@pytest.mark.parametrize('module, args, code, words', TASK_CASES)
def test_action_plugin(seeded, module, args, code, words, tmp_path, monkeypatch):
    spec, svc = seeded
    monkeypatch.chdir(tmp_path)     # a relative store would be here: nothing may be created
    before = snapshot(svc.store, spec)
    result = run_action(module, _with_store(args, spec))
    assert result.get('failed') is True, result
    assert result['error'] == code, result
    _clear(result['msg'], words)
    assert 'SECRET' not in json.dumps(result)
    assert 'exception' not in result or code == 'internal_error'
    assert snapshot(svc.store, spec) == before
    assert not os.listdir(str(tmp_path))


@pytest.mark.parametrize('module, args, code, words', TASK_CASES)
def test_module_file(seeded, module, args, code, words, capsys, tmp_path, monkeypatch):
    spec, svc = seeded
    monkeypatch.chdir(tmp_path)
    before = snapshot(svc.store, spec)
    result = run_module(module, _with_store(args, spec), capsys)
    assert result.get('failed') is True, result
    assert result['error'] == code, result
    _clear(result['msg'], words)
    assert 'SECRET' not in json.dumps(result)
    assert snapshot(svc.store, spec) == before
    assert not os.listdir(str(tmp_path))


@pytest.mark.parametrize('run', ['action', 'module'])
def test_numbers_for_strings_are_still_converted(seeded, run, capsys):
    """Only lists and dicts are refused for a string option: owner: 42 and key: 1 mean '42' and '1', as in Ansible."""
    spec, svc = seeded
    before = snapshot(svc.store, spec)
    args = {'pool': 'web', 'owner': 42, 'key': 1, 'store': spec, '_ansible_check_mode': True}
    if run == 'action':
        args.pop('_ansible_check_mode')
        result = action(ACTIONS['reservation'].ActionModule, args, check=True).run(task_vars={})
    else:
        result = run_module('reservation', args, capsys)
    assert not result.get('failed'), result
    assert result['changed'] is True
    assert (result['reservation']['owner'], result['reservation']['key']) == ('42', '1')
    assert snapshot(svc.store, spec) == before


# -- the lookup ----------------------------------------------------------------------------------------------

def lookup_case(ident, terms, kwargs, code, *words):
    return pytest.param(terms, kwargs, code, words, id=ident)


LOOKUP_CASES = [
    lookup_case('no-owner', ['web'], {}, 'invalid_argument', 'owner'),
    lookup_case('owner-empty', ['web'], {'owner': ''}, 'invalid_argument', 'owner'),
    lookup_case('owner-not-string', ['web'], {'owner': ['h1']}, 'invalid_argument', 'owner'),
    lookup_case('key-not-string', ['web'], {'owner': 'h1', 'key': 5}, 'invalid_argument', 'key'),
    lookup_case('owner-10000-allocate', ['web'], {'owner': 'o' * 10000, 'allocate': True}, 'invalid_argument', '10000'),
    lookup_case('unknown-pool', ['nope'], {'owner': 'h1'}, 'pool_not_found', "'nope'"),
    lookup_case('unknown-pool-allocate', ['nope'], {'owner': 'h1', 'allocate': True}, 'pool_not_found', "'nope'"),
    lookup_case('unknown-namespace', ['web'], {'owner': 'h1', 'namespace': 'nowhere'}, 'pool_not_found', "'nowhere'"),
    lookup_case('not-reserved', ['web'], {'owner': 'stranger'}, 'not_reserved', 'allocate=true', 'netpool.ipam.reservation'),
    lookup_case('second-term-unknown', ['web', 'nope'], {'owner': 'h1'}, 'pool_not_found', "'nope'"),
    lookup_case('exhausted-allocate', ['tiny'], {'owner': 't3', 'allocate': True}, 'pool_exhausted', "'tiny'"),
    lookup_case('store-unknown-scheme', ['web'], {'owner': 'h1', 'store': 'ftp://example.org/x'}, 'invalid_argument', 'ftp://'),
    # terms: pool names, a list of them flattened one level, nothing else
    lookup_case('term-dict', [{'web': 1}], {'owner': 'h1'}, 'invalid_argument', 'term', 'dict'),
    lookup_case('term-dict-in-list', [['web', {'v6': 1}]], {'owner': 'h1'}, 'invalid_argument', 'term', 'dict'),
    lookup_case('term-nested-list', [[['web']]], {'owner': 'h1'}, 'invalid_argument', 'term', 'list inside a list'),
    lookup_case('term-empty', [''], {'owner': 'h1'}, 'invalid_argument', 'term', 'empty string'),
    lookup_case('term-none', [None], {'owner': 'h1'}, 'invalid_argument', 'term', 'None'),
    lookup_case('term-int', [5], {'owner': 'h1'}, 'invalid_argument', 'term', 'int'),
    lookup_case('term-bad-after-good-allocate', ['web', ''], {'owner': 'new', 'allocate': True}, 'invalid_argument',
                'term'),
    # keywords
    lookup_case('unknown-keyword', ['web'], {'owner': 'h1', 'bogus': 1}, 'invalid_argument', 'bogus', 'allocate',
                'namespace', 'store'),
    lookup_case('unknown-keyword-typo', ['web'], {'owner': 'new', 'alocate': True}, 'invalid_argument', 'alocate'),
    lookup_case('format-yaml', ['web'], {'owner': 'h1', 'format': 'yaml'}, 'invalid_argument', 'yaml', 'format'),
    lookup_case('timeout-not-int', ['web'], {'owner': 'h1', 'timeout': 'soon'}, 'invalid_argument', 'timeout', 'soon'),
    lookup_case('allocate-not-bool', ['web'], {'owner': 'new', 'allocate': 'maybe'}, 'invalid_argument', 'allocate',
                'boolean'),
    lookup_case('validate-certs-list', ['web'], {'owner': 'h1', 'validate_certs': [False]}, 'invalid_argument',
                'validate_certs', 'boolean'),
    lookup_case('namespace-list', ['web'], {'owner': 'h1', 'namespace': ['lab']}, 'invalid_argument', 'namespace',
                'string'),
    lookup_case('namespace-empty', ['web'], {'owner': 'h1', 'namespace': ''}, 'invalid_argument', 'namespace', 'empty'),
    lookup_case('store-list', ['web'], {'owner': 'h1', 'store': ['postgresql://u:pw-SECRET@127.0.0.1:9/x']},
                'invalid_argument', 'store', 'string'),
    lookup_case('key-empty', ['web'], {'owner': 'h1', 'key': ''}, 'invalid_argument', 'key'),
    lookup_case('owner-blank', ['web'], {'owner': '   '}, 'invalid_argument', 'owner'),
]


@pytest.mark.parametrize('terms, kwargs, code, words', LOOKUP_CASES)
def test_lookup(seeded, terms, kwargs, code, words):
    spec, svc = seeded
    kwargs = dict(kwargs)
    kwargs.setdefault('store', spec)
    before = snapshot(svc.store, spec)
    with pytest.raises(AnsibleError) as info:
        lookup(terms, **kwargs)
    msg = str(info.value.message)
    assert msg.endswith('(error %s)' % code), msg
    assert getattr(info.value, 'error', None) == code
    _clear(msg, words)
    assert 'SECRET' not in msg
    assert snapshot(svc.store, spec) == before


def test_lookup_flattens_a_list_term(seeded):
    """query('netpool.ipam.address', pools, ...) with pools a list: one item per pool, as with one term per pool."""
    spec, svc = seeded
    before = snapshot(svc.store, spec)
    one = lookup(['web'], owner='h1', store=spec)
    assert lookup([['web', 'web']], owner='h1', store=spec) == one * 2
    assert lookup([('web',), 'web'], owner='h1', store=spec) == one * 2
    assert lookup([[]], owner='h1', store=spec) == []
    assert snapshot(svc.store, spec) == before


def test_lookup_keywords_are_its_documented_options():
    """The keywords the lookup accepts (LOOKUP_OPTIONS) are exactly the options its documentation declares."""
    options = yaml.safe_load(StoreFragment.PLUGIN)['options']
    options.update(yaml.safe_load(ProbeFragment.DOCUMENTATION)['options'])
    options.update(yaml.safe_load(address.DOCUMENTATION)['options'])
    options.pop('_terms')
    assert set(LOOKUP_OPTIONS) == set(options)
    for name, spec in LOOKUP_OPTIONS.items():
        assert spec['type'] == options[name]['type'], name


def test_lookup_bad_format_is_refused(seeded):
    spec, svc = seeded
    before = snapshot(svc.store, spec)
    with pytest.raises(AnsibleError) as info:
        lookup(['web'], owner='h1', format='xml', store=spec)
    assert 'xml' in str(info.value.message) and 'Traceback' not in str(info.value.message)
    assert snapshot(svc.store, spec) == before


# -- a real playbook ------------------------------------------------------------------------------------------

PLAYBOOK_CASES = [
    ('netpool.ipam.pool', {'name': 'p', 'cidr': '10.50.0.0/33'}, 'invalid_argument'),
    ('netpool.ipam.pool', {'name': 'p', 'cidr': S24, 'subnets': [{'cidr': S24}]}, 'invalid_argument'),
    ('netpool.ipam.pool', {'name': 'p', 'cidr': '10.0.0.0/25'}, 'pool_overlap'),
    ('netpool.ipam.pool', {'name': 'c', 'parent': 'site', 'prefix_length': 8}, 'invalid_argument'),
    ('netpool.ipam.pool', {'name': 'web', 'state': 'absent'}, 'pool_in_use'),
    ('netpool.ipam.range', {'pool': 'web', 'range': '10.0.0.40-10.0.0.30'}, 'invalid_argument'),
    ('netpool.ipam.range', {'pool': 'web', 'range': '10.0.5.1'}, 'address_out_of_pool'),
    ('netpool.ipam.reservation', {'pool': 'web', 'owner': '{{ inventory_hostname }}', 'metadata': {'nic': {'a': 1}}},
     'invalid_argument'),
    ('netpool.ipam.reservation', {'pool': 'web', 'owner': 'x', 'ttl': '-5m'}, 'invalid_argument'),
    ('netpool.ipam.reservation', {'pool': 'web', 'owner': 'x', 'address': '::ffff:10.0.0.50'}, 'invalid_argument'),
    ('netpool.ipam.reservation', {'pool': 'web', 'owner': 'x', 'address': '10.0.0.100'}, 'address_in_use'),
    ('netpool.ipam.reservation', {'pool': 'web', 'owner': 'x', 'address': '10.0.0.15'}, 'address_excluded'),
    ('netpool.ipam.reservation', {'pool': 'tiny', 'owner': 'x'}, 'pool_exhausted'),
    ('netpool.ipam.reservation', {'pool': 'nope', 'owner': 'x'}, 'pool_not_found'),
    ('netpool.ipam.reservation', {'pool': 'web', 'owner': 'x', 'reassign': True}, 'invalid_argument'),
    ('netpool.ipam.info', {'address': 'nonsense'}, 'invalid_argument'),
    ('netpool.ipam.reservation', {'pool': 'web', 'owner': ['a', 'b']}, 'invalid_argument'),
    ('netpool.ipam.reservation', {'pool': 'web', 'owner': '{{ [inventory_hostname] }}'}, 'invalid_argument'),
    ('netpool.ipam.reservation', {'pool': 'web', 'owner': 'x', 'store': ['a.json']}, 'invalid_argument'),
    ('netpool.ipam.reservation', {'pool': 'web', 'state': 'absent', 'keep_owners': [{'a': 1}]}, 'invalid_argument'),
    ('netpool.ipam.reservation', {'pool': 'web', 'owner': 'x', 'key': ''}, 'invalid_argument'),
    ('netpool.ipam.pool', {'name': ['x'], 'cidr': '10.6.0.0/24'}, 'invalid_argument'),
    ('netpool.ipam.info', {'namespace': ['a']}, 'invalid_argument'),
]


def test_playbook(tmp_path):
    """The same kind of cases through ansible-playbook: every task fails with its code, the store is unchanged."""
    spec = str(tmp_path / 'ipam.sqlite')
    store = open_store(spec)
    svc = Service(store, clock=Clock(T0))
    seed(svc, svc.clock)
    store.close()
    tasks = [{'name': 'case %d' % i, module: args, 'ignore_errors': True, 'register': 'case%d' % i}
             for i, (module, args, _code) in enumerate(PLAYBOOK_CASES)]
    # a list of pools as one term (Ansible passes it as a lazy list) is flattened
    tasks.append({'name': 'lookup of a list', 'ansible.builtin.set_fact': {
        'listed': "{{ query('netpool.ipam.address', ['web', 'web'], owner='h1') }}"}})
    tasks.append({'name': 'lookup case', 'ignore_errors': True, 'register': 'lookup_case', 'ansible.builtin.set_fact': {
        'x': "{{ lookup('netpool.ipam.address', 'nope', owner=inventory_hostname) }}"}})
    names = ['case%d' % i for i in range(len(PLAYBOOK_CASES))] + ['listed', 'lookup_case']
    tasks.append({'name': 'write the results down', 'ansible.builtin.copy': {
        'content': '{{ [%s] | to_json }}' % ', '.join(names), 'dest': str(tmp_path / 'results.json'), 'mode': '0600'}})
    play = [{'hosts': 'all', 'gather_facts': False, 'tasks': tasks,
             'module_defaults': {'group/netpool.ipam.all': {'store': spec}}}]
    (tmp_path / 'play.yml').write_text(yaml.safe_dump(play))
    (tmp_path / 'hosts.ini').write_text('node1 ansible_connection=local\n')
    store = open_store(spec)
    before = snapshot(store, spec)
    store.close()
    proc = run_playbook('-i', 'hosts.ini', 'play.yml', cwd=tmp_path, apart=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads((tmp_path / 'results.json').read_text())
    assert len(results) == len(PLAYBOOK_CASES) + 2
    assert results[-2] == ['10.0.0.10', '10.0.0.10'], results[-2]
    for (module, args, code), result in zip(PLAYBOOK_CASES, results):
        assert result.get('failed') is True, (module, args, result)
        assert result.get('error') == code, (module, args, result)
        assert result['msg'] and 'Traceback' not in result['msg'], result
    assert results[-1].get('failed') is True
    assert re.search(r"'nope'.*\(error pool_not_found\)", results[-1]['msg']), results[-1]['msg']
    assert 'Traceback' not in proc.stdout + proc.stderr
    store = open_store(spec)
    assert snapshot(store, spec) == before
    store.close()
    assert os.path.exists(spec)
    assert not [name for name in os.listdir(str(tmp_path)) if name.startswith('[')]    # store: [a.json] made no file
