# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How much the property tests and state machines explore, in one place.

Two profiles, chosen by ``NETPOOL_IPAM_TEST_FUZZ``:

- ``ci`` (the default: ``make test``, ``make units``): **derandomized**. Hypothesis draws its examples from a
  seed fixed by each test's own code, keeps no example database, and so tries the same examples on every run: a
  verdict changes only when the code does. The budgets are the ``ci`` column of ``BUDGETS``.
- ``long`` (``make fuzz``, outside CI): new random examples on every run, many more of them, and Hypothesis's
  example database (``.hypothesis/``) replays a failure it found until it is fixed. A failure found there
  becomes an example test (or a rule of the machine) that the ``ci`` profile runs.

The ``ci`` budgets are sized by what more examples buy here. A derandomized run of the SQLite machine reaches
about the same lines of ``plugins/module_utils`` at 10 examples as at 300 (1,792 and 1,732; each larger run adds
a few dozen lines no smaller one reached: ``bench/fuzz_budget.py``, figures in docs/developing.md): past a few
dozen examples they buy combinations of steps, not code. CI keeps a hundred examples of forty steps on the
file stores (cheap: an in-process store), fewer on PostgreSQL and NetBox (each step is round trips to a server);
``make fuzz`` buys the combinations.
"""

import os

from hypothesis import HealthCheck, settings

PROFILE = os.environ.get('NETPOOL_IPAM_TEST_FUZZ') or 'ci'
if PROFILE not in ('ci', 'long'):
    raise ValueError('NETPOOL_IPAM_TEST_FUZZ is %r: it is ci (the default) or long' % PROFILE)

#: examples, steps per example: the ``ci`` profile, then the ``long`` one
BUDGETS = {
    'machine': ((100, 40), (1000, 40)),
    'machine-postgresql': ((25, 30), (200, 30)),
    'machine-netbox': ((3, 12), (12, 20)),
    'dual': ((60, 30), (600, 30)),
    'dual-postgresql': ((15, 30), (100, 30)),
    'dual-netbox': ((3, 12), (12, 20)),
}

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


#: what every other ``@given`` test runs (the interval properties): examples in ``ci``, then in ``long``
DEFAULT_EXAMPLES = (200, 2000)


def load_profile():
    """Make the profile in use Hypothesis's default (tests/unit/conftest.py calls it before any test module is
    imported, so every ``@given`` test and every ``budget`` derive from it)."""
    settings.register_profile('netpool-ci', derandomize=True, database=None, max_examples=DEFAULT_EXAMPLES[0],
                              **_COMMON)
    settings.register_profile('netpool-long', max_examples=DEFAULT_EXAMPLES[1], **_COMMON)
    settings.load_profile('netpool-' + PROFILE)


def budget(name):
    """The ``settings`` of the test named ``name`` in ``BUDGETS``, for the profile in use."""
    examples, steps = BUDGETS[name][PROFILE == 'long']
    chosen = dict(_COMMON, max_examples=examples)
    if steps is not None:
        chosen['stateful_step_count'] = steps
    if PROFILE == 'ci':
        chosen.update(derandomize=True, database=None)
    return settings(**chosen)
