# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The netpool Terraform provider, end to end: real ``terraform`` (init, plan, apply, import, destroy) on
SQLite, JSON and PostgreSQL stores, checked against what the collection's service reads from the same store
(what the Ansible modules and lookup see). See harness.py for how Terraform is run offline."""

import ipaddress
import json
import os
import subprocess
import sys
import threading

import pytest

from harness import PROVIDER, ROOT, TerraformFailed, Workdir, require_terraform, service  # pylint: disable=import-error

POOL = '''
resource "netpool_pool" "web" {
  name    = "web"
  subnets = [{ cidr = "10.20.0.0/24", gateway = "10.20.0.1", ranges = ["10.20.0.10-10.20.0.250"] }]
}
'''

VMS = '''
resource "netpool_reservation" "vm" {
  for_each = toset(%s)
  pool     = netpool_pool.web.name
  owner    = each.key
  metadata = { role = %s }
}
'''


def vms(names, role='web'):
    return VMS % (json.dumps(names), json.dumps(role))


def held(store, pool='web', namespace='default'):
    """``{owner: address}`` of the reservations of ``pool``, as the collection reads them."""
    with service(store) as s:
        return dict((r['owner'], r['address']) for r in s.info(namespace, pool=pool)['reservations'])


def test_lifecycle(workdir, store):
    """apply, a second plan with nothing to do, drift (a release outside Terraform) planned back, an update in
    place, a replacement, import, destroy: on every store."""
    names = ['vm1', 'vm2', 'vm3']
    workdir.write(POOL + vms(names) + '''
data "netpool_reservation" "vm1" {
  pool  = netpool_pool.web.name
  owner = netpool_reservation.vm["vm1"].owner
}
data "netpool_pool" "web" {
  name       = netpool_pool.web.name
  depends_on = [netpool_reservation.vm]
}
output "cidrs" { value = { for k, r in netpool_reservation.vm : k => r.cidr } }
output "vm1" { value = data.netpool_reservation.vm1.address }
output "used" { value = data.netpool_pool.web.used }
''')
    workdir.apply()
    store_view = held(store)
    assert sorted(store_view) == names
    assert sorted(store_view.values()) == ['10.20.0.10', '10.20.0.11', '10.20.0.12']
    out = workdir.outputs()
    assert out['cidrs'] == dict((k, v + '/24') for k, v in store_view.items())
    assert out['vm1'] == store_view['vm1']
    assert out['used'] == 3
    state = workdir.state()
    assert state['netpool_reservation.vm["vm2"]']['gateway'] == '10.20.0.1'
    assert state['netpool_reservation.vm["vm2"]']['id'] == 'default/web/vm2/default'
    assert state['netpool_pool.web']['strategy'] == 'first'
    assert workdir.plan() == (0, {})

    # released outside Terraform (as netpool.ipam.reservation state: absent does): planned again
    with service(store) as s:
        assert s.release('default', pool='web', owner='vm2')['changed']
    assert workdir.plan() == (2, {'netpool_reservation.vm["vm2"]': ['create']})
    workdir.apply()
    assert sorted(held(store)) == names

    # metadata changes in place (the address stays); an owner change replaces
    before = held(store)
    workdir.write(POOL + vms(names, role='api'))
    code, changes = workdir.plan()
    assert code == 2
    assert changes == dict(('netpool_reservation.vm["%s"]' % n, ['update']) for n in names)
    workdir.apply()
    assert held(store) == before
    with service(store) as s:
        assert s.get('web', 'vm1')['metadata'] == {'role': 'api'}
    workdir.write(POOL + vms(['vm1', 'vm2', 'vm4'], role='api'))
    code, changes = workdir.plan()
    assert changes == {'netpool_reservation.vm["vm3"]': ['delete'], 'netpool_reservation.vm["vm4"]': ['create']}
    workdir.apply()
    assert sorted(held(store)) == ['vm1', 'vm2', 'vm4']

    # import by namespace/pool/owner/key: the state is whole again, nothing to change
    workdir.run('state', 'rm', 'netpool_reservation.vm["vm1"]')
    assert workdir.plan()[1] == {'netpool_reservation.vm["vm1"]': ['create']}
    workdir.run('import', 'netpool_reservation.vm["vm1"]', 'default/web/vm1/default')
    assert workdir.plan() == (0, {})
    assert workdir.state()['netpool_reservation.vm["vm1"]']['address'] == before['vm1']

    workdir.destroy()
    with service(store) as s:
        assert s.info('default')['pools'] == []
        assert s.info('default')['reservations'] == []


def test_parallel_applies_never_collide(tmp_path, cli_config, store):
    """Two terraform apply runs at once, 100 reservations each, on one store: never one address twice. Both plan
    from the same free addresses (docs/terraform.md, Addresses known at plan), so where one took an address
    first the other's apply fails for that reservation, naming the address and its holder, and reserves nothing
    for it; applying again reserves the rest: 200 distinct addresses, as the states say."""
    with service(store) as s:
        s.pool('shared', subnets=[{'cidr': '10.30.0.0/23'}])
    sides = []
    for side in ('a', 'b'):
        w = Workdir(tmp_path / side, cli_config, store)
        w.write('''
resource "netpool_reservation" "vm" {
  count = 100
  pool  = "shared"
  owner = "%s-${count.index}"
}
''' % side)
        w.init()
        sides.append(w)
    failures = []

    def apply(w):
        try:
            w.apply()
        except TerraformFailed as e:
            failures.append(' '.join(str(e).split()))

    threads = [threading.Thread(target=apply, args=(w,)) for w in sides]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for failure in failures:
        errors = failure.count('Error: ')
        assert errors == failure.count('(error address_in_use)'), failure
        assert errors == failure.count('since it was planned. Nothing was reserved for'), failure
    for w in sides:
        w.apply()
        assert w.plan() == (0, {})
    addresses = held(store, pool='shared')
    assert len(addresses) == 200
    assert len(set(addresses.values())) == 200
    in_state = [r['address'] for w in sides for r in w.state().values()]
    assert sorted(in_state) == sorted(addresses.values())


def test_pool_drift_update_and_child(tmp_path, cli_config, sqlite_store):
    """A pool changed outside Terraform is drift, and is put back; a change of name replaces; a child pool
    carved from a parent reports its subnet."""
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write(POOL + '''
resource "netpool_pool" "lab" {
  name    = "lab"
  subnets = [{ cidr = "10.40.0.0/16" }]
  reuse_delay = "1h"
}
resource "netpool_pool" "ci" {
  name          = "lab-ci"
  parent        = netpool_pool.lab.name
  prefix_length = 24
}
output "ci" { value = netpool_pool.ci.subnets[0].cidr }
''')
    w.apply()
    assert w.outputs()['ci'] == '10.40.0.0/24'
    assert w.plan() == (0, {})
    with service(sqlite_store) as s:
        assert s.range('web', ['10.20.0.251-10.20.0.254'])['changed']         # netpool.ipam.range
        assert s.pool('lab', reuse_delay=60)['changed']
    assert w.plan()[1] == {'netpool_pool.web': ['update'], 'netpool_pool.lab': ['update']}
    w.apply()
    with service(sqlite_store) as s:
        pools = dict((p['name'], p) for p in s.info('default')['pools'])
    assert pools['web']['subnets'][0]['ranges'] == ['10.20.0.10-10.20.0.250']
    assert pools['lab']['reuse_delay'] == 3600
    assert w.plan() == (0, {})

    # import by namespace/name, a child pool too: the state is whole again, nothing to change
    for address, name in (('netpool_pool.web', 'web'), ('netpool_pool.lab', 'lab'), ('netpool_pool.ci', 'lab-ci')):
        w.run('state', 'rm', address)
        w.run('import', address, 'default/' + name)
    # but for a duration written otherwise ('1h' is 3600 in the store, and the state of an import): one
    # update in place, which changes nothing in the store
    assert w.plan() == (2, {'netpool_pool.lab': ['update']})
    w.apply()
    with service(sqlite_store) as s:
        assert s.info('default', pool='lab')['pools'][0]['updated_at'] == pools['lab']['updated_at']
    assert w.plan() == (0, {})
    w.write(POOL.replace('name    = "web"', 'name    = "www"'))
    assert w.plan()[1] == {'netpool_pool.web': ['delete', 'create'], 'netpool_pool.lab': ['delete'],
                           'netpool_pool.ci': ['delete']}


def test_a_child_by_ranges(tmp_path, cli_config, sqlite_store):
    """VIPs beside nodes in one /24: parent + ranges makes a child holding exactly those ranges, with
    the parent's subnet, gateway and dns; new ranges resize it in place; a range edit made by Ansible is drift,
    put back; an import gives it its ranges."""
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    vips = POOL + '''
resource "netpool_pool" "vips" {
  name   = "vips"
  parent = netpool_pool.web.name
  ranges = [%s]
}
resource "netpool_reservation" "api" {
  pool  = netpool_pool.vips.name
  owner = "api"
}
output "vips" { value = netpool_pool.vips.subnets }
output "api" { value = [netpool_reservation.api.address, netpool_reservation.api.gateway] }
'''
    w.write(POOL.replace('10.20.0.10-10.20.0.250', '10.20.0.10-10.20.0.200') + vips[len(POOL):] % '"10.20.0.240-10.20.0.250"')
    w.apply()
    subnet, = w.outputs()['vips']
    assert (subnet['cidr'], subnet['gateway'], subnet['ranges']) == ('10.20.0.0/24', '10.20.0.1', ['10.20.0.240-10.20.0.250'])
    assert w.outputs()['api'] == ['10.20.0.240', '10.20.0.1']
    assert w.plan() == (0, {})
    w.write(POOL.replace('10.20.0.10-10.20.0.250', '10.20.0.10-10.20.0.200')
            + vips[len(POOL):] % '"10.20.0.240-10.20.0.250", "10.20.0.251"')
    assert w.plan()[1] == {'netpool_pool.vips': ['update']}
    w.apply()
    assert w.outputs()['vips'][0]['ranges'] == ['10.20.0.240-10.20.0.251']
    with service(sqlite_store) as s:
        vip = s.info('default', pool='vips')['pools'][0]
        assert (vip['by_ranges'], vip['size']) == (True, 12)
        assert s.range('vips', ['10.20.0.252'])['changed']                  # netpool.ipam.range: drift
    assert w.plan()[1] == {'netpool_pool.vips': ['update']}
    w.apply()
    assert w.plan() == (0, {})
    with service(sqlite_store) as s:
        stamp = s.info('default', pool='vips')['pools'][0]['updated_at']
    w.run('state', 'rm', 'netpool_pool.vips')
    w.run('import', 'netpool_pool.vips', 'default/vips')
    # the import holds the ranges as the store spells them (merged): one update in place, which changes nothing
    assert w.plan()[1] == {'netpool_pool.vips': ['update']}
    w.apply()
    with service(sqlite_store) as s:
        assert s.info('default', pool='vips')['pools'][0]['updated_at'] == stamp
    assert w.plan() == (0, {})
    w.write(POOL.replace('10.20.0.10-10.20.0.250', '10.20.0.10-10.20.0.200')
            + vips[len(POOL):] % '"10.20.0.245-10.20.0.251"')
    with pytest.raises(TerraformFailed) as failed:                          # api holds 10.20.0.240
        w.apply()
    assert 'pool_in_use' in str(failed.value)


def test_destroy_honours_the_reuse_delay(tmp_path, cli_config, sqlite_store):
    """A released reservation's address rests for the pool's reuse_delay, for everyone but its owner: a replaced
    reservation takes its own address back, another owner's new reservation gets another address. ``terraform
    destroy`` then ``apply`` of the whole configuration (the pool in it): the pool comes back with what rested,
    and every owner gets its address back."""
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    pool = POOL.replace('  name    = "web"\n', '  name    = "web"\n  reuse_delay = "1h"\n')
    w.write(pool + vms(['vm1']))
    w.apply()
    first = held(sqlite_store)['vm1']
    w.apply('-replace=netpool_reservation.vm["vm1"]')
    assert held(sqlite_store)['vm1'] == first
    owners = ['vm%02d' % i for i in range(2, 14)]
    w.write(pool + vms(owners))
    w.apply()
    before = held(sqlite_store)
    assert sorted(before) == owners and first not in before.values()

    def cells():
        with service(sqlite_store) as s:
            return s.info('default', pool='web', map=True)['pools'][0]['subnets'][0]['map'][0]['map'][:14]
    assert cells() == '-' + 'X' * 12 + '.'
    w.destroy()
    with service(sqlite_store) as s:
        assert s.info('default')['pools'] == []
    w.apply()
    assert held(sqlite_store) == before and cells() == '-' + 'X' * 12 + '.'


def test_errors_are_diagnostics_with_their_code(tmp_path, cli_config, sqlite_store):
    """A failure is a Terraform error whose summary ends with the code, never a Python traceback."""
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write('''
resource "netpool_pool" "tiny" {
  name    = "tiny"
  subnets = [{ cidr = "10.50.0.0/30" }]
}
resource "netpool_reservation" "vm" {
  count = 3
  pool  = netpool_pool.tiny.name
  owner = "vm${count.index}"
}
''')
    out = w.apply(codes=(1,))
    assert '(error pool_exhausted)' in out.stderr
    assert "Pool 'tiny' has no free address left" in out.stderr.replace('\n', ' ')
    assert 'Traceback' not in out.stderr + out.stdout
    assert len(held(sqlite_store, pool='tiny')) == 2

    w.write('data "netpool_reservation" "nobody" {\n  pool = "tiny"\n  owner = "nobody"\n}\n')
    out = w.run('plan', codes=(1,))
    assert '(error not_reserved)' in out.stderr
    assert 'Reserve one with resource netpool_reservation' in out.stderr.replace('\n', ' ')
    w.write('', provider='store = "mysql://user:s3cret@db/ipam"')
    out = w.run('plan', codes=(1,))
    assert '(error invalid_argument)' in out.stderr
    assert 's3cret' not in out.stderr + out.stdout
    w.run('import', 'netpool_reservation.x', 'web', codes=(1,))

    # what the service would refuse is refused at plan time, naming the attribute
    w.write('resource "netpool_reservation" "x" {\n  pool = "tiny"\n  owner = "x"\n  family = "ipv5"\n'
            '  ttl = "soon"\n}\n')
    out = w.run('plan', codes=(1,))
    text = ' '.join(out.stderr.split())
    assert 'Invalid family of netpool_reservation (error invalid_argument)' in text
    assert "family must be one of dual, ipv4, ipv6, got 'ipv5'." in text
    assert "ttl must be a number of seconds or a duration like '30m', '12h' or '7d', got 'soon'." in text


DUAL = '''
resource "netpool_pool" "dual" {
  name    = "dual"
  subnets = [{ cidr = "10.21.0.0/24", gateway = "10.21.0.1", ranges = ["10.21.0.10-10.21.0.20"] },
             { cidr = "2001:db8:21::/64", gateway = "2001:db8:21::1", ranges = ["2001:db8:21::10-2001:db8:21::20"] }]
}
resource "netpool_reservation" "vm" {
  for_each = toset(["vm1", "vm2"])
  pool     = netpool_pool.dual.name
  owner    = each.key
  family   = "dual"
}
data "netpool_reservation" "vm1" {
  pool   = netpool_pool.dual.name
  owner  = netpool_reservation.vm["vm1"].owner
  family = "dual"
}
output "addresses" { value = { for k, r in netpool_reservation.vm : k => [r.address, r.cidr6, r.gateway6] } }
output "vm1" { value = [data.netpool_reservation.vm1.address, data.netpool_reservation.vm1.address6] }
'''


def test_family_dual(tmp_path, cli_config, sqlite_store):
    """family = "dual": address (IPv4) and address6, cidr6, gateway6 (IPv6) in one apply; a second plan has nothing to
    do; the IPv6 half released outside Terraform is planned back, the IPv4 one kept; import finds both; destroy
    releases both."""
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write(DUAL)
    w.apply()
    out = w.outputs()
    assert sorted(out['addresses'].values()) == [
        ['10.21.0.10', '2001:db8:21::10/64', '2001:db8:21::1'], ['10.21.0.11', '2001:db8:21::11/64', '2001:db8:21::1']]
    assert out['vm1'] == [out['addresses']['vm1'][0], out['addresses']['vm1'][1].split('/')[0]]
    assert w.plan() == (0, {})
    with service(sqlite_store) as s:
        assert [r['address'] for r in s.release('default', pool='dual', owner='vm2', family='ipv6')['released']] \
            == [out['addresses']['vm2'][1].split('/')[0]]
    assert w.plan() == (2, {'netpool_reservation.vm["vm2"]': ['create']})
    w.apply()
    assert w.outputs() == out
    w.run('state', 'rm', 'netpool_reservation.vm["vm1"]')
    w.run('import', 'netpool_reservation.vm["vm1"]', 'default/dual/vm1/default')
    assert w.plan() == (0, {})
    w.destroy()
    with service(sqlite_store) as s:
        assert s.info('default')['reservations'] == []


def tagged(mac):
    """Pool web with a domain, and vm1's reservation with ``mac``, a hostname and a role, as a user may write them."""
    return POOL.replace('  name    = "web"\n', '  name    = "web"\n  metadata = { domain = "Example.COM." }\n') + '''
resource "netpool_reservation" "vm" {
  pool     = netpool_pool.web.name
  owner    = "vm1"
  metadata = { mac = "%s", hostname = "VM1.Example.COM.", role = "Web" }
}
''' % mac


