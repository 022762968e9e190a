# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""NetBox's API, for the NetBox store: its requests, and the writes of one transaction.

This is a private module: it may change at any time. ``Client`` sends the REST and GraphQL requests (retries,
errors worded for the user, the custom fields and tag made on the first change), knows the VRF of each namespace,
and holds the transaction under way (``tx``): NetBox has no transactions across requests, so writes are kept
(``later``) until the transaction commits and then sent in order (``send``); what was sent is undone if it fails
(``undo``). The store (``_store``) and its free space (``_freespace``) use it through these public methods.

NetBox going away (refused or reset connections, a request whose answer is lost, 502/503/504 from a proxy or a
server starting or stopping, a 429 that asks the client to slow down) is marked for ``_retry`` here (``gone``),
so that the task runs again until its ``timeout``: the one retry layer (the HTTP client retries nothing of its
own), and each request's socket timeout is what is left of the task's ``timeout`` (``_timeout``). A read, or a
write that cannot have reached NetBox, as nothing kept; a write whose answer is lost as a lost commit, whose
evidence (the history tokens of its changelog message, and whether writes sent before it were kept) the store's
``commit_landed`` resolves by reading NetBox's change log before the next attempt. Such a write is never sent
again blindly: the next attempt reads what NetBox holds first.
"""

import email.utils
import json

from datetime import datetime, timezone
from urllib.parse import urlsplit

try:
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.exceptions import ConnectTimeoutError
    from urllib3.util.retry import Retry
    from urllib3.util.timeout import Timeout
except ImportError:  # pragma: no cover - exercised by the missing-library test
    requests = None

from ansible_collections.netpool.ipam.plugins.module_utils._stores import _retry
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreBusy, StoreUnavailable
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._mapping import (
    FIELDS, IPV6, PAGE, TAG, claim, claims_of, expiring)

#: whether the ``requests`` library is there
HAVE_REQUESTS = requests is not None

#: what a proxy or a server starting or stopping answers: NetBox is away for now (``gone``)
AWAY = (502, 503, 504)


class Transaction(object):
    def __init__(self, write, commit):
        self.write, self.commit = write, commit
        self.pools = {}             # (namespace, name) -> Pool or None (deleted)
        self.reservations = {}      # ident -> Reservation or None (deleted), written in this transaction
        self.ops = []               # writes to send at commit, in order: [callable, message]
        self.last = []              # writes sent after those (IP ranges made: NetBox refuses overlapping ones)
        self.unnamed = []           # writes waiting for the history entry that names them (their message)
        self.undo = []              # how to undo what this transaction sent, in order: ('delete', URL, token) for
        #                             what it created, ('restore', callable) for what it deleted or changed
        self.freed = set()          # (version, address) of IP addresses the writes delete
        self.predicted = set()      # (version, address) check mode said it would hand out
        self.history = []           # the history entries of this transaction, not in NetBox's change log yet
        self.resting = {}           # (namespace, pool, version, address) -> (until, its write) of the rests it makes
        self.rebuilt = {}           # (namespace, pool) -> (pool, the IP ranges it should have): made last
        # reads kept for the transaction (NetBox holds no lock: re-reading would not make them any truer)
        self.listed = {}            # namespace -> {name: Pool} of its prefixes
        self.enumerated = set()     # namespaces listed by a read of every pool of the store (an export, verify)
        self.prefixes = {}          # namespace -> {cidr: prefix id}, kept up to date by the writes sent
        self.claims = {}            # claim of an owner and key (``claim``) -> the IP addresses holding its claims
        self.due = {}               # (namespace, time) -> IP addresses whose netpool_expires is at or before it
        self.read = {}              # namespace -> (bound, IP addresses due by then); pool -> ranges: ``expect``
        self.ranges = {}            # (namespace, pool) -> the pool's IP ranges as NetBox holds them
        self.answers = {}           # (URL, parameters) -> the text NetBox answered a GET with (``Client.get``)
        # what a retry needs to know (``_retry``) when NetBox goes away part way
        self.answered = 0           # writes NetBox answered
        self.covered = 0            # of those, the writes ``undo`` can undo


class Client(object):
    """One NetBox API (``base``: its ``.../api`` URL; ``graphql``: its GraphQL URL, None not to use it) with one
    API token, and the transaction under way (``tx``, a ``Transaction``; None between transactions)."""

    def __init__(self, base, graphql, url, timeout, token, validate_certs):
        self.base = base
        self.graphql = graphql
        self.url = url
        self.timeout = timeout
        self._secret = token
        self._session = requests.Session()
        self._session.verify = bool(validate_certs)
        self._session.headers.update({
            'Authorization': ('Bearer %s' if token.startswith('nbt_') else 'Token %s') % token,
            'Accept': 'application/json', 'Content-Type': 'application/json'})
        # No retry of the HTTP client's own: the task's (``_retry``) is the one layer, within the task's timeout
        # as a whole; a retry inside a request would outlast it (each one a whole socket timeout, or a Retry-After)
        self._session.mount('http://', HTTPAdapter(max_retries=Retry(total=0, read=False, redirect=False)))
        self._session.mount('https://', HTTPAdapter(max_retries=Retry(total=0, read=False, redirect=False)))
        self.vrfs = {'default': None}     # namespace -> VRF id (None: the global table)
        self._schema_ready = False
        self.tx = None

    def close(self):
        self._session.close()

    def request(self, method, path, params=None, body=None, ok=(200, 201, 204)):
        if method == 'DELETE':
            ok = tuple(ok) + (404,)     # gone already (a DELETE resent after its answer was lost): done
        try:
            return self._send_request(method, path, params, body, ok)
        except Refused as e:
            missing = 'custom field' in e.text.lower() or 'tag' in e.text or 'netpool' in e.text
            if self._schema_ready or method == 'GET' or '/extras/' in path or not missing:
                raise
        self._ensure_schema()       # the first change on this NetBox: make the custom fields and the tag
        return self._send_request(method, path, params, body, ok)

    def _send_request(self, method, path, params, body, ok):
        url = path if path.startswith('http') else self.base + path
        write = method != 'GET' and url != self.graphql
        response = self._exchange(method, url, params, body, write)
        if response.status_code not in ok:
            try:
                self._refuse(method, url, response)
            except StoreBusy as e:      # 429: NetBox processed nothing, and says when to come back
                raise _retry.mark(e, _retry.CONNECT, said='NetBox asked to slow down (429)',
                                  after=_retry_after(response))
            except StoreUnavailable as e:
                if response.status_code in AWAY:
                    raise gone(e, True, write, body, self.tx, after=_retry_after(response),
                               said='NetBox away (%d)' % response.status_code)
                raise
        if write and self.tx is not None:
            self.tx.answered += 1
        if method == 'POST' and self.tx is not None and response.status_code == 201 and '/ipam/' in url \
                and '/ipam/vrfs/' not in url:
            made = response.json()
            made = made if isinstance(made, list) else [made]
            bodies = (body if isinstance(body, list) else [body]) or [None]
            # each object made with the token of its own body (a bulk allocation names one reservation each): its
            # undo then unmakes its history entry
            self.tx.undo += [('delete', obj['url'], ((bodies[min(i, len(bodies) - 1)] or {}).get('changelog_message')
                                                     or '').split(' ')[1:2]) for i, obj in enumerate(made)]
            self.tx.covered += 1
        return response

    def _timeout(self, method, url, write, body):
        """The socket timeouts of one request: what is left of the task's ``timeout`` within its retries (connecting
        and the wait for the answer together: no request outlasts the deadline), else ``timeout``. Connecting takes
        10 seconds at most: a connection attempt lost on the way is retried sooner."""
        left = _retry.remaining()
        if left is None:
            left = self.timeout
        elif left <= 0:
            raise gone(StoreBusy('NetBox at %s: the task\'s timeout of %s seconds ran out before %s %s could be sent. '
                                 'Raise timeout, or check the server.' % (self.url, self.timeout, method, _path(url))),
                       False, write, body, self.tx, said='no time left')
        return Timeout(connect=min(left, 10), read=left, total=left)

    def _exchange(self, method, url, params, body, write):
        """One request and its answer (no retry here), NetBox's failures to answer worded for the user and marked
        for ``_retry``."""
        timeout = self._timeout(method, url, write, body)
        try:
            return self._session.request(method, url, params=params, data=None if body is None else json.dumps(body),
                                         timeout=timeout)
        except requests.exceptions.SSLError as e:
            raise StoreUnavailable(_tls_failed(self.url, e))
        except requests.exceptions.ConnectTimeout:
            raise gone(StoreBusy('NetBox at %s did not accept a connection within %s seconds. Raise timeout, or '
                                 'check the server.' % (self.url, _seconds(timeout.connect_timeout))),
                       False, write, body, self.tx, said='no connection accepted in time')
        except requests.exceptions.Timeout:
            raise gone(StoreBusy('NetBox at %s did not answer %s %s within %s seconds (what was left of the task\'s '
                                 'timeout of %s seconds). Raise timeout, or check the server.'
                                 % (self.url, method, _path(url), _seconds(timeout.total), self.timeout)),
                       True, write, body, self.tx, said='no answer in time')
        except (requests.exceptions.ConnectionError, requests.exceptions.ChunkedEncodingError) as e:
            unsent = _unsent(e)
            raise gone(StoreUnavailable('Cannot reach NetBox at %s (%s). Check the store URL and that NetBox is '
                                        'running.' % (self.url, _first_line(e))), not unsent, write, body, self.tx,
                       said='could not connect' if unsent else 'connection lost before NetBox answered')
        except requests.exceptions.RequestException as e:
            raise StoreUnavailable('Cannot reach NetBox at %s (%s). Check the store URL and that NetBox is running.'
                                   % (self.url, _first_line(e)))

    def _refuse(self, method, url, response):
        where = '%s %s' % (method, _path(url))
        if response.status_code == 429:     # a rate limit (NetBox's, or a proxy's, whose page is not JSON)
            after = _retry_after(response)
            raise StoreBusy('NetBox at %s answered %s with 429 Too Many Requests (a rate limit, in NetBox or a proxy '
                            'in front of it)%s.' % (self.url, where, '' if after is None else (
                                ', asking for %s seconds before the next request (Retry-After)' % _seconds(after))))
        try:
            detail = response.json()
        except ValueError:
            if response.status_code < 500:
                raise StoreUnavailable('%s is not a NetBox API: %s answered %d with a page, not JSON. Check the store '
                                       'URL (netbox+https://HOST, with NetBox\'s base path if it has one).'
                                       % (self.url, where, response.status_code))
            detail = response.text[:300]
        if isinstance(detail, dict) and set(detail) == set(['detail']):
            detail = detail['detail']
        text = json.dumps(detail) if not isinstance(detail, str) else detail
        text = text.replace(self._secret, '********')
        if response.status_code in (401, 403):
            if 'permission' in text.lower():
                raise StoreUnavailable('NetBox at %s refused %s: %s The token needs write permission on IPAM '
                                       '(prefixes, IP ranges, IP addresses, VRFs) and, the first time, on extras '
                                       '(custom fields and tags).' % (self.url, where, text))
            raise StoreUnavailable('NetBox at %s refused the API token (%s): %s Check store_token.'
                                   % (self.url, where, text))
        if response.status_code >= 500:
            raise StoreUnavailable('NetBox at %s failed %s with %d: %s' % (self.url, where, response.status_code, text))
        raise Refused(response.status_code, where, text)

    def get(self, path, params=None):
        """NetBox's answer to a GET. In a transaction that writes nothing, the same question is asked once: its
        answer is kept for the rest of the transaction (NetBox holds no lock, so asking again would not make the
        answer truer, only cost NetBox a request; a transaction that writes asks again, since what it sent changes
        the answers). Each caller gets an answer of its own to change."""
        tx = self.tx
        if tx is None or tx.write:
            return self.request('GET', path, params=params).json()
        asked = (path, json.dumps(params, sort_keys=True))
        if asked not in tx.answers:
            tx.answers[asked] = self.request('GET', path, params=params).text
        return json.loads(tx.answers[asked])

    def all(self, path, params=None):
        """Every object of a list, page after page."""
        params = dict(params or {}, limit=PAGE)
        page = self.get(path, params)
        found = list(page['results'])
        while page.get('next'):
            page = self.get(page['next'])
            found += page['results']
        return found

    def send(self, tx):
        """Send the writes kept so far, each with the changelog message of its history entry."""
        ops, tx.ops, last, tx.last, tx.unnamed = tx.ops, [], tx.last, [], []
        for op in ops + last:
            op[0](op[1] or 'netpool: change')
        tx.freed.clear()

    def undo(self, tx):
        """Undo, newest first, what a transaction that failed sent (an allocation, the writes sent before it, or the
        first writes of a commit that failed part way): delete what it created, make again what it deleted, change
        back what it changed. A reservation made again is the same reservation (its claim), at the same address.
        Once NetBox is found gone the rest is left as it is (the next attempt of a retried task reads it). Whether
        everything this transaction sent is undone."""
        complete = tx.answered <= tx.covered        # every write sent has its undo (the undo's own not counted)
        for entry in reversed(list(tx.undo)):
            message = ' '.join(['netpool: undo'] + entry[-1])
            try:
                if entry[0] == 'delete':
                    self.request('DELETE', entry[1], body={'changelog_message': message})
                else:
                    entry[1](message)
            except (StoreUnavailable, StoreBusy) as e:
                if _retry.kind_of(e) is not None:
                    return False
        return complete

    def taken_back(self, ident):
        """The changelog message that deletes IP address ``ident``, made by this transaction, as the undo of its
        creation (``netpool: undo TOKEN``), or None for one it did not make. An allocation deleted again in
        the transaction that made it (a candidate a probe found answering) was never handed out: the change log
        reads its creation as undone (``_history``), and a failure later does not make it again, since it was not
        there before the transaction."""
        made = next((entry for entry in self.tx.undo if entry[0] == 'delete'
                     and _path(entry[1]).endswith('/ipam/ip-addresses/%d/' % ident)), None)
        if made is None:
            return None
        self.tx.undo.remove(made)
        self.tx.covered += 1        # the DELETE about to be sent is the whole undo of the creation
        return ' '.join(['netpool: undo'] + made[-1])

    def undoable(self, message, restore):
        """What a sent write that deleted or changed something needs if the transaction fails: ``restore``."""
        self.tx.undo.append(('restore', restore, message.split(' ')[1:2]))
        self.tx.covered += 1

    def later(self, op, last=False, frees=None):
        """Keep a write until the transaction commits (``last``: after the others); ``frees``: the (version,
        address) of the IP address it deletes."""
        tx = self.tx
        kept = [op, None]
        (tx.last if last else tx.ops).append(kept)
        tx.unnamed.append(kept)
        if frees is not None:
            tx.freed.add(frees)

    def _ensure_schema(self):
        """Create the custom fields and tag this store uses, once per process, when a change needs them."""
        if self._schema_ready:
            return
        have = set(f['name'] for f in self.all('/extras/custom-fields/', {'name__isw': 'netpool'}))
        for name, (kind, types, extra) in sorted(FIELDS.items()):
            if name not in have:
                body = dict(extra, name=name, type=kind, object_types=types, label=name,
                            description='netpool.ipam (do not edit by hand)', ui_editable='hidden')
                self._create('/extras/custom-fields/', body, 'the custom field %s' % name)
        if not self.get('/extras/tags/', {'slug': TAG})['results']:
            self._create('/extras/tags/', {'name': TAG, 'slug': TAG, 'description': 'managed by netpool.ipam'},
                         'the tag %s' % TAG)
        self._schema_ready = True

    def _create(self, path, body, what):
        try:
            self.request('POST', path, body=body)
        except StoreUnavailable as e:
            if 'permission' not in str(e):
                raise
            raise StoreUnavailable('The NetBox store needs %s, which does not exist, and the token may not create it. '
                                   'Create it once with a token that may (%s %s), or let an administrator create '
                                   'it; docs/stores.md lists the custom fields and the tag.' % (what, path,
                                                                                                json.dumps(body)))

    def vrf(self, namespace, make=False):
        """The VRF id of a namespace (None: the global table); ``False`` if it has none and ``make`` is off."""
        if namespace in self.vrfs:
            return self.vrfs[namespace]
        found = [v for v in self.get('/ipam/vrfs/', {'name': namespace, 'limit': 10})['results']
                 if v['name'] == namespace]
        if found:
            self.vrfs[namespace] = found[0]['id']
        elif make:
            made = self.request('POST', '/ipam/vrfs/', body={
                'name': namespace, 'enforce_unique': True, 'description': 'netpool.ipam namespace',
                'tags': [{'slug': TAG}]}).json()
            self.vrfs[namespace] = made['id']
        else:
            return False
        return self.vrfs[namespace]

    def scoped(self, namespace, params=None):
        """List parameters selecting the namespace's VRF; None if the namespace has none yet."""
        vrf = self.vrf(namespace)
        if vrf is False:
            return None
        return dict(params or {}, vrf_id='null' if vrf is None else vrf)

    def ask(self, query, variables):
        """The data a GraphQL query answers (a GET; a POST where the URL would be long), or None where GraphQL
        cannot be used (it is not tried again by this store)."""
        params = {'query': query, 'variables': json.dumps(variables)}
        try:
            if len(params['query']) + len(params['variables']) < 3000:
                data = self.get(self.graphql, params)
            else:
                data = self.request('POST', self.graphql, body={'query': query, 'variables': variables},
                                    ok=(200,)).json()
        except StoreUnavailable as e:
            if _retry.kind_of(e) is not None:
                raise       # NetBox is away, not its GraphQL API
            data = None     # GraphQL turned off, or not allowed: the REST API says what is wrong, if anything
        if not isinstance(data, dict) or data.get('errors') or not isinstance(data.get('data'), dict):
            self.graphql = None
            return None
        return data['data']

    def by_claim(self, namespace, pool, owner, key, fresh=False):
        """The IP addresses holding the claims of an owner and key (one per family: ``claims_of``), lowest id first
        (read once per transaction unless ``fresh``)."""
        wanted = claim(namespace, pool, owner, key)
        if not fresh and self.tx is not None and wanted in self.tx.claims:
            return self.tx.claims[wanted]
        params = self.scoped(namespace, {'cf_netpool_claim': list(claims_of(wanted)), 'limit': 10})
        found = [] if params is None else self.get('/ipam/ip-addresses/', params)['results']
        found = holding(found, wanted)
        if self.tx is not None:
            self.tx.claims[wanted] = found
        return found

    def reclaim(self, namespace, pool, owner, key):
        """Before an IPv4 reservation of an owner and key is written: an IPv6 one made before 1.1.0 holds the claim
        without a family that the IPv4 one takes, and is given its own (``.../ipv6``) first (undone with the
        transaction)."""
        base = claim(namespace, pool, owner, key)
        for obj in self.by_claim(namespace, pool, owner, key):
            fields = obj['custom_fields']
            if fields.get('netpool_claim') != base or ':' not in obj['address']:
                continue
            fields['netpool_claim'] = base + IPV6

            def send(message, ident=obj['id']):
                path = '/ipam/ip-addresses/%d/' % ident
                self.request('PATCH', path, body={'custom_fields': {'netpool_claim': base + IPV6},
                                                  'changelog_message': message})
                self.undoable(message, lambda undo: self.request('PATCH', path, body={
                    'custom_fields': {'netpool_claim': base}, 'changelog_message': undo}))
            self.later(send)

    def due(self, namespace, time):
        """The IP addresses of a namespace whose ``netpool_expires`` is at or before ``time``: expired leases and
        rests that are over, of every pool, in one read per transaction (a change expires its pool's tree)."""
        key = (namespace, time)
        if key not in self.tx.due and namespace in self.tx.read and time <= self.tx.read[namespace][0]:
            self.tx.due[key] = [o for o in self.tx.read[namespace][1] if (
                (o['custom_fields'] or {}).get('netpool_expires') or '').replace('+00:00', 'Z') <= time]
        if key not in self.tx.due:
            params = self.scoped(namespace, expiring(time))
            self.tx.due[key] = [] if params is None else self.all('/ipam/ip-addresses/', params)
        return self.tx.due[key]

    def delete_address(self, ident, message):
        """Delete IP address ``ident`` (one already gone is fine)."""
        self.request('DELETE', '/ipam/ip-addresses/%d/' % ident, body={'changelog_message': message})


