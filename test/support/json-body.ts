/**
 * A JSON answer as the tests read it: loosely, then asserted on field by field (an assertion that
 * fails says more than a type that would have to be cast).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above; the one place tests read bodies loosely
export type JsonBody = Record<string, any>;
