# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Copy a whole netpool.ipam state from one store to another.

    python tools/migrate_store.py --source ipam.sqlite --target postgresql://ipam@db/ipam [--replace] [--check]

Run it with the Python that runs ansible-playbook (it has netaddr, and psycopg
for PostgreSQL); ``playbooks/migrate_store.yml`` does exactly that. Store
values that carry a password are better given in the environment
(``NETPOOL_IPAM_SOURCE``, ``NETPOOL_IPAM_TARGET``, and ``..._TOKEN``) than on a
command line that ``ps`` shows. A relative file path is relative to the
current directory, as for ``ansible-playbook``.

Everything moves: pools with their ranges, exclusions and free spans,
addresses waiting out a reuse delay, reservations with their timestamps and
metadata, and the history. The target is written in one transaction, and a
target that holds anything is refused unless ``--replace``. Prints one JSON
object; exits 1 on failure with ``failed``, ``error`` and ``msg``.
"""

import argparse
import json
import os
import sys

from _collection import import_api  # tools/_collection.py, beside this script


def _same(source, target):
    if '://' in source or '://' in target:
        return source == target
    return os.path.realpath(os.path.expanduser(source)) == os.path.realpath(os.path.expanduser(target))


def main(argv=None):
    parser = argparse.ArgumentParser(description='Copy a whole netpool.ipam state from one store to another.')
    parser.add_argument('--source', default=os.environ.get('NETPOOL_IPAM_SOURCE'),
                        help='the store to read (path or URL; default $NETPOOL_IPAM_SOURCE)')
    parser.add_argument('--target', default=os.environ.get('NETPOOL_IPAM_TARGET'),
                        help='the store to write (path or URL; default $NETPOOL_IPAM_TARGET)')
    parser.add_argument('--replace', action='store_true', help='overwrite a target that already holds a state')
    parser.add_argument('--check', action='store_true', help='report what would change, write nothing')
    parser.add_argument('--timeout', type=float, default=30, help='seconds to wait for a store lock (default 30)')
    parser.add_argument('--no-validate-certs', dest='validate_certs', action='store_false',
                        help='do not verify TLS certificates of the stores')
    args = parser.parse_args(argv)

    api = import_api()

    if not args.source or not args.target:
        parser.error('give --source and --target (or NETPOOL_IPAM_SOURCE and NETPOOL_IPAM_TARGET)')
    result = {'source': api.redact(args.source), 'target': api.redact(args.target), 'check': args.check}
    if _same(args.source, args.target):
        parser.error('--source and --target name the same store')
    source = target = None
    try:
        if api.store_kind(args.source) in ('sqlite', 'json') and not os.path.exists(os.path.expanduser(args.source)):
            raise api.IpamError('The source store %s does not exist (relative paths are relative to %s). Nothing '
                                'was copied.' % (args.source, os.getcwd()))
        options = dict(validate_certs=args.validate_certs, timeout=args.timeout, base_dir=os.getcwd())
        # (create=False: the source is only read; one of an older schema version is read as it is, not migrated)
        source = api.open_store(args.source, token=os.environ.get('NETPOOL_IPAM_SOURCE_TOKEN') or None, create=False,
                                **options)
        document = api.export_document(source)
        target = api.open_store(args.target, token=os.environ.get('NETPOOL_IPAM_TARGET_TOKEN') or None,
                                create=not args.check, **options)
        outcome = api.import_document(target, document, replace=args.replace, check=args.check)
        result.update(changed=outcome['changed'], pools=len(document['pools']),
                      reservations=len(document['reservations']), history=len(document['history']),
                      replaced={'pools': len(outcome['before']['pools']),
                                'reservations': len(outcome['before']['reservations'])})
        if not args.check:
            copied = api.export_document(target)
            if copied != document:
                result.update(failed=True, error='store_unavailable',
                              msg='The target store reads back differently from the source after the copy.')
    except api.IpamError as e:
        result.update(e.to_result())
        result['failed'] = True
    finally:
        for store in (source, target):
            if store is not None:
                store.close()
    print(json.dumps(result, sort_keys=True))
    if result.get('failed'):
        sys.stderr.write(result['msg'] + '\n')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
