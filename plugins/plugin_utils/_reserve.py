# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the reserve role does, in Python rather than in templates.

This is a private module: it may change at any time. The role (roles/reserve/tasks/main.yml) runs the action
``netpool.ipam._reserve_request`` (plugins/action/_reserve_request.py):

1. on every host: the host's request, its role variables as they are for that host (``REQUEST``) and the store
   settings of ``module_defaults`` (``settings``), checked against the role's spec (``validate``), marked with the
   run of the role it belongs to (Ansible's ``role_uuid``: each ``roles:`` entry, ``import_role`` and
   ``include_role`` is a run of its own). Where the play runs its hosts together and nothing can skip the task run
   once (``batched``), the request waits for it. Otherwise the host's request is reserved there and then, alone
   (``batch`` of one request);
2. once, after them, when the requests wait for it (``batch``): the requests of this run of the role, checked and
   grouped (``group_requests``: one ``owners`` call of netpool.ipam.reservation per state, pool, key, settings and
   store, in inventory order), each group reserved in one transaction (``_inprocess.run_task``); a batch of several
   groups is first run in check mode as a whole, and nothing is written if any group would fail; and
   the index of what each host got (``facts``);
3. a ``set_fact`` on every host of the role's facts (``ipam_address``...), values read from the host's entry, and
   ``changed`` where the host's address changed in the store.
"""

from __future__ import annotations

import difflib
import functools
import os

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.loader import strategy_loader
from ansible.plugins.strategy.linear import StrategyModule as LinearStrategy

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _secrets
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _registry
from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.plugin_utils._task import _inprocess

# the local stores the role's tasks open, and their free space, imported now: each worker that runs a task would
# import them otherwise
_registry.preload(*_registry.FILE_KINDS)

# (role variable, request field): what netpool.ipam._reserve_request reads from the host's variables.
REQUEST = (('ipam_state', 'state'), ('ipam_owner', 'owner'), ('ipam_pool', 'pool'), ('ipam_key', 'key'),
           ('ipam_family', 'family'), ('ipam_ttl', 'ttl'), ('ipam_static_address', 'address'), ('ipam_mac', 'mac'),
           ('ipam_align_with', 'align_with'),
           ('ipam_hostname', 'hostname'), ('ipam_metadata', 'metadata'), ('ipam_metadata_mac', 'metadata_mac'),
           ('ipam_force', 'force'), ('ipam_reassign', 'reassign'), ('ipam_store', 'store'),
           ('ipam_store_token', 'store_token'), ('ipam_store_timeout', 'timeout'), ('ipam_namespace', 'namespace'),
           ('ipam_probe', 'probe'), ('ipam_probe_timeout', 'probe_timeout'), ('ipam_probe_tries', 'probe_tries'))
#: the probe requests, passed to netpool.ipam.reservation as they are (its ``probe`` options)
PROBE = ('probe', 'probe_timeout', 'probe_tries')
STORE = ('store', 'store_token', 'timeout', 'namespace', 'validate_certs')
GROUP = 'group/netpool.ipam.all'
# The facts the role sets (roles/reserve/tasks/main.yml), each a field of the host's entry (``facts``).
FACTS = ('ipam_reservation', 'ipam_reservation6', 'ipam_released', 'ipam_reservations', 'ipam_dns', 'ipam_address',
         'ipam_cidr', 'ipam_gateway', 'ipam_prefix_length', 'ipam_netmask', 'ipam_address6', 'ipam_cidr6')
ADDRESS_FIELDS = ('address', 'cidr', 'gateway', 'prefix_length', 'netmask')
# With ipam_family dual, the fields of the IPv6 reservation (ipam_reservation6): ipam_address6, ipam_cidr6.
ADDRESS6_FIELDS = ('address6', 'cidr6')


#: the type of each role variable that is not a string, and the choices of those that have some
#: (roles/reserve/meta/argument_specs.yml: a test holds them the same)
TYPES = {'ipam_store_timeout': 'int', 'ipam_metadata': 'dict', 'ipam_metadata_mac': 'bool', 'ipam_force': 'bool',
         'ipam_reassign': 'bool', 'ipam_probe_timeout': 'int', 'ipam_probe_tries': 'int'}
CHOICES = {'ipam_state': ['present', 'absent'], 'ipam_family': ['ipv4', 'ipv6', 'dual'],
           'ipam_probe': ['none', 'icmp', 'arp']}
_PYTHON = {'str': str, 'int': int, 'dict': dict, 'bool': bool}


def _plain(name, value):
    """A value the role's spec accepts as it is: of its type, and among its choices."""
    kind = _PYTHON[TYPES.get(name, 'str')]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        return False
    return name not in CHOICES or value in CHOICES[name]


