# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Addresses known at ``terraform plan``: a new reservation's address, cidr and gateway are planned from the
store (which the plan only reads) and the apply reserves exactly them; resources planned together get distinct
ones; an address taken between plan and apply fails that apply, naming it and its holder, and reserves
nothing; a reservation in a pool the same plan creates is known after apply. See harness.py for how Terraform
is run offline."""

import json

import pytest

from harness import TerraformFailed, Workdir, service  # pylint: disable=import-error

RESERVATIONS = '''
resource "netpool_reservation" "vm" {
  for_each = toset(%s)
  pool     = "web"
  owner    = each.key
}
resource "terraform_data" "dns" {
  for_each = netpool_reservation.vm
  input    = "${each.key}.example.com. IN A ${each.value.address}"
}
output "cidrs" { value = { for k, r in netpool_reservation.vm : k => r.cidr } }
'''


def web(store):
    with service(store) as s:
        s.pool('web', subnets=[{'cidr': '10.20.0.0/24', 'gateway': '10.20.0.1', 'dns': ['10.20.0.2'],
                                'ranges': ['10.20.0.10-10.20.0.250']}])


def saved_plan(w):
    """``terraform plan -out=plan.bin``; ``terraform show -json`` of it."""
    w.run('plan', '-input=false', '-out=plan.bin')
    return json.loads(w.run('show', '-json', 'plan.bin').stdout)


def planned(shown, kind='netpool_reservation'):
    """``{index: (after, after_unknown)}`` of the resources of type ``kind`` in a shown plan."""
    return dict((c['index'], (c['change']['after'], c['change']['after_unknown']))
                for c in shown['resource_changes'] if c['type'] == kind)


def held(store):
    with service(store) as s:
        return dict((r['owner'], r) for r in s.info('default', pool='web')['reservations'])


def history(store):
    with service(store) as s:
        return s.info('default', pool='web', history=True)['history']


def test_plan_shows_the_addresses_apply_takes(workdir, store):
    """Three new reservations: the plan knows address, cidr, gateway (and the subnet's facts), distinct, and a
    terraform_data built from the address; the plan writes nothing; the apply of that plan reserves exactly them,
    dynamic (static false); a second plan has nothing to do."""
    web(store)
    before = history(store)
    workdir.write(RESERVATIONS % json.dumps(['vm1', 'vm2', 'vm3']))
    shown = saved_plan(workdir)
    plan = planned(shown)
    assert sorted(plan) == ['vm1', 'vm2', 'vm3']
    for name, (after, after_unknown) in plan.items():
        for attr in ('address', 'cidr', 'gateway', 'prefix_length', 'netmask', 'network', 'dns', 'static', 'id'):
            assert after_unknown.get(attr) in (None, False, [False]), (name, attr)
        assert after['cidr'] == after['address'] + '/24'
        assert (after['gateway'], after['dns'], after['netmask'], after['network'], after['static']) == \
            ('10.20.0.1', ['10.20.0.2'], '255.255.255.0', '10.20.0.0/24', False)
    addresses = dict((name, after['address']) for name, (after, _u) in plan.items())
    assert sorted(addresses.values()) == ['10.20.0.10', '10.20.0.11', '10.20.0.12']
    dns = planned(shown, 'terraform_data')
    assert dict((k, after['input']) for k, (after, _u) in dns.items()) == dict(
        (k, '%s.example.com. IN A %s' % (k, a)) for k, a in addresses.items())
    assert shown['planned_values']['outputs']['cidrs']['value'] == dict((k, a + '/24') for k, a in addresses.items())
    assert held(store) == {} and history(store) == before          # the plan only read

    workdir.apply('plan.bin')
    stored = held(store)
    assert dict((k, r['address']) for k, r in stored.items()) == addresses
    assert not any(r['static'] for r in stored.values())
    state = workdir.state()
    for name, (after, _u) in plan.items():
        values = state['netpool_reservation.vm["%s"]' % name]
        assert dict((k, values[k]) for k in after) == after
    assert workdir.plan() == (0, {})


def test_planned_together_applied_as_planned(tmp_path, cli_config, sqlite_store):
    """Reservations added to a pool that holds some already: the new ones are planned on the free addresses
    (distinct, none held), an owner that holds an address in the store already (reserved by Ansible) is planned
    on it, and terraform apply (a plan, then the apply in other provider processes) keeps every one."""
    web(sqlite_store)
    with service(sqlite_store) as s:
        s.reserve('web', 'other', address='10.20.0.11')
        s.reserve('web', 'vm4')
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write(RESERVATIONS % json.dumps(['vm1', 'vm2', 'vm3', 'vm4']))
    plan = planned(saved_plan(w))
    addresses = dict((name, after['address']) for name, (after, _u) in plan.items())
    assert addresses['vm4'] == '10.20.0.10'
    assert sorted(addresses[n] for n in ('vm1', 'vm2', 'vm3')) == ['10.20.0.12', '10.20.0.13', '10.20.0.14']
    w.apply()           # plans again (another provider process), then applies: the same addresses
    assert dict((k, r['address']) for k, r in held(sqlite_store).items() if k != 'other') == addresses
    assert w.plan() == (0, {})


def test_taken_between_plan_and_apply(tmp_path, cli_config, sqlite_store):
    """An address planned, then taken by someone else (the collection's service, as the reservation module
    does) before the apply: the apply fails naming the address and its holder and saying to plan again, and
    reserves nothing for that owner; the next plan plans another address, and applies."""
    web(sqlite_store)
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write(RESERVATIONS % json.dumps(['vm1']))
    address = planned(saved_plan(w))['vm1'][0]['address']
    with service(sqlite_store) as s:
        s.reserve('web', 'intruder', address=address)
    with pytest.raises(TerraformFailed) as failed:
        w.apply('plan.bin')
    text = ' '.join(str(failed.value).split())
    assert '(error address_in_use)' in text
    assert "%s, planned for web/vm1/default, is held by owner 'intruder' key 'default'" % address in text
    assert 'Nothing was reserved for web/vm1/default. Plan again' in text
    assert sorted(held(sqlite_store)) == ['intruder']
    again = planned(saved_plan(w))['vm1'][0]['address']
    assert again != address
    w.apply('plan.bin')
    assert held(sqlite_store)['vm1']['address'] == again


def test_a_pool_created_by_the_same_plan(tmp_path, cli_config, sqlite_store):
    """A reservation in a pool that the plan creates: its address is known after apply (nothing to read it
    from), and the apply reserves one; a static address is as given, its subnet facts known after apply. Once
    the pool is in the store, a new reservation of it is planned."""
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write('''
resource "netpool_pool" "web" {
  name    = "web"
  subnets = [{ cidr = "10.20.0.0/24", gateway = "10.20.0.1", ranges = ["10.20.0.10-10.20.0.250"] }]
}
resource "netpool_reservation" "vm" {
  pool  = netpool_pool.web.name
  owner = "vm1"
}
resource "netpool_reservation" "fixed" {
  pool    = netpool_pool.web.name
  owner   = "fixed"
  address = "10.20.0.5"
}
''')
    changes = dict((c['address'], c['change']) for c in saved_plan(w)['resource_changes'])
    assert changes['netpool_reservation.vm']['after_unknown']['address'] is True
    assert changes['netpool_reservation.vm']['after_unknown']['cidr'] is True
    assert changes['netpool_reservation.fixed']['after']['address'] == '10.20.0.5'
    assert changes['netpool_reservation.fixed']['after_unknown']['cidr'] is True
    w.apply('plan.bin')
    stored = held(sqlite_store)
    assert (stored['vm1']['address'], stored['fixed']['address'], stored['fixed']['static']) == \
        ('10.20.0.10', '10.20.0.5', True)
    assert w.plan() == (0, {})
    # the pool is in the store now: a new reservation of it is planned
    with open(w.path + '/main.tf', 'a') as f:
        f.write('resource "netpool_reservation" "vm2" {\n  pool  = netpool_pool.web.name\n  owner = "vm2"\n}\n')
    changes = dict((c['address'], c['change']) for c in saved_plan(w)['resource_changes'])
    assert changes['netpool_reservation.vm2']['after']['address'] == '10.20.0.11'
    assert changes['netpool_reservation.vm']['actions'] == ['no-op']
    w.apply('plan.bin')
    assert held(sqlite_store)['vm2']['address'] == '10.20.0.11'


def test_known_only_at_apply_beside_planned_ones(tmp_path, cli_config, sqlite_store):
    """A reservation whose owner is known only at apply (a terraform_data's output) is planned by the apply, and
    never takes the address the plan gave another reservation of the pool, even when the apply gets to it
    first."""
    web(sqlite_store)
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write('''
resource "terraform_data" "name" {
  input = "late"
}
resource "netpool_reservation" "late" {
  pool  = "web"
  owner = terraform_data.name.output
}
resource "netpool_reservation" "early" {
  pool       = "web"
  owner      = "early"
  depends_on = [netpool_reservation.late]
}
''')
    changes = dict((c['address'], c['change']) for c in saved_plan(w)['resource_changes'])
    assert changes['netpool_reservation.early']['after']['address'] == '10.20.0.10'
    assert changes['netpool_reservation.late']['after_unknown']['address'] is True
    w.apply('plan.bin')
    stored = held(sqlite_store)
    assert (stored['early']['address'], stored['late']['address']) == ('10.20.0.10', '10.20.0.11')
    assert w.plan() == (0, {})


def rested(store, delay):
    """The pool ``web`` with a reuse delay (``delay`` seconds)."""
    with service(store) as s:
        s.pool('web', subnets=[{'cidr': '10.20.0.0/24', 'gateway': '10.20.0.1',
                                'ranges': ['10.20.0.10-10.20.0.250']}], reuse_delay=delay)


def test_replace_keeps_the_address_within_the_reuse_delay(tmp_path, cli_config, sqlite_store):
    """``terraform apply -replace`` of a reservation in a pool with a reuse delay: the plan shows the address it
    holds, the destroy lets it rest, the create takes it back (history ``return``); the other reservations
    keep theirs. Without the delay the create would take the next free address (.10 to .12)."""
    rested(sqlite_store, 3600)
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write(RESERVATIONS % json.dumps(['vm1', 'vm2']))
    w.apply()
    before = dict((k, r['address']) for k, r in held(sqlite_store).items())
    assert sorted(before.values()) == ['10.20.0.10', '10.20.0.11']
    w.run('plan', '-input=false', '-replace=netpool_reservation.vm["vm1"]', '-out=plan.bin')
    shown = json.loads(w.run('show', '-json', 'plan.bin').stdout)
    after, unknown_ = planned(shown)['vm1']
    assert (after['address'], unknown_.get('address')) == (before['vm1'], None)
    w.apply('plan.bin')
    assert dict((k, r['address']) for k, r in held(sqlite_store).items()) == before
    assert [e['action'] for e in history(sqlite_store) if e['owner'] == 'vm1'][-2:] == ['release', 'return']
    w.apply('-replace=netpool_reservation.vm["vm2"]')      # a plan and its apply in other provider processes
    assert dict((k, r['address']) for k, r in held(sqlite_store).items()) == before
    assert w.plan() == (0, {})


def test_destroy_and_apply_keep_the_addresses_within_the_reuse_delay(tmp_path, cli_config, sqlite_store):
    """``terraform destroy`` then ``terraform apply`` within the pool's reuse delay: each owner is planned on the
    address it left resting and gets it back; another owner does not get a resting address."""
    rested(sqlite_store, 3600)
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write(RESERVATIONS % json.dumps(['vm1', 'vm2']))
    w.apply()
    before = dict((k, r['address']) for k, r in held(sqlite_store).items())
    w.destroy()
    assert held(sqlite_store) == {}
    w.write(RESERVATIONS % json.dumps(['vm0', 'vm2', 'vm1']))
    plan = planned(saved_plan(w))
    assert (plan['vm1'][0]['address'], plan['vm2'][0]['address'], plan['vm0'][0]['address']) == \
        (before['vm1'], before['vm2'], '10.20.0.12')
    w.apply('plan.bin')
    stored = held(sqlite_store)
    assert dict((k, stored[k]['address']) for k in ('vm1', 'vm2')) == before
    assert stored['vm0']['address'] == '10.20.0.12'
    assert [e['action'] for e in history(sqlite_store) if e['owner'] == 'vm1'][-1] == 'return'
    assert w.plan() == (0, {})


def test_align_with(tmp_path, cli_config, sqlite_store):
    """``align_with``: an owner that holds its address in the pool aligned with (reserved by Ansible) is planned
    on the same host part in this pool; one whose reservation there this plan makes is known after apply, and
    the apply aligns it once that reservation is made. Both are static, and a second plan has nothing to do."""
    web(sqlite_store)
    with service(sqlite_store) as s:
        s.pool('storage', subnets=[{'cidr': '10.30.0.0/24', 'gateway': '10.30.0.1',
                                    'ranges': ['10.30.0.10-10.30.0.250']}])
        s.reserve('web', 'vm2', address='10.20.0.23')
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write('''
resource "netpool_reservation" "web" {
  pool  = "web"
  owner = "vm1"
}
resource "netpool_reservation" "storage" {
  for_each   = toset(["vm1", "vm2"])
  pool       = "storage"
  owner      = each.key
  align_with = "web"
  depends_on = [netpool_reservation.web]
}
''')
    changes = dict((c['address'], c['change']) for c in saved_plan(w)['resource_changes'])
    vm2 = changes['netpool_reservation.storage["vm2"]']
    assert (vm2['after']['address'], vm2['after']['cidr'], vm2['after']['static']) == \
        ('10.30.0.23', '10.30.0.23/24', True)
    assert changes['netpool_reservation.storage["vm1"]']['after_unknown']['address'] is True
    assert changes['netpool_reservation.web']['after']['address'] == '10.20.0.10'
    w.apply('plan.bin')
    with service(sqlite_store) as s:
        stored = dict((r['owner'], r) for r in s.info('default', pool='storage')['reservations'])
    assert (stored['vm1']['address'], stored['vm2']['address']) == ('10.30.0.10', '10.30.0.23')
    assert stored['vm1']['static'] and stored['vm2']['static']
    assert w.plan() == (0, {})
