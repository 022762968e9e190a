# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The probe option on real interfaces: the controller in one network namespace, "hosts" answering from another
(tests/support/netns.py). ICMP and ARP probes skip exactly the addresses that answer, record them as held by
``netpool.ipam.probe``, probe a batch in one round, and fail clearly where they cannot probe."""

import json
import os
import sys

import pytest

from ansible_collections.netpool.ipam.tests.support import stores
from ansible_collections.netpool.ipam.tests.support import netns
from ansible_collections.netpool.ipam.tests.support import playbook
from ansible_collections.netpool.ipam.tests.support.reliability import ansible_env

from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _probe
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..'))
CALLS = os.path.join(ROOT, 'tests', 'support', 'probe_calls.py')
#: the addresses the hosts' side answers from
HOSTS = ('10.77.0.5/24', '10.77.0.7/24', '10.77.0.9/24', '10.77.0.30/24', '10.77.0.31/24', 'fd77::5/64')


@pytest.fixture(scope='module')
def link():
    made = netns.link()
    try:
        netns.ip('-n', made.ctl, 'addr', 'add', '10.78.0.1/24', 'dev', made.ctl_dev)    # a subnet where none answers
        made.host(*HOSTS)
        yield made
    finally:
        made.remove()


def calls(link, store, *todo):
    """Run ``todo`` (``(module, params)`` or ``(module, params, check)``) in the controller's namespace."""
    done = link.run([sys.executable, CALLS], input=json.dumps(
        [[c[0], dict(c[1], store=store), c[2] if len(c) > 2 else False] for c in todo]))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def pool(namespace, cidr, ranges):
    return ('pool', {'name': 'lan', 'namespace': namespace, 'cidr': cidr, 'ranges': ranges})


def reserve(namespace, owners, probe, **extra):
    return ('reservation', dict({'pool': 'lan', 'namespace': namespace, 'owners': owners, 'probe': probe}, **extra))


def addresses(result):
    return dict((r['owner'], r['address']) for r in result['reservations'])


@pytest.mark.parametrize('suffix', stores.FILES)
def test_icmp_and_arp_skip_exactly_the_addresses_that_answer(link, tmp_path, suffix):
    owners = ['h%d' % i for i in range(1, 9)]
    got = calls(
        link, str(tmp_path / ('ipam.' + suffix)),
        pool('icmp', '10.77.0.0/24', ['10.77.0.2-10.77.0.20']), reserve('icmp', owners, 'icmp'),
        ('info', {'namespace': 'icmp', 'owner': _probe.OWNER}),
        reserve('icmp', owners, 'icmp'),                                          # a rerun
        reserve("icmp", ["h9"], "icmp", probe_timeout=100) + (True,),               # check mode
        ('reservation', {'pool': 'lan', 'namespace': 'icmp', 'owner': 's1', 'address': '10.77.0.30',
                         'probe': 'icmp'}),                                       # a static address
        # ARP: the controller's own address (10.77.0.1) is in use too
        pool('arp', '10.77.0.0/24', ['10.77.0.1-10.77.0.20']), reserve('arp', owners, 'arp'),
        pool('six', 'fd77::/64', ['fd77::2-fd77::8']), reserve('six', ['a1', 'a2', 'a3', 'a4'], 'icmp'),
        ('reservation', {'pool': 'lan', 'namespace': 'icmp', 'owner': _probe.OWNER, 'state': 'absent'}),
        ('info', {'namespace': 'icmp', 'owner': _probe.OWNER}))
    assert not any(r.get('failed') for r in got), got
    _pool, icmp, found, rerun, check, static, _pool2, arp, _pool3, six, released, after = got
    assert addresses(icmp) == {'h1': '10.77.0.2', 'h2': '10.77.0.3', 'h3': '10.77.0.4', 'h4': '10.77.0.10',
                               'h5': '10.77.0.6', 'h6': '10.77.0.11', 'h7': '10.77.0.8', 'h8': '10.77.0.12'}
    assert icmp['probed'] == {'method': 'icmp', 'timeout': 300, 'tries': 16, 'rounds': 2, 'addresses': 11,
                              'answered': ['10.77.0.5', '10.77.0.7', '10.77.0.9']}
    held = dict((r['key'], r) for r in found['reservations'])
    assert sorted(held) == ['10.77.0.5', '10.77.0.7', '10.77.0.9']
    assert held['10.77.0.5']['address'] == '10.77.0.5' and held['10.77.0.5']['static'] is True
    meta = held['10.77.0.7']['metadata']
    assert (meta['found_by'], meta['probe'], meta['probed_for']) == ('probe', 'icmp', 'h6/default')
    assert meta['probed_at'].endswith('Z')
    assert rerun['changed'] is False and rerun['probed']['rounds'] == 0
    assert check['reservations'][0]['predicted'] is True and check['probed']['rounds'] == 0
    assert static['reservation']['address'] == '10.77.0.30' and static['probed']['rounds'] == 0
    assert arp['probed']['answered'] == ['10.77.0.1', '10.77.0.5', '10.77.0.7', '10.77.0.9']
    assert set(addresses(arp).values()) == set('10.77.0.%d' % n for n in (2, 3, 4, 6, 8, 10, 11, 12))
    assert six['probed']['answered'] == ['fd77::5']
    assert sorted(addresses(six).values()) == ['fd77::2', 'fd77::3', 'fd77::4', 'fd77::6']
    assert sorted(r['address'] for r in released['released']) == ['10.77.0.5', '10.77.0.7', '10.77.0.9']
    assert after['reservations'] == []


