import { randomUUID } from 'node:crypto';
import { EventIdSet, idBytes, MarkArena, uuidOf } from './off-heap';

describe("the audit's off-heap storage", () => {
  it('keeps a UUID in 16 bytes and gives it back', () => {
    const id = randomUUID();
    expect(idBytes(id)).toHaveLength(16);
    expect(uuidOf(idBytes(id))).toBe(id);
  });

  it('tells a new id from one seen before, across many growths of the table', () => {
    const set = new EventIdSet();
    const ids = Array.from({ length: 200_000 }, () => randomUUID());
    expect(ids.every((id) => set.add(idBytes(id)))).toBe(true);
    expect(ids.filter((_, i) => i % 1000 === 0).some((id) => set.add(idBytes(id)))).toBe(false);
    expect(set.add(idBytes(randomUUID()))).toBe(true);
  });

  it("chains each task's marks, oldest first, apart from other tasks' marks", () => {
    const arena = new MarkArena();
    const [a1, b1, a2] = [randomUUID(), randomUUID(), randomUUID()];
    let a = arena.append(0, 4, idBytes(a1), 1_700_000_000_001);
    const b = arena.append(0, 7, idBytes(b1), 1_700_000_000_002);
    a = arena.append(a, 5, idBytes(a2), 1_700_000_000_003);
    for (let i = 0; i < 10_000; i++) arena.append(0, 1, idBytes(randomUUID()), i); // forces the buffer to grow
    expect(arena.marksFrom(a)).toEqual([
      { kind: 4, id: a1, at: 1_700_000_000_001 },
      { kind: 5, id: a2, at: 1_700_000_000_003 },
    ]);
    expect(arena.marksFrom(b)).toEqual([{ kind: 7, id: b1, at: 1_700_000_000_002 }]);
    expect(arena.marksFrom(0)).toEqual([]);
  });
});