def validate(values):
    """``(values converted to their types, message)`` for a host's role variables (``{name: value}``,
    templated), secrets hidden; the message is ``''`` when they are right. The check of Ansible's
    ``validate_argument_spec`` against the role's spec (types, choices), which Ansible itself runs before the role's
    tasks unless the play says ``rolespec_validate: false``; a value given as a string where the spec wants a
    number, a boolean or a dict is converted as that check would (``-e ipam_store_timeout=5`` is the number 5)."""
    other = dict((name, value) for name, value in values.items() if not _plain(name, value))
    if not other:
        return dict(values), ''
    checked = ArgumentSpecValidator(dict(
        (name, dict({'type': TYPES.get(name, 'str')}, **({'choices': CHOICES[name]} if name in CHOICES else {})))
        for name in other)).validate(other)
    if not checked.error_messages:
        return dict(values, **checked.validated_parameters), ''
    secrets = _secrets.find({'store': values.get('ipam_store'), 'store_token': values.get('ipam_store_token')})
    return values, _secrets.hide('netpool.ipam.reserve: validation of the role variables failed: %s'
                                 % '; '.join(checked.error_messages), secrets)


#: the strategies ansible-core ships, by whether they run the hosts of a play (of one ``serial`` pass) together
_TOGETHER = {'linear': True, 'debug': True, 'free': False, 'host_pinned': False}


def _runs_hosts_together(strategy):
    """Whether the strategy plugin named ``strategy`` runs each task on every host of the play before the next
    one, and a task run once once (``linear`` and what builds on it: ``debug``). ``free`` and ``host_pinned`` run
    each host on its own, and a task run once on every host. Another plugin is asked whether it builds on
    ``linear``."""
    name = strategy.rsplit('.', 1)[-1] if strategy.startswith(('ansible.builtin.', 'ansible.legacy.')) else strategy
    if name in _TOGETHER:
        return _TOGETHER[name]
    try:
        found = strategy_loader.get(strategy, class_only=True)
    except Exception:  # pylint: disable=broad-except  # an unknown plugin: each host reserves alone
        return False
    return isinstance(found, type) and issubclass(found, LinearStrategy)


def batched(task):
    """Whether the request of this host waits for the role's task run once (``batch``): only where that task runs
    once, after every host's request, and surely runs. That is: the play's strategy runs the hosts together
    (``_runs_hosts_together``), and no condition applies to the role's tasks (a ``when`` of the role, of an
    ``include_role``/``import_role``, of a block around it): a task run once is skipped for every host when its
    condition is false on the first host, whichever the others are. Elsewhere each host reserves alone."""
    if task.when:
        return False
    play = task.get_play()
    strategy = play.strategy if play is not None else None
    return bool(strategy) and _runs_hosts_together(strategy)


# ipam_* names the collection reads or sets besides the role arguments (meta/argument_specs.yml of each role).
OTHER_NAMES = set(FACTS) | {'ipam_namespaces', 'ipam_repair', 'ipam_drift'}   # ipam_drift: the drift role's fact


def _set(value):
    """A request value that says something: not left out, not empty."""
    return value is not None and value != ''


def role_names():
    """Every variable of the collection's roles (their meta/argument_specs.yml) and the facts they set."""
    names = set(OTHER_NAMES)
    roles = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'roles')
    try:
        import yaml
        for role in sorted(os.listdir(roles)):
            path = os.path.join(roles, role, 'meta', 'argument_specs.yml')
            if os.path.exists(path):
                with open(path) as f:
                    specs = (yaml.load(f, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader)) or {}).get(
                        'argument_specs') or {}
                for entry in specs.values():
                    names.update((entry or {}).get('options') or {})
    except (OSError, ImportError, AttributeError):  # pragma: no cover - the role still runs, without the hint
        pass
    return names


