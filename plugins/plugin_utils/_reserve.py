# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the reserve role does once for the play, in Python rather than in templates (issue 25).

This is a private module: it may change at any time. The role (roles/reserve/tasks/main.yml) runs:

1. one ``netpool.ipam.reserve_request`` per host (plugins/action/reserve_request.py): the host's request, its role
   variables as they are for that host (inventory, group, play vars, role parameters, defaults: ``REQUEST``),
   templated by the plugin in one pass, registered (``register`` keeps it out of the fact cache);
2. once for the play, ``plan``: the requests checked and grouped (one ``owners`` call of
   netpool.ipam.reservation per state, pool, key, settings and store), in inventory order;
3. once, the reservation task, one call per group (one transaction per store);
4. once, ``ansible.builtin.set_fact`` of ``facts``: what each host got, indexed by host, and the role's facts
   (``ipam_address``...) as templates that read that index for the host they are asked for (``fact``). A
   run-once set_fact gives every host of the play the same value; a template evaluated where it is read gives
   each host its own. ``trust_as_template`` (ansible-core's public templating API) marks them as templates.
"""

from __future__ import annotations

import difflib
import os

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.parsing.convert_bool import boolean

try:
    from ansible.template import trust_as_template
except ImportError:  # pragma: no cover - ansible-core before 2.19, which the collection does not support
    trust_as_template = None

from ansible_collections.netpool.ipam.plugins.module_utils import _secrets

STATE = '__reserve_state'
# (role variable, request field): what netpool.ipam.reserve_request reads from the host's variables.
REQUEST = (('ipam_state', 'state'), ('ipam_owner', 'owner'), ('ipam_pool', 'pool'), ('ipam_key', 'key'),
           ('ipam_family', 'family'), ('ipam_ttl', 'ttl'), ('ipam_static_address', 'address'), ('ipam_mac', 'mac'),
           ('ipam_hostname', 'hostname'), ('ipam_metadata', 'metadata'), ('ipam_metadata_mac', 'metadata_mac'),
           ('ipam_force', 'force'), ('ipam_reassign', 'reassign'), ('ipam_store', 'store'),
           ('ipam_store_token', 'store_token'), ('ipam_store_timeout', 'timeout'), ('ipam_namespace', 'namespace'))
STORE = ('store', 'store_token', 'timeout', 'namespace')
# The facts the role sets, each a field of the host's entry in the index (see ``facts``).
# Each reads the host's entry with defaults at every step: a host the role has not reserved for has none.
_RESERVATION = '(%(state)s.hosts[inventory_hostname].reservation | default(none) or {})'
# With ipam_family dual, the IPv6 reservation of the host (the IPv4 one is ipam_reservation).
_RESERVATION6 = '(%(state)s.hosts[inventory_hostname].reservation6 | default(none) or {})'
FACTS = dict(
    [('ipam_reservation', '{{ %(state)s.hosts[inventory_hostname].reservation | default(none) }}'),
     ('ipam_reservation6', '{{ %(state)s.hosts[inventory_hostname].reservation6 | default(none) }}'),
     ('ipam_address6', '{{ %s.address | default(none) }}' % _RESERVATION6),
     ('ipam_cidr6', '{{ %s.cidr | default(none) }}' % _RESERVATION6),
     ('ipam_released', '{{ %(state)s.hosts[inventory_hostname].released | default([]) }}'),
     ('ipam_reservations', '{{ %(state)s.hosts[inventory_hostname].reservations | default({}) }}'),
     ('ipam_dns', '{{ %s.dns | default([]) }}' % _RESERVATION)]
    + [('ipam_' + field, '{{ %s.%s | default(none) }}' % (_RESERVATION, field))
       for field in ('address', 'cidr', 'gateway', 'prefix_length', 'netmask')])


def _spec():
    """The options of the role's documented entry point (roles/reserve/meta/argument_specs.yml), and their
    validator: read when this module is imported, in the controller process (the workers inherit them)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'roles', 'reserve', 'meta',
                        'argument_specs.yml')
    import yaml
    with open(path) as f:
        options = yaml.load(f, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))['argument_specs']['reserve']['options']
    return options, ArgumentSpecValidator(options)


