import { outsideRequestRetentionMs } from './provisioning.config';

describe('TASK_REQUESTED_RETENTION', () => {
  it('keeps outside requests seven days unless told otherwise', () => {
    expect(outsideRequestRetentionMs({})).toBe(7 * 24 * 3_600_000);
    expect(outsideRequestRetentionMs({ TASK_REQUESTED_RETENTION: '10s' })).toBe(10_000);
  });

  it('refuses a value that is not a duration, naming it', () => {
    expect(() => outsideRequestRetentionMs({ TASK_REQUESTED_RETENTION: 'a week' })).toThrow('TASK_REQUESTED_RETENTION must be a duration');
  });
});