def misspelled(names, known=None):
    """``[(name, nearest)]``: the ``ipam_*`` names set that no role reads and that look like one that it does."""
    known = role_names() if known is None else known
    found = []
    for name in sorted(set(names or ())):
        if name in known or not name.startswith('ipam_'):
            continue
        nearest = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
        if nearest:
            found.append((name, nearest[0]))
    return found


def group_defaults(module_defaults):
    """The store settings that ``module_defaults`` (the task's, every level: play, block, role include) give
    ``group/netpool.ipam.all``, an inner level's over an outer one's."""
    found = {}
    for entry in module_defaults or ():
        given = entry.get(GROUP) if isinstance(entry, dict) else None
        if isinstance(given, dict):
            found.update((name, value) for name, value in given.items() if name in STORE)
    return found


def settings(request, defaults):
    """The store settings of a request: each role variable that is set (``request``), else the entry of
    ``defaults`` (the task's arguments: ``module_defaults`` for ``group/netpool.ipam.all``), else none (the
    module's default)."""
    return dict((name, request[name] if _set(request.get(name)) else defaults.get(name)) for name in STORE
                if _set(request.get(name)) or _set(defaults.get(name)))


def mac_facts(facts, key=None):
    """The part of a host's gathered facts ``_mac`` reads: the interface named ``key`` (else ``default``) and
    ``default_ipv4`` (a request carries these, not every fact of the host)."""
    if not isinstance(facts, dict):
        return {}
    return dict((name, facts[name]) for name in (key or 'default', 'default_ipv4') if name in facts)


def _mac(request):
    if _set(request.get('mac')):
        return request['mac']
    facts = request.get('facts') or {}
    interface = facts.get(request.get('key') or 'default')
    mac = interface.get('macaddress') if isinstance(interface, dict) else None
    if not mac and isinstance(facts.get('default_ipv4'), dict):
        mac = facts['default_ipv4'].get('macaddress')
    return mac or None


def group_requests(requests):
    """The role's requests (one per host, inventory order) checked and grouped: ``{'error': str, 'groups': [...]}``.

    A group is one call of netpool.ipam.reservation: ``args`` (its options), ``defaults`` (its store settings, for
    module_defaults: only those set), ``hosts`` ([host, owner] in inventory order) and ``label`` (no secret).
    Hosts sharing an owner share its reservation: the first of them in inventory order says what it is.
    """
    groups, errors, no_pool, key_only = {}, [], [], []
    for request in requests or []:
        state = request.get('state') or 'present'
        host = request['host']
        if state not in ('present', 'absent'):
            errors.append('ipam_state of %s is %r: use present or absent.' % (host, state))
            continue
        pool = request.get('pool') if _set(request.get('pool')) else None
        key = request.get('key') if _set(request.get('key')) else None
        if state == 'present' and pool is None:
            no_pool.append(host)
            continue
        if state == 'absent' and pool is None and key is not None:
            key_only.append(host)
            continue
        _add_host(_group_of(groups, request, state, pool, key), request)
    if no_pool:
        errors.append('set ipam_pool (the pool to reserve in) for %s.' % ', '.join(no_pool))
    if key_only:
        errors.append('ipam_key names an address within one pool: set ipam_pool too to release it, or leave '
                      'ipam_key unset to release every address of %s.' % ', '.join(key_only))
    result = []
    for group in groups.values():
        del group['_seen']
        group['args']['owners'] = group.pop('owners')
        group['label'] += ': %d host(s)' % len(group['hosts'])
        result.append(group)
    return {'error': 'netpool.ipam.reserve: ' + ' '.join(errors) if errors else '', 'groups': result}


