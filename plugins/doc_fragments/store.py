# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """The store options of every netpool.ipam module (argument spec: module_utils/_task/_options.py STORE_OPTIONS).

    ``netpool.ipam.store`` is for modules; ``netpool.ipam.store.plugin`` gives the lookup the same options
    with their C(env) entries.
    """

    DOCUMENTATION = r"""
options:
  store:
    description:
      - Where pools and reservations are kept, on the controller.
      - A file path or a URL. A path ending in C(.json) is the JSON store; any other path is a SQLite
        database file (created, mode 0600, when missing; its directory must exist).
        V(postgresql://user:password@host/db) is a PostgreSQL store; it uses server-side prepared statements
        unless the URL says C(prepared_statements=false) (for pgbouncer in transaction mode before 1.21).
        V(netbox+https://host) (and V(netbox+http://host) for a test instance) is a NetBox 4.x store, with an API
        token in O(store_token); what NetBox cannot hold fails with C(error=unsupported) (see docs/stores.md).
      - A relative path is relative to the directory C(ansible-playbook) (or C(ansible-inventory)) was started
        from, not to the playbook or the role.
      - If not given, the value of the E(NETPOOL_IPAM_STORE) environment variable of the controller is used,
        then V(ipam.sqlite).
      - An empty string is the same as leaving the option out (E(NETPOOL_IPAM_STORE), then V(ipam.sqlite)), so
        that a templated V({{ ipam_store | default(''\) }}) works. A list or a dict is refused with
        C(error=invalid_argument).
      - A password in the URL is never shown in results, messages or history.
      - A libpq keyword connection string (V(host=db dbname=ipam ...)) is refused with C(error=invalid_argument);
        write it as a URL. A file whose name starts with C(word=) is written V(./NAME).
    type: str
    default: ipam.sqlite
  store_token:
    description:
      - The secret of a remote store. For PostgreSQL it is the password (keep it out of the URL; a URL that
        also carries a password is refused with C(error=invalid_argument)); for NetBox it is the API token (v1,
        or v2 V(nbt_...)).
      - If not given, the value of the E(NETPOOL_IPAM_STORE_TOKEN) environment variable is used.
      - Never shown in results, messages or history.
    type: str
  validate_certs:
    description:
      - Whether the TLS certificate of a remote store is checked.
      - For PostgreSQL, when neither the URL nor E(PGSSLMODE) sets an sslmode, V(true) asks for
        C(sslmode=verify-full) for a server across a network (give its CA with C(sslrootcert) in the URL) and
        leaves libpq's default for a server on this machine (a Unix socket, C(localhost), a loopback address);
        V(false) asks for C(sslmode=require) (encrypted, certificate not verified). An sslmode in the URL or
        E(PGSSLMODE) is always used as given.
      - Only set this to V(false) for a store you trust on a network you trust.
    type: bool
    default: true
  timeout:
    description:
      - Seconds to wait for the store, including for the lock of another writer (another fork, another
        controller). When the lock is not had in time the task fails with C(error=store_busy).
      - A store on a server (PostgreSQL) retries within this time what is safe to retry (connecting, a
        transaction rolled back by a restart, a fail-over, a serialization failure or a deadlock); past it the
        task fails with C(error=store_unavailable) (or C(store_busy)) saying what was tried.
    type: int
    default: 30
  namespace:
    description:
      - The address space (a VRF, a tenant, a region). Pools of one namespace never overlap and an address
        is held by at most one reservation per namespace; two namespaces may hold the same addresses.
    type: str
    default: default
notes:
  - The module runs on the controller, in-process, through its action plugin; a play against remote hosts
    needs neither C(delegate_to) nor a connection to them, and a task costs about what M(ansible.builtin.set_fact)
    costs.
  - "Every failure returns C(error), a stable code that playbooks can test (C(failed_when), C(until), C(rescue)):
    C(address_in_use), C(address_out_of_pool), C(address_excluded), C(pool_exhausted), C(pool_not_found),
    C(pool_overlap), C(pool_in_use), C(invalid_argument), C(store_busy), C(store_unavailable) (also a Python
    library missing on the controller; the message gives the pip command), C(store_version) (a store written by a
    newer netpool.ipam), C(unsupported) (what the store cannot hold) or C(internal_error) (a bug; the traceback is
    shown with C(ANSIBLE_DISPLAY_TRACEBACK=error)). A failure changes nothing in the store."
"""

    PLUGIN = r"""
options:
  store:
    description:
      - Where pools and reservations are kept, on the controller.
      - A file path or a URL. A path ending in C(.json) is the JSON store; any other path is a SQLite
        database file. V(postgresql://user:password@host/db) is a PostgreSQL store (C(prepared_statements=false)
        in its URL turns off server-side prepared statements, for pgbouncer in transaction mode before 1.21).
      - A relative path is relative to the directory C(ansible-playbook) (or C(ansible-inventory)) was started
        from.
      - An empty string is the same as leaving the option out (E(NETPOOL_IPAM_STORE), then V(ipam.sqlite)).
      - A password in the URL is never shown in messages.
    type: str
    default: ipam.sqlite
    env:
      - name: NETPOOL_IPAM_STORE
  store_token:
    description:
      - The secret of a remote store (the PostgreSQL password; a NetBox API token). Never shown in messages.
    type: str
    secret: true
    env:
      - name: NETPOOL_IPAM_STORE_TOKEN
  validate_certs:
    description:
      - Whether the TLS certificate of a remote store is checked. For PostgreSQL, V(true) means
        C(sslmode=verify-full) for a server across a network, V(false) means C(sslmode=require), when the URL
        sets no sslmode.
    type: bool
    default: true
  timeout:
    description:
      - Seconds to wait for the store, including for the lock of another writer and for the retries after
        a server restart or fail-over (PostgreSQL).
    type: int
    default: 30
  namespace:
    description:
      - The address space the pools belong to.
    type: str
    default: default
"""
