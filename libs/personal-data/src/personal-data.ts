import type { Knex } from 'knex';
import { DataKey, unwrapDataKey } from './data-keys';
import { dataKeysByIds } from './data-key-store';
import { loadMasterKeys, MasterKeys } from './master-keys';
import { erased, keyIdOf, openText } from './personal-text';

/** What a service that reads personal fields is given: its master keys (see loadMasterKeys). */
export const PERSONAL_DATA = Symbol('PERSONAL_DATA');

export const personalDataProvider = { provide: PERSONAL_DATA, useFactory: () => new PersonalData(loadMasterKeys()) };

/** Opens the sealed fields a service reads, with the data keys it keeps (an erased key reads `[erased]`). */
export class PersonalData {
  constructor(readonly master: MasterKeys) {}

  /** A reader for these values: their keys are looked up once, by one statement. */
  async openerFor(db: Knex, values: Array<string | null | undefined>): Promise<(value: string) => string> {
    const ids = values.flatMap((value) => (typeof value === 'string' ? (keyIdOf(value) ?? []) : []));
    const keys = await dataKeysByIds(db, ids, this.master);
    return (value: string) => openText(value, (id) => keys.get(id));
  }

  /** The key a sealed value needs, from its kept (wrapped) row read with the value: undefined when none is kept. */
  keptKeyOf(value: string, userId: string, wrapped: string | null): DataKey | undefined {
    const keyId = keyIdOf(value);
    return keyId && wrapped !== null ? unwrapDataKey(wrapped, { keyId, userId }, this.master) : undefined;
  }

  /** The key one sealed value needs, or undefined when it is not sealed or the key is gone. */
  async keyOf(db: Knex, value: string): Promise<DataKey | undefined> {
    const id = keyIdOf(value);
    return id ? (await dataKeysByIds(db, [id], this.master)).get(id) : undefined;
  }
}

/** A personal JSON text as an API shows it: the object, or `[erased]`. */
export function jsonOrErased(text: string | null): unknown {
  if (text === null || text === erased) return erased;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return erased;
  }
}
