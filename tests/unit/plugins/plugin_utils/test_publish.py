# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Publishing: the filters of plugins/filter/ (kea_dhcp4.py, ...) render the reservations of a real
store (SQLite and JSON) for Kea, dnsmasq, BIND and /etc/hosts; the real servers' checkers accept every
file, and a real named on 127.0.0.1 answers A, AAAA and PTR queries for every reservation."""

import json
import os
import sys

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.netpool.ipam.plugins.filter import bind_zones, dnsmasq_hosts, etc_hosts, kea_dhcp4, kea_dhcp6
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.tests.support import stores
from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook
from ansible_collections.netpool.ipam.tests.support.dhcp_dns import Named, check, program

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *(['..'] * 4)))

F = {}
for _module in (kea_dhcp4, kea_dhcp6, dnsmasq_hosts, bind_zones, etc_hosts):
    F.update(_module.FilterModule().filters())
KEA_BASE = {'interfaces-config': {'interfaces': []}, 'lease-database': {'type': 'memfile', 'persist': False}}
WEB = ['web%02d' % i for i in range(1, 11)]


def mac(i, family=4):
    return '52-54-00-%02X-00-%02X' % (family, i)          # any form netaddr reads; kept as 52:54:00:04:00:01


@pytest.fixture(params=stores.FILE_NAMES)
def svc(request, tmp_path):
    store = open_store(str(tmp_path / request.param))
    yield Service(store)
    store.close()


@pytest.fixture
def plan(svc):
    """Ten dual-stack hosts with MACs, a host without a MAC, an owner that is no host name, a host named
    outside every published domain, and a pool without a domain sharing a reverse zone with one that has."""
    svc.pool('lan', subnets=[
        {'cidr': '10.10.0.0/24', 'gateway': '10.10.0.1', 'dns': ['10.10.0.2', '2001:db8:10::2'],
         'ranges': ['10.10.0.10-10.10.0.200']},
        {'cidr': '2001:db8:10::/64', 'dns': ['2001:db8:10::2'], 'ranges': ['2001:db8:10::10-2001:db8:10::ff']}],
        metadata={'domain': 'Example.TEST.'})
    svc.pool('lab', subnets=[{'cidr': '10.20.0.64/26', 'gateway': '10.20.0.65'}], metadata={'domain': 'lab.example.test'})
    svc.pool('lab2', subnets=[{'cidr': '10.20.0.128/26'}])
    for i, owner in enumerate(WEB, 1):
        svc.reserve('lan', owner, metadata={'mac': mac(i)})
        svc.reserve('lan', owner, key='v6', family='ipv6', metadata={'mac': mac(i, 6)})
    svc.reserve('lan', 'db-1', metadata={'hostname': 'db'})             # no MAC: DNS only
    svc.reserve('lan', 'vm 17', metadata={'mac': mac(17)})              # no name: DHCP only, no hostname
    svc.reserve('lab', 'gpu1.lab.example.test', metadata={'mac': mac(1)})  # a MAC seen in another subnet
    svc.reserve('lab2', 'ext', metadata={'hostname': 'ext.other.test.', 'mac': mac(30)})
    return svc


def held(svc):
    return dict(((r['owner'], r['key']), r['address']) for r in svc.info()['reservations'])


def write_zones(directory, zones):
    paths = {}
    for name, text in zones.items():
        paths[name] = str(directory / (name + '.zone'))
        with open(paths[name], 'w') as f:
            f.write(text)
    return paths


# -- what is rendered ------------------------------------------------------

def test_kea_dhcp4_puts_each_host_with_a_mac_in_its_subnet(plan):
    config = F['kea_dhcp4'](plan.info(), config=KEA_BASE)
    addresses = held(plan)
    assert list(config) == ['Dhcp4'] and config['Dhcp4']['lease-database'] == KEA_BASE['lease-database']
    subnets = dict((s['subnet'], s) for s in config['Dhcp4']['subnet4'])
    assert [s['subnet'] for s in config['Dhcp4']['subnet4']] == ['10.10.0.0/24', '10.20.0.64/26', '10.20.0.128/26']
    lan = subnets['10.10.0.0/24']
    assert lan['id'] == 0x0a0a0000        # the network address: stable while the subnet is
    assert lan['option-data'] == [{'name': 'routers', 'data': '10.10.0.1'},
                                  {'name': 'domain-name-servers', 'data': '10.10.0.2'},
                                  {'name': 'domain-name', 'data': 'example.test'}]
    expected = [{'hw-address': '52:54:00:04:00:%02x' % i, 'ip-address': addresses[(owner, 'default')],
                 'hostname': owner + '.example.test'} for i, owner in enumerate(WEB, 1)]
    expected.append({'hw-address': '52:54:00:04:00:11', 'ip-address': addresses[('vm 17', 'default')]})
    assert lan['reservations'] == expected                   # db-1 has no MAC: not in DHCP
    assert subnets['10.20.0.64/26']['reservations'] == [
        {'hw-address': '52:54:00:04:00:01', 'ip-address': addresses[('gpu1.lab.example.test', 'default')],
         'hostname': 'gpu1.lab.example.test'}]
    assert subnets['10.20.0.128/26']['reservations'][0]['hostname'] == 'ext.other.test'
    assert 'option-data' not in subnets['10.20.0.128/26']


def test_kea_dhcp6_and_dnsmasq(plan):
    addresses = held(plan)
    config = F['kea_dhcp6'](plan.info())
    (lan,) = config['Dhcp6']['subnet6']
    assert lan['subnet'] == '2001:db8:10::/64'
    assert lan['option-data'] == [{'name': 'dns-servers', 'data': '2001:db8:10::2'},
                                  {'name': 'domain-search', 'data': 'example.test'}]
    assert lan['reservations'][0] == {'hw-address': '52:54:00:06:00:01', 'ip-addresses': [addresses[('web01', 'v6')]],
                                      'hostname': 'web01.example.test'}
    lines = F['dnsmasq_hosts'](plan.info()).splitlines()
    assert lines[0].startswith('# generated by netpool.ipam')
    assert lines[1] == 'dhcp-host=52:54:00:04:00:01,%s,web01' % addresses[('web01', 'default')]
    assert 'dhcp-host=52:54:00:04:00:11,%s' % addresses[('vm 17', 'default')] in lines
    assert 'dhcp-host=52:54:00:06:00:0a,[%s],web10' % addresses[('web10', 'v6')] in lines
    assert len(lines) == 1 + 10 + 1 + 1 + 1 + 10 and not any(line.endswith(',db') for line in lines)


def test_etc_hosts_and_zones_hold_named_hosts_only(plan):
    addresses = held(plan)
    hosts = F['etc_hosts'](plan.info()).splitlines()
    assert '%s\tdb.example.test db' % addresses[('db-1', 'default')] in hosts
    assert '%s\text.other.test ext' % addresses[('ext', 'default')] in hosts
    assert not any(addresses[('vm 17', 'default')] + '\t' in line for line in hosts)
    zones = F['bind_zones'](plan.info())
    assert sorted(zones) == ['0.0.0.0.0.1.0.0.8.b.d.0.1.0.0.2.ip6.arpa', '0.10.10.in-addr.arpa', '0.20.10.in-addr.arpa', 'example.test', 'lab.example.test']
    forward = zones['example.test'].splitlines()
    assert 'web01\tIN\tA\t%s' % addresses[('web01', 'default')] in forward
    assert 'web01\tIN\tAAAA\t%s' % addresses[('web01', 'v6')] in forward
    assert not any(line.startswith('gpu1') for line in forward)       # in its own, more specific zone
    assert 'gpu1\tIN\tA\t%s' % addresses[('gpu1.lab.example.test', 'default')] in zones['lab.example.test']
    shared = zones['0.20.10.in-addr.arpa']                            # two /26 pools, one reverse zone
    assert '\tIN\tPTR\tgpu1.lab.example.test.' in shared and '\tIN\tPTR\text.other.test.' in shared


def test_output_is_stable_and_the_serial_moves_only_with_the_records(plan, tmp_path):
    first = F['bind_zones'](plan.info())
    assert all(' 1 3600 900 1209600 300' in text for text in first.values())
    again = F['bind_zones'](plan.info(), previous=first)
    assert again == first
    assert F['kea_dhcp4'](plan.info()) == F['kea_dhcp4'](plan.info())
    plan.reserve('lan', 'web11', metadata={'mac': mac(11)})
    changed = F['bind_zones'](plan.info(), previous=first)
    moved = sorted(name for name in first if changed[name] != first[name])
    assert moved == ['0.10.10.in-addr.arpa', 'example.test']
    assert all(' 2 3600 900 1209600 300' in changed[name] for name in moved)
    assert all(changed[name] == first[name] for name in first if name not in moved)
    # a zone file written by hand before (a date serial, its SOA further down) is read whole: its serial goes on
    by_hand = '; kept by hand\n; until now\n' + first['example.test'].replace(' 1 3600 ', ' 2026112301 3600 ')
    taken_over = F['bind_zones'](plan.info(), previous={'example.test.': by_hand})['example.test']
    assert ' 2026112302 3600 900 1209600 300' in taken_over and taken_over.startswith('; generated by netpool.ipam')


def test_reverse_zones_follow_octet_and_nibble_boundaries(svc):
    svc.pool('wide', subnets=[{'cidr': '10.30.0.0/22'}], metadata={'domain': 'wide.test'})
    svc.pool('v6', subnets=[{'cidr': '2001:db8:ab00::/54'}])
    svc.pool('small', subnets=[{'cidr': '10.40.0.16/28'}])
    svc.reserve('wide', 'h1', address='10.30.2.7')
    zones = F['bind_zones'](svc.info())
    assert sorted(zones) == sorted(['%d.30.10.in-addr.arpa' % i for i in range(4)] + ['0.40.10.in-addr.arpa']
                                   + ['%s.0.0.0.b.a.8.b.d.0.1.0.0.2.ip6.arpa' % n for n in '0123'] + ['wide.test'])
    assert zones['2.30.10.in-addr.arpa'].splitlines()[-1] == '7\tIN\tPTR\th1.wide.test.'
    assert zones['wide.test'].splitlines()[-1] == 'h1\tIN\tA\t10.30.2.7'


# -- refusals ----------------------------------------------------------------

def test_one_mac_for_two_owners_in_one_subnet_is_refused_naming_both(plan):
    plan.reserve('lan', 'web11', metadata={'mac': '52:54:00:04:00:03'})     # web03's MAC
    for name in ('kea_dhcp4', 'dnsmasq_hosts'):
        with pytest.raises(AnsibleFilterError) as exc:
            F[name](plan.info())
        msg = str(exc.value)
        assert "owner 'web03'" in msg and "owner 'web11'" in msg and '10.10.0.0/24' in msg
        assert '52:54:00:04:00:03' in msg and msg.endswith('(error invalid_argument)')
    F['kea_dhcp6'](plan.info())                   # the IPv6 subnet is not concerned
    F['bind_zones'](plan.info())                  # nor is DNS


def test_one_name_for_two_owners_is_refused(plan):
    plan.reserve('lan', 'other', metadata={'hostname': 'web02.example.test'})
    with pytest.raises(AnsibleFilterError, match=r"web02\.example\.test is the hostname of owner 'web02'.*owner 'other'"):
        F['bind_zones'](plan.info())


@pytest.mark.parametrize('metadata, message', [
    ({'mac': '52:54:00:aa:bb'}, "metadata mac '52:54:00:aa:bb' is not a MAC address"),
    ({'mac': '00:11:22:33:44:55:66:77'}, 'is not a MAC address'),
    ({'hostname': 'web_1'}, "label 'web_1'"),
    ({'hostname': '-web'}, "label '-web'"),
    ({'hostname': 'a' * 64}, 'is not a DNS name'),
    ({'hostname': 'a..b'}, 'is not a DNS name'),
])
def test_bad_mac_or_hostname_is_invalid_argument_and_changes_nothing(svc, metadata, message):
    svc.pool('lan', subnets=[{'cidr': '10.10.0.0/24'}])
    with pytest.raises(InvalidArgument, match=message):
        svc.reserve('lan', 'h1', metadata=metadata)
    assert svc.info()['reservations'] == []
    with pytest.raises(InvalidArgument, match='metadata domain'):
        svc.pool('lan', metadata={'domain': 'bad_domain.test'})


def test_mac_hostname_and_domain_are_normalised(svc):
    svc.pool('lan', subnets=[{'cidr': '10.10.0.0/24'}], metadata={'domain': 'Example.Test.', 'site': 'x'})
    got = svc.reserve('lan', 'h1', metadata={'mac': '5254.00AA.BBCC', 'hostname': 'H1.Example.Test.', 'rack': 3})
    assert got['reservation']['metadata'] == {'mac': '52:54:00:aa:bb:cc', 'hostname': 'h1.example.test', 'rack': 3}
    assert svc.info()['pools'][0]['metadata'] == {'domain': 'example.test', 'site': 'x'}
    again = svc.reserve('lan', 'h1', metadata={'mac': '52:54:00:aa:bb:cc', 'hostname': 'h1.example.test', 'rack': 3})
    assert not again['changed']


def test_input_that_is_not_an_info_result_is_refused():
    with pytest.raises(AnsibleFilterError, match='registered result of netpool.ipam.info.*invalid_argument'):
        F['etc_hosts']([{'address': '10.0.0.1'}])


# -- the real servers --------------------------------------------------------

def test_the_servers_own_checkers_accept_every_file(plan, tmp_path):
    info = plan.info()
    for version in (4, 6):
        path = tmp_path / ('kea-dhcp%d.json' % version)
        path.write_text(json.dumps(F['kea_dhcp%d' % version](info, config=KEA_BASE)))
        code, out = check(['kea-dhcp%d' % version, '-t', str(path)])
        assert code == 0, out
    path = tmp_path / 'dnsmasq.conf'
    path.write_text(F['dnsmasq_hosts'](info))
    code, out = check(['dnsmasq', '--test', '--conf-file=%s' % path])
    assert code == 0 and 'syntax check OK' in out, out
    for name, zone in write_zones(tmp_path, F['bind_zones'](info)).items():
        code, out = check(['named-checkzone', name, zone])
        assert code == 0 and 'loaded serial 1' in out, out


def test_the_checkers_refuse_what_the_servers_would_refuse(plan, tmp_path):
    """The checks can fail: a duplicate reservation in Kea's file, a zone with a broken record."""
    config = F['kea_dhcp4'](plan.info(), config=KEA_BASE)
    reservations = config['Dhcp4']['subnet4'][0]['reservations']
    reservations.append(dict(reservations[0], **{'ip-address': '10.10.0.250'}))
    path = tmp_path / 'kea.json'
    path.write_text(json.dumps(config))
    assert check(['kea-dhcp4', '-t', str(path)])[0] != 0
    zone = tmp_path / 'bad.zone'
    zone.write_text(F['bind_zones'](plan.info())['example.test'] + 'web01\tIN\tCNAME\tx.example.test.\n')
    assert check(['named-checkzone', 'example.test', str(zone)])[0] != 0


