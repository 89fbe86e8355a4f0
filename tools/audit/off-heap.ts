import { createHash } from 'node:crypto';

/**
 * Storage for the audit's per-event facts outside the JavaScript heap, so that a history of
 * millions of events is read with a heap of a few tens of MB: event ids as 16 raw bytes, each
 * in a Buffer rather than as an object or a string.
 */

/** A UUID's 16 bytes; anything else (the schemas allow none) is hashed into 16 bytes. */
export function idBytes(eventId: string): Buffer {
  const hex = eventId.replace(/-/g, '');
  if (/^[0-9a-f]{32}$/i.test(hex)) return Buffer.from(hex, 'hex');
  return createHash('sha256').update(eventId).digest().subarray(0, 16);
}

export function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A set of event ids: open addressing over one Buffer of 16-byte slots, doubled when half full. */
export class EventIdSet {
  private slots = Buffer.alloc((1 << 16) << 4);
  private used = new Uint8Array(1 << 16);
  private size = 0;

  /** Adds the id; false when it was there already. */
  add(id: Buffer): boolean {
    if (this.size * 2 >= this.used.length) this.grow();
    const inserted = this.place(id, this.slots, this.used);
    if (inserted) this.size++;
    return inserted;
  }

  private place(id: Buffer, slots: Buffer, used: Uint8Array): boolean {
    const mask = used.length - 1;
    for (let slot = id.readUInt32LE(0) & mask; ; slot = (slot + 1) & mask) {
      if (!used[slot]) {
        id.copy(slots, slot * 16);
        used[slot] = 1;
        return true;
      }
      if (slots.compare(id, 0, 16, slot * 16, slot * 16 + 16) === 0) return false;
    }
  }

  private grow(): void {
    const [oldSlots, oldUsed] = [this.slots, this.used];
    this.slots = Buffer.alloc(oldSlots.length * 2);
    this.used = new Uint8Array(oldUsed.length * 2);
    for (let slot = 0; slot < oldUsed.length; slot++) {
      if (oldUsed[slot]) this.place(oldSlots.subarray(slot * 16, slot * 16 + 16), this.slots, this.used);
    }
  }
}

/** One remembered event: its kind (the audit's own codes), id and time. */
export interface Mark {
  kind: number;
  id: string;
  at: number;
}

const markBytes = 1 + 16 + 8 + 4; // kind, id, occurredAt, index of the task's previous mark + 1 (0: none)

/**
 * Marks appended to one growing Buffer, each task's chained from its latest: a task holds one
 * number (its head) however many marks it has.
 */
export class MarkArena {
  private buffer = Buffer.alloc(markBytes * 4096);
  private count = 0;

  /** Appends a mark after `head` (0 for a task's first); returns the task's new head. */
  append(head: number, kind: number, id: Buffer, at: number): number {
    if ((this.count + 1) * markBytes > this.buffer.length) {
      const bigger = Buffer.alloc(this.buffer.length * 2);
      this.buffer.copy(bigger);
      this.buffer = bigger;
    }
    const offset = this.count * markBytes;
    this.buffer.writeUInt8(kind, offset);
    id.copy(this.buffer, offset + 1);
    this.buffer.writeDoubleLE(at, offset + 17);
    this.buffer.writeUInt32LE(head, offset + 25);
    return ++this.count;
  }

  /** A task's marks, oldest first. */
  marksFrom(head: number): Mark[] {
    const marks: Mark[] = [];
    for (let index = head; index !== 0;) {
      const offset = (index - 1) * markBytes;
      marks.push({
        kind: this.buffer.readUInt8(offset),
        id: uuidOf(this.buffer.subarray(offset + 1, offset + 17)),
        at: this.buffer.readDoubleLE(offset + 17),
      });
      index = this.buffer.readUInt32LE(offset + 25);
    }
    return marks.reverse();
  }
}
