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

  it('keeps passwords out of the URLs it names', () => {
    expect(redactUrl('postgres://pt:hunter2@db:5432/pt')).to.equal('postgres://pt:***@db:5432/pt');
    expect(redactUrl('redis://127.0.0.1:6379')).to.equal('redis://127.0.0.1:6379');
  });
});
