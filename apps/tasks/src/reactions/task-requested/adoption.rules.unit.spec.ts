import { AdoptionFacts, decideAdoption } from './adoption.rules';

const fresh: AdoptionFacts = { task: 'new', openTasks: 0, maxOpenTasks: 3, key: 'free' };

describe('adopting an outside TaskRequested', () => {
  it('given a new task with a free key and room for it, when it arrives, then it is accepted', () => {
    expect(decideAdoption(fresh)).toEqual({ kind: 'accept' });
    expect(decideAdoption({ ...fresh, key: 'no-key' })).toEqual({ kind: 'accept' });
  });

  it('given an input POST /tasks would refuse, then it is rejected with that code', () => {
    expect(decideAdoption({ ...fresh, inputRefusal: 'INPUT_TOO_DEEP' })).toEqual({ kind: 'reject', reason: 'INPUT_TOO_DEEP' });
  });

  it('given a user at the cap of unfinished tasks, then it is rejected before its key is looked at', () => {
    expect(decideAdoption({ ...fresh, openTasks: 3, key: 'same-request' })).toEqual({ kind: 'reject', reason: 'TOO_MANY_OPEN_TASKS' });
  });

  it('given its key was used before, then the same content is a DUPLICATE and other content KEY_REUSED', () => {
    expect(decideAdoption({ ...fresh, key: 'same-request' })).toEqual({ kind: 'reject', reason: 'DUPLICATE' });
    expect(decideAdoption({ ...fresh, key: 'other-request' })).toEqual({ kind: 'reject', reason: 'KEY_REUSED' });
  });

  it('given the task already exists, then nothing changes, whatever the request says', () => {
    expect(decideAdoption({ ...fresh, task: 'known', inputRefusal: 'INVALID_INPUT' })).toEqual({ kind: 'ignore' });
    expect(decideAdoption({ ...fresh, task: 'known', openTasks: 99 })).toEqual({ kind: 'ignore' });
  });

  it('given a request tasks wrote itself under the former scheme and never accepted, then it is accepted again', () => {
    expect(decideAdoption({ ...fresh, task: 'own-request-unaccepted', key: 'same-request' })).toEqual({ kind: 'accept-again' });
  });
});
