# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What every change leaves: check mode writes nothing, history records each change."""

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


class CheckModeTests(Base):

    def test_check_mode_writes_nothing(self, svc, web):
        result = self.unchanged(svc, svc.reserve, 'web', 'h1')
        assert result['changed'] is True
        assert result['reservation']['predicted'] is True
        assert result['reservation']['address'] == '10.0.0.10'
        result = self.unchanged(svc, svc.pool, 'new', subnets=[{'cidr': '10.8.0.0/24'}])
        assert result['changed'] is True and result['pool']['size'] == 254
        self.unchanged(svc, svc.range, 'web', '10.0.0.30-10.0.0.40')
        svc.reserve('web', 'h1')
        result = self.unchanged(svc, svc.release, owner='h1')
        assert [r['address'] for r in result['released']] == ['10.0.0.10']
        self.unchanged(svc, svc.pool, 'web', state='absent', force=True)
        static = self.unchanged(svc, svc.reserve, 'web', 'h2', address='10.0.0.50')
        assert 'predicted' not in static['reservation']


class HistoryTests(Base):

    def test_every_change_is_recorded(self, svc, web):
        svc.range('web', '10.0.0.30', kind='excluded')
        svc.reserve('web', 'h1')
        svc.reserve('web', 'h1', address='10.0.0.50')
        svc.release(owner='h1')
        history = svc.info(history=True)['history']
        assert [(e['object'], e['action']) for e in history] == [
            ('pool', 'create'), ('range', 'add'), ('reservation', 'reserve'), ('reservation', 'move'),
            ('reservation', 'release')]
        assert history[3]['old']['address'] == '10.0.0.10' and history[3]['new']['address'] == '10.0.0.50'
        assert all(e['time'] and e['namespace'] == 'default' for e in history)
        by_address = svc.info(history=True, address='10.0.0.10')['history']
        assert [e['action'] for e in by_address] == ['reserve']
        by_owner = svc.info(history=True, owner='h1')['history']
        assert [e['action'] for e in by_owner] == ['reserve', 'move', 'release']
