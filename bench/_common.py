# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Helpers of the bench scripts: where the ansible commands are, a clean environment, a timer."""

import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tool(name):
    """An ansible command: the one of .venv, else the one next to this Python, else PATH."""
    for directory in (os.path.join(ROOT, '.venv', 'bin'), os.path.dirname(sys.executable)):
        path = os.path.join(directory, name)
        if os.access(path, os.X_OK):
            return path
    return name


def environment(**extra):
    env = dict(os.environ)
    env.pop('NETPOOL_IPAM_STORE', None)
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, 'collections'),
               ANSIBLE_HOST_KEY_CHECKING='false', ANSIBLE_NOCOLOR='1')
    env.update(extra)
    return env


def timed(cmd, cwd, env):
    """Seconds the command took; fails loudly if it failed."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode:
        sys.stderr.write(proc.stdout.decode(errors='replace')[-4000:])
        raise SystemExit('%s failed (rc %d)' % (' '.join(cmd), proc.returncode))
    return elapsed


def machine():
    cpus = os.cpu_count()
    version = subprocess.run([tool('ansible'), '--version'], stdout=subprocess.PIPE,
                             env=environment(), check=False).stdout.decode().splitlines()[0]
    return '%s, %s CPUs, Python %s, %s' % (platform.platform(), cpus, platform.python_version(), version)


def unreachable_hosts(count, prefix='host'):
    """An inventory (YAML text) of hosts Ansible could not connect to; nothing here ever connects."""
    lines = ['all:', '  vars:', '    ansible_connection: ssh', '    ansible_ssh_executable: /bin/false',
             '  hosts:']
    for i in range(count):
        lines.append('    %s%04d: {ansible_host: 192.0.2.%d}' % (prefix, i, 1 + i % 254))
    return '\n'.join(lines) + '\n'
