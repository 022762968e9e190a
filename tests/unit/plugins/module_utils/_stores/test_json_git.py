# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A JSON plan kept in git: two clones reserve on two branches and are merged with the real ``git merge``.

- Changes to different pools merge cleanly (nothing they both touch shares a line or an insertion point),
  and the merged plan loads and allocates as if both changes had been made one after the other.
- A merge that gives one address to two owners (both branches took the same first free address) is
  refused with ``store_unavailable`` naming both holders, and nothing is written; deleting one of the two
  lines and rerunning gives that owner a new address.
"""

import os
import shutil
import subprocess
import sys

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

GIT = shutil.which('git')
pytestmark = pytest.mark.skipif(GIT is None, reason='git is not installed on this machine')


def git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@example.com', GIT_COMMITTER_NAME='t',
               GIT_COMMITTER_EMAIL='t@example.com', GIT_CONFIG_NOSYSTEM='1', HOME=str(cwd))
    return subprocess.run([GIT] + list(args), cwd=str(cwd), env=env, check=False, capture_output=True, text=True)


def ok(cwd, *args):
    done = git(cwd, *args)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def svc(clone):
    return Service(open_store(str(clone / 'plan.json')))


@pytest.fixture
def origin(tmp_path):
    """A plan with two pools and a few reservations, committed, cloned twice (``a`` and ``b``)."""
    base = tmp_path / 'origin'
    base.mkdir()
    ok(base, 'init', '-q', '-b', 'main')
    (base / '.gitignore').write_text('*.lock\n')
    s = svc(base)
    s.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.10-10.0.0.50']}])
    s.pool('db', subnets=[{'cidr': '10.0.1.0/24'}])
    for owner in ('web-m', 'web-z'):
        s.reserve('web', owner)
    s.reserve('db', 'db-m')
    s.store.close()
    ok(base, 'add', '-A')
    ok(base, 'commit', '-qm', 'plan')
    for name in ('a', 'b'):
        ok(tmp_path, 'clone', '-q', str(base), name)
    return tmp_path


def merge(tmp_path):
    """Commit each clone's change, bring b's branch into a and merge it there; the merge's return code."""
    for name in ('a', 'b'):
        ok(tmp_path / name, 'commit', '-qam', 'change in %s' % name)
    ok(tmp_path / 'a', 'fetch', '-q', str(tmp_path / 'b'), 'main:theirs')
    return git(tmp_path / 'a', 'merge', '--no-edit', 'theirs')


def test_changes_to_different_pools_merge_cleanly_and_allocate_correctly(origin):
    a = svc(origin / 'a')
    assert a.reserve('web', 'web-a')['reservation']['address'] == '10.0.0.12'
    a.release(pool='web', owner='web-m')
    a.store.close()
    b = svc(origin / 'b')
    assert b.reserve('db', 'db-b')['reservation']['address'] == '10.0.1.2'
    b.pool('db', description='databases')
    b.store.close()
    done = merge(origin)
    assert done.returncode == 0, done.stdout + done.stderr
    merged = svc(origin / 'a')
    held = dict((r['owner'], r['address']) for r in merged.info()['reservations'])
    assert held == {'web-a': '10.0.0.12', 'web-z': '10.0.0.11', 'db-m': '10.0.1.1', 'db-b': '10.0.1.2'}
    # free space is derived from the merged content: 10.0.0.10 (released on a) is free again, 10.0.1.3 next
    assert merged.reserve('web', 'web-n')['reservation']['address'] == '10.0.0.10'
    assert merged.reserve('web', 'web-o')['reservation']['address'] == '10.0.0.13'
    assert merged.reserve('db', 'db-n')['reservation']['address'] == '10.0.1.3'
    assert merged.info(pool='db')['pools'][0]['description'] == 'databases'
    # history from both branches, in time order
    actions = [(e['owner'], e['action']) for e in merged.info(history=True)['history'] if e['owner']]
    assert ('web-a', 'reserve') in actions and ('db-b', 'reserve') in actions and ('web-m', 'release') in actions


def test_a_merge_giving_one_address_to_two_owners_is_refused_naming_both(origin):
    for name, owner in (('a', 'web-b'), ('b', 'web-n')):    # web-b sorts before web-m, web-n after it
        s = svc(origin / name)
        assert s.reserve('web', owner)['reservation']['address'] == '10.0.0.12'
        s.store.close()
    done = merge(origin)
    assert done.returncode == 0, done.stdout + done.stderr      # git sees no conflict: the lines differ
    path = origin / 'a' / 'plan.json'
    before = path.read_bytes()
    for call in (lambda s: s.info(), lambda s: s.reserve('web', 'web-c'), lambda s: s.release(owner='web-b'),
                 lambda s: s.reserve('web', 'web-b')):
        with pytest.raises(IpamError) as info:
            call(svc(origin / 'a'))
        error = info.value
        assert error.code == 'store_unavailable'
        assert '10.0.0.12' in error.msg and 'owner web-b' in error.msg and 'owner web-n' in error.msg, error.msg
        assert 'delete one of the two reservation lines' in error.msg
        assert path.read_bytes() == before
    # resolving it as the message says: delete web-n's line, rerun; web-n gets the next free address
    lines = before.decode().splitlines(True)
    kept = [line for line in lines if '"owner": "web-n", "pool": "web"' not in line or '"action"' in line]
    assert len(kept) == len(lines) - 1
    path.write_text(''.join(kept))
    s = svc(origin / 'a')
    assert s.reserve('web', 'web-b')['changed'] is False
    assert s.reserve('web', 'web-n')['reservation']['address'] == '10.0.0.13'