def test_named_answers_for_every_reservation_and_forgets_a_released_one(plan, tmp_path):
    zones = F['bind_zones'](plan.info())
    named = Named(tmp_path, write_zones(tmp_path, zones))
    try:
        for r in plan.info()['reservations']:
            if r['owner'] == 'vm 17':                   # no name, no record
                assert named.ptr(r['address']) == []
                continue
            fqdn = {'db-1': 'db.example.test', 'ext': 'ext.other.test'}.get(r['owner'], r['owner'])
            if '.' not in fqdn:
                fqdn += '.example.test'
            rtype = 'A' if ':' not in r['address'] else 'AAAA'
            if r['owner'] != 'ext':                     # ext.other.test is in no zone published here
                assert named.dig(fqdn, rtype) == [r['address']], (fqdn, rtype)
            assert named.ptr(r['address']) == [fqdn + '.'], r['address']
        gone = held(plan)[('web03', 'default')], held(plan)[('web03', 'v6')]
        plan.release(pool='lan', owner='web03')
        republished = F['bind_zones'](plan.info(), previous=zones)
        assert republished['example.test'] != zones['example.test']
        write_zones(tmp_path, republished)
        named.reload()
        named.wait_for(lambda: named.dig('web03.example.test', 'A') == [], 'to forget web03')
        assert named.dig('web03.example.test', 'AAAA') == []
        for address in gone:
            assert named.ptr(address) == []
        assert named.dig('web04.example.test', 'A') == [held(plan)[('web04', 'default')]]
        assert named.dig('example.test', 'SOA')[2] == '2'
    finally:
        named.stop()
    assert named.process.returncode is not None