def test_a_batch_is_probed_in_one_round(link, tmp_path):
    """100 new reservations where nothing answers: every candidate in the first round, one round in all."""
    got = calls(link, str(tmp_path / 'ipam.sqlite'), pool('batch', '10.78.0.0/24', ['10.78.0.2-10.78.0.254']),
                reserve('batch', ['vm%03d' % i for i in range(100)], 'icmp', probe_timeout=200))
    assert got[1]['probed'] == {'method': 'icmp', 'timeout': 200, 'tries': 16, 'rounds': 1, 'addresses': 100,
                                'answered': []}
    assert len(set(addresses(got[1]).values())) == 100


def test_probe_tries_answering_candidates_fail_and_write_nothing(link, tmp_path):
    store = str(tmp_path / 'ipam.sqlite')
    got = calls(link, store, pool('tries', '10.77.0.0/24', ['10.77.0.30-10.77.0.40']),
                reserve('tries', ['t1'], 'arp', probe_tries=2), ('info', {'namespace': 'tries'}))
    failed, info = got[1], got[2]
    assert failed['error'] == 'address_in_use', failed
    assert '2 addresses' in failed['msg'] and '10.77.0.30, 10.77.0.31' in failed['msg']
    assert failed['answered'] == ['10.77.0.30', '10.77.0.31']
    assert info['reservations'] == []


def test_a_controller_that_cannot_probe_fails_invalid_argument(link, tmp_path):
    store = str(tmp_path / 'ipam.sqlite')
    got = calls(link, store, pool('far', '10.200.0.0/24', None), reserve('far', ['f1'], 'icmp'),
                reserve('far', ['f1'], 'arp'), pool('six', 'fd77::/64', None), reserve('six', ['f1'], 'arp'),
                ('info', {'namespace': 'far'}))
    unreachable, no_interface, _pool, arp6, info = got[1:]
    assert unreachable['error'] == 'invalid_argument' and 'Network is unreachable' in unreachable['msg']
    assert 'no address was handed out' in unreachable['msg']
    assert no_interface['error'] == 'invalid_argument' and 'no interface on its subnet' in no_interface['msg']
    assert arp6['error'] == 'invalid_argument' and 'IPv4 addresses only' in arp6['msg']
    assert info['reservations'] == []
    # without the permission to send ICMP (no CAP_NET_RAW, and unprivileged ICMP off in this namespace)
    done = link.run(['setpriv', '--bounding-set', '-net_raw', '--inh-caps', '-net_raw', sys.executable, CALLS],
                    input=json.dumps([list(pool('far2', '10.78.0.0/24', None)) + [False],
                                      list(reserve('far2', ['f1'], 'icmp')) + [False]]))
    assert done.returncode == 0, done.stderr
    refused = json.loads(done.stdout)[1]
    assert refused['error'] == 'invalid_argument' and 'cannot run ping' in refused['msg'], refused


