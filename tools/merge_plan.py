# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A git merge driver for a netpool.ipam JSON store kept in git: merges pool by pool, reservation by reservation.

Git merges text line by line: two branches that each add a pool (or a reservation) that sorts into the same
place of the document add lines at one insertion point, which git calls a conflict whatever the layout. This
driver merges the documents as objects instead (``api.merge_documents``): a change made on one side only is
taken, history of both sides is kept, and only one object changed differently on both sides is a conflict (then
the file gets git's usual conflict markers, as without the driver). The merged document is then read as the
store reads it (the store's own check): one it would refuse (both sides took the same
free address for different owners, pools of the two sides overlap) is a conflict too, named, never written.
Set it up once per clone:

    # .gitattributes (committed)
    ipam.json merge=netpool-ipam
    # each clone (git config is not committed)
    git config merge.netpool-ipam.name "netpool.ipam JSON store"
    git config merge.netpool-ipam.driver "python3 /path/to/ansible_collections/netpool/ipam/tools/merge_plan.py %O %A %B %P"

Run it with a Python that has netaddr (the one that runs ansible-playbook). Exits 0 with the merged document
in %A, 1 with a conflict (git's own text merge of the three files, markers and all, in %A; what to fix on
stderr).
"""

import json
import subprocess
import sys

from _collection import import_api  # tools/_collection.py, beside this script


def _text_merge(base, ours, theirs, name):
    """Git's own line merge, conflict markers and all, into ``ours``: what git does without this driver."""
    return subprocess.call(['git', 'merge-file', '-L', name + ' (ours)', '-L', name + ' (base)',
                            '-L', name + ' (theirs)', ours, base, theirs])


#: Refused.kind -> what the merged plan does that the store refuses, and how to resolve it in the text merge
_REFUSED = {
    'held_twice': ('gives one address to two reservations', 'keep one of the two reservation lines (the one in '
                   'use: the owner whose line you delete is given a new free address by the next run)'),
    'overlap': ('holds pools that overlap', 'edit the subnets of one of the pools (or move it to another '
                'namespace)'),
    'damaged': ('is not a valid netpool.ipam document', 'fix that entry'),
}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (3, 4):
        sys.stderr.write('usage: merge_plan.py BASE OURS THEIRS [PATH] (git passes %O %A %B %P)\n')
        return 2
    base, ours, theirs = argv[:3]
    name = argv[3] if len(argv) == 4 else ours
    api = import_api()
    try:
        documents = []
        for path in (base, ours, theirs):
            with open(path) as f:
                text = f.read()
            documents.append(json.loads(text) if text.strip() else {'schema_version': api.STORE_SCHEMA_VERSION})
        merged, conflicts = api.merge_documents(*documents)
    except api.MergeRefused as e:     # the merge, read as the store reads it, is refused: not written
        what, fix = _REFUSED[e.kind]
        sys.stderr.write('netpool.ipam: %s: the merged plan %s, which netpool.ipam refuses to read: %s. Merged as '
                         'text: %s, resolve any conflict markers, then git add %s.\n' % (name, what, e.detail, fix,
                                                                                         name))
        _text_merge(base, ours, theirs, name)
        return 1
    except Exception as e:     # anything this collection cannot read as a plan: git's own merge, as without the driver
        e = '%s: %s' % (type(e).__name__, e)
        sys.stderr.write('netpool.ipam: %s is not a netpool.ipam JSON store this collection reads (%s): merged as '
                         'text.\n' % (name, e))
        return 1 if _text_merge(base, ours, theirs, name) else 0
    if conflicts:
        sys.stderr.write('netpool.ipam: %s: changed differently on both branches: %s. Merged as text: resolve the '
                         'conflict markers.\n' % (name, '; '.join(' '.join(c) for c in conflicts[:10])))
        _text_merge(base, ours, theirs, name)
        return 1
    with open(ours, 'w') as f:
        f.write(merged)
    return 0


if __name__ == '__main__':
    sys.exit(main())