SPEC, _VALIDATOR = _spec()


def validate(values):
    """The message of what is wrong with a host's role variables (``{name: value}``, templated), or ``''``.

    The check of Ansible's ``validate_argument_spec`` against the role's spec (types, choices), secrets hidden.
    """
    found = _VALIDATOR.validate(dict(values)).error_messages
    if not found:
        return ''
    secrets = _secrets.find({'store': values.get('ipam_store'), 'store_token': values.get('ipam_store_token')})
    return _secrets.hide('netpool.ipam.reserve: validation of the role variables failed: %s' % '; '.join(found),
                         secrets)


# ipam_* names the collection reads or sets besides the role arguments (meta/argument_specs.yml of each role).
OTHER_NAMES = set(FACTS) | {'ipam_namespaces', 'ipam_repair'}


def _set(value):
    """A request value that says something: not left out, not empty."""
    return value is not None and value != ''


def fact(name):
    """The template of role fact ``name``: the host's own entry of the index, wherever it is read."""
    return trust_as_template(FACTS[name] % {'state': STATE})


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
                    specs = (yaml.safe_load(f) or {}).get('argument_specs') or {}
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


def plan(requests):
    """The role's requests (one per host, inventory order) checked and grouped: ``{'error': str, 'groups': [...]}``.

    A group is one call of netpool.ipam.reservation: ``args`` (its options), ``defaults`` (its store settings, for
    module_defaults: only those set), ``hosts`` ([host, owner] in inventory order) and ``label`` (no secret).
    Hosts sharing an owner share its reservation: the first of them in inventory order says what it is.
    """
    groups, errors, no_pool, key_only = {}, [], [], []
    for request in requests or []:
        state = request.get('state') or 'present'
        host = request['host']
        owner = request.get('owner') if _set(request.get('owner')) else host
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
        present = state == 'present'
        force = boolean(request.get('force') or False, strict=False) if present else None
        reassign = boolean(request.get('reassign') or False, strict=False) if present else None
        family = request.get('family') if present and _set(request.get('family')) else None
        ttl = request.get('ttl') if present and _set(request.get('ttl')) else None
        settings = tuple((name, request[name]) for name in STORE if _set(request.get(name)))
        group_key = (state, pool, key, family, str(ttl), force, reassign, settings)
        group = groups.get(group_key)
        if group is None:
            args = {'state': state}
            for name, value in (('pool', pool), ('key', key), ('family', family), ('ttl', ttl)):
                if value is not None:
                    args[name] = value
            if present:
                args.update(force=force, reassign=reassign)
            group = groups[group_key] = {
                'args': args, 'defaults': dict(settings), 'hosts': [], 'owners': [], '_seen': set(),
                'label': '%s %s%s' % (state, pool or '(every pool)', '/' + key if key else ''),
            }
        group['hosts'].append([host, owner])
        if owner in group['_seen']:
            continue
        group['_seen'].add(owner)
        if not present:
            group['owners'].append(owner)
            continue
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


def items(the_plan):
    """The loop of the role's reservation task: the groups of ``plan``, or, when the requests are wrong, one item
    that says so (``error``), which the task skips and ``facts`` turns into the failure that stops every host."""
    if the_plan['error']:
        return [{'error': the_plan['error'], 'label': 'the requests are wrong', 'args': {}, 'defaults': {},
                 'hosts': []}]
    return the_plan['groups']


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
    return 'netpool.ipam.reserve: %s: %s%s (error %s)' % (
        ', '.join(hosts) if len(hosts) <= 10 else '%s and %d more hosts' % (', '.join(hosts[:10]), len(hosts) - 10),
        who, msg, failure.get('error', 'unknown'))


