# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The netpool Terraform provider: start-up, apply of 100 reservations, a plan with nothing to do.

- Start-up: the provider started as Terraform starts it (the mirror's launcher, TF_PLUGIN_MAGIC_COOKIE set)
  until it prints its go-plugin handshake line, median of --starts runs, wall and CPU seconds; beside it a
  bare ``python -c "print(1)"`` and a Python that only imports the framework, grpc and cryptography (the
  floor the provider stands on). Terraform starts the provider 3-5 times per command.
- Terraform: in a fresh SQLite store holding one pool (applied first, not timed), ``terraform plan`` of
  --count new reservations (their addresses planned from the store), ``terraform apply``, then
  ``terraform plan`` with nothing to do, then ``terraform destroy``; beside them the same commands on
  --count ``terraform_data`` resources (Terraform's built-in resource, no provider at all): the floor.
  The provider measured is this checkout's (its ``terraform/`` first on PYTHONPATH, its collection);
  ``--base DIR`` measures the checkout DIR's beside it in the same run (``git worktree add --detach DIR main``,
  with DIR/collections/ansible_collections/netpool/ipam linking to DIR).

    .venv/bin/python bench/terraform.py                 # make bench-terraform
    .venv/bin/python bench/terraform.py --count 100 --rounds 3 --starts 10
    .venv/bin/python bench/terraform.py --count 1000 --rounds 1 --starts 3 --base ../main-checkout

Needs terraform on PATH and the provider package in this Python (make venv). Runs offline: a filesystem
mirror written by ``terraform-provider-netpool mirror`` and a CLI configuration of its own.
"""

import argparse
import glob
import os
import platform
import resource
import signal
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROVIDER = os.path.join(os.path.dirname(sys.executable), 'terraform-provider-netpool')
COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2'

NETPOOL = '''
terraform {
  required_providers {
    netpool = { source = "terraform.local/netpool/netpool" }
  }
}
provider "netpool" {
  store = "ipam.sqlite"
}
resource "netpool_pool" "bench" {
  name    = "bench"
  subnets = [{ cidr = "10.60.0.0/22" }]
}
'''

RESERVATIONS = '''
resource "netpool_reservation" "vm" {
  count = %d
  pool  = netpool_pool.bench.name
  owner = "vm${count.index}"
}
'''

FLOOR = '''
resource "terraform_data" "vm" {
  count = %d
  input = "vm${count.index}"
}
'''


def until_handshake(cmd, env):
    """``(wall, cpu)`` seconds from start until the first line on stdout (the process is then stopped; the
    CPU time is the process's own, user + system, which the machine's load inflates less than wall time)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    os.kill(proc.pid, signal.SIGKILL)
    _pid, _status, usage = os.wait4(proc.pid, 0)
    proc.returncode = -signal.SIGKILL
    proc.stdout.close()
    proc.stderr.close()
    if not line:
        raise SystemExit('%s printed nothing' % ' '.join(cmd))
    return elapsed, usage.ru_utime + usage.ru_stime


def starts(n, env, launcher):
    provider_env = dict(env, TF_PLUGIN_MAGIC_COOKIE=COOKIE)
    return {
        'python -c "print(1)"': [until_handshake([sys.executable, '-c', 'print(1)'], env) for _i in range(n)],
        'python importing tf.provider (grpc, protobuf)': [until_handshake(
            [sys.executable, '-c', 'import tf.provider, tf.runner, cryptography.x509; print(1)'], env)
            for _i in range(n)],
        'the mirror\'s launcher to the handshake': [until_handshake([launcher], provider_env)
                                                    for _i in range(n)],
    }


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def terraform(args, cwd, env):
    """``(wall, cpu)`` seconds of one terraform command (cpu: terraform and the providers it started)."""
    start, cpu = time.perf_counter(), cpu_of_children()
    proc = subprocess.run(['terraform'] + args + ['-no-color'], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)
    elapsed = time.perf_counter() - start, cpu_of_children() - cpu
    if proc.returncode not in (0, 2) or (args[0] == 'plan' and proc.returncode != 0):
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
        raise SystemExit('terraform %s failed (rc %d)' % (' '.join(args), proc.returncode))
    return elapsed


def round_of(kind, count, tmp, env):
    work = tempfile.mkdtemp(dir=tmp, prefix=kind + '-')
    main_tf = os.path.join(work, 'main.tf')
    if kind != 'terraform_data':    # the pool first: its reservations are planned from the store
        with open(main_tf, 'w') as f:
            f.write(NETPOOL)
        terraform(['init', '-input=false'], work, env)
        terraform(['apply', '-auto-approve', '-input=false'], work, env)
    with open(main_tf, 'w') as f:
        f.write(NETPOOL + RESERVATIONS % count if kind != 'terraform_data' else FLOOR % count)
    terraform(['init', '-input=false'], work, env)
    return {
        'plan (new)': terraform(['plan', '-input=false'], work, env),
        'apply': terraform(['apply', '-auto-approve', '-input=false'], work, env),
        'plan (no change)': terraform(['plan', '-input=false', '-detailed-exitcode'], work, env),
        'destroy': terraform(['destroy', '-auto-approve', '-input=false'], work, env),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--count', type=int, default=100)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--starts', type=int, default=10)
    parser.add_argument('--base', help='a checkout whose provider is measured beside this one (say, of main)')
    args = parser.parse_args()
    if not shutil.which('terraform') or not os.path.exists(PROVIDER):
        raise SystemExit('needs terraform on PATH and %s (make venv)' % PROVIDER)
    tmp = tempfile.mkdtemp(prefix='netpool-bench-terraform-')
    try:
        envs = {}
        for kind, checkout in [('netpool', ROOT)] + ([('base', os.path.abspath(args.base))] if args.base else []):
            cli = os.path.join(tmp, kind + '.tfrc')
            checkout_env = dict(os.environ, PYTHONPATH=os.pathsep.join(
                [os.path.join(checkout, 'terraform')] + [p for p in [os.environ.get('PYTHONPATH')] if p]))
            subprocess.run([PROVIDER, 'mirror', os.path.join(tmp, kind + '-mirror'), '--collections-path',
                            os.path.join(checkout, 'collections'), '--cli-config', cli], check=True,
                           capture_output=True, env=checkout_env)
            envs[kind] = dict(checkout_env, TF_CLI_CONFIG_FILE=cli, CHECKPOINT_DISABLE='1', TF_IN_AUTOMATION='1',
                              HOME=os.path.join(tmp, 'home'))
        launcher = glob.glob(os.path.join(tmp, 'netpool-mirror', '*', '*', '*', '*', '*',
                                          'terraform-provider-netpool_v*'))[0]
        env = envs['terraform_data'] = envs['netpool']
        os.makedirs(env['HOME'])
        version = subprocess.run(['terraform', 'version'], capture_output=True, text=True, env=env,
                                 check=False).stdout.splitlines()[0]
        print('Machine: %s, %d CPUs, Python %s, %s, load average %.2f'
              % (platform.platform(), os.cpu_count(), platform.python_version(), version, os.getloadavg()[0]))
        print('\nStart-up, median of %d (min-max), seconds, wall and CPU:' % args.starts)
        for name, times in starts(args.starts, env, launcher).items():
            wall, cpu = [t[0] for t in times], [t[1] for t in times]
            print('  %-44s wall %.3f (%.3f-%.3f)  cpu %.3f (%.3f-%.3f)'
                  % (name, statistics.median(wall), min(wall), max(wall), statistics.median(cpu), min(cpu),
                     max(cpu)))
        print('\nterraform with %d resources, median of %d rounds (each round alternates), seconds:'
              % (args.count, args.rounds))
        results = dict((kind, []) for kind in ['netpool'] + (['base'] if args.base else []) + ['terraform_data'])
        for _round in range(args.rounds):
            for kind in results:
                results[kind].append(round_of(kind, args.count, tmp, envs[kind]))
        print('  %-18s %18s%s %18s' % ('command', 'netpool wall/cpu', ' %18s' % 'base wall/cpu' if args.base else '',
                                       'terraform_data'))
        for step in results['netpool'][0]:
            figures = []
            for kind in results:
                figures += [statistics.median(r[step][i] for r in results[kind]) for i in (0, 1)]
            print('  %-18s' % step + ' %9.2f / %6.2f' * len(results) % tuple(figures))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