def holding(objects, base):
    """Those of the IP addresses ``objects`` that hold a claim of the owner and key of claim ``base``, lowest id
    first."""
    wanted = claims_of(base)
    return sorted((o for o in objects if (o['custom_fields'] or {}).get('netpool_claim') in wanted),
                  key=lambda o: o['id'])


def gone(error, sent, write, body, tx, said=None, after=None):
    """``error`` (NetBox went away during a request) marked for ``_retry``: a write that may have reached NetBox
    (``sent``) as a commit whose answer is lost, its evidence the history tokens of its changelog message and
    whether the transaction ``tx`` had writes answered before it; anything else as nothing kept (``connect``: the
    request cannot have reached NetBox). ``NetboxStore.transaction`` looks at it again with the whole transaction
    in view. ``said`` and ``after``: as ``_retry.mark`` has them."""
    if write and sent:
        bodies = body if isinstance(body, list) else [body]
        tokens = [b['changelog_message'].split(' ')[1] for b in bodies
                  if isinstance(b, dict) and (b.get('changelog_message') or '').startswith('netpool: ')]
        return _retry.mark(error, _retry.COMMIT, {'kept': bool(tx is not None and tx.answered), 'tokens': tokens},
                           said=said or 'answer to a write lost', after=after)
    return _retry.mark(error, _retry.TRANSACTION if sent else _retry.CONNECT, said=said, after=after)