def facts(results, the_plan=None, previous=None, check=False):
    """The index of what each host got, from the registered loop of the reservation task.

    ``the_plan`` is the plan of the calls; by default, the items of the registered loop (``items``): an item
    with an ``error`` (the requests were wrong, nothing was reserved) is the failure that stops the play.

    ``{'hosts': {host: {'reservation', 'reservation6', 'released', 'reservations', 'changed'}}, 'fatal': message,
    'table': lines, 'changed': [hosts]}``; ``reservation6`` is the IPv6 reservation of ``ipam_family: dual`` (None
    otherwise), kept in ``reservations`` as ``pool/key/ipv6`` beside the IPv4 one's ``pool/key``. ``previous`` is
    the index of an earlier run of the role in the play: hosts this run leaves alone keep their entry, and
    ``reservations`` gathers every pool/key the role reserved for a host. A group that failed stops the play
    (``fatal``), but a pool this run would create in check mode.
    """
    hosts = dict((previous or {}).get('hosts') or {})
    fatal, lines, changed = '', [], []
    loop = (results or {}).get('results') or []
    groups = the_plan.get('groups') or [] if the_plan is not None else [result.get('item') or {} for result in loop]
    for group in groups:
        if group.get('error'):
            fatal = fatal or group['error']
    for group, result in zip(groups, loop):
        if group.get('error'):
            continue
        if result.get('failed'):
            if check and result.get('error') == 'pool_not_found':
                for host, _owner in group['hosts']:
                    lines.append((host, 'no address (its pool does not exist yet: check mode)'))
                continue
            fatal = fatal or _secrets.hide(_owner_message(group, result), _secrets.find(group['defaults']))
            continue
        state = group['args']['state']
        if state == 'present':
            held = dict((r['owner'], r) for r in result.get('reservations') or [])
            held6 = dict((r['owner'], r) for r in result.get('reservations6') or [])
            # the diff lists the reservations before in the order of the owners ({} for a new one)
            owners = [element['owner'] for element in group['args']['owners']]
            diff = (result.get('diff') or {}).get('before') or {}
            before = dict(zip(owners, diff.get('reservations') or []))
            before6 = dict(zip(owners, diff.get('reservations6') or []))
        else:
            released = result.get('released') or []
        for host, owner in group['hosts']:
            entry = dict(hosts.get(host) or {})
            reservations = dict(entry.get('reservations') or {})
            if state == 'present':
                reservation = held.get(owner)
                if reservation is None:
                    continue
                reservation6 = held6.get(owner)
                moved = (before.get(owner) or {}).get('address') != reservation.get('address') or (
                    reservation6 is not None and (before6.get(owner) or {}).get('address') != reservation6['address'])
                reservations['%s/%s' % (reservation['pool'], reservation['key'])] = reservation
                if reservation6 is not None:
                    reservations['%s/%s/ipv6' % (reservation6['pool'], reservation6['key'])] = reservation6
                entry.update(reservation=reservation, reservation6=reservation6, reservations=reservations,
                             changed=moved)
                note = 'predicted' if reservation.get('predicted') else ('changed' if moved else '')
                six = '' if reservation6 is None else ', %s gateway %s' % (
                    reservation6.get('cidr') or reservation6['address'], reservation6.get('gateway') or '-')
                lines.append((host, '%-6s %-18s gateway %s%s%s' % (
                    reservation['pool'] if reservation['key'] == 'default' else reservation['pool'] + '/' + reservation['key'],
                    reservation.get('cidr') or reservation['address'], reservation.get('gateway') or '-', six,
                    ' (%s)' % note if note else '')))
            else:
                mine = [r for r in released if r.get('owner') == owner]
                for r in mine:
                    reservations.pop('%s/%s' % (r.get('pool'), r.get('key')), None)
                    reservations.pop('%s/%s/ipv6' % (r.get('pool'), r.get('key')), None)
                entry.update(reservation=None, reservation6=None, reservations=reservations, released=mine,
                             changed=bool(mine))
                lines.append((host, 'released %s' % (', '.join(r.get('address', '?') for r in mine) or 'nothing')))
            if entry.get('changed'):
                changed.append(host)
            hosts[host] = entry
    width = max([len(line[0]) for line in lines] + [7])
    table = ['%-*s %s' % (width, host, what) for host, what in lines]
    return {'hosts': hosts, 'fatal': fatal, 'table': table, 'changed': changed}
