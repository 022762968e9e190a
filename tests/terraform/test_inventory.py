# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The journey from Terraform to an inventory (docs/design.md#the-inventory-plugin): Terraform reserves for three VMs, ``ansible-inventory`` with the
inventory plugin netpool.ipam.reservations lists them with their addresses, and a play reaches them by the
pool's group (and by a group keyed on the metadata Terraform wrote). On SQLite, JSON and PostgreSQL; the store
comes from NETPOOL_IPAM_STORE for Terraform and Ansible alike. The inventory source is docs/terraform.md's, as
written there; vm3 holds a second address, in a pool of its own without a role, which must not cost it its
role group."""

import json
import os
import re
import subprocess
import sys

from harness import ROOT, Workdir  # pylint: disable=import-error

VMS = '''
resource "netpool_pool" "vms" {
  name    = "vms"
  subnets = [{ cidr = "10.40.0.0/24", gateway = "10.40.0.1" }]
}

resource "netpool_reservation" "vm" {
  for_each = { vm1 = "web", vm2 = "web", vm3 = "db" }
  pool     = netpool_pool.vms.name
  owner    = each.key
  metadata = { role = each.value }
}

resource "netpool_pool" "storage" {
  name    = "storage"
  subnets = [{ cidr = "10.41.0.0/24" }]
}

resource "netpool_reservation" "storage" {
  pool  = netpool_pool.storage.name
  owner = "vm3"
  key   = "eth1"
}

output "addresses" { value = { for k, r in netpool_reservation.vm : k => r.address } }
'''


def documented_source():
    """The inventory source of docs/terraform.md ("What Terraform reserves is Ansible's inventory"), as written."""
    with open(os.path.join(ROOT, 'docs', 'terraform.md')) as f:
        found = re.findall(r'```yaml\n# vms\.netpool\.yml[^\n]*\n(.*?)```', f.read(), re.S)
    assert len(found) == 1, found
    return found[0]


PLAY = '''
- name: Every VM of the pool, by the pool's group
  hosts: vms
  connection: local
  gather_facts: false
  tasks:
    - name: Write the address Ansible would connect to
      ansible.builtin.copy:
        content: "{{ ansible_host }}"
        dest: "{{ out }}/{{ inventory_hostname }}"
        mode: "0600"

- name: The database VMs, by the group keyed on the metadata Terraform wrote
  hosts: role_db
  connection: local
  gather_facts: false
  tasks:
    - name: Mark them
      ansible.builtin.copy:
        content: "{{ (netpool_reservations | selectattr('pool', '==', 'vms') | first).metadata.role }}"
        dest: "{{ out }}/{{ inventory_hostname }}.role"
        mode: "0600"
'''


def ansible(tool, args, cwd, store):
    env = dict(os.environ, NETPOOL_IPAM_STORE=store, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, 'collections'),
               ANSIBLE_PYTHON_INTERPRETER=sys.executable, ANSIBLE_INVENTORY_UNPARSED_FAILED='true',
               ANSIBLE_NOCOLOR='1')
    env.pop('ANSIBLE_CONFIG', None)
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), tool)] + args, cwd=str(cwd), env=env,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def plain(value):
    while isinstance(value, dict) and list(value) == ['__ansible_unsafe']:
        value = value['__ansible_unsafe']
    return value


def test_terraform_reserves_ansible_lists_and_reaches(tmp_path, cli_config, store):
    w = Workdir(tmp_path / 'tf', cli_config, store, env={'NETPOOL_IPAM_STORE': store})
    w.write(VMS, provider='')
    w.apply()
    from_terraform = w.outputs()['addresses']
    assert sorted(from_terraform) == ['vm1', 'vm2', 'vm3']

    (tmp_path / 'vms.netpool.yml').write_text(documented_source())
    listed = json.loads(ansible('ansible-inventory', ['-i', 'vms.netpool.yml', '--list'], tmp_path, store))
    hostvars = listed['_meta']['hostvars']
    assert dict((h, plain(v['ansible_host'])) for h, v in hostvars.items()) == from_terraform
    assert sorted(listed['vms']['hosts']) == ['vm1', 'vm2', 'vm3'] and listed['storage']['hosts'] == ['vm3']
    assert sorted(listed['role_web']['hosts']) == ['vm1', 'vm2'] and listed['role_db']['hosts'] == ['vm3']

    out = tmp_path / 'out'
    out.mkdir()
    (tmp_path / 'play.yml').write_text(PLAY)
    ansible('ansible-playbook', ['-i', 'vms.netpool.yml', 'play.yml', '-e', 'out=%s' % out], tmp_path, store)
    assert dict((n, (out / n).read_text()) for n in from_terraform) == from_terraform
    assert sorted(p.name for p in out.iterdir() if p.name.endswith('.role')) == ['vm3.role']

    # what Terraform destroys leaves the inventory
    w.destroy()
    listed = json.loads(ansible('ansible-inventory', ['-i', 'vms.netpool.yml', '--list'], tmp_path, store))
    assert listed['_meta']['hostvars'] == {}
