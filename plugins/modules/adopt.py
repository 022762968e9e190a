#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: adopt
short_description: Adopt the addresses a network already uses as static reservations
version_added: 1.1.0
description:
  - Brings an existing network in. Each address of the source becomes a static reservation of its owner and
    key, so that the collection never hands it out to another host.
  - The source is exactly one of O(entries) (a list, for example built from an inventory's C(ansible_host)s with
    one Jinja expression), O(csv) (a spreadsheet saved as CSV) or O(leases) (a Kea or dnsmasq lease file).
  - An entry goes into the pool it names (or O(pool)); without one, into the innermost pool of the namespace
    whose subnet holds the address (a child pool before its parent).
  - An address resting under its pool's reuse delay is adopted (it is in use). An expired lease holding the
    address, or held by the same owner and key in that pool, is released first (history records C(expire)).
  - The result lists every entry under exactly one of RV(adopted), RV(unchanged), RV(conflicts) or RV(outside),
    each with its reason in words.
  - An entry the owner and key hold already is RV(unchanged), whatever its metadata (the reservation is left as
    it is; M(netpool.ipam.reservation) changes one). A rerun of the same source is all RV(unchanged).
  - The whole task is one transaction of the store, whatever the number of entries, on every store. With
    O(on_conflict=fail) a conflict fails the task with C(error=adopt_conflict) and nothing is written.
  - A malformed source (a row without an address, an address that does not parse, a lease file of the other
    format) fails with C(error=invalid_argument) naming the file and the line; nothing is written.
  - History records each adoption (action C(adopt)) with its source and line in C(new.source).
  - Runs on the controller; O(csv) and O(leases) are files on the controller.
author:
  - netpool.ipam engineers (@netpool)
extends_documentation_fragment:
  - netpool.ipam.store
  - netpool.ipam.attributes
options:
  entries:
    description:
      - The addresses to adopt, each a dict with C(address) and C(owner) (required), and C(key) (default O(key)),
        C(pool) (default O(pool)), C(mac) (kept as metadata C(mac)) and C(metadata) (a dict of strings, numbers or
        booleans).
      - Entries are taken in list order; a later entry for an address an earlier one adopts is a conflict (or
        unchanged, for the same owner and key).
      - Mutually exclusive with O(csv) and O(leases); one of the three is required.
    type: list
    elements: raw
  csv:
    description:
      - A CSV file on the controller (a spreadsheet saved as CSV, UTF-8). Its first row is a header naming the
        columns. C(address) and C(owner) are required, C(key), C(pool) and C(mac) optional; every other column is
        kept as metadata of that name (an empty cell is left out). Empty rows are skipped.
      - A relative path is looked for as Ansible looks for a file a task names (the role's or the playbook's
        C(files/), then beside the playbook), else in the directory C(ansible-playbook) was started from.
      - Mutually exclusive with O(entries) and O(leases).
    type: path
  leases:
    description:
      - A DHCP server's lease file on the controller, of the format O(leases_format). Its leases in use are
        adopted; expired ones (against the controller's clock) and, for Kea, declined, reclaimed and released ones
        are not, nor Kea's delegated prefixes. A Kea memfile is read as Kea reads it, the last row of an address
        wins.
      - The owner of a lease is its hostname (without a trailing dot); where it has none, its MAC (a DHCPv6 lease
        without either, the client's DUID). The MAC is kept as metadata C(mac).
      - A relative path is looked for as for O(csv).
      - Mutually exclusive with O(entries) and O(csv); needs O(leases_format).
    type: path
  leases_format:
    description:
      - V(kea) is Kea's memfile lease file, DHCPv4 (C(kea-leases4.csv)) or DHCPv6 (C(kea-leases6.csv)).
      - V(dnsmasq) is dnsmasq's lease file (C(dnsmasq.leases)), its DHCPv4 and DHCPv6 leases.
    type: str
    choices: [kea, dnsmasq]
  pool:
    description:
      - The pool of the entries that name none. Without it, each such entry goes into the innermost pool
        holding its address.
      - A pool that does not exist fails the task with C(error=pool_not_found).
    type: str
  key:
    description:
      - The key of the entries that name none (V(default) when not given either).
    type: str
  on_conflict:
    description:
      - V(fail) fails the task with C(error=adopt_conflict) when any entry is a conflict, listing them in
        RV(conflicts) and writing nothing.
      - V(skip) adopts the others and lists the conflicts.
      - Entries in no pool (RV(outside)) are listed, and fail nothing.
    type: str
    choices: [fail, skip]
    default: fail
notes:
  - Adopted reservations are static (C(static=true)). Their address may lie outside the pool's dynamic ranges.
seealso:
  - module: netpool.ipam.reservation
  - module: netpool.ipam.info
"""

EXAMPLES = r"""
- name: Adopt every host's ansible_host as its static address (one Jinja expression, one task, one transaction)
  netpool.ipam.adopt:
    entries: "{{ ansible_play_hosts_all | zip(ansible_play_hosts_all | map('extract', hostvars, 'ansible_host'))
                 | map('zip', ['owner', 'address']) | map('items2dict', key_name=1, value_name=0) }}"
  run_once: true