def _group_of(groups, request, state, pool, key):
    """The group of ``groups`` (by what its call's options are) that ``request`` joins, made when it is the first."""
    present = state == 'present'
    force = boolean(request.get('force') or False, strict=False) if present else None
    reassign = boolean(request.get('reassign') or False, strict=False) if present else None
    family = request.get('family') if present and _set(request.get('family')) else None
    align_with = request.get('align_with') if present and _set(request.get('align_with')) else None
    ttl = request.get('ttl') if present and _set(request.get('ttl')) else None
    settings = tuple((name, request[name]) for name in STORE if _set(request.get(name)))
    probe = tuple((name, request[name]) for name in PROBE if present and _set(request.get(name)))
    group_key = (state, pool, key, family, align_with, str(ttl), force, reassign, settings, probe)
    group = groups.get(group_key)
    if group is None:
        args = {'state': state}
        for name, value in (('pool', pool), ('key', key), ('family', family), ('align_with', align_with),
                            ('ttl', ttl)):
            if value is not None:
                args[name] = value
        if present:
            args.update(force=force, reassign=reassign, **dict(probe))
        group = groups[group_key] = {
            'args': args, 'defaults': dict(settings), 'hosts': [], 'owners': [], '_seen': set(),
            'label': '%s %s%s' % (state, pool or '(every pool)', '/' + key if key else ''),
        }
    return group


def _add_host(group, request):
    """Add the host of ``request`` to ``group``, and its owner to the group's owners unless a host before it
    named that owner."""
    host = request['host']
    owner = request.get('owner') if _set(request.get('owner')) else host
    group['hosts'].append([host, owner])
    if owner in group['_seen']:
        return
    group['_seen'].add(owner)
    if group['args']['state'] != 'present':
        group['owners'].append(owner)
        return
    element = {'owner': owner}
    if _set(request.get('address')):
        element['address'] = request['address']
    metadata = {}
    mac = _mac(request) if boolean(request.get('metadata_mac', True), strict=False) else None
    if mac:
        metadata['mac'] = mac
    if _set(request.get('hostname')):
        metadata['hostname'] = request['hostname']
    metadata.update(request.get('metadata') or {})
    if metadata:
        element['metadata'] = metadata
    group['owners'].append(element)


def batch(requests, check=False):
    """The requests reserved (``_reserve_request`` with ``batch``, or one host's alone): grouped
    (``group_requests``), each group reserved or released by one call of netpool.ipam.reservation (one
    transaction, as its task would be, ``_inprocess.run_task``), and the index of what each host got (``facts``),
    each host's ``previous`` entry (what the role gave it earlier in the play) carried on.

    The batch is one decision: with several groups (one transaction each, maybe in several stores), every group is
    first run in check mode, and if one would fail, none is run. Only a group that fails although its
    check passed (another writer took its addresses meanwhile, or an earlier group of the same pool did) fails
    after the groups before it were written; its message names the hosts reserved and those not (``_partial``).
    """
    # what an earlier run gave each host; not a change of this run
    previous = {'hosts': dict((r['host'], dict(r['previous'], changed=False)) for r in requests or ()
                              if r.get('previous'))}
    grouping = group_requests(requests)
    if grouping['error']:
        return facts({'results': []}, {'groups': [{'error': grouping['error']}]}, previous, check)
    groups = grouping['groups']
    if len(groups) > 1 and not check:
        predicted = facts({'results': [_call(group, True) for group in groups]}, grouping, previous)
        if predicted['fatal']:
            return dict(predicted, hosts=previous['hosts'], table=[], changed=[],
                        fatal=predicted['fatal'] + ' Nothing was written for any host of the batch.')
    results = []
    for group in groups:
        results.append(_call(group, check))
        if results[-1].get('failed') and not (check and results[-1].get('error') == 'pool_not_found'):
            break
    index = facts({'results': results}, grouping, previous, check)
    if index['fatal'] and len(groups) > 1:
        index['fatal'] += _partial(groups, results)
    return index


def failure(error, requests):
    """The keys of the failed result of the role's batch for ``error``, raised outside every group's call (each of
    those fails through its task's own path): the one failure path of the modules (``_runner.failure_of``: an
    ``IpamError``'s code and message; any other exception a bug, ``internal_error`` with the traceback in
    ``exception``), the secrets of every request hidden."""
    failed = _runner.failure_of('reservation', error, None, doing='reserving the addresses of %d host(s)'
                                % len(requests or ()), who='netpool.ipam.reserve')
    return _secrets.hide(dict(failed, failed=True),
                         [secret for request in requests or () for secret in _secrets.find(request)])


