# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The module adapter: a module's ``main()`` when the module file itself runs.

This is a private module: it may change at any time.

Playbooks normally run the action plugin of the same name on the controller
(``plugins/plugin_utils/_task/_adapter.py``). This path serves a module file that
is executed directly (``python -m``, ``ansible -m`` without the action
plugin, tests): same options, same service, and a failure turned into the
keys of a failed result by ``_runner.attempt``, as every other way of
running a task does, then handed to ``fail_json``.
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._checks import option_errors
from ansible_collections.netpool.ipam.plugins.module_utils._task._options import module_kwargs
from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _secrets
# The store registry imports the store a task names by its module's name, which AnsiballZ cannot see: it packs the
# module_utils a module file imports. Named here, every store travels with a module file that runs on its own
# (without its action plugin); PostgreSQL's and NetBox's libraries stay optional (their modules import them guarded).
# These imports are exactly ``_registry.modules()``: tests/unit/plugins/module_utils/_task/test_module.py fails when
# a store is added to the registry, or taken out of it, and not here.
from ansible_collections.netpool.ipam.plugins.module_utils._space import _spans  # noqa: F401 pylint: disable=unused-import
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _json, _postgresql, _sqlite  # noqa: F401 pylint: disable=unused-import
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox import _freespace, _store  # noqa: F401 pylint: disable=unused-import


class IpamModule(AnsibleModule):
    """``AnsibleModule`` whose every failure carries an ``error`` code (options: ``invalid_argument``).

    The raw options are also checked by ``_checks.option_errors`` (a list or dict where a string is expected,
    an empty name), which Ansible's own validation would let through as a string.
    """

    _option_errors = ()

    def __init__(self, **kwargs):
        super(IpamModule, self).__init__(**kwargs)
        errors, self._option_errors = self._option_errors, ()
        if errors:
            self.fail_json(msg='; '.join(errors))

    def _load_params(self):
        """Ansible calls this before its own validation: the only time the options are seen as given."""
        super(IpamModule, self)._load_params()
        self._option_errors = option_errors(self.argument_spec, self.params)

    def _hide_secrets(self):
        """A password in the store URL is not a no_log option of its own: hide it like one (``invocation``)."""
        self.no_log_values.update(_secrets.find(getattr(self, 'params', None) or {}))

    def exit_json(self, **kwargs):
        self._hide_secrets()
        super(IpamModule, self).exit_json(**kwargs)

    def fail_json(self, msg, **kwargs):
        if self._option_errors:     # Ansible's own validation failed too (in __init__): report both
            msg = '; '.join(list(self._option_errors) + [msg])
            self._option_errors = ()
        kwargs.setdefault('error', 'invalid_argument')
        self._hide_secrets()
        super(IpamModule, self).fail_json(msg, **kwargs)


def run_module(name):
    """Validate the options of module ``name``, run it, and exit with its result."""
    module = IpamModule(supports_check_mode=True, **module_kwargs(name))
    result, failed = _runner.attempt(
        name, module.params, lambda: _runner.run(name, module.params, check=module.check_mode, diff=module._diff))
    if failed:
        module.fail_json(**failed)
    module.exit_json(**result)
