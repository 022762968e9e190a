# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Action plugin of netpool.ipam._reserve_request: internal to the reserve role (plugin_utils/_reserve.py).

Without options, the role's one task on every host: the host's request, its role variables as they are for that
host (inventory, group, play vars, role parameters, role defaults: the task's variables), templated and checked
against the role's documented variables. A host whose variables are wrong fails alone, before anything is written.
The request names the run of the role it belongs to (``run``: Ansible's ``role_uuid``). Then, where the play runs
its hosts task by task together and no condition may skip the role's task run once (see ``_reserve.batched``), the
request waits for that task (``batched``: true); otherwise the host's address is reserved here, for this host alone,
and the result holds its entry (``entry``) and is ``changed`` when the host's address changed.

With ``batch``, run once after it: the requests of this run of the role of every host of the batch that waits for
it, read through ``hostvars`` (a request an earlier run registered is not this run's: a host that this run skips
keeps what it holds), reserved in inventory order, one transaction per group (``_reserve.batch``). The result is
the index of what each host got (``hosts``) and the table; a failure (a conflict between hosts, the store) fails
every host of the batch, and its message says which hosts were written (none, unless a group failed after its
check in check mode had passed).
"""

from __future__ import annotations

from ansible.errors import AnsibleError
from ansible.plugins.action import ActionBase
from ansible.template import is_trusted_as_template
from ansible.utils.display import Display

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _secrets
from ansible_collections.netpool.ipam.plugins.plugin_utils import _reserve

display = Display()

#: the role's default of ipam_owner (roles/reserve/defaults/main.yml), which every host has unless it is set
OWNER = '{{ inventory_hostname }}'


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        if self._task.args.get('batch'):
            return self._batch(result, task_vars)
        host = task_vars.get('inventory_hostname')
        values = dict((name, task_vars[name]) for name, _field in _reserve.REQUEST if name in task_vars)
        if values.get('ipam_owner') == OWNER and is_trusted_as_template(values['ipam_owner']):
            values['ipam_owner'] = host     # the role's default, without a template to compile for each host
        # the values that may be templates, templated in one pass (an omitted one is left out)
        templates = dict((name, value) for name, value in values.items() if not self._plain(value))
        try:
            values = dict((name, value) for name, value in values.items() if name not in templates)
            values.update(self._templar.template(templates) if templates else {})
        except AnsibleError as e:   # an undefined variable, a template that fails: this host's alone
            secrets = _secrets.find({'store': task_vars.get('ipam_store'),
                                     'store_token': task_vars.get('ipam_store_token')})
            result.update(failed=True, msg=_secrets.hide(
                'netpool.ipam.reserve: the role variables of %s cannot be read: %s' % (host, e), secrets))
            return result
        values, errors = _reserve.validate(values)
        if errors:
            result.update(failed=True, msg=errors)
            return result
        request = dict((field, values[name]) for name, field in _reserve.REQUEST if name in values)
        request['host'] = host
        # the store settings that no role variable gives: module_defaults for group/netpool.ipam.all
        request.update(_reserve.settings(request, self._templar.template(
            _reserve.group_defaults(self._task.module_defaults))))
        facts = _reserve.mac_facts(task_vars.get('ansible_facts'), request.get('key'))
        request['facts'] = self._templar.template(facts) if facts else {}
        previous = task_vars.get('__reserve_entry')
        request['previous'] = previous if isinstance(previous, dict) and previous else None
        run = task_vars.get('role_uuid')
        if _reserve.batched(self._task):
            result.update(request=request, batched=True, run=run, changed=False)
            return result
        check = bool(self._task.check_mode)
        index = _reserve.batch([request], check=check)
        if index['fatal']:
            result.update(failed=True, msg=index['fatal'], error=index['error'])
            return result
        entry = index['hosts'].get(host) or {}
        result.update(batched=False, run=run, entry=entry, table=index['table'], changed=bool(entry.get('changed')))
        return result

    def _batch(self, result, task_vars):
        """Run once, after every host's request: the batch reserved (``_reserve.batch``) and its index."""
        for name, nearest in _reserve.misspelled([name for name in task_vars if name.startswith('ipam_')]):
            display.warning('netpool.ipam.reserve: the variable %s is not one the role reads: did you mean %s?'
                            % (name, nearest))
        this_pass = set(task_vars.get('ansible_play_batch') or ())     # Ansible's batch: the hosts of this serial pass
        hostvars = task_vars.get('hostvars') or {}
        run = task_vars.get('role_uuid')
        requests = []
        for host in task_vars.get('ansible_play_hosts_all') or ():
            if host not in this_pass:
                continue
            registered = hostvars[host].get('__reserve_request')
            if isinstance(registered, dict) and registered.get('batched') and registered.get('run') == run \
                    and 'request' in registered:
                requests.append(registered['request'])
        try:
            index = _reserve.batch(requests, check=bool(self._task.check_mode))
        except Exception as e:  # pylint: disable=broad-except  # a bug: the modules' failure path says it
            result.update(_reserve.failure(e, requests))
            return result
        result.update(changed=False, hosts=index['hosts'], table=index['table'])
        if index['fatal']:
            result.update(failed=True, msg=index['fatal'], error=index['error'])
        return result

    def _plain(self, value):
        """A value that templating would leave as it is: a number, a boolean, a string with no template in it, an
        empty dict."""
        if isinstance(value, (bool, int, float)):
            return True
        if isinstance(value, str):
            return not self._templar.is_possibly_template(value)
        return isinstance(value, dict) and not value
