# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every registered store implements the whole store interface, and nothing else is public."""

import importlib
import inspect

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import Store
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import (
    STORES, open_store, redact, store_kind)

PACKAGE = 'ansible_collections.netpool.ipam.plugins.module_utils._stores.'


@pytest.mark.parametrize('kind', sorted(STORES))
def test_store_implements_the_whole_interface(kind):
    module, name = STORES[kind]
    cls = getattr(importlib.import_module(PACKAGE + module), name)
    assert issubclass(cls, Store)
    assert not cls.__abstractmethods__
    public = set(n for n, _m in inspect.getmembers(cls, inspect.isfunction) if not n.startswith('_'))
    interface = set(n for n, _m in inspect.getmembers(Store, inspect.isfunction) if not n.startswith('_'))
    assert public == interface, 'public methods beyond the interface: %s' % (public - interface)


@pytest.mark.parametrize('spec, kind', [
    ('ipam.sqlite', 'sqlite'), ('/var/lib/ipam.db', 'sqlite'), ('state/ipam.json', 'json'),
    ('postgresql://u:p@db/ipam', 'postgresql'), ('postgres://db/ipam', 'postgresql'),
    ('netbox+https://netbox.example.org', 'netbox'), ('netbox+http://127.0.0.1:8000', 'netbox'),
])
def test_store_kind(spec, kind):
    assert store_kind(spec) == kind


def test_unknown_scheme_and_netbox_are_clear_errors():
    with pytest.raises(IpamError) as info:
        open_store('mysql://root:hunter2@db/ipam')
    assert info.value.code == 'invalid_argument' and 'hunter2' not in info.value.msg
    with pytest.raises(IpamError) as info:
        open_store('netbox+https://netbox.example.org')
    assert info.value.code == 'unsupported'


def test_redact():
    assert redact('postgresql://ipam:s3cret@db:5432/ipam') == 'postgresql://ipam:********@db:5432/ipam'
    assert 's3cret' not in redact('postgresql://db/ipam?user=ipam&password=s3cret')