def test_metadata_kept_as_written_stored_normalised(tmp_path, cli_config, sqlite_store):
    """mac, hostname and a pool's domain as the configuration writes them: the store keeps them normalised
   , the state as written, so apply is consistent and a second plan has nothing to do; a MAC that
    is none fails the plan with invalid_argument, before anything is written."""
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write(tagged('52-54-00-AA-BB-CC'))
    w.apply()
    with service(sqlite_store) as s:
        assert s.get('web', 'vm1')['metadata'] == {'mac': '52:54:00:aa:bb:cc', 'hostname': 'vm1.example.com',
                                                   'role': 'Web'}
        assert s.info('default', pool='web')['pools'][0]['metadata'] == {'domain': 'example.com'}
    state = w.state()
    assert state['netpool_reservation.vm']['metadata']['mac'] == '52-54-00-AA-BB-CC'
    assert state['netpool_pool.web']['metadata'] == {'domain': 'Example.COM.'}
    assert w.plan() == (0, {})

    # changed outside Terraform: drift, planned back
    with service(sqlite_store) as s:
        assert s.reserve('web', 'vm1', metadata={'mac': '52:54:00:aa:bb:dd'})['changed']
    assert w.plan() == (2, {'netpool_reservation.vm': ['update']})
    w.apply()
    with service(sqlite_store) as s:
        stored = s.get('web', 'vm1')
    assert stored['metadata']['mac'] == '52:54:00:aa:bb:cc'
    assert w.plan() == (0, {})

    # the same MAC spelled otherwise: one update in place, which changes nothing in the store
    w.write(tagged('5254.00aa.bbcc'))
    assert w.plan() == (2, {'netpool_reservation.vm': ['update']})
    w.apply()
    with service(sqlite_store) as s:
        assert s.get('web', 'vm1') == stored
    assert w.plan() == (0, {})

    w.write(tagged('52-54-00-AA-BB'))
    out = w.run('plan', codes=(1,))
    text = ' '.join(out.stderr.split())
    assert 'Invalid metadata of netpool_reservation (error invalid_argument)' in text
    assert "metadata mac '52-54-00-AA-BB' is not a MAC address" in text
    assert 'Traceback' not in out.stderr + out.stdout
    with service(sqlite_store) as s:
        assert s.get('web', 'vm1') == stored


