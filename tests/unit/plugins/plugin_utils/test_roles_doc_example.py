# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""docs/roles.md's first example as a user copies it: its group_vars, plan.yml and site.yml taken from the
guide, the shipped netplan and ifcfg templates copied into the project's templates/ as the guide says, run
by ansible-playbook on two hosts of this machine (local connection, facts gathered). Only what cannot run
here is changed: the store path, the files' destinations (/etc) and the OS-family conditions (both files are
rendered whatever this machine runs)."""

import ipaddress
import os
import re
import shutil
import subprocess

import yaml

from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook
from ansible_collections.netpool.ipam.tests.support.reliability import ansible_bin, ansible_env

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *(['..'] * 4)))


def guide_files():
    """The files of docs/roles.md's first example: {name: text}, from the '# name' line heading each part."""
    with open(os.path.join(ROOT, 'docs', 'roles.md')) as f:
        blocks = re.findall(r'```yaml\n(.*?)```', f.read(), re.S)
    files = {}
    for block in blocks:
        for part in re.split(r'^(?=# [\w/]+\.yml\n)', block, flags=re.M):
            head = re.match(r'# ([\w/]+\.yml)\n', part)
            if head:
                files[head.group(1)] = part
        if 'site.yml' in files:         # the example ends with its playbook
            return files
    return files


def project(tmp_path, store):
    files = guide_files()
    assert sorted(files) == ['group_vars/all.yml', 'group_vars/web.yml', 'plan.yml', 'site.yml'], sorted(files)
    site = files['site.yml']
    for conditional in ("      when: ansible_facts.os_family == 'Debian'\n",
                        "      when: ansible_facts.os_family == 'RedHat'\n"):
        assert conditional in site
        site = site.replace(conditional, '')
    site, moved = re.subn(r'dest: (/etc/netplan/|/etc/sysconfig/network-scripts/)(\S+)',
                          r'dest: "{{ playbook_dir }}/out/{{ inventory_hostname }}-\2"', site)
    assert moved == 2, site
    files['site.yml'] = site
    all_vars = yaml.safe_load(files['group_vars/all.yml'])
    assert all_vars['ipam_store']
    files['group_vars/all.yml'] = yaml.safe_dump(dict(all_vars, ipam_store=store))
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / 'templates').mkdir()
    for template in ('netplan.yaml.j2', 'ifcfg.j2'):
        shutil.copy(os.path.join(ROOT, 'playbooks', 'templates', template), str(tmp_path / 'templates'))
    (tmp_path / 'out').mkdir()
    (tmp_path / 'hosts.ini').write_text('localhost ansible_connection=local\n[web]\nweb1 ansible_connection=local\n'
                                        'web2 ansible_connection=local\n')


def run(tmp_path, *args):
    proc = run_playbook('-i', 'hosts.ini', 'site.yml', *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    return proc.stdout


def facts_interface(tmp_path):
    out = subprocess.run([ansible_bin('ansible'), '-i', 'hosts.ini', 'web1', '-m', 'ansible.builtin.setup', '-a',
                          'filter=ansible_default_ipv4'], cwd=str(tmp_path), env=ansible_env(), check=True,
                         stdout=subprocess.PIPE, text=True, timeout=300).stdout
    found = re.search(r'"interface": "([^"]+)"', out)
    return found.group(1) if found else 'eth0'


def test_the_guides_site_yml_renders_netplan_and_ifcfg_with_the_documented_interface(tmp_path):
    project(tmp_path, str(tmp_path / 'ipam.sqlite'))
    run(tmp_path)
    interface = facts_interface(tmp_path)     # the key 'default' is no interface: the default route's
    addresses = set()
    for host in ('web1', 'web2'):
        netplan = yaml.safe_load((tmp_path / 'out' / ('%s-60-netpool.yaml' % host)).read_text())
        ethernet = netplan['network']['ethernets'][interface]
        (cidr,) = ethernet['addresses']
        address = ipaddress.ip_interface(cidr)
        assert str(address.network) == '10.10.0.0/24' and 10 <= int(address.ip) - int(address.network.network_address) <= 99
        assert ethernet['routes'] == [{'to': 'default', 'via': '10.10.0.1'}]
        assert ethernet['nameservers'] == {'addresses': ['10.10.0.2']}
        ifcfg = (tmp_path / 'out' / ('%s-ifcfg-netpool' % host)).read_text()
        assert ('DEVICE=%s\n' % interface) in ifcfg, ifcfg
        assert ('IPADDR=%s\nPREFIX=24\nGATEWAY=10.10.0.1\n' % address.ip) in ifcfg, ifcfg
        assert 'DNS1=10.10.0.2\n' in ifcfg
        addresses.add(address.ip)
    assert len(addresses) == 2

    # render_interface set: the templates configure that interface; the rerun keeps each host's address
    run(tmp_path, '-e', 'render_interface=ens9')
    for host in ('web1', 'web2'):
        netplan = yaml.safe_load((tmp_path / 'out' / ('%s-60-netpool.yaml' % host)).read_text())
        assert list(netplan['network']['ethernets']) == ['ens9']
        assert 'DEVICE=ens9\n' in (tmp_path / 'out' / ('%s-ifcfg-netpool' % host)).read_text()
        assert ipaddress.ip_interface(netplan['network']['ethernets']['ens9']['addresses'][0]).ip in addresses
