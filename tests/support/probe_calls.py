# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Run module calls as a task runs them (``_runner.run``), in this process, and print their results as JSON:
what the probe tests run inside the controller's network namespace (``netns.Link.run``).

Standard input: a JSON list of ``[module, params, check]``; standard output: a JSON list, each the task's result
or its failure (``failed``, ``error``, ``msg``).
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'collections'))

from ansible_collections.netpool.ipam.plugins.module_utils._task import _options, _runner  # noqa: E402


def main():
    results = []
    for name, params, check in json.load(sys.stdin):
        spec = _options.module_kwargs(name)['argument_spec']
        full = dict((k, v.get('default')) for k, v in spec.items())
        full.update(params)
        result, failure = _runner.attempt(name, full, lambda: _runner.run(name, full, check=check))
        results.append(result if failure is None else dict(failure, failed=True))
    json.dump(results, sys.stdout)


if __name__ == '__main__':
    main()