def branch_off(tmp_path, build):
    """Run ``build(service)`` on clone a, commit it, and bring clone b to the same commit."""
    s = svc(tmp_path / 'a')
    build(s)
    s.store.close()
    ok(tmp_path / 'a', 'add', '-A')
    ok(tmp_path / 'a', 'commit', '-q', '--allow-empty', '-m', 'base of the test')
    ok(tmp_path / 'b', 'pull', '-q', str(tmp_path / 'a'), 'main')


def test_a_merge_that_makes_two_pools_overlap_is_refused_naming_both(origin):
    # one branch widens pool x, the other moves pool y into the widened space: git sees two different lines
    branch_off(origin, lambda s: (s.pool('x', subnets=[{'cidr': '10.2.0.0/24'}]),
                                  s.pool('y', subnets=[{'cidr': '10.2.4.0/24'}])))
    a = svc(origin / 'a')
    a.pool('x', subnets=[{'cidr': '10.2.0.0/22'}])
    a.store.close()
    b = svc(origin / 'b')
    b.pool('y', subnets=[{'cidr': '10.2.2.0/24'}])
    b.store.close()
    done = merge(origin)
    assert done.returncode == 0, done.stdout + done.stderr
    path = origin / 'a' / 'plan.json'
    before = path.read_bytes()
    for call in (lambda s: s.info(), lambda s: s.reserve('x', 'h1'), lambda s: s.pool('z', subnets=[
            {'cidr': '10.3.0.0/24'}])):
        with pytest.raises(IpamError) as info:
            call(svc(origin / 'a'))
        error = info.value
        assert error.code == 'store_unavailable', error.msg
        assert 'pool x (10.2.0.0/22) and pool y (10.2.2.0/24) overlap in 10.2.2.0-10.2.2.255' in error.msg, error.msg
        assert 'Nothing was changed' in error.msg
        assert path.read_bytes() == before
    # resolved by hand (y moved back out of x), the plan loads again
    path.write_text(before.decode().replace('"cidr": "10.2.2.0/24"', '"cidr": "10.2.8.0/24"'))
    assert svc(origin / 'a').reserve('x', 'h1')['reservation']['address'] == '10.2.0.1'


def test_a_child_pool_inside_its_parent_is_no_overlap(origin):
    branch_off(origin, lambda s: (s.pool('p', subnets=[{'cidr': '10.4.0.0/24'}]),
                                  s.pool('c', parent='p', prefix_length=28)))
    s = svc(origin / 'b')
    assert [p['name'] for p in s.info()['pools'] if p['name'] in ('p', 'c')] == ['c', 'p']


DRIVER = os.path.join(os.path.dirname(__file__), *(['..'] * 5), 'tools', 'merge_plan.py')


def with_driver(tmp_path, build=lambda s: None):
    """``branch_off`` with the merge driver of tools/merge_plan.py: .gitattributes committed, the driver set up
    in clone a (where ``merge`` merges), as docs/stores.md tells a user to."""
    (tmp_path / 'a' / '.gitattributes').write_text('plan.json merge=netpool-ipam\n')
    branch_off(tmp_path, build)
    ok(tmp_path / 'a', 'config', 'merge.netpool-ipam.name', 'netpool.ipam JSON store')
    ok(tmp_path / 'a', 'config', 'merge.netpool-ipam.driver',
       '%s %s %%O %%A %%B %%P' % (sys.executable, os.path.abspath(DRIVER)))


def add_pools(tmp_path):
    """Each clone adds a pool to namespace default; both names sort before 'db': one insertion point."""
    for name, pool, cidr in (('a', 'app', '10.5.0.0/24'), ('b', 'cache', '10.6.0.0/24')):
        s = svc(tmp_path / name)
        s.pool(pool, subnets=[{'cidr': cidr}])
        s.reserve(pool, 'first')
        s.store.close()


def test_two_branches_adding_a_pool_each_conflict_as_text(origin):
    """Why the driver: git's line merge calls two additions at one insertion point a conflict, whatever the
    layout (the JSON store sorts pools by name; 'app' and 'cache' both go before 'db')."""
    branch_off(origin, lambda s: None)
    add_pools(origin)
    assert merge(origin).returncode != 0


def test_with_the_driver_two_branches_adding_a_pool_each_merge_cleanly(origin):
    with_driver(origin)
    add_pools(origin)
    done = merge(origin)
    assert done.returncode == 0, done.stdout + done.stderr
    assert '<<<<<<<' not in (origin / 'a' / 'plan.json').read_text()
    merged = svc(origin / 'a')
    pools = dict((p['name'], p['used']) for p in merged.info()['pools'])
    assert pools == {'app': 1, 'cache': 1, 'db': 1, 'web': 2}
    assert merged.verify()['problems'] == []
    assert merged.reserve('cache', 'second')['reservation']['address'] == '10.6.0.2'
    created = [e['pool'] for e in merged.info(history=True)['history'] if e['action'] == 'create']
    assert 'app' in created and 'cache' in created


