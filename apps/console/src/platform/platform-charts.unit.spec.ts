import { alignSeries, chartRangeOf } from './platform-charts';

describe('the overview charts', () => {
  it('takes only the spans offered from the query, the last hour for anything else', () => {
    expect(['15m', '1h', '6h', '24h'].map(chartRangeOf)).toEqual(['15m', '1h', '6h', '24h']);
    for (const hostile of ['toString', '__proto__', 'constructor', 'hasOwnProperty', '1h ', '', 'x'.repeat(10_000), undefined, ['6h'], { range: '6h' }]) {
      expect(chartRangeOf(hostile)).toBe('1h');
    }
  });

  it('aligns series on the union of their times, null where one has no point, dropping values that are not numbers', () => {
    const aligned = alignSeries(
      [
        {
          metric: { service: 'tasks' },
          values: [
            [10, '1'],
            [20, '2'],
          ],
        },
        {
          metric: { service: 'quota' },
          values: [
            [20, 'NaN'],
            [30, '3'],
          ],
        },
      ],
      (labels) => labels.service,
    );
    expect(aligned).toEqual({
      names: ['tasks', 'quota'],
      columns: [
        [10, 20, 30],
        [1, 2, null],
        [null, null, 3],
      ],
    });
  });
});
