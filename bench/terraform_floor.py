# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The floor of a Terraform provider on the ``tf`` framework with netpool's schema, beside netpool and terraform_data.

The floor provider is netpool's provider with the work taken out: the same framework, the same provider
settings and the same schemas of ``netpool_pool`` and ``netpool_reservation`` (taken from
``netpool_terraform.resources``), whose create, read and delete touch no store: a create fills the computed
attributes with values of their type, a read returns the state as it is, a delete does nothing. It is installed
as netpool's is (a filesystem mirror whose launcher runs Python), so what it costs beside ``terraform_data``
(Terraform's built-in resource: no provider started) is Terraform's and the framework's share for this schema;
what netpool costs beside it is netpool's own.

For --count reservations in one pool on a fresh SQLite store, each kind in a directory of its own: ``terraform
plan`` of the new resources, ``terraform apply``, ``terraform plan`` with nothing to do, ``terraform destroy``;
wall and CPU seconds (terraform's and the providers' it started), and how many times Terraform started the
provider. Kinds: ``terraform_data``, ``floor``, ``floor-planned`` (the floor whose plan of a new reservation makes
known, with values of their type, the attributes netpool's plan makes known: its address and its subnet's facts),
``netpool`` (the provider of this checkout) and, with --base
DIR, ``base`` (the provider of another checkout, e.g. a worktree of main), so that a change is measured beside
what it changes in one run.

    .venv/bin/python bench/terraform_floor.py --count 1000 --rounds 1
    .venv/bin/python bench/terraform_floor.py --count 1000 --base ../wt-main --kinds base netpool
    .venv/bin/python bench/terraform_floor.py --count 1000 --base ../wt-main --kinds base netpool --postgresql
    .venv/bin/python bench/terraform_floor.py --count 1000 --steps 1 --starts 0 --kinds floor netpool --instructions

Reuses bench/terraform.py (its configurations, timers and start-up measure). The provider side of this file is
``serve``: the launcher runs ``python bench/terraform_floor.py serve SCHEMA.json``.
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERSION = '0.0.1'
KINDS = ('terraform_data', 'floor', 'floor-planned', 'netpool', 'base')


# --- the floor provider (runs in the process Terraform starts: the framework, and netpool's _framework only) -----

def _tf_type(cty):
    """A ``tf`` type from its Terraform (cty) JSON type, as ``TfType.tf_type()`` writes it."""
    from tf import types       # pylint: disable=import-outside-toplevel
    if isinstance(cty, str):
        return {'string': types.String, 'number': types.Number, 'bool': types.Bool}[cty]()
    if cty[0] == 'list':
        return types.List(_tf_type(cty[1]))
    if cty[0] == 'map':
        return types.Map(_tf_type(cty[1]))
    if cty[0] == 'object':
        return _object_type()(dict((k, _tf_type(v)) for k, v in cty[1].items()), cty[2] if len(cty) > 2 else ())
    raise ValueError('type %r' % (cty,))


def _object_type():
    from tf.types import TfType     # pylint: disable=import-outside-toplevel

    class Object(TfType):
        """An object type as netpool's (``_base.Object``): the framework has none."""

        def __init__(self, attributes, optional=()):
            self.attributes = attributes
            self.optional = sorted(optional)

        def encode(self, value):
            if not isinstance(value, dict):
                return value
            return dict((k, t.encode(value.get(k))) for k, t in self.attributes.items())

        def decode(self, value):
            if not isinstance(value, dict):
                return value
            return dict((k, t.decode(value.get(k))) for k, t in self.attributes.items())

        def tf_type(self):
            kind = ['object', dict((k, json.loads(t.tf_type())) for k, t in self.attributes.items())]
            if self.optional:
                kind.append(self.optional)
            return json.dumps(kind, separators=(',', ':')).encode()
    return Object


def _filler(cty, name):
    """A value of type ``cty`` for a computed attribute ``name`` a create left unknown."""
    if isinstance(cty, str):
        return {'string': 'floor-%s' % name, 'number': 24, 'bool': False}[cty]
    return {'list': [], 'map': {}}.get(cty[0])


def floor_provider(schema, planned=False):
    """The floor provider for ``schema`` (what ``schema_of`` wrote). ``planned``: a new reservation's plan
    fills in, with values of their type, the attributes netpool's plan makes known (``schema['planned']``: its
    address and its subnet's facts; those of ``family = "dual"`` null), as netpool's servicer lets a resource do
    (``plan_create``), instead of leaving them unknown until apply."""
    from tf import iface                                    # pylint: disable=import-outside-toplevel
    from tf.schema import Attribute, Schema                 # pylint: disable=import-outside-toplevel
    from tf.types import Unknown                            # pylint: disable=import-outside-toplevel
    import msgpack                                          # pylint: disable=import-outside-toplevel

    def attributes(entries):
        return [Attribute(e['name'], _tf_type(e['type']), description=e['doc'], **e['flags']) for e in entries]

    def resource(name, entries):
        class Floor(iface.Resource):
            def __init__(self, provider):
                self.provider = provider

            @classmethod
            def get_name(cls):
                return name

            @classmethod
            def get_schema(cls):
                return Schema(version=0, attributes=attributes(entries))

            def create(self, ctx, planned):
                state = dict(planned)
                for e in entries:
                    value = state.get(e['name'])
                    if value is Unknown or isinstance(value, msgpack.ExtType):
                        state[e['name']] = _filler(e['type'], e['name'])
                return state

            def read(self, ctx, current):
                return current

            def update(self, ctx, current, planned):
                return self.create(ctx, planned)

            def delete(self, ctx, current):
                return None

            def upgrade(self, ctx, version, old):
                return old

        if planned and name in schema['planned']:
            known, null = schema['planned'][name]
            types = dict((e['name'], e['type']) for e in entries)

            def plan_create(self, ctx, config, plan):    # pylint: disable=unused-argument
                plan.update((k, _filler(types[k], k)) for k in known)
                plan.update((k, None) for k in null)
                return plan
            Floor.plan_create = plan_create
        return Floor

    class FloorProvider(iface.Provider):
        def get_model_prefix(self):
            return 'netpool_'

        def full_name(self):
            return 'terraform.local/netpool/netpool'

        def get_provider_schema(self, diags):
            return Schema(version=0, attributes=attributes(schema['provider']))

        def validate_config(self, diags, config):
            pass

        def configure_provider(self, diags, config):
            pass

        def get_data_sources(self):
            return []

        def get_resources(self):
            return [resource(name, entries) for name, entries in schema['resources'].items()]

    return FloorProvider()


def serve(schema_path, planned=False):
    from pathlib import Path                    # pylint: disable=import-outside-toplevel
    from tf import provider as tf_provider      # pylint: disable=import-outside-toplevel
    from netpool_terraform import _framework, _servicer    # pylint: disable=import-outside-toplevel

    with open(schema_path) as f:
        provider = floor_provider(json.load(f), planned)
    # the framework's own servicer (netpool's, which plans a create with the resource's plan_create, for
    # floor-planned); the certificate kept as netpool's provider keeps it (the framework's internals)
    cert = Path(os.path.dirname(schema_path)) / 'ssl_cert.json'
    _framework.run(provider, sys.argv, _servicer.Servicer if planned else tf_provider.ProviderServicer, cert)
    return 0


# --- the benchmark ----------------------------------------------------------------------------------------------

def schema_of(checkout):
    """netpool's provider settings and resource schemas (names, cty types, flags, descriptions) as JSON, read from
    ``checkout``'s provider in a Python of its own (so this process imports neither the provider nor the
    collection)."""
    code = r'''
import json
from tf.types import Unknown
from netpool_terraform import provider
def entries(attributes):
    return [dict(name=a.name, type=json.loads(a.type.tf_type()), doc=a.description or '',
                 flags=dict((k, getattr(a, k)) for k in ('required', 'optional', 'computed', 'sensitive',
                                                          'requires_replace', 'default') if getattr(a, k, None) not in (None, False, Unknown)))
            for a in attributes]
from netpool_terraform import resources
p = provider.NetpoolProvider()
known = list(resources.Reservation.MOVED) + ['address', 'id', 'namespace', 'key']
print(json.dumps(dict(provider=entries(p.get_provider_schema(None).attributes),
                      resources=dict((r.get_name(), entries(r.get_schema().attributes)) for r in p.get_resources()),
                      planned={'reservation': [known, sorted(resources._DUAL_FACTS)]})))
'''
    return subprocess.run([sys.executable, '-c', code], env=provider_env(checkout), capture_output=True, text=True,
                          check=True).stdout


def provider_env(checkout):
    return dict(os.environ, PYTHONPATH=os.path.join(checkout, 'terraform'),
                NETPOOL_TERRAFORM_COLLECTIONS_PATH=os.path.join(checkout, 'collections'))


def install(kind, tmp, checkout=None, bytecode=True):
    """A filesystem mirror and CLI configuration holding the provider of ``kind``: ``(cli config, launcher, the
    file each start of the provider adds a line to)``. The launcher is a /bin/sh script, as the ``mirror``
    command writes; here it also counts the starts (an ``echo``, no process). With ``bytecode``, its Python
    keeps the bytecode of what it imports, as Python does by default (in a directory of the kind's own, not in
    the checkout), whatever PYTHONDONTWRITEBYTECODE the caller has."""
    base = os.path.join(tmp, kind)
    mirror_dir = os.path.join(base, 'mirror')
    directory = os.path.join(mirror_dir, 'terraform.local', 'netpool', 'netpool', VERSION,
                             'linux_amd64' if platform.machine() == 'x86_64' else 'linux_arm64')
    os.makedirs(directory)
    starts_log = os.path.join(base, 'starts')
    lines = ['#!/bin/sh', 'echo >> %s' % starts_log]
    if bytecode:
        lines += ['unset PYTHONDONTWRITEBYTECODE',
                  'PYTHONPYCACHEPREFIX=%s; export PYTHONPYCACHEPREFIX' % os.path.join(base, 'pycache')]
    # each start adds its own CPU seconds to ``cpu`` as it exits (Terraform stops a provider by asking it to),
    # so that Terraform's own share of a command is its CPU less the providers'
    record = '%s %s record-cpu %s' % (sys.executable, os.path.abspath(__file__), os.path.join(base, 'cpu'))
    if kind in ('floor', 'floor-planned'):
        schema = os.path.join(base, 'schema.json')
        with open(schema, 'w') as f:
            f.write(schema_of(ROOT))
        lines.append('exec %s %s %s "$@"' % (record, 'serve' if kind == 'floor' else 'serve-planned', schema))
    else:
        lines += ['PYTHONPATH=%s; export PYTHONPATH' % os.path.join(checkout, 'terraform'),
                  'NETPOOL_TERRAFORM_COLLECTIONS_PATH=%s; export NETPOOL_TERRAFORM_COLLECTIONS_PATH'
                  % os.path.join(checkout, 'collections'),
                  'exec %s -m netpool_terraform "$@"' % record]
    launcher = os.path.join(directory, 'terraform-provider-netpool_v%s' % VERSION)
    with open(launcher, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    os.chmod(launcher, 0o755)
    cli = os.path.join(base, 'cli.tfrc')
    with open(cli, 'w') as f:
        f.write('provider_installation {\n  filesystem_mirror {\n    path    = "%s"\n    include = '
                '["terraform.local/netpool/netpool"]\n  }\n  direct {\n    exclude = ["terraform.local/netpool/netpool"]'
                '\n  }\n}\n' % mirror_dir)
    return cli, launcher, starts_log


def starts_of(path):
    try:
        with open(path) as f:
            return len(f.readlines())
    except OSError:
        return 0


def fresh_database(kind):
    """A new, empty PostgreSQL database on this machine's server for ``kind`` (dropped first if a run left it):
    its URL."""
    import psycopg      # pylint: disable=import-outside-toplevel
    name = 'netpool_bench_floor_' + kind
    with psycopg.connect('postgresql://postgres@127.0.0.1:5432/postgres', autocommit=True) as conn:
        conn.execute('DROP DATABASE IF EXISTS %s' % name)
        conn.execute('CREATE DATABASE %s' % name)
    return 'postgresql://postgres@127.0.0.1:5432/' + name


#: the commands measured, in the order they run (--steps N: the first N)
STEPS = (('plan (new)', ['plan', '-input=false']),
         ('apply', ['apply', '-auto-approve', '-input=false']),
         ('plan (no change)', ['plan', '-input=false', '-detailed-exitcode']),
         ('destroy', ['destroy', '-auto-approve', '-input=false']))


def instructions(args, work, env, outdir):
    """``(terraform's instructions, the providers' instructions, provider starts)`` of one terraform command run
    under valgrind's cachegrind, every process it starts followed (``--trace-children``): instructions, not
    seconds, so the figure does not depend on what else the machine is doing (the providers' repeat from run to
    run; Terraform's own vary by a few per cent, its goroutines scheduled differently each time). Go's
    asynchronous preemption is turned off (``GODEBUG=asyncpreemptoff=1``): its signals stop valgrind. About
    fifty times slower."""
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    proc = subprocess.run(['valgrind', '--tool=cachegrind', '--cache-sim=no', '--trace-children=yes',
                           '--cachegrind-out-file=%s' % os.path.join(outdir, 'cg.%p'), 'terraform'] + args
                          + ['-no-color'], cwd=work, env=dict(env, GODEBUG='asyncpreemptoff=1'), capture_output=True,
                          text=True, check=False)
    if proc.returncode not in (0, 2):
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
        raise SystemExit('terraform %s failed under cachegrind (rc %d)' % (' '.join(args), proc.returncode))
    own, providers, starts = 0, 0, 0
    for name in os.listdir(outdir):
        with open(os.path.join(outdir, name)) as f:
            lines = f.read().splitlines()
        total = sum(int(line.split()[1]) for line in lines if line.startswith('summary:'))
        if any(line.startswith('cmd: terraform ') for line in lines):     # a provider's is its launcher's path
            own += total
        else:
            providers, starts = providers + total, starts + 1
    return own, providers, starts


def round_of(harness, kind, count, tmp, env, starts_log, postgresql=False, steps=STEPS, count_instructions=False):
    work = tempfile.mkdtemp(dir=tmp, prefix=kind + '-')
    cpu_log = os.path.join(os.path.dirname(starts_log), 'cpu') if starts_log != os.devnull else os.devnull
    pool = harness.NETPOOL.replace('source = "terraform.local/netpool/netpool"',
                                   'source = "terraform.local/netpool/netpool", version = "%s"' % VERSION)
    if postgresql and kind != 'terraform_data':
        pool = pool.replace('store = "ipam.sqlite"', 'store = "%s"' % fresh_database(kind))
    if kind != 'terraform_data':    # the pool first, as bench/terraform.py does: its reservations are planned from it
        with open(os.path.join(work, 'main.tf'), 'w') as f:
            f.write(pool)
        harness.terraform(['init', '-input=false'], work, env)
        harness.terraform(['apply', '-auto-approve', '-input=false'], work, env)
    with open(os.path.join(work, 'main.tf'), 'w') as f:
        f.write(harness.FLOOR % count if kind == 'terraform_data' else pool + harness.RESERVATIONS % count)
    harness.terraform(['init', '-input=false'], work, env)
    found = {}
    for step, args in steps:
        if count_instructions:
            found[step] = instructions(args, work, env, os.path.join(tmp, 'cachegrind-' + kind))
            continue
        before, cpu_before, recorded = starts_of(starts_log), cpu_of(cpu_log), starts_of(cpu_log)
        wall, cpu = harness.terraform(args, work, env)
        # (wall, CPU, provider starts, the providers' CPU, how many of the starts recorded theirs)
        found[step] = (wall, cpu, starts_of(starts_log) - before, cpu_of(cpu_log) - cpu_before,
                       starts_of(cpu_log) - recorded)
    return found


def record_cpu(path, argv):
    """Run ``argv`` (``serve SCHEMA`` or ``-m netpool_terraform``) in this process, and add the CPU seconds it
    used to ``path`` as it exits."""
    import atexit       # pylint: disable=import-outside-toplevel
    import runpy        # pylint: disable=import-outside-toplevel

    def write():
        t = os.times()
        with open(path, 'a') as f:
            f.write('%.3f\n' % (t.user + t.system))
    atexit.register(write)
    if argv[0] in ('serve', 'serve-planned'):
        return serve(argv[1], argv[0] == 'serve-planned')
    sys.argv = [argv[1]] + argv[2:]
    runpy.run_module(argv[1], run_name='__main__', alter_sys=True)
    return 0


def cpu_of(path):
    try:
        with open(path) as f:
            return sum(float(line) for line in f if line.strip())
    except OSError:
        return 0.0


def print_instructions(harness, kinds, args, tmp, envs, installed):
    """The rounds under cachegrind (``instructions``): each command's instructions, in millions, terraform's own and its
    providers', and each kind's total beside the first kind's."""
    print('\nterraform with %d resources under cachegrind, millions of instructions: all (terraform / providers '
          '[provider starts]), and all beside %s\'s' % (args.count, kinds[0]))
    for number in range(args.rounds):
        found = {}
        for kind in kinds:
            found[kind] = round_of(harness, kind, args.count, tmp, envs[kind],
                                   installed.get(kind, (None, None, os.devnull))[2], args.postgresql,
                                   STEPS[:args.steps], count_instructions=True)
        for step in found[kinds[0]]:
            anchor = sum(found[kinds[0]][step][:2])
            print('  round %d, %-16s' % (number + 1, step) + ''.join(
                '  %s %.0f (%.0f / %.0f [%d]) %.3f' % (kind, (own + prov) / 1e6, own / 1e6, prov / 1e6, starts,
                                                       (own + prov) / anchor)
                for kind, (own, prov, starts) in ((k, found[k][step]) for k in kinds)), flush=True)
    return 0


def main():
    if sys.argv[1:2] in (['serve'], ['serve-planned']):
        return serve(sys.argv[2], sys.argv[1] == 'serve-planned')
    if sys.argv[1:2] == ['record-cpu']:
        return record_cpu(sys.argv[2], sys.argv[3:])
    import terraform as harness     # bench/terraform.py   pylint: disable=import-outside-toplevel

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--count', type=int, default=1000)
    parser.add_argument('--rounds', type=int, default=1)
    parser.add_argument('--starts', type=int, default=5, help='start-ups of each provider to time (0: none)')
    parser.add_argument('--base', help='a checkout of another version of the collection (e.g. a worktree of main): '
                                       'its provider is measured too, as "base"')
    parser.add_argument('--no-bytecode', dest='bytecode', action='store_false',
                        help="the providers' Python as the caller's environment has it: with PYTHONDONTWRITEBYTECODE "
                             "set, each start compiles what it imports that has no bytecode beside it (the "
                             "collection's files; the default keeps bytecode, as Python does, warmed by one plan of "
                             "one resource before the rounds)")
    parser.add_argument('--postgresql', action='store_true',
                        help="a fresh database on this machine's PostgreSQL for each provider, instead of SQLite")
    parser.add_argument('--kinds', nargs='+', choices=KINDS,
                        help='the kinds to measure (default: all; base with --base only)')
    parser.add_argument('--steps', type=int, choices=range(1, len(STEPS) + 1), default=len(STEPS),
                        help='how many of the commands to run, in their order (1: only the plan of the new '
                             'resources; default: all %d)' % len(STEPS))
    parser.add_argument('--instructions', action='store_true',
                        help="count the instructions of each command (terraform's and its providers', under "
                             "valgrind's cachegrind) instead of timing it: the same on a loaded machine as on a "
                             "quiet one; about fifty times slower")
    args = parser.parse_args()
    kinds = [k for k in (args.kinds or KINDS) if k != 'base' or args.base]
    if not shutil.which('terraform'):
        raise SystemExit('needs terraform on PATH')
    if args.instructions and not shutil.which('valgrind'):
        raise SystemExit('--instructions needs valgrind on PATH (Debian: apt-get install valgrind)')
    tmp = tempfile.mkdtemp(prefix='netpool-bench-terraform-floor-')
    try:
        installed = {}
        for kind in kinds:
            if kind != 'terraform_data':
                installed[kind] = install(kind, tmp, os.path.abspath(args.base) if kind == 'base' else ROOT,
                                          args.bytecode)
        envs = {}
        for kind in kinds:
            home = os.path.join(tmp, 'home-' + kind)
            os.makedirs(home)
            envs[kind] = dict(os.environ, CHECKPOINT_DISABLE='1', TF_IN_AUTOMATION='1', HOME=home,
                              TF_CLI_CONFIG_FILE=installed[kind][0] if kind in installed else os.devnull)
            envs[kind].pop('PYTHONPATH', None)
        version = subprocess.run(['terraform', 'version'], capture_output=True, text=True, env=envs[kinds[0]],
                                 check=False).stdout.splitlines()[0]
        print('Machine: %s, %d CPUs, Python %s, %s, bytecode %s, load average %s'
              % (platform.platform(), os.cpu_count(), platform.python_version(), version,
                 'kept' if args.bytecode else 'as the environment has it',
                 ' '.join('%.2f' % x for x in os.getloadavg())))
        if args.bytecode:   # what the rounds import compiled once, as a user's first run compiles it
            for kind, (_cli, _launcher, starts_log) in installed.items():
                round_of(harness, kind, 1, tmp, envs[kind], starts_log, args.postgresql, STEPS[:1])
        if args.starts:
            print('\nStart-up to the handshake, median of %d, seconds, wall / CPU:' % args.starts)
            for kind, (_cli, launcher, starts_log) in installed.items():
                times = [harness.until_handshake([launcher], dict(envs[kind], TF_PLUGIN_MAGIC_COOKIE=harness.COOKIE))
                         for _i in range(args.starts)]
                print('  %-10s %.3f / %.3f' % (kind, statistics.median(t[0] for t in times),
                                               statistics.median(t[1] for t in times)))
                os.remove(starts_log)
        if args.instructions:
            return print_instructions(harness, kinds, args, tmp, envs, installed)
        print('\nterraform with %d resources, median of %d rounds (kinds alternate in each round), seconds, '
              'wall / CPU [provider starts]:' % (args.count, args.rounds))
        results = dict((kind, []) for kind in kinds)
        for _round in range(args.rounds):
            for kind in kinds:
                results[kind].append(round_of(harness, kind, args.count, tmp, envs[kind],
                                              installed.get(kind, (None, None, os.devnull))[2], args.postgresql,
                                              STEPS[:args.steps]))
                # as it comes, so that a run stopped early keeps what it measured
                print('  %s: %s (load average %.2f)' % (kind, ', '.join(
                    '%s %.2f / %.2f [%d] (providers %.2f CPU, %d recorded)' % ((step,) + figures)
                    for step, figures in results[kind][-1].items()),
                    os.getloadavg()[0]), flush=True)
        print('  %-18s' % 'command' + ''.join(' %22s' % k for k in kinds)
              + ''.join(' %14s' % ('%s÷tf_data' % k) for k in kinds if k != 'terraform_data'))
        for step in results[kinds[0]][0]:
            line, walls = '  %-18s' % step, {}
            for kind in kinds:
                wall, cpu = [statistics.median(r[step][i] for r in results[kind]) for i in (0, 1)]
                walls[kind] = (wall, cpu)
                line += ' %9.2f / %6.2f [%d]' % (wall, cpu, max(r[step][2] for r in results[kind]))
            if 'terraform_data' in walls:
                anchor = walls['terraform_data']
                for kind in kinds:
                    if kind != 'terraform_data':
                        line += ' %6.2f / %5.2f' % (walls[kind][0] / anchor[0], walls[kind][1] / anchor[1])
            print(line)
        print("\nterraform's own CPU seconds (all CPU less the providers' as they recorded it) and its ratio to "
              "terraform_data's CPU:")
        for step in results[kinds[0]][0]:
            own = dict((kind, statistics.median(r[step][1] - r[step][3] for r in results[kind])) for kind in kinds)
            print('  %-18s' % step + ''.join(
                ' %s %.2f%s' % (kind, own[kind], ' (%.2f×)' % (own[kind] / own['terraform_data'])
                                if 'terraform_data' in own and kind != 'terraform_data' else '')
                for kind in kinds))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
