#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: reservation
short_description: Reserve or release IP addresses of a pool
version_added: 1.0.0
description:
  - Reserves an address of a pool for an O(owner) (an inventory hostname, a VM id...) under a O(key) (one per
    NIC, per index), idempotently. Re-running never moves an address.
  - Without O(address), takes a free address by the pool's strategy (dynamic). With O(address), takes that
    address (static); a reservation that holds another address moves to it in one transaction.
  - An owner that released its address (or whose lease ran out) in a pool with a C(reuse_delay), and asks again
    with the same O(key) and family while that address still rests, gets that same address back, unless another
    owner took it meanwhile; the history records a C(return) (new in 1.1.0; before, it got the next free address).
  - With O(state=absent), releases the reservation, every reservation of the owner in the pool (no O(key)) or in
    the namespace (no O(pool) either); or, with O(keep_owners), every reservation of the pool whose owner is not
    in the list (the sweep for hosts that left the inventory).
  - In check mode a dynamic reservation reports the address it would take, marked C(predicted=true); nothing
    is held until a real run. Since nothing is held, several new hosts of one check-mode play are each
    predicted the same next free address; a real run gives each its own.
  - Runs on the controller (see the notes); a play against the hosts themselves reserves for each of them
    without C(delegate_to).
author:
  - netpool.ipam engineers (@netpool)
extends_documentation_fragment:
  - netpool.ipam.store
  - netpool.ipam.attributes
  - netpool.ipam.probe
