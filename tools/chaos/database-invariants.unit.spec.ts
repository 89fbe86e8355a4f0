import type { HistoryEntry } from './history';
import type { Evidence } from './invariants';
import { databaseInvariants } from './database-invariants';

/** A replicated database's promotions against the failovers and switchovers the campaign made. */
describe('the campaign checker: no failover nobody asked for', () => {
  const at = (seconds: number) => Date.parse('2026-12-06T05:00:00Z') + seconds * 1000;
  const iso = (seconds: number) => new Date(at(seconds)).toISOString();
  const history: HistoryEntry[] = [
    { kind: 'fault', at: at(10), phase: 'start', id: 1, fault: 'failover-postgres', target: 'postgres:node-1 kill -9' },
    { kind: 'fault', at: at(60), phase: 'end', id: 1, fault: 'failover-postgres', target: 'postgres:node-1 kill -9' },
    { kind: 'fault', at: at(100), phase: 'start', id: 2, fault: 'kill-instance', target: 'tasks-1' },
    { kind: 'fault', at: at(105), phase: 'end', id: 2, fault: 'kill-instance', target: 'tasks-1' },
  ];
  const evidence = (promotions: Evidence['promotions']): Evidence => ({
    history,
    events: [],
    undecodable: 0,
    deadLetters: [],
    outbox: [],
    acknowledged: [],
    balances: [],
    granted: 0,
    promotions,
  });
  const violations = (promotions: Evidence['promotions']) => databaseInvariants(evidence(promotions))[0];

  it('counts nothing when every promotion falls within a failover (or just after it ends)', () => {
    expect(violations([{ timeline: 2, at: iso(45), leader: 'node-2' }]).violations).toBe(0);
    expect(violations([{ timeline: 2, at: iso(70), leader: 'node-2' }]).violations).toBe(0);
  });

  it('counts a promotion outside every failover and switchover, even during another fault', () => {
    const result = violations([
      { timeline: 2, at: iso(45), leader: 'node-2' },
      { timeline: 3, at: iso(102), leader: 'node-1' },
      { timeline: 4, at: iso(5), leader: 'node-2' },
    ]);
    expect(result.violations).toBe(2);
    expect(result.examples[0]).toContain('timeline 3');
  });

  it('checks nothing on a single server (no promotions gathered)', () => {
    expect(databaseInvariants(evidence(undefined))).toEqual([]);
  });
});
