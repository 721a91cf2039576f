import fs from 'node:fs';
import { expect } from 'chai';
import sinon from 'sinon';
import { ensureWritableDir, redactUrl, StartupError } from '../../../common/startup.js';

describe('start-up checks', () => {
  afterEach(() => sinon.restore());

  for (const [code, words] of [
    ['EACCES', 'permission denied'],
    ['EROFS', 'read-only file system'],
  ] as const)
    it(`names ${code} when DATA_DIR cannot be written`, () => {
      sinon.stub(fs, 'mkdirSync');
      sinon.stub(fs, 'writeFileSync').throws(Object.assign(new Error(`${code}: nope`), { code }));
      expect(() => ensureWritableDir('/srv/pt')).to.throw(
        StartupError,
        new RegExp(`^DATA_DIR /srv/pt is not writable \\(${code}: .*${words}`),
      );
    });

  it('refuses a DATA_DIR under /proc at once, naming why (a recursive mkdir there never returns)', () => {
    expect(() => ensureWritableDir('/proc/player-trust/data')).to.throw(
      StartupError,
      /^DATA_DIR \/proc\/player-trust\/data is not writable \(EINVAL: \/proc is on a kernel file system/,
    );
  });

  it('names a path through a file once: ENOTDIR, then what Node says, without the code twice', () => {
    const file = `/tmp/pt-startup-${process.pid}`;
    fs.writeFileSync(file, '');
    try {
      let message = '';
      try {
        ensureWritableDir(`${file}/data`);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).to.match(/\(ENOTDIR: not a directory/);
      expect(message).not.to.include('ENOTDIR: ENOTDIR');
    } finally {
      fs.rmSync(file);
    }
  });

  it('keeps passwords out of the URLs it names', () => {
    expect(redactUrl('postgres://pt:hunter2@db:5432/pt')).to.equal('postgres://pt:***@db:5432/pt');
    expect(redactUrl('redis://127.0.0.1:6379')).to.equal('redis://127.0.0.1:6379');
  });
});
