# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""HTTP requests the NetBox store sends per task, for one or more checkouts side by side.

    .venv/bin/python bench/netbox_requests.py CHECKOUT [CHECKOUT ...]

Each CHECKOUT is a tree of this repository with its ``collections/`` link (``make link``), for example this
one and ``git worktree add /tmp/before <commit>``. A real NetBox is started (tests/utils/netbox.py) and emptied
before each checkout; each task opens its own store, as a module does, and counts what ``requests`` sends: one
reservation (new, rerun, release), then a batch of 50 new owners in one task (``owners``) and its rerun.
Counts, not times: they are the same on a loaded machine.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TASKS = r'''
import collections, json, sys
import requests
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
url, token = sys.argv[1], sys.argv[2]
sent = []
real = requests.Session.request
requests.Session.request = lambda self, method, *a, **k: sent.append(method) or real(self, method, *a, **k)

def task(work):
    store = open_store(url, token=token)
    del sent[:]
    work(Service(store))
    store.close()
    return dict(collections.Counter(sent))

task(lambda s: s.pool('web', subnets=[{'cidr': '10.9.0.0/24'}]))
task(lambda s: s.reserve('web', 'warm'))
batch = ['b%02d' % i for i in range(50)]
print(json.dumps({'new reservation': task(lambda s: s.reserve('web', 'h1')),
                  'rerun': task(lambda s: s.reserve('web', 'h1')),
                  'release': task(lambda s: s.release(pool='web', owner='h1')),
                  'owners: 50 new': task(lambda s: s.reserve_owners('web', batch)),
                  'owners: the 50 again': task(lambda s: s.reserve_owners('web', batch))}))
'''


def main(checkouts):
    sys.path.insert(0, os.path.join(HERE, 'collections'))
    from ansible_collections.netpool.ipam.tests.support import netbox_server as netbox
    for checkout in checkouts:
        netbox.wipe()
        env = dict(os.environ, PYTHONPATH=os.path.join(os.path.abspath(checkout), 'collections'))
        done = subprocess.run([sys.executable, '-c', TASKS, netbox.url(), netbox.token()], env=env,
                              capture_output=True, text=True, check=False)
        print(checkout, done.stdout.strip() or done.stderr[-2000:])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:] or [HERE]))