def test_read_only_home(tmp_path, cli_config, sqlite_store):
    """The framework caches its certificate under ~/.cache: a HOME that cannot be written (here one that
    cannot even exist) still works."""
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store, home='/dev/null/home')
    w.write(POOL)
    w.apply()
    assert w.plan() == (0, {})


def test_journey_with_ansible(tmp_path, cli_config, sqlite_store):
    """Terraform reserves for 5 VMs; an Ansible play's lookup finds the same 5 addresses; Ansible releases one;
    the next terraform plan creates exactly that one. Both read the store from NETPOOL_IPAM_STORE."""
    env = {'NETPOOL_IPAM_STORE': sqlite_store}
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store, env=env)
    names = ['web%d' % i for i in range(1, 6)]
    w.write(POOL + vms(names) + 'output "addresses" { value = { for k, r in netpool_reservation.vm : k => '
            'r.address } }\n', provider='')
    w.apply()
    from_terraform = w.outputs()['addresses']
    assert sorted(from_terraform) == names

    inventory = tmp_path / 'inventory.yml'
    inventory.write_text(json.dumps({'vms': {'hosts': dict((n, {}) for n in names)}}))
    playbook = tmp_path / 'play.yml'
    playbook.write_text('''
- name: What Terraform reserved, from Ansible
  hosts: vms
  gather_facts: false
  tasks:
    - name: Each VM's address, from the lookup
      ansible.builtin.copy:
        content: "{{ lookup('netpool.ipam.address', 'web', owner=inventory_hostname) }}"
        dest: "{{ out }}/{{ inventory_hostname }}"
        mode: "0600"
      delegate_to: localhost

    - name: web3 is decommissioned
      netpool.ipam.reservation:
        pool: web
        owner: web3
        state: absent
      run_once: true
''')
    out_dir = tmp_path / 'out'
    out_dir.mkdir()
    bin_dir = os.path.dirname(sys.executable)
    run = subprocess.run(
        [os.path.join(bin_dir, 'ansible-playbook'), '-i', str(inventory), str(playbook), '-e', 'out=%s' % out_dir],
        cwd=ROOT, capture_output=True, text=True, check=False,
        env=dict(os.environ, NETPOOL_IPAM_STORE=sqlite_store, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, 'collections'),
                 ANSIBLE_PYTHON_INTERPRETER=sys.executable, ANSIBLE_HOST_KEY_CHECKING='False'))
    assert run.returncode == 0, run.stdout + run.stderr
    from_ansible = dict((n, (out_dir / n).read_text()) for n in names)
    assert from_ansible == from_terraform
    assert all(ipaddress.ip_address(a) in ipaddress.ip_network('10.20.0.0/24') for a in from_ansible.values())
    assert w.plan() == (2, {'netpool_reservation.vm["web3"]': ['create']})


def test_mirror_refuses_a_directory_without_the_collection(tmp_path):
    require_terraform()
    out = subprocess.run([PROVIDER, 'mirror', str(tmp_path / 'm'), '--collections-path', str(tmp_path)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 2
    assert 'holds no ansible_collections/netpool/ipam' in out.stderr


def test_without_the_collection(tmp_path, cli_config, sqlite_store):
    """A provider that cannot find the collection says so through Terraform (not 'plugin exited')."""
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store,
                env={'NETPOOL_TERRAFORM_COLLECTIONS_PATH': str(tmp_path / 'none'),
                     'ANSIBLE_COLLECTIONS_PATH': str(tmp_path / 'nowhere')})
    w.write(POOL)
    out = w.run('plan', codes=(1,))
    text = ' '.join(out.stderr.split())
    assert '(error store_unavailable)' in text
    assert 'needs the netpool.ipam Ansible collection, and found it in none of %s' % (tmp_path / 'none') in text