def _call(group, check):
    """The result of a group's call of netpool.ipam.reservation (check mode: predicted, nothing written)."""
    return _inprocess.run_task('reservation', dict(group['args'], **group['defaults']), check=check, diff=True)


def _partial(groups, results):
    """What a batch that failed after a group was written says about it: the hosts reserved (written, kept) and
    those that were not."""
    written = [host for group, result in zip(groups, results) if not result.get('failed') for host, _o in group['hosts']]
    others = [host for group in groups for host, _o in group['hosts'] if host not in written]
    return (' Written before this failure, and kept: %s; not written: %s.'
            % (_hosts(written) or 'no host', _hosts(others) or 'no host'))


def _hosts(hosts):
    """Hosts as a message lists them: the first ten, then how many more."""
    return ', '.join(hosts) if len(hosts) <= 10 else '%s and %d more hosts' % (', '.join(hosts[:10]), len(hosts) - 10)


def _owner_message(group, failure):
    """The failure of a group's call, naming the hosts that asked and, for an address, which host asked for it."""
    msg = failure.get('msg', 'failed')
    hosts = [host for host, _owner in group['hosts']]
    asking = []
    for element in group['args'].get('owners', []):
        if isinstance(element, dict) and element.get('address') and element['address'] in msg:
            asking.extend('%s (ipam_static_address %s)' % (host, element['address'])
                          for host, owner in group['hosts'] if owner == element['owner'])
    who = ('asked by ' + ', '.join(asking) + '; ') if asking else ''
    return 'netpool.ipam.reserve: %s: %s%s (error %s)' % (_hosts(hosts), who, msg, failure.get('error', 'unknown'))


def facts(results, grouping=None, previous=None, check=False):
    """The index of what each host got, from ``results``: ``{'results': [the result of each call]}``, in the order
    of the groups of ``grouping`` (``group_requests``: the calls; by default, the ``item`` of each result). A group
    with an ``error`` (the requests were wrong, nothing was reserved) is the failure that stops the play.

    ``{'hosts': {host: {'reservation', 'reservation6', 'released', 'reservations', 'changed'}}, 'fatal': message,
    'error': its code (the failed call's, as its task would say it; None without a failure), 'table': lines,
    'changed': [hosts]}``; ``reservation6`` is the IPv6 reservation of ``ipam_family: dual`` (None
    otherwise), kept in ``reservations`` as ``pool/key/ipv6`` beside the IPv4 one's ``pool/key``. ``previous`` is
    the index of an earlier run of the role in the play: hosts this run leaves alone keep their entry, and
    ``reservations`` gathers every pool/key the role reserved for a host. A group that failed stops the play
    (``fatal``), but a pool this run would create in check mode.
    """
    hosts = dict((previous or {}).get('hosts') or {})
    lines, changed = [], []
    loop = (results or {}).get('results') or []
    groups = grouping.get('groups') or [] if grouping is not None else [result.get('item') or {} for result in loop]
    fatal = next((group['error'] for group in groups if group.get('error')), '')
    error = 'invalid_argument' if fatal else None
    for group, result in zip(groups, loop):
        if group.get('error'):
            continue
        if result.get('failed'):
            if check and result.get('error') == 'pool_not_found':
                _to_be_created(group, hosts, lines, changed)
                continue
            if not fatal:
                fatal = _secrets.hide(_owner_message(group, result), _secrets.find(group['defaults']))
                error = result.get('error', 'internal_error')
            continue
        if group['args']['state'] == 'present':
            update = functools.partial(_reserved_entry, holdings=_holdings(group, result))
        else:
            update = functools.partial(_released_entry, released=result.get('released') or [])
        for host, owner in group['hosts']:
            entry = dict(hosts.get(host) or {})
            line = update(entry, owner)
            if line is None:
                continue
            lines.append((host, line))
            if entry.get('changed'):
                changed.append(host)
            hosts[host] = _with_address_fields(entry)
    width = max([len(line[0]) for line in lines] + [7])
    table = ['%-*s %s' % (width, host, what) for host, what in lines]
    return {'hosts': hosts, 'fatal': fatal, 'error': error, 'table': table, 'changed': changed}