PLAY = """
- name: Publish
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.publish
      vars:
        ipam_publish: [kea_dhcp4, kea_dhcp6, dnsmasq, bind, hosts]
        ipam_publish_kea_dhcp4_path: "{{ out }}/kea4.json"
        ipam_publish_kea_dhcp4_config: {interfaces-config: {interfaces: []}, lease-database: {type: memfile, persist: false}}
        ipam_publish_kea_dhcp6_path: "{{ out }}/kea6.json"
        ipam_publish_kea_dhcp6_config: {interfaces-config: {interfaces: []}, lease-database: {type: memfile, persist: false}}
        ipam_publish_dnsmasq_path: "{{ out }}/dnsmasq.conf"
        ipam_publish_bind_dir: "{{ out }}/zones"
        ipam_publish_bind_conf: "{{ out }}/zones.conf"
        ipam_publish_hosts_path: "{{ out }}/hosts"
        ipam_publish_reload: {}
"""


def test_the_role_refuses_a_shared_mac_before_writing_any_file(tmp_path):
    """The role runs every filter before it writes: one MAC for two owners in the IPv6 subnet (the second
    file it would write) leaves even the Kea DHCPv4 file unwritten."""
    for tool in ('kea-dhcp4', 'kea-dhcp6', 'dnsmasq', 'named-checkzone', 'named-checkconf'):
        program(tool)                   # the role validates with them: skip (or fail when required) without
    store = tmp_path / 'ipam.sqlite'
    svc = Service(open_store(str(store)))
    svc.pool('lan', subnets=[{'cidr': '10.10.0.0/24'}, {'cidr': '2001:db8:10::/64'}], metadata={'domain': 'lab.test'})
    svc.reserve('lan', 'a1', family='ipv6', metadata={'mac': '52:54:00:00:00:01'})
    svc.reserve('lan', 'b1', family='ipv6', metadata={'mac': '52:54:00:00:00:01'})
    svc.reserve('lan', 'c1', family='ipv4', metadata={'mac': '52:54:00:00:00:01'})
    (tmp_path / 'play.yml').write_text(PLAY)
    out = tmp_path / 'out'
    out.mkdir()
    args = ('-i', 'localhost,', '-c', 'local', '-e', 'out=%s' % out, '-e', 'ipam_store=%s' % store,
            '-e', 'ansible_python_interpreter=%s' % sys.executable, tmp_path / 'play.yml')
    done = run_playbook(*args, cwd=os.getcwd())
    assert done.returncode != 0, done.stdout
    assert "owner 'a1'" in done.stdout and "owner 'b1'" in done.stdout and '2001:db8:10::/64' in done.stdout
    assert sorted(os.listdir(str(out))) == []
    svc.release(pool='lan', owner='b1')
    done = run_playbook(*args, cwd=os.getcwd())
    assert done.returncode == 0, done.stdout
    assert sorted(os.listdir(str(out))) == ['dnsmasq.conf', 'hosts', 'kea4.json', 'kea6.json', 'zones', 'zones.conf']
    svc.store.close()


