import { splitByBytes } from './relay-requests';

const rows = (...sizes: number[]) => sizes.map((bytes, i) => ({ id: i, bytes }));
const ids = (requests: Array<Array<{ id: number }>>) => requests.map((r) => r.map((row) => row.id));

describe('splitting a relay batch into requests by bytes', () => {
  it('keeps rows in order, each request under the limit', () => {
    expect(ids(splitByBytes(rows(400, 400, 400, 100, 900), 1000))).toEqual([[0, 1], [2, 3], [4]]);
  });

  it('sends a row larger than the limit alone, so that the broker can judge it on its own', () => {
    expect(ids(splitByBytes(rows(100, 5000, 100), 1000))).toEqual([[0], [1], [2]]);
  });

  it('keeps a batch under the limit whole, and an empty batch empty', () => {
    expect(ids(splitByBytes(rows(100, 200, 300), 1000))).toEqual([[0, 1, 2]]);
    expect(splitByBytes([], 1000)).toEqual([]);
  });
});
