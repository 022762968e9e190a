# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Against what 1.0.0 offered (interface-1.0.0.yml, from the tree of its tag): every plugin, role entry point and
option added since says when (``version_added``, a version after 1.0.0 and not after galaxy.yml's), and nothing
1.0.0 offered is gone unless 1.0.0 documented it as internal (removing one is a new major version)."""

import os

import yaml
from packaging.version import Version

from conftest import ROOT, version
from interface import interface

BASE = Version('1.0.0')


def _base():
    with open(os.path.join(os.path.dirname(__file__), 'interface-1.0.0.yml')) as f:
        return yaml.safe_load(f)


def _says_new(added):
    return added is not None and BASE < Version(added) <= Version(version())


def test_what_is_new_since_1_0_0_says_when_it_was_added():
    base, now = _base(), interface(ROOT)
    wrong = []
    for name, entry in sorted(now.items()):
        if name not in base:
            if not _says_new(entry['version_added']):
                wrong.append('%s (version_added: %s)' % (name, entry['version_added']))
            continue
        for option, added in sorted(entry['options'].items()):
            parent = option.rpartition('.')[0]
            new_parent = parent and parent not in base[name]['options']     # a new option's suboptions are new with it
            if option not in base[name]['options'] and not new_parent and not _says_new(added):
                wrong.append('%s option %s (version_added: %s)' % (name, option, added))
            if option in base[name]['options'] and added is not None and Version(added) > BASE:
                wrong.append('%s option %s was in 1.0.0 (version_added: %s)' % (name, option, added))
    assert wrong == [], 'new since 1.0.0 without version_added: %s (the next release is %s)' % (wrong, version())


def test_nothing_of_1_0_0_is_gone_but_what_it_called_internal():
    base, now = _base(), interface(ROOT)
    gone = []
    for name, entry in sorted(base.items()):
        if entry['internal']:
            continue
        if name not in now:
            gone.append(name)
            continue
        gone += ['%s option %s' % (name, o) for o in entry['options'] if o not in now[name]['options']]
    assert gone == [], 'gone since 1.0.0 (a playbook using it breaks: deprecate it, remove it in a major version): %s' % gone


def test_the_1_0_0_list_is_read_the_way_this_tree_is():
    """The list and this tree are read by the same function: the modules and roles of 1.0.0 are in both."""
    base, now = _base(), interface(ROOT)
    for name in ('modules/pool', 'modules/reservation', 'modules/info', 'lookup/address', 'inventory/reservations',
                 'role/pools:main', 'role/reserve:reserve', 'role/reserve:main'):
        assert name in base and name in now, name
    assert 'state' in base['modules/pool']['options'] and 'subnets.cidr' in now['modules/pool']['options']
