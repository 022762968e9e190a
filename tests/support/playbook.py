# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""``ansible-playbook`` as the tests run it: the one next to this Python (``reliability.ansible_bin``), this
checkout as the collection (``reliability.ansible_env``, to which ``env`` adds), stdin closed, never raising on a
failed play (the test says what it expects of the return code and the output)."""

import subprocess

from ansible_collections.netpool.ipam.tests.support.reliability import ansible_bin, ansible_env


def command(*args):
    """The command line ``ansible-playbook ARGS``."""
    return [ansible_bin('ansible-playbook')] + [str(arg) for arg in args]


def run_playbook(*args, cwd, env=None, timeout=600, apart=False):
    """Run ``ansible-playbook ARGS`` from ``cwd`` to its end: its ``CompletedProcess``, the output in ``stdout``
    (stderr with it, unless ``apart``: then in ``stderr``)."""
    return subprocess.run(command(*args), cwd=str(cwd), env=ansible_env(**(env or {})), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE if apart else subprocess.STDOUT, text=True,
                          timeout=timeout, check=False)


def start_playbook(*args, cwd, env=None):
    """Start ``ansible-playbook ARGS`` from ``cwd``: its ``Popen``, to act while it runs (stderr in its stdout)."""
    return subprocess.Popen(command(*args), cwd=str(cwd), env=ansible_env(**(env or {})), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
