# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Action plugin of netpool.ipam.reserve_request: internal to the reserve role (plugin_utils/_reserve.py).

The one task of the role run on every host: the host's request, its role variables as they are for that host
(inventory, group, play vars, role parameters, role defaults: the task's variables), templated in one pass (an
omitted variable is left out) and checked against the role's documented variables (``argument_specs.reserve`` of
roles/reserve/meta/argument_specs.yml), as Ansible's own ``validate_argument_spec`` would check them; and whether
the host's address changes (``changed``), from what its owner holds now. With ``held``, run once first: what the
owners of the play hold in the scope of the first host's request, read once for every host.

It costs a host what a bare ``ansible.builtin.set_fact`` does (issue 25): what a forked worker would do again for
every host is done once here, in the controller process, when Ansible loads this plugin before it forks the workers
(the local store modules, the template lexer, the hand-over file of ``_handoff``); a host's variables that are no
template are not templated; the request is handed to the task run once (``_handoff``: nothing registered, and that
task reads no host's variables through ``hostvars``), else registered with ``register_host_variables`` (2.21:
``register`` would compile a template expression in every worker); nothing is read from the store for a host that
the first task's read covers. With ``batch``, run once last: the reservation of every host (``_reserve.batch``), the
facts set on every host, and the table or the failure that stops every host (2.21; on 2.19 and 2.20 the tasks of
tasks/batch_registered.yml do the last two).
"""

from __future__ import annotations

from collections.abc import Mapping

from ansible.plugins.action import ActionBase
from ansible.template import Templar, is_trusted_as_template, trust_as_template
from ansible.utils.display import Display

from ansible_collections.netpool.ipam.plugins.module_utils import _secrets
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import preload
from ansible_collections.netpool.ipam.plugins.plugin_utils import _handoff, _reserve

try:  # ansible-core 2.21 and later
    from ansible.plugins.action import VariableLayer
except ImportError:  # the role's tasks register the results instead (roles/reserve/tasks/batch_registered.yml)
    VariableLayer = None

display = Display()
preload('sqlite', 'json')
# Ansible makes the lexer of its templates when it first needs one: here, in the controller, once for every worker
Templar().template(trust_as_template('{{ 0 }}'))

#: the role's default of ipam_owner (roles/reserve/defaults/main.yml), which every host has unless it is set
OWNER = '{{ inventory_hostname }}'


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        host = task_vars.get('inventory_hostname')
        values = dict((name, task_vars[name]) for name in _reserve.SPEC if name in task_vars)
        if values.get('ipam_owner') == OWNER and is_trusted_as_template(values['ipam_owner']):
            values['ipam_owner'] = host     # the default, without a template to compile in each worker
        # every role variable the host has that may be a template, templated in one pass: an omitted one is left
        # out; a plain value is kept as it is
        maybe = dict((name, value) for name, value in values.items() if not self._plain(value))
        if maybe:
            values = dict((name, value) for name, value in values.items() if name not in maybe)
            values.update(self._templar.template(maybe))
        errors = _reserve.validate(values)
        if errors:
            result.update(failed=True, msg=errors)
            return result
        request = dict((field, values[name]) for name, field in _reserve.REQUEST if name in values)
        request['host'] = host
        # the store settings that no role variable gives: module_defaults for group/netpool.ipam.all (the args)
        request.update(_reserve.settings(request, self._task.args))
        if self._task.args.get('batch'):
            return self._batch(result, task_vars, request)
        if self._task.args.get('held'):
            # run once, first: what the owners of the play hold where the first host's request reserves
            owners = list(task_vars.get('ansible_play_batch') or [host])
            held = _reserve.read_held(request, owners)
            if _handoff.shared():   # the hosts' requests of this run go to the batch through _handoff
                held['run'] = _handoff.new_run()
            return self._register(result, '__reserve_held', held, changed=False)
        facts = _reserve.mac_facts(task_vars.get('ansible_facts'), request.get('key'))
        request['facts'] = self._templar.template(facts) if facts else {}
        held = task_vars.get('__reserve_held')
        changed = _reserve.changes(request, held)
        run = self._run_id(held)
        if run:
            _handoff.put(run, host, request)
            result['changed'] = changed
            return result
        if VariableLayer is None:   # ansible-core 2.19, 2.20: nothing registers the request (tasks/main.yml)
            result.update(failed=True, msg='netpool.ipam.reserve: %s cannot hand its request to the task run once: '
                          'the role needs its action plugin loaded by the process that forks the workers (the '
                          'linear and free strategies do).' % host)
            return result
        return self._register(result, '__reserve_request', {'request': request}, changed=changed)

    @staticmethod
    def _run_id(held):
        """The run of ``_handoff`` the role's first task started, when this worker shares its file, else None
        (the request is registered and the batch reads it through hostvars)."""
        run = held.get('run') if isinstance(held, Mapping) else None
        return run if run and _handoff.shared() else None

    def _batch(self, result, task_vars, first):
        """Run once, after every host's request: the batch reserved (``_reserve.batch``), its index and the
        role's facts set on every host of the play (register_host_variables), or registered for a set_fact."""
        for name, nearest in _reserve.misspelled([name for name in task_vars if name.startswith('ipam_')]):
            display.warning('netpool.ipam.reserve: the variable %s is not one the role reads: did you mean %s?'
                            % (name, nearest))
        batch, run = set(task_vars.get('ansible_play_batch') or ()), self._run_id(task_vars.get('__reserve_held'))
        hosts, requests = [h for h in task_vars.get('ansible_play_hosts_all') or () if h in batch], []
        try:
            if run:     # what every host's task handed over (_handoff), in inventory order
                handed = _handoff.take(run)
                requests = [handed[host] for host in hosts if host in handed]
            else:       # what every host's task registered, read through hostvars
                registered = [task_vars['hostvars'][host].get('__reserve_request') for host in hosts]
                requests = [self._templar.template(r['request']) for r in registered if r and 'request' in r]
            state = _reserve.batch(requests, task_vars.get(_reserve.STATE), check=bool(self._task.check_mode))
        except Exception as e:  # pylint: disable=broad-except  # a bug: said without a secret (not no_log)
            secrets = [s for r in [first, self._task.args] + requests for s in _secrets.find(r)]
            result.update(failed=True, msg=_secrets.hide('netpool.ipam.reserve: %s: %s' % (type(e).__name__, e),
                                                         secrets))
            return result
        if self._task.register or VariableLayer is None:
            return self._register(result, '__reserve_batch', {'state': state}, changed=False)
        self.register_host_variables(_reserve.fact_values(state), VariableLayer.EPHEMERAL_FACT)
        # what the assert of tasks/batch_registered.yml says: the table, or the failure that stops every host
        # of the batch (run once); no secret: the failure's message has them hidden, the table holds none
        result['changed'] = False
        if state['fatal']:
            result.update(failed=True, msg=state['fatal'])
        else:
            result.update(msg=state['table'], _ansible_verbose_always=True)    # shown as assert shows it
        return result

    def _plain(self, value):
        """A value that templating would leave as it is: a number, a boolean, a string with no template in it, an
        empty dict."""
        if isinstance(value, (bool, int, float)):
            return True
        if isinstance(value, str):
            return not self._templar.is_possibly_template(value)
        return isinstance(value, dict) and not value

    def _register(self, result, name, value, changed):
        """``value`` registered as ``name``: by the task's ``register`` (ansible-core before 2.21), else here."""
        result['changed'] = changed
        if self._task.register or VariableLayer is None:
            result.update(value)
        else:
            self.register_host_variables({name: value}, VariableLayer.REGISTER_VARS)
        return result