@pytest.mark.parametrize('given, message', [
    (('ping', None, None), 'probe must be one of none, icmp, arp'),
    (('icmp', 0, None), 'probe_timeout must be a whole number from 1 to 60000, got 0'),
    (('icmp', 300, True), 'probe_tries must be a whole number from 1 to 1024, got True'),
])
def test_probe_values_are_checked(given, message):
    with pytest.raises(InvalidArgument) as raised:
        _probe.request(*given)
    assert message in str(raised.value)
    assert _probe.request('none') is None and _probe.request(None) is None


PLAY = """
- name: The module and the lookup probe
  hosts: localhost
  gather_facts: false
  module_defaults:
    group/netpool.ipam.all:
      namespace: play
  tasks:
    - name: Pool
      netpool.ipam.pool: {name: lan, cidr: 10.77.0.0/24, ranges: [10.77.0.2-10.77.0.12]}
    - name: Four owners, probed at once
      netpool.ipam.reservation: {pool: lan, owners: [m1, m2, m3, m4], probe: icmp}
      register: module
    - name: The lookup, by ARP
      ansible.builtin.set_fact:
        looked: "{{ lookup('netpool.ipam.address', 'lan', owner='l1', namespace='play', allocate=true, probe='arp') }}"
    - name: What they gave
      ansible.builtin.assert:
        that:
          - module.probed.answered == ['10.77.0.5']
          - module.reservations | map(attribute='address') | list == ['10.77.0.2', '10.77.0.3', '10.77.0.4', '10.77.0.6']
          - looked == '10.77.0.8'

- name: The reserve role probes
  hosts: nodes
  gather_facts: false
  roles:
    - role: netpool.ipam.reserve
      vars: {ipam_pool: lan, ipam_namespace: play, ipam_probe: icmp, ipam_probe_timeout: 200}

- name: What the role gave, and what the probes found
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Found
      netpool.ipam.info: {namespace: play, owner: netpool.ipam.probe}
      register: found
    - name: Check
      ansible.builtin.assert:
        that:
          - hostvars['r1'].ipam_address == '10.77.0.11'
          - hostvars['r2'].ipam_address == '10.77.0.10'
          - found.reservations | map(attribute='address') | sort == ['10.77.0.5', '10.77.0.7', '10.77.0.9']
"""


def test_the_module_the_lookup_and_the_role_probe(link, tmp_path):
    (tmp_path / 'play.yml').write_text(PLAY)
    (tmp_path / 'inventory.ini').write_text('localhost ansible_connection=local\n[nodes]\nr1\nr2\n')
    with open(os.path.join(ROOT, 'ansible.cfg')) as f:
        (tmp_path / 'ansible.cfg').write_text(f.read().replace(
            'collections_path = ./collections', 'collections_path = %s' % os.path.join(ROOT, 'collections')))
    done = link.run(playbook.command('-i', 'inventory.ini', 'play.yml'), cwd=str(tmp_path),
                    env=ansible_env(ANSIBLE_CONFIG=str(tmp_path / 'ansible.cfg'),
                                    NETPOOL_IPAM_STORE=str(tmp_path / 'ipam.sqlite')))
    assert done.returncode == 0, done.stdout + done.stderr