def test_a_child_pool_is_served_in_its_parents_kea_subnet(svc, tmp_path):
    """A child carved at its parent's first address has the parent's network address: once, both got
    one Kea subnet id and the filter refused the namespace. On one segment the child's hosts are reservations
    of the parent's subnet entry, with the options the child sets otherwise."""
    svc.pool('site', subnets=[{'cidr': '10.30.0.0/24', 'gateway': '10.30.0.1'},
                              {'cidr': '2001:db8:30::/64'}], metadata={'domain': 'site.test'})
    svc.pool('kid', parent='site', prefix_length=28, metadata={'domain': 'kid.test'})
    svc.pool('kid6', parent='site', prefix_length=120)
    svc.pool('other', subnets=[{'cidr': '10.31.0.0/24'}])
    assert svc.info(pool='kid')['pools'][0]['subnets'][0]['cidr'] == '10.30.0.0/28'
    svc.reserve('site', 'a1', metadata={'mac': mac(1)})
    svc.reserve('kid', 'k1', metadata={'mac': mac(2)})
    svc.reserve('other', 'o1', metadata={'mac': mac(3)})
    svc.reserve('site', 'a1', key='v6', family='ipv6', metadata={'mac': mac(1, 6)})
    svc.reserve('kid6', 'k6', metadata={'mac': mac(2, 6)})
    addresses = held(svc)
    info = svc.info()
    config = F['kea_dhcp4'](info, config=KEA_BASE)
    subnets = config['Dhcp4']['subnet4']
    assert [(s['subnet'], s['id']) for s in subnets] == [('10.30.0.0/24', 0x0a1e0000), ('10.31.0.0/24', 0x0a1f0000)]
    assert subnets[0]['reservations'] == [
        {'hw-address': '52:54:00:04:00:02', 'ip-address': addresses[('k1', 'default')], 'hostname': 'k1.kid.test',
         'option-data': [{'name': 'domain-name', 'data': 'kid.test'}]},
        {'hw-address': '52:54:00:04:00:01', 'ip-address': addresses[('a1', 'default')], 'hostname': 'a1.site.test'}]
    six = F['kea_dhcp6'](info, config=KEA_BASE)['Dhcp6']['subnet6']
    assert [s['subnet'] for s in six] == ['2001:db8:30::/64']
    assert sorted(r['hostname'] for r in six[0]['reservations']) == ['a1.site.test', 'k6']
    for version in (4, 6):
        path = tmp_path / ('kea-dhcp%d.json' % version)
        path.write_text(json.dumps(F['kea_dhcp%d' % version](info, config=KEA_BASE)))
        code, out = check(['kea-dhcp%d' % version, '-t', str(path)])
        assert code == 0, out


