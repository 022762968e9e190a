# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A batch of 100 new reservations (one ``owners`` call, as one task runs it) with ``probe: none`` and with
``probe: icmp`` / ``probe: arp``, in a network namespace where no candidate answers (docs/performance.md, "Probing a
batch"). Each batch takes a fresh pool of the same shape in a SQLite store; the median of ``--runs`` is printed.

Run as root (it makes a network namespace and removes it): ``.venv/bin/python bench/probe.py``.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def inside(runs, timeout, store):
    sys.path.insert(0, os.path.join(ROOT, 'collections'))
    from ansible_collections.netpool.ipam.plugins.module_utils._task import _options, _runner

    def call(module, **params):
        full = dict((k, v.get('default')) for k, v in _options.module_kwargs(module)['argument_spec'].items())
        full.update(params, store=store)
        return _runner.run(module, full)

    figures = {}
    for n in range(runs):
        for probe in ('none', 'icmp', 'arp'):
            namespace = '%s-%d' % (probe, n)
            call('pool', name='lan', namespace=namespace, cidr='10.79.0.0/24', ranges=['10.79.0.2-10.79.0.254'])
            started = time.perf_counter()
            result = call('reservation', pool='lan', namespace=namespace, owners=['vm%03d' % i for i in range(100)],
                          probe=probe, probe_timeout=timeout)
            figures.setdefault(probe, []).append(time.perf_counter() - started)
            assert len(result['reservations']) == 100 and not result.get('probed', {}).get('answered')
    return dict((probe, statistics.median(times)) for probe, times in figures.items())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--timeout', type=int, default=300, help='probe_timeout (ms)')
    parser.add_argument('--inside', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        json.dump(inside(args.runs, args.timeout, args.inside), sys.stdout)
        return
    ns = 'npb-%s' % uuid.uuid4().hex[:8]
    subprocess.run(['ip', 'netns', 'add', ns], check=True)
    try:
        # a veth pair whose other end has no address: on the link, and nothing answers
        for argv in (['link', 'add', 'npb0', 'type', 'veth', 'peer', 'name', 'npb1'], ['link', 'set', 'lo', 'up'],
                     ['link', 'set', 'npb0', 'up'], ['link', 'set', 'npb1', 'up'],
                     ['addr', 'add', '10.79.0.1/24', 'dev', 'npb0']):
            subprocess.run(['ip', '-n', ns] + argv, check=True)
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run(['ip', 'netns', 'exec', ns, sys.executable, __file__, '--runs', str(args.runs),
                                  '--timeout', str(args.timeout), '--inside', os.path.join(tmp, 'ipam.sqlite')],
                                 check=True, stdout=subprocess.PIPE, text=True).stdout
    finally:
        subprocess.run(['ip', 'netns', 'delete', ns], check=False)
    figures = json.loads(out)
    print('100 new reservations in one batch, no candidate answering, probe_timeout %d ms (median of %d):'
          % (args.timeout, args.runs))
    for probe in ('none', 'icmp', 'arp'):
        extra = '' if probe == 'none' else '  (+%.2f s over probe: none)' % (figures[probe] - figures['none'])
        print('  probe: %-4s  %.2f s%s' % (probe, figures[probe], extra))


if __name__ == '__main__':
    main()
