# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the publish filters share: one file per filter under ``plugins/filter/`` (Galaxy lists a filter by its
file's name). The rendering is in ``_publish.py``;
this turns its errors into ``AnsibleFilterError``."""

from __future__ import annotations

import functools

from ansible.errors import AnsibleFilterError

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError


def filter_module(name, render):
    """A ``FilterModule`` class whose one filter ``name`` runs ``render``."""

    @functools.wraps(render)
    def run(*args, **kwargs):
        try:
            return render(*args, **kwargs)
        except IpamError as exc:
            raise AnsibleFilterError('netpool.ipam.%s: %s (error %s)' % (name, exc.msg, exc.code))

    class FilterModule:
        def filters(self):
            return {name: run}

    FilterModule.__doc__ = 'netpool.ipam.%s' % name
    return FilterModule
