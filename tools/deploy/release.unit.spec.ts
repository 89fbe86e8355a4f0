import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isCommitId, prepareRelease } from './release';

describe('a release to build beside the head', () => {
  it('is named by a full commit id only', () => {
    expect(isCommitId('0c1c54954bca73595ef533e67ecde35788fd2db5')).toBe(true);
    for (const value of ['HEAD', '0c1c549', '--upload-pack=touch /tmp/owned', '../../etc', `${'a'.repeat(40)}\n`, 'A'.repeat(40)])
      expect(isCommitId(value)).toBe(false);
  });

  it('refuses a value git would take as an option, or a path out of its folder, before running anything', () => {
    const owned = path.join(os.tmpdir(), `owned-${process.pid}`);
    expect(() => prepareRelease(`--upload-pack=touch ${owned}`)).toThrow('is not a commit id');
    expect(() => prepareRelease('../../../tmp')).toThrow('is not a commit id');
    expect(fs.existsSync(owned)).toBe(false);
    expect(fs.existsSync(path.join(os.tmpdir(), 'task-platform-releases', '../../../tmp', '.release-built'))).toBe(false);
  });
});