def _to_be_created(group, hosts, lines, changed):
    """In check mode, the hosts of a group whose pool does not exist yet: no address, and changed when they
    reserve (the run that creates the pool reserves for them)."""
    present = group['args']['state'] == 'present'
    for host, _owner in group['hosts']:
        lines.append((host, 'no address (its pool does not exist yet: check mode)'))
        if present:
            changed.append(host)
        hosts[host] = _with_address_fields(dict(hosts.get(host) or {}, reservation=None, reservation6=None,
                                                changed=present))


def _holdings(group, result):
    """What the owners of a group that reserved hold after its call and held before it: ``(after, after6, before,
    before6)``, each ``{owner: reservation}``. The diff lists the reservations before in the order of the owners
    (``{}`` for a new one)."""
    owners = [element['owner'] for element in group['args']['owners']]
    diff = (result.get('diff') or {}).get('before') or {}
    return (dict((r['owner'], r) for r in result.get('reservations') or []),
            dict((r['owner'], r) for r in result.get('reservations6') or []),
            dict(zip(owners, diff.get('reservations') or [])), dict(zip(owners, diff.get('reservations6') or [])))


def _reserved_entry(entry, owner, holdings):
    """Update a host's ``entry`` with what ``owner`` holds after its group reserved (``_holdings``); the host's line
    of the table, or None (and ``entry`` left alone) when the owner holds nothing there."""
    after, after6, before, before6 = holdings
    reservation = after.get(owner)
    if reservation is None:
        return None
    reservation6 = after6.get(owner)
    moved = (before.get(owner) or {}).get('address') != reservation.get('address') or (
        reservation6 is not None and (before6.get(owner) or {}).get('address') != reservation6['address'])
    reservations = dict(entry.get('reservations') or {})
    reservations['%s/%s' % (reservation['pool'], reservation['key'])] = reservation
    if reservation6 is not None:
        reservations['%s/%s/ipv6' % (reservation6['pool'], reservation6['key'])] = reservation6
    entry.update(reservation=reservation, reservation6=reservation6, reservations=reservations, changed=moved)
    note = 'predicted' if reservation.get('predicted') else ('changed' if moved else '')
    ipv6_text = '' if reservation6 is None else ', %s gateway %s' % (
        reservation6.get('cidr') or reservation6['address'], reservation6.get('gateway') or '-')
    return '%-6s %-18s gateway %s%s%s' % (
        reservation['pool'] if reservation['key'] == 'default' else reservation['pool'] + '/' + reservation['key'],
        reservation.get('cidr') or reservation['address'], reservation.get('gateway') or '-', ipv6_text,
        ' (%s)' % note if note else '')


def _released_entry(entry, owner, released):
    """Update a host's ``entry`` with what its group's call ``released`` of ``owner``'s; the host's line of the
    table."""
    owners_released = [r for r in released if r.get('owner') == owner]
    reservations = dict(entry.get('reservations') or {})
    for r in owners_released:
        reservations.pop('%s/%s' % (r.get('pool'), r.get('key')), None)
        reservations.pop('%s/%s/ipv6' % (r.get('pool'), r.get('key')), None)
    entry.update(reservation=None, reservation6=None, reservations=reservations, released=owners_released,
                 changed=bool(owners_released))
    return 'released %s' % (', '.join(r.get('address', '?') for r in owners_released) or 'nothing')


def _with_address_fields(entry):
    """``entry`` with the fields of its reservations the role's facts read (``ipam_address``, ``ipam_cidr6``...)."""
    got = entry.get('reservation') or {}
    entry.update((field, got.get(field)) for field in ADDRESS_FIELDS)
    got6 = entry.get('reservation6') or {}
    entry.update((field, got6.get(field[:-1])) for field in ADDRESS6_FIELDS)
    entry['dns'] = got.get('dns', [])
    return entry
