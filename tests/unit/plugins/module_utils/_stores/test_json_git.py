# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A JSON plan kept in git: two clones reserve on two branches and are merged with the real ``git merge``.

- Changes to different pools merge cleanly (nothing they both touch shares a line or an insertion point),
  and the merged plan loads and allocates as if both changes had been made one after the other.
- A merge that gives one address to two owners (both branches took the same first free address) is
  refused with ``store_unavailable`` naming both holders, and nothing is written; deleting one of the two
  lines and rerunning gives that owner a new address.
- With the merge driver (tools/merge_plan.py) such a merge is a conflict instead: the driver reads the merged
  plan with the store's own check and names what it refuses (the address and both owners, both pools).
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
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


def said(done):
    """What ``git merge`` printed (git passes the driver's stderr through)."""
    return done.stdout + done.stderr


def unmerged(clone):
    """The paths git keeps unmerged (a conflict to resolve) in ``clone``."""
    return ok(clone, 'diff', '--name-only', '--diff-filter=U').split()


def test_with_the_driver_both_branches_reserving_the_first_free_address_is_a_conflict_naming_both_owners(origin):
    """Each branch takes the first free address for its own owner: each side is a clean change of its own
    objects, but together they give 10.0.0.12 to two owners, which the store refuses to read. The driver runs the
    store's read check on the merge and calls it a conflict naming the address, both holders and the namespace;
    the file is git's text merge (clean here: the two lines differ), resolved as the message says."""
    with_driver(origin)
    for name, owner in (('a', 'web-b'), ('b', 'web-n')):    # web-b sorts before web-m, web-n after it
        s = svc(origin / name)
        assert s.reserve('web', owner)['reservation']['address'] == '10.0.0.12'
        s.store.close()
    done = merge(origin)
    assert done.returncode != 0, said(done)
    assert '10.0.0.12 in namespace default is held by pool web owner web-b key default and by pool web owner ' \
           'web-n key default' in said(done), said(done)
    assert 'keep one of the two reservation lines' in said(done), said(done)
    assert unmerged(origin / 'a') == ['plan.json']
    path = origin / 'a' / 'plan.json'
    lines = path.read_text().splitlines(True)
    kept = [line for line in lines if '"owner": "web-n", "pool": "web"' not in line or '"action"' in line]
    assert len(kept) == len(lines) - 1
    path.write_text(''.join(kept))
    ok(origin / 'a', 'add', 'plan.json')
    ok(origin / 'a', 'commit', '-q', '--no-edit')
    s = svc(origin / 'a')
    assert s.reserve('web', 'web-b')['changed'] is False
    assert s.reserve('web', 'web-n')['reservation']['address'] == '10.0.0.13'


def test_with_the_driver_two_branches_declaring_overlapping_pools_is_a_conflict_naming_both(origin):
    """Each branch declares a pool of its own (a clean change to the merge), but their subnets overlap in one
    namespace: a conflict naming both pools, their subnets and what they share; the file is git's text merge,
    conflict markers and all (both pools were added at one insertion point), as for any conflict."""
    with_driver(origin)
    for name, pool, cidr in (('a', 'app', '10.7.0.0/24'), ('b', 'cache', '10.7.0.128/25')):
        s = svc(origin / name)
        s.pool(pool, subnets=[{'cidr': cidr}])
        s.store.close()
    done = merge(origin)
    assert done.returncode != 0, said(done)
    assert 'namespace default: pool app (10.7.0.0/24) and pool cache (10.7.0.128/25) overlap in ' \
           '10.7.0.128-10.7.0.255' in said(done), said(done)
    assert unmerged(origin / 'a') == ['plan.json']
    assert '<<<<<<<' in (origin / 'a' / 'plan.json').read_text()


def test_with_the_driver_a_pool_widened_over_another_one_moved_is_a_conflict(origin):
    """One branch widens pool x, the other moves pool y into the widened space: a change to a different pool
    on each side, which no object merge sees; the store's read check of the merge does."""
    with_driver(origin, lambda s: (s.pool('x', subnets=[{'cidr': '10.2.0.0/24'}]),
                                   s.pool('y', subnets=[{'cidr': '10.2.4.0/24'}])))
    a = svc(origin / 'a')
    a.pool('x', subnets=[{'cidr': '10.2.0.0/22'}])
    a.store.close()
    b = svc(origin / 'b')
    b.pool('y', subnets=[{'cidr': '10.2.2.0/24'}])
    b.store.close()
    done = merge(origin)
    assert done.returncode != 0, said(done)
    assert 'pool x (10.2.0.0/22) and pool y (10.2.2.0/24) overlap in 10.2.2.0-10.2.2.255' in said(done), said(done)
    assert 'edit the subnets of one of the pools' in said(done), said(done)
    assert unmerged(origin / 'a') == ['plan.json']
    # what the file holds is still refused on read, never used as it is
    with pytest.raises(IpamError) as info:
        svc(origin / 'a').info()
    assert info.value.code == 'store_unavailable' and 'pool x (10.2.0.0/22) and pool y' in info.value.msg