- name: Entries written out, with a MAC and metadata
  netpool.ipam.adopt:
    entries:
      - {address: 10.0.0.5, owner: printer-2, mac: '52:54:00:12:34:56'}
      - {address: 10.0.0.6, owner: nas, key: eth0, metadata: {rack: r2}}

- name: Adopt a spreadsheet (address,owner,key,pool,mac,... columns), the conflicts listed, the rest adopted
  netpool.ipam.adopt:
    csv: hosts.csv
    on_conflict: skip
  register: adopted

- name: What could not be adopted, and why
  ansible.builtin.debug:
    msg: "{{ adopted.conflicts | map(attribute='reason') | list }}"

- name: Adopt the leases a Kea server handed out
  netpool.ipam.adopt:
    leases: /var/lib/kea/kea-leases4.csv
    leases_format: kea

- name: Adopt dnsmasq's leases into one pool
  netpool.ipam.adopt:
    leases: /var/lib/misc/dnsmasq.leases
    leases_format: dnsmasq
    pool: office
"""

RETURN = r"""
adopted:
  description:
    - The entries adopted, in source order. In check mode, those that would be.
    - Each has C(address), C(owner), C(key), C(pool), C(source) (where it was read, as V(entries[3]) or
      V(/srv/hosts.csv line 4)) and C(reason).
  returned: always
  type: list
  elements: dict
  sample:
    - {address: 10.0.0.15, owner: printer, key: default, pool: office, source: 'hosts.csv line 2',
       reason: "10.0.0.15 adopted as a static reservation of printer/default in pool 'office'"}
unchanged:
  description: The entries whose owner and key hold that address already, as RV(adopted) lists them.
  returned: always
  type: list
  elements: dict
  sample:
    - {address: 10.0.0.15, owner: printer, key: default, pool: office, source: 'hosts.csv line 2',
       reason: "printer/default holds 10.0.0.15 in pool 'office' already"}
conflicts:
  description:
    - The entries that cannot be adopted, as RV(adopted) lists them; C(reason) says why. An address held by
      another owner (or by the same owner under another key); an owner and key holding another address of that
      family in that pool; a gateway, an exclusion, a network or broadcast address (of the pool or of a pool it
      is carved from); an address in a child pool of the pool named; an address outside the pool named.
    - With O(on_conflict=fail), also in the failed result (C(error=adopt_conflict)).
  returned: always
  type: list
  elements: dict
  sample:
    - {address: 10.0.0.1, owner: router, key: default, pool: office, source: 'entries[0]',
       reason: 10.0.0.1 is the gateway of 10.0.0.0/24}
outside:
  description: The entries whose address is in no pool of the namespace (C(pool) is null), as RV(adopted) lists
    them. They are not adopted, and fail nothing.
  returned: always
  type: list
  elements: dict
  sample:
    - {address: 192.0.2.9, owner: laptop, key: default, pool: null, source: 'entries[4]',
       reason: 192.0.2.9 is in no pool of the namespace}
store:
  description: The store read (and written), as RV(netpool.ipam.info#module:store) says.
  returned: success, and every failure but options refused before the store is opened
  type: str
  sample: /home/me/plan/ipam.sqlite
"""

from ansible_collections.netpool.ipam.plugins.module_utils._task._module import run_module


def main():
    run_module('adopt')


if __name__ == '__main__':
    main()
