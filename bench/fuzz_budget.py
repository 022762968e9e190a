#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How many examples the state machines need: the lines of ``plugins/module_utils`` a derandomized run of a
machine reaches, by number of examples (the budgets of tests/support/fuzz.py are sized from it).

    .venv/bin/python bench/fuzz_budget.py [machine|dual] [N ...]

Each N is a run of its own from the same derandomized seed (what CI runs with ``max_examples=N``), on SQLite,
with ``sys.monitoring`` (Python 3.12) recording each line executed once. It prints N, the lines reached, the
lines no smaller N reached, and the seconds the run took.
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'collections'))
os.environ.setdefault('NETPOOL_IPAM_TEST_FUZZ', 'ci')

from hypothesis import settings  # noqa: E402
from hypothesis.stateful import run_state_machine_as_test  # noqa: E402

from ansible_collections.netpool.ipam.tests.support import fuzz  # noqa: E402

CODE = os.path.realpath(os.path.join(HERE, '..', 'plugins', 'module_utils')) + os.sep
TOOL = sys.monitoring.COVERAGE_ID


def machine(name):
    if name == 'dual':
        from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._allocation import (
            test_state_machine_dual as m)
        return m.SqliteDualMachine, fuzz.BUDGETS['dual'][0][1]
    from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._allocation import test_state_machine as m
    return m.SqliteMachine, fuzz.BUDGETS['machine'][0][1]


def reached(cls, examples, steps):
    lines = set()

    def on_line(code, line):
        if os.path.realpath(code.co_filename).startswith(CODE):
            lines.add((code.co_filename, line))
        return sys.monitoring.DISABLE

    sys.monitoring.use_tool_id(TOOL, 'fuzz_budget')
    sys.monitoring.register_callback(TOOL, sys.monitoring.events.LINE, on_line)
    sys.monitoring.set_events(TOOL, sys.monitoring.events.LINE)
    try:
        run_state_machine_as_test(cls, settings=settings(fuzz.budget('machine'), max_examples=examples,
                                                         stateful_step_count=steps))
    finally:
        sys.monitoring.set_events(TOOL, 0)
        sys.monitoring.free_tool_id(TOOL)
        sys.monitoring.restart_events()
    return lines


def main(argv):
    name = argv[0] if argv else 'machine'
    sizes = [int(n) for n in argv[1:]] or [10, 25, 50, 100, 200, 300]
    fuzz.load_profile()
    cls, steps = machine(name)
    seen = set()
    print('%-8s %8s %8s %8s' % ('examples', 'lines', 'new', 'seconds'))
    for n in sizes:
        start = time.monotonic()
        lines = reached(cls, n, steps)
        print('%-8d %8d %8d %8.1f' % (n, len(lines), len(lines - seen), time.monotonic() - start))
        seen |= lines


if __name__ == '__main__':
    main(sys.argv[1:])
