# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""``probe`` on ``netpool_reservation``: a real ``terraform apply`` run in a network namespace where two of the
pool's first addresses answer (tests/support/netns.py) never takes them, records them as found, and a plan after
it changes nothing."""

import json

import pytest

from ansible_collections.netpool.ipam.tests.support import netns

from harness import TERRAFORM, Workdir, service  # pylint: disable=import-error

CONFIG = '''
resource "netpool_reservation" "vm" {
  for_each      = toset(["vm1", "vm2", "vm3"])
  pool          = "lan"
  owner         = each.key
  probe         = "icmp"
  probe_timeout = 200
}
output "addresses" { value = { for k, r in netpool_reservation.vm : k => r.address } }
'''


@pytest.fixture
def link():
    made = netns.link()
    try:
        made.host('10.77.0.5/24', '10.77.0.6/24')
        yield made
    finally:
        made.remove()


def test_apply_never_takes_an_address_that_answers(link, tmp_path, cli_config, sqlite_store):
    with service(sqlite_store) as s:
        s.pool('lan', subnets=[{'cidr': '10.77.0.0/24', 'ranges': ['10.77.0.5-10.77.0.20']}])
    w = Workdir(tmp_path / 'tf', cli_config, sqlite_store)
    w.write(CONFIG)
    w.init()
    shown = json.loads(w.run('show', '-json', w.run('plan', '-input=false', '-out=plan.bin') and 'plan.bin').stdout)
    assert all(c['change']['after_unknown'].get('address') for c in shown['resource_changes'])  # chosen at apply
    done = link.run([TERRAFORM, 'apply', '-auto-approve', '-input=false', '-no-color'], cwd=w.path, env=w.env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(w.outputs()['addresses'].values()) == ['10.77.0.7', '10.77.0.8', '10.77.0.9']
    with service(sqlite_store) as s:
        found = s.info('default', owner='netpool.ipam.probe')['reservations']
    assert sorted(r['address'] for r in found) == ['10.77.0.5', '10.77.0.6']
    assert set(r['metadata']['probe'] for r in found) == {'icmp'}
    assert w.plan() == (0, {})