def test_a_child_by_ranges_is_served_in_its_parents_subnet_once(svc, tmp_path):
    """A child by ranges is on its parent's cidr. Its hosts are reservations of the parent's one Kea
    subnet entry (each once), with the options it sets otherwise (its domain) on its own hosts only; dnsmasq lists
    each host once."""
    svc.pool('site', subnets=[{'cidr': '10.32.0.0/24', 'gateway': '10.32.0.1'}], metadata={'domain': 'site.test'})
    svc.pool('api-vips', parent='site', ranges=['10.32.0.240-10.32.0.250'], metadata={'domain': 'vip.test'})
    svc.reserve('site', 'n1', metadata={'mac': mac(1)})
    svc.reserve('api-vips', 'v1', metadata={'mac': mac(2)})
    info = svc.info()
    subnets = F['kea_dhcp4'](info, config=KEA_BASE)['Dhcp4']['subnet4']
    assert [s['subnet'] for s in subnets] == ['10.32.0.0/24']
    assert subnets[0]['option-data'] == [{'name': 'routers', 'data': '10.32.0.1'},
                                         {'name': 'domain-name', 'data': 'site.test'}]
    assert subnets[0]['reservations'] == [
        {'hw-address': '52:54:00:04:00:01', 'ip-address': '10.32.0.2', 'hostname': 'n1.site.test'},
        {'hw-address': '52:54:00:04:00:02', 'ip-address': '10.32.0.240', 'hostname': 'v1.vip.test',
         'option-data': [{'name': 'domain-name', 'data': 'vip.test'}]}]
    assert [line for line in F['dnsmasq_hosts'](info).splitlines() if line.startswith('dhcp-host')] == [
        'dhcp-host=52:54:00:04:00:01,10.32.0.2,n1', 'dhcp-host=52:54:00:04:00:02,10.32.0.240,v1']
    path = tmp_path / 'kea-dhcp4.json'
    path.write_text(json.dumps(F['kea_dhcp4'](info, config=KEA_BASE)))
    code, out = check(['kea-dhcp4', '-t', str(path)])
    assert code == 0, out
