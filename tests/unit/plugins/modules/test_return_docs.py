# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The RETURN of the modules documents the fields of every list or dict a playbook reads (``contains``), and the
fields documented are those the module returns: info's pools (their subnets and map), reservations, history and
problems; reservation's reservation, reservations and released; pool's holder. Each is compared with a real
result over a SQLite store."""

import ast
import sqlite3

import pytest
import yaml

from ansible_collections.netpool.ipam.plugins.modules import info, pool, reservation

from test_modules import run


def documented(module, path):
    """The ``contains`` of the return value at ``path`` (``pools`` or ``pools.subnets``) of ``module``'s RETURN."""
    tree = ast.parse(open(module.__file__.replace('.pyc', '.py')).read())
    text = next(n.value.value for n in ast.walk(tree)
                if isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', None) == 'RETURN')
    node = {'contains': yaml.safe_load(text)}
    for name in path.split('.'):
        node = node['contains'][name]
    assert isinstance(node.get('contains'), dict), '%s RETURN %s documents no contains' % (module.__name__, path)
    return node['contains']


def fields(value, optional=()):
    return set(value) - set(optional)


@pytest.fixture
def store(tmp_path):
    return str(tmp_path / 'ipam.sqlite')


def test_the_documented_fields_are_those_returned(store, capsys):
    run(pool, {'name': 'web', 'cidr': '10.0.0.0/24', 'store': store}, capsys)
    code, out = run(reservation, {'pool': 'web', 'owners': ['a', 'b'], 'store': store}, capsys)
    assert code == 0 and fields(out['reservations'][0]) == fields(documented(reservation, 'reservations'), ['predicted'])
    code, out = run(reservation, {'pool': 'web', 'owner': 'c', 'address': '10.0.0.245', 'store': store}, capsys)
    assert fields(out['reservation']) == fields(documented(reservation, 'reservation'), ['predicted'])
    code, out = run(pool, {'name': 'vip', 'parent': 'web', 'ranges': ['10.0.0.240-10.0.0.250'], 'store': store},
                    capsys)
    assert code == 1 and out['error'] == 'address_in_use' and fields(out['holder']) == fields(documented(pool, 'holder'))

    with sqlite3.connect(store) as conn:     # damaged behind the store's back: a problem for verify to report
        conn.execute('DELETE FROM free_span')
    code, out = run(info, {'store': store, 'history': True, 'map': True, 'verify': True}, capsys)
    assert code == 0 and out['problems'] and out['history']
    assert fields(out['pools'][0]) == fields(documented(info, 'pools'))
    assert fields(out['pools'][0]['subnets'][0]) == fields(documented(info, 'pools.subnets'))
    assert fields(out['reservations'][0]) == fields(documented(info, 'reservations'))
    assert fields(out['history'][0]) == fields(documented(info, 'history'))
    assert fields(out['problems'][0]) == fields(documented(info, 'problems'))

    code, out = run(reservation, {'pool': 'web', 'owner': 'a', 'state': 'absent', 'store': store}, capsys)
    assert code == 0 and fields(out['released'][0]) == fields(documented(reservation, 'released'), ['predicted'])
