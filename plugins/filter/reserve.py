# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The filters the reserve role runs once for the play (issue 25): see ``plugin_utils/_reserve.py``.

Each filter is documented in the YAML file of its name beside this one. They are the role's internals: their
input and output may change with the role.
"""

from __future__ import annotations

from ansible.utils.display import Display

from ansible_collections.netpool.ipam.plugins.plugin_utils import _reserve

display = Display()


def reserve_plan(requests, names=None):
    for name, nearest in _reserve.misspelled(names):
        display.warning('netpool.ipam.reserve: the variable %s is not one the role reads: did you mean %s?'
                        % (name, nearest))
    return _reserve.plan(requests)


def reserve_facts(results, plan, previous=None, check=False):
    return _reserve.facts(results, plan, previous, check)


def reserve_fact(name):
    return _reserve.fact(name)


class FilterModule:
    """The reserve role's filters."""

    def filters(self):
        return {'reserve_plan': reserve_plan, 'reserve_facts': reserve_facts, 'reserve_fact': reserve_fact}