options:
  pool:
    description:
      - The name of the pool.
      - Required with O(state=present) and with O(keep_owners).
    type: str
  owner:
    description:
      - Whatever owns the address, usually V({{ inventory_hostname }}).
      - With O(state=present), O(owner) or O(owners) is required. With O(state=absent), O(owner), O(owners) or
        O(keep_owners) is required.
      - Mutually exclusive with O(owners).
    type: str
  owners:
    description:
      - Many owners in one task, for example V({{ ansible_play_hosts_all }}) with C(run_once=true).
        Each is reserved (or released, with O(state=absent)) as O(owner) would be, with the same O(key),
        O(family), O(ttl), O(metadata), O(force) and O(reassign), all in one transaction and in list order;
        new owners get the first free addresses in the order of the list. The result is RV(reservations),
        in the same order.
      - An element is an owner (a string), or a dict with C(owner) and its own C(address) and C(metadata),
        which replace O(address) and O(metadata) for that owner (each host's MAC, a static address).
      - An owner listed twice fails with C(error=invalid_argument). O(address) applies to one owner only;
        with several owners, give each its address in its element.
      - If any owner fails (for example C(error=pool_exhausted)), nothing is reserved for any of them.
      - Mutually exclusive with O(owner) and O(keep_owners).
    type: list
    elements: raw
  key:
    description:
      - Which address of the owner in the pool, when an owner holds several (V(eth0), V(eth1), V(vip)...).
      - With O(state=present), V(default) when not given.
      - With O(state=absent), when not given, every reservation of the owner (in O(pool), or in the whole
        namespace when O(pool) is not given either) is released. Given with O(state=absent), it needs O(pool)
        (a key names a reservation within one pool; without O(pool) the task fails with C(error=invalid_argument)).
    type: str
  address:
    description:
      - The address to reserve (static). Without it, a free address is taken (dynamic).
      - An address held by another reservation fails with C(error=address_in_use), unless O(reassign=true).
      - An address outside every subnet of the pool fails with C(error=address_out_of_pool).
      - An excluded address, the gateway, or the network or broadcast address fails with
        C(error=address_excluded) unless O(force=true).
      - An address inside a subnet but outside its ranges is allowed.
    type: str
  family:
    description:
      - Take a dynamic address of this family only, in a dual-stack pool.
      - A pool with no subnet of that family has no free address of it - C(error=pool_exhausted).
      - V(dual) reserves one IPv4 and one IPv6 address for the same owner and key, in one transaction (with
        O(owners), for every owner - every IPv4 address in list order, then every IPv6 one). The result is
        RV(reservation) (IPv4) and RV(reservation6) (IPv6), or RV(reservations) and RV(reservations6) in the order
        of O(owners). A rerun changes nothing. The pool needs a subnet of each family; one that lacks one fails
        with C(error=invalid_argument) naming the family missing. If one family has no free address left, nothing
        is reserved in either (C(error=pool_exhausted)).
      - With V(dual), an owner and key that already hold an address of one family (reserved with V(ipv4) or
        V(ipv6), static or not) keep it as that family's half, and only the other family's address is added.
      - V(dual) takes no O(address) (C(error=invalid_argument)) - reserve a static address with its own family and
        the same key; V(dual) then keeps it and adds the other family's.
      - An owner and key that hold one address of each family answer V(ipv4) and V(ipv6) with that family's one,
        and no O(family) with the IPv4 one; a static O(address) moves the one of its family. An owner and key that
        hold one address only answer the other family with C(error=invalid_argument) (give V(dual) to add it).
      - With O(state=absent), V(ipv4) or V(ipv6) releases only the reservations of that family; V(dual) or no
        O(family), those of both.
    type: str
    choices: [ipv4, ipv6, dual]
  align_with:
    description:
      - The name of another pool of the namespace whose host parts this reservation follows (a server is V(.23) in
        management, storage and backend). The address reserved is the one whose offset in its subnet equals the
        offset of the owner's reservation (same O(key), same family) in that pool, within that reservation's
        subnet there. The offset is placed in this pool's first subnet of that family, in pool order.
      - The address is requested, like O(address) - RV(reservation.static) is V(true), and an address the owner holds
        already moves to it (a rerun where it sits already changes nothing). With O(owners), every owner is aligned
        in one transaction.
      - It must be an address the pool hands out - outside its ranges, excluded, the gateway, in a child pool, or
        an offset beyond the subnet fails with C(error=address_out_of_pool). Held by another owner, it fails with
        C(error=address_in_use) naming the holder. An owner holding nothing under O(key) in that pool fails with
        C(error=not_reserved) - nothing is reserved there on the fly. Any failure writes nothing, for any owner.
      - Without O(family), the family of the owner's reservation in that pool (IPv4 when it holds both); with
        O(family=dual), each family is aligned with the owner's reservation of that family.
      - The history entry of the write records C(align_with); C(netpool.ipam.info) with C(verify=true) reports an
        aligned reservation that no longer matches (C(alignment_mismatch), the owner moved in that pool), and a
        rerun of the task realigns it.
      - Naming this pool itself, or given with O(address), O(force) or O(reassign), fails with
        C(error=invalid_argument). Ignored with O(state=absent).
    type: str
    version_added: 1.1.0
  metadata:
    description:
      - A free dict of names to strings, numbers or booleans kept with the reservation (mac, hostname...).
      - Replaces the metadata of an existing reservation; not given leaves it as it is.
      - Two names are what DHCP and DNS read (the role C(netpool.ipam.publish)) and are checked and normalised -
        C(mac), a MAC in any form (kept as V(52:54:00:aa:bb:cc)), and C(hostname), a host name or a dotted fully
        qualified name (kept in lower case, without a final dot). A bad one fails with C(error invalid_argument).
    type: dict
  ttl:
    description:
      - Lease the address for this long (seconds, or V(30m), V(12h), V(7d)). Re-running renews the lease.
        An expired lease is released by the store itself before any allocation.
      - Without it the reservation never expires.
    type: str
  force:
    description:
      - Allow O(address) to be an excluded address, the gateway, the network or broadcast address, or an address
        of a child pool.
    type: bool
    default: false
  reassign:
    description:
      - Take O(address) over from whatever reservation of the namespace holds it, in one transaction recorded in
        history (failover VIPs, elastic IPs).
    type: bool
    default: false
  keep_owners:
    description:
      - With O(state=absent) and O(pool), release every reservation of the pool whose owner is not in this list,
        for example V({{ groups['all'] }}). Check mode lists what would be released.
      - Mutually exclusive with O(owner), O(owners) and O(key).
    type: list
    elements: str
  state:
    description:
      - V(present) reserves, V(absent) releases. Releasing what is not there is not a change.
    type: str
    choices: [present, absent]
    default: present
seealso:
  - module: netpool.ipam.pool
  - module: netpool.ipam.info
  - plugin: netpool.ipam.address
    plugin_type: lookup
"""

EXAMPLES = r"""
- name: An address for every host of the play (runs on the controller, no connection to the hosts)
  netpool.ipam.reservation:
    pool: web
    owner: "{{ inventory_hostname }}"
  register: ipam

- name: Use it
  ansible.builtin.debug:
    msg: "{{ inventory_hostname }} is {{ ipam.reservation.cidr }} via {{ ipam.reservation.gateway }}"

- name: The addresses of every host of the play, in inventory order, in one transaction
  netpool.ipam.reservation:
    pool: web
    owners: "{{ ansible_play_hosts_all }}"
  register: ipam_all
  run_once: true

- name: Each host's own, from the list (in the order of ansible_play_hosts_all)
  ansible.builtin.debug:
    msg: "{{ inventory_hostname }} is {{ ipam_all.reservations[ansible_play_hosts_all.index(inventory_hostname)].cidr }}"

- name: Per-owner metadata and a static address, in one task
  netpool.ipam.reservation:
    pool: web
    owners:
      - owner: web1
        metadata: {mac: '52:54:00:00:00:01'}
      - owner: lb1
        address: 10.0.0.5

- name: A second, IPv6, address for the storage NIC, with its MAC
  netpool.ipam.reservation:
    pool: storage
    owner: "{{ inventory_hostname }}"
    key: eth1
    family: ipv6
    metadata:
      mac: "{{ ansible_facts.eth1.macaddress | default(omit) }}"

- name: One IPv4 and one IPv6 address for every host of the play, in one task
  netpool.ipam.reservation:
    pool: web
    owners: "{{ ansible_play_hosts_all }}"
    family: dual
  run_once: true
  register: addresses
  # addresses.reservations[i].address is IPv4, addresses.reservations6[i].address IPv6

- name: The same host part in the storage network as in management (.23 there, .23 here), for every host
  netpool.ipam.reservation:
    pool: storage
    owners: "{{ ansible_play_hosts_all }}"
    align_with: management
  run_once: true

- name: A fixed address
  netpool.ipam.reservation:
    pool: web
    owner: lb1
    key: vip
    address: 10.0.0.5

- name: Move the VIP to the standby (failover)
  netpool.ipam.reservation:
    pool: web
    owner: lb2
    key: vip
    address: 10.0.0.5
    reassign: true

- name: A one-day lease for a CI runner
  netpool.ipam.reservation:
    pool: ci
    owner: "runner-{{ build_id }}"
    ttl: 1d

- name: Release every address of a decommissioned host
  netpool.ipam.reservation:
    owner: old-web-3
    state: absent

- name: Release the addresses of hosts that left the inventory
  netpool.ipam.reservation:
    pool: web
    keep_owners: "{{ groups['all'] }}"
    state: absent
  run_once: true

- name: Retry while the pool is full, fail on anything else
  netpool.ipam.reservation:
    pool: tiny
    owner: "{{ inventory_hostname }}"
  register: result
  until: result is not failed or result.error != 'pool_exhausted'
  retries: 3

- name: Addresses for three new VMs, none of which a host answers from (ICMP echo, all probed at once)
  netpool.ipam.reservation:
    pool: web
    owners: [vm1, vm2, vm3]
    probe: icmp
    probe_timeout: 500
  run_once: true

- name: Release the addresses the probes found answering in pool web (once those hosts are gone)
  netpool.ipam.reservation:
    pool: web
    owner: netpool.ipam.probe
    state: absent
"""

RETURN = r"""
store:
  description: The store read (and written), as RV(netpool.ipam.info#module:store) says.
  returned: success, and every failure but options refused before the store is opened
  type: str
  sample: /home/me/plan/ipam.sqlite
store_created:
  description:
    - True when this task made the store - a SQLite or JSON file that did not exist, or the tables of a PostgreSQL
      database that had none. The first run of a plan makes its store, so no warning says so; RV(store) names it,
      and so does a line the controller shows at C(-v), where a mistyped O(store) (C(ipam.sqlte)) or a playbook
      started from another directory shows. Only a task that changes something makes a store; a read, check mode
      or a failed task never does.
  returned: when the task made the store
  type: bool
  sample: true
  version_added: 1.1.0
reservation:
  description:
    - The reservation (in check mode, as it would be). With O(family=dual), the IPv4 one (RV(reservation6) holds
      the IPv6 one).
  returned: when O(state=present), O(owner) and success
  type: dict
  contains: &reservation
    namespace:
      description: The namespace.
      type: str
      sample: default
    pool:
      description: The pool.
      type: str
      sample: web
    owner:
      description: The owner.
      type: str
      sample: web1
    key:
      description: The key.
      type: str
      sample: default
    address:
      description: The address, in compressed canonical form.
      type: str
      sample: 10.0.0.10
    prefix_length:
      description: The prefix length of its subnet.
      type: int
      sample: 24
    cidr:
      description: The address with the prefix length.
      type: str
      sample: 10.0.0.10/24
    netmask:
      description: The netmask of its subnet (IPv4; null for IPv6).
      type: str
      sample: 255.255.255.0
    network:
      description: Its subnet.
      type: str
      sample: 10.0.0.0/24
    gateway:
      description: The gateway of its subnet, or null.
      type: str
      sample: 10.0.0.1
    dns:
      description: The DNS servers of its subnet.
      type: list
      elements: str
      sample: [10.0.0.2]
    static:
      description: Whether the address was asked for (O(address), O(align_with)) rather than taken dynamically.
      type: bool
      sample: false
    metadata:
      description: The free metadata dict.
      type: dict
      sample: {mac: '52:54:00:12:34:56'}
    created_at:
      description: When the reservation was made (ISO 8601, UTC).
      type: str
      sample: '2026-01-31T12:00:00Z'
    updated_at:
      description: When it last changed (ISO 8601, UTC).
      type: str
      sample: '2026-01-31T12:00:00Z'
    expires_at:
      description: When the lease expires (ISO 8601, UTC); null unless O(ttl) was given.
      type: str
      sample: null
    predicted:
      description: True in check mode for a new dynamic reservation, whose address is only a prediction.
      type: bool
      returned: in check mode, for a new dynamic reservation
      sample: true
reservations:
  description:
    - With O(owners), the reservation of each owner, in the order of O(owners), each with the fields of
      RV(reservation) (in check mode, as they would be, new dynamic ones marked C(predicted=true), each with
      its own address).
  returned: when O(state=present), O(owners) and success
  type: list
  elements: dict
  contains: *reservation
  sample:
    - {namespace: default, pool: web, owner: web1, key: default, address: 10.0.0.10, cidr: 10.0.0.10/24}
    - {namespace: default, pool: web, owner: web2, key: default, address: 10.0.0.11, cidr: 10.0.0.11/24}
reservations6:
  description:
    - With O(owners) and O(family=dual), the IPv6 reservation of each owner, in the order of O(owners), each with
      the fields of RV(reservation); RV(reservations) then holds the IPv4 ones.
  returned: when O(state=present), O(owners), O(family=dual) and success
  type: list
  elements: dict
  contains: *reservation
  sample:
    - {namespace: default, pool: web, owner: web1, key: default, address: '2001:db8::10', cidr: '2001:db8::10/64'}
    - {namespace: default, pool: web, owner: web2, key: default, address: '2001:db8::11', cidr: '2001:db8::11/64'}
reservation6:
  description:
    - With O(family=dual), the IPv6 reservation, with the fields of RV(reservation); RV(reservation) then holds the
      IPv4 one.
  returned: when O(state=present), O(owner), O(family=dual) and success
  type: dict
  contains: *reservation
  sample: {namespace: default, pool: web, owner: web1, key: default, address: '2001:db8::10', cidr: '2001:db8::10/64',
           prefix_length: 64, network: '2001:db8::/64', static: false}
released:
  description:
    - The reservations released (in check mode, that would be released), each with the fields of RV(reservation).
  returned: when O(state=absent) and success
  type: list
  elements: dict
  contains: *reservation
  sample:
    - namespace: default
      pool: web
      owner: old-web-3
      key: default
      address: 10.0.0.13
      prefix_length: 24
      cidr: 10.0.0.13/24
      netmask: 255.255.255.0
      network: 10.0.0.0/24
      gateway: 10.0.0.1
      dns: []
      static: false
      metadata: {}
      created_at: '2026-01-31T12:00:00Z'
      updated_at: '2026-01-31T12:00:00Z'
      expires_at: null
diff:
  description:
    - With O(state=present), the reservation before (C({}) when new) and after; with O(owners),
      C(before.reservations) and C(after.reservations) list them in the order of O(owners).
    - With O(family=dual), C(before) and C(after) hold C(reservation) and C(reservation6) (with O(owners),
      C(reservations) and C(reservations6)), each as above.
    - With O(state=absent), C(before.reservations) lists the released reservations and C(after.reservations) is
      empty.
  returned: in diff mode
  type: dict
  contains:
    before:
      description: Before.
      type: dict
    after:
      description: After.
      type: dict
error:
  description:
    - On failure, what went wrong, as a stable code.
    - C(pool_not_found), C(pool_exhausted) (no free address left), C(address_in_use) (RV(holder) names who holds
      it), C(address_out_of_pool), C(address_excluded), C(invalid_argument), C(store_busy),
      C(store_unavailable), C(store_version), C(unsupported), C(internal_error).
  returned: failure
  type: str
  sample: address_in_use
holder:
  description: With C(error=address_in_use), the reservation that holds the address.
  returned: failure
  type: dict
  contains:
    pool:
      description: Its pool.
      type: str
    owner:
      description: Its owner.
      type: str
    key:
      description: Its key.
      type: str
  sample: {pool: web, owner: lb1, key: vip}
answered:
  description: With C(error=address_in_use) after O(probe_tries) answering candidates, the addresses that answered.
  returned: failure
  type: list
  elements: str
  version_added: 1.1.0
  sample: [10.0.0.10, 10.0.0.11]
probed:
  description:
    - With O(probe) other than V(none), what was probed. A rerun and check mode probe nothing (C(rounds=0)).
  returned: when O(state=present), O(probe) is not V(none) and success
  type: dict
  version_added: 1.1.0
  contains:
    method:
      description: O(probe).
      type: str
    timeout:
      description: O(probe_timeout).
      type: int
    tries:
      description: O(probe_tries).
      type: int
    rounds:
      description:
        - How many rounds of probes were sent. Each round probes every candidate still in question at once
          (the first round every new dynamic address of the task, the next the candidates that replace those that
          answered).
      type: int
    addresses:
      description: How many addresses were probed.
      type: int
    answered:
      description: The addresses that answered, now held by owner C(netpool.ipam.probe).
      type: list
      elements: str
  sample: {method: icmp, timeout: 300, tries: 16, rounds: 2, addresses: 12, answered: [10.0.0.12, 10.0.0.15]}
"""

from ansible_collections.netpool.ipam.plugins.module_utils._task._module import run_module


def main():
    run_module('reservation')


if __name__ == '__main__':
    main()