def test_with_the_driver_a_release_beside_a_new_reservation_merges_without_bringing_it_back(origin):
    """A deletion next to another branch's addition is one hunk to git's line merge; object by object, the
    released reservation stays released and the new one is kept."""
    with_driver(origin)
    a = svc(origin / 'a')
    a.release(pool='web', owner='web-m')
    a.store.close()
    b = svc(origin / 'b')
    b.reserve('web', 'web-n', address='10.0.0.40')
    b.reserve('web', 'web-a', address='10.0.0.41')
    b.store.close()
    done = merge(origin)
    assert done.returncode == 0, done.stdout + done.stderr
    held = dict((r['owner'], r['address']) for r in svc(origin / 'a').info()['reservations'])
    assert held == {'web-a': '10.0.0.41', 'web-n': '10.0.0.40', 'web-z': '10.0.0.11', 'db-m': '10.0.1.1'}


def test_with_the_driver_one_pool_changed_differently_on_both_sides_is_a_conflict(origin):
    with_driver(origin)
    for name, text in (('a', 'web servers'), ('b', 'frontends')):
        s = svc(origin / name)
        s.pool('web', description=text)
        s.store.close()
    done = merge(origin)
    assert done.returncode != 0
    assert 'pool default web' in done.stdout + done.stderr
    assert '<<<<<<<' in (origin / 'a' / 'plan.json').read_text()


def test_with_the_driver_what_only_the_whole_plan_shows_is_still_refused_at_load(origin):
    """Two dynamic reservations of one free address, or two pools made to overlap: each side is a clean change
    of its own objects, so the merge takes both; reading the merged plan refuses it as without the driver."""
    with_driver(origin, lambda s: (s.pool('x', subnets=[{'cidr': '10.2.0.0/24'}]),
                                   s.pool('y', subnets=[{'cidr': '10.2.4.0/24'}])))
    a = svc(origin / 'a')
    a.pool('x', subnets=[{'cidr': '10.2.0.0/22'}])
    a.store.close()
    b = svc(origin / 'b')
    b.pool('y', subnets=[{'cidr': '10.2.2.0/24'}])
    b.store.close()
    assert merge(origin).returncode == 0
    with pytest.raises(IpamError) as info:
        svc(origin / 'a').info()
    assert info.value.code == 'store_unavailable' and 'pool x (10.2.0.0/22) and pool y' in info.value.msg


def test_the_driver_merges_a_plan_still_in_an_old_layout(tmp_path):
    """The base (or a side) may be a version 1 document, written before the layout was grouped per pool: it is
    read through the store's migrations, and the merge is written in today's layout."""
    import json
    from ansible_collections.netpool.ipam.plugins.module_utils._stores import _json, _json_document
    fixture = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures', 'state-v1.json')
    with open(fixture) as f:
        old = json.load(f)
    (tmp_path / 'old.json').write_text(json.dumps(old))
    ours = svc_at(tmp_path / 'old.json')
    ours.reserve('web', 'added-here', address='10.0.0.44')
    ours.store.close()
    with open(str(tmp_path / 'old.json')) as f:
        text, conflicts = _json_document.merge(old, json.load(f), old)
    assert conflicts == []
    (tmp_path / 'merged.json').write_text(text)
    assert json.loads(text)['schema_version'] == _json.SCHEMA_VERSION
    merged = svc_at(tmp_path / 'merged.json')
    assert 'added-here' in [r['owner'] for r in merged.info()['reservations']]
    assert merged.verify()['problems'] == []


def svc_at(path):
    return Service(open_store(str(path)))


def test_two_branches_giving_two_children_by_ranges_the_same_vips_are_refused_naming_both(origin):
    """Issue 26: children by ranges of one parent share its cidr and are no overlap; their ranges are. Two
    branches each making a child of the same VIPs merge cleanly with the merge driver (one insertion point), and
    the plan is refused naming both."""
    with_driver(origin, lambda s: s.pool('lan', subnets=[{'cidr': '10.5.0.0/24'}]))
    a = svc(origin / 'a')
    a.pool('vips-a', parent='lan', ranges=['10.5.0.240-10.5.0.250'])
    a.store.close()
    b = svc(origin / 'b')
    b.pool('vips-b', parent='lan', ranges=['10.5.0.245-10.5.0.254'])
    b.store.close()
    done = merge(origin)
    assert done.returncode == 0, done.stdout + done.stderr
    with pytest.raises(IpamError) as info:
        svc(origin / 'a').info()
    assert info.value.code == 'store_unavailable', info.value.msg
    assert 'pool vips-a (10.5.0.240-10.5.0.250) and pool vips-b (10.5.0.245-10.5.0.254) overlap in ' \
           '10.5.0.245-10.5.0.250' in info.value.msg, info.value.msg
