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


def netbox_cpu(server):
    """{(kind, pid): CPU seconds (user + system) so far} of a NetBox served by tests/utils/netbox.py: its gunicorn
    processes (the session its master leads) and the PostgreSQL backends of its database (NetBox keeps its
    connections: CONN_MAX_AGE)."""
    found, tick = {}, float(os.sysconf('SC_CLK_TCK'))
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                fields = f.read().rsplit(')', 1)[1].split()
            with open('/proc/%s/cmdline' % entry, 'rb') as f:
                command = f.read().decode(errors='replace')
        except OSError:
            continue
        cpu = sum(int(n) for n in fields[11:15]) / tick      # utime stime cutime cstime
        if int(fields[3]) == server['pid']:                 # the session gunicorn's master leads
            found['netbox', entry] = cpu
        elif command.startswith('postgres: ') and (' %s ' % server['database']) in command:
            found['postgresql', entry] = cpu
    return found


def cpu_spent(before, after, kind):
    """CPU seconds the processes of ``kind`` spent between two ``netbox_cpu`` readings (a process started
    meanwhile, all of its own)."""
    return sum(cpu - before.get(key, 0.0) for key, cpu in after.items() if key[0] == kind)