def test_with_the_driver_reservations_of_different_addresses_merge_cleanly_and_read(origin):
    """The check refuses only what the store refuses: different addresses of one pool, and one address in two
    namespaces, merge cleanly and the merged plan is read and allocates."""
    with_driver(origin, lambda s: s.pool('lab', namespace='lab', subnets=[{'cidr': '10.0.0.0/24'}]))
    a = svc(origin / 'a')
    assert a.reserve('web', 'web-b')['reservation']['address'] == '10.0.0.12'
    a.store.close()
    b = svc(origin / 'b')
    assert b.reserve('web', 'web-n', address='10.0.0.13')['reservation']['address'] == '10.0.0.13'
    assert b.reserve('lab', 'lab-1', namespace='lab', address='10.0.0.12')['reservation']['address'] == '10.0.0.12'
    b.store.close()
    done = merge(origin)
    assert done.returncode == 0, said(done)
    assert unmerged(origin / 'a') == []
    assert '<<<<<<<' not in (origin / 'a' / 'plan.json').read_text()
    merged = svc(origin / 'a')
    held = dict((r['owner'], r['address']) for r in merged.info()['reservations'])
    assert held == {'web-b': '10.0.0.12', 'web-n': '10.0.0.13', 'web-z': '10.0.0.11', 'web-m': '10.0.0.10',
                    'db-m': '10.0.1.1'}
    assert [r['address'] for r in merged.info(namespace='lab')['reservations']] == ['10.0.0.12']
    assert merged.verify()['problems'] == []
    assert merged.reserve('web', 'web-o')['reservation']['address'] == '10.0.0.14'


def test_the_driver_merges_a_plan_still_in_an_old_layout(tmp_path):
    """The base (or a side) may be a version 1 document, written before the layout was grouped per pool: it is
    read through the store's migrations, and the merge is written in today's layout."""
    from ansible_collections.netpool.ipam.plugins.module_utils._stores import _base, _json_document
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
    assert json.loads(text)['schema_version'] == _base.SCHEMA_VERSION
    merged = svc_at(tmp_path / 'merged.json')
    assert 'added-here' in [r['owner'] for r in merged.info()['reservations']]
    assert merged.verify()['problems'] == []


def svc_at(path):
    return Service(open_store(str(path)))


def test_the_driver_calls_any_merge_the_store_refuses_to_read_a_conflict(tmp_path):
    """Not only two holders and overlaps: whatever the store's read check refuses is a conflict. Here one side
    damaged pool web by hand (its subnets deleted), the other reserved in it: git's text merge would be clean."""
    base, ours, theirs = (tmp_path / name for name in ('base.json', 'ours.json', 'theirs.json'))
    s = svc_at(base)
    s.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    s.store.close()
    shutil.copy(str(base), str(ours))
    s = svc_at(ours)
    s.reserve('web', 'h1')
    s.store.close()
    pool = json.loads(base.read_text())['pools']['default']['web']['pool']
    line = '"pool": %s,' % json.dumps(pool, sort_keys=True)     # its line in the file, changed in place
    del pool['subnets']
    assert line in base.read_text()
    theirs.write_text(base.read_text().replace(line, '"pool": %s,' % json.dumps(pool, sort_keys=True)))
    done = subprocess.run([sys.executable, DRIVER, str(base), str(ours), str(theirs), 'plan.json'],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    assert "plan.json: the merged plan is not a valid netpool.ipam document, which netpool.ipam refuses to read: " \
           "pool default/web: the key 'subnets' is missing" in done.stderr, done.stderr


def test_two_branches_giving_two_children_by_ranges_the_same_vips_are_refused_naming_both(origin):
    """Children by ranges of one parent share its cidr and are no overlap; their ranges are. Two
    branches each making a child of the same VIPs: the merge driver calls it a conflict naming both."""
    with_driver(origin, lambda s: s.pool('lan', subnets=[{'cidr': '10.5.0.0/24'}]))
    a = svc(origin / 'a')
    a.pool('vips-a', parent='lan', ranges=['10.5.0.240-10.5.0.250'])
    a.store.close()
    b = svc(origin / 'b')
    b.pool('vips-b', parent='lan', ranges=['10.5.0.245-10.5.0.254'])
    b.store.close()
    done = merge(origin)
    assert done.returncode != 0, said(done)
    assert 'pool vips-a (10.5.0.240-10.5.0.250) and pool vips-b (10.5.0.245-10.5.0.254) overlap in ' \
           '10.5.0.245-10.5.0.250' in said(done), said(done)