def _unsent(error):
    """Whether a connection error of ``requests`` happened before anything was sent: no connection was made
    (refused, unreachable, timed out connecting)."""
    reason = error.args[0] if error.args else None
    return isinstance(getattr(reason, 'reason', reason), ConnectTimeoutError)


def _retry_after(response):
    """The seconds a ``Retry-After`` header asks for (a number, or an HTTP date), or None."""
    value = (response.headers.get('Retry-After') or '').strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _tls_failed(url, error):
    """What a failed TLS handshake with NetBox means: a certificate not verified, or a server that does not speak
    TLS there (plain HTTP answering a ``netbox+https`` store)."""
    cause = error.args[0] if error.args else None
    cause = getattr(cause, 'reason', None)      # what urllib3 met, without its pool and URL around it
    text = _first_line(cause if isinstance(cause, Exception) else error)
    reason = text.lower()
    if 'certificate' in reason or 'hostname' in reason:
        return ('Cannot verify the TLS certificate of NetBox at %s (%s). Install its CA, or set validate_certs: '
                'false for a test instance.' % (url, text))
    plain = any(word in reason for word in ('wrong_version_number', 'wrong version number', 'record layer failure',
                                            'packet length too long', 'http request'))
    return ('The TLS handshake with NetBox at %s failed (%s)%s. Check the scheme: netbox+https:// for a NetBox '
            'served over TLS, netbox+http:// for one served over plain HTTP, and the port.'
            % (url, text, ': the server answered in plain HTTP, not TLS' if plain else ''))


def _seconds(value):
    return '%g' % round(value, 1)


def _first_line(error):
    return str(error).strip().splitlines()[0][:300] if str(error).strip() else type(error).__name__


def _path(url):
    return urlsplit(url).path


class Refused(StoreUnavailable):
    """NetBox refused a request (a 4xx other than 401/403): the caller may know what it means."""

    def __init__(self, status, where, text):
        StoreUnavailable.__init__(self, 'NetBox refused %s (%d): %s' % (where, status, text))
        self.status, self.where, self.text = status, where, text
