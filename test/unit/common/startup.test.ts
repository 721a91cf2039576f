import fs from 'node:fs';
import { expect } from 'chai';
import sinon from 'sinon';
import {
  cpuTicks,
  ensureWritableDir,
  ProgressWatch,
  redactUrl,
  StartupError,
} from '../../../common/startup.js';

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

describe('ProgressWatch: npm start waits while the API makes progress', () => {
  it('keeps waiting past the quiet period while something changes, and gives up after a quiet period', () => {
    const w = new ProgressWatch(30_000, 300_000, 0);
    // CPU time grows every sample for two minutes: four quiet periods' worth, still waiting.
    for (let t = 0; t <= 120_000; t += 1000) expect(w.observe(t, `cpu ${t}`)).to.equal(true);
    // Then nothing changes: still waiting just under the quiet period, not at it.
    expect(w.observe(149_999, 'cpu 120000')).to.equal(true);
    expect(w.observe(150_000, 'cpu 120000')).to.equal(false);
    expect(w.quiet(150_000)).to.equal(true);
  });
  it('gives up at the overall bound even while something changes', () => {
    const w = new ProgressWatch(30_000, 300_000, 0);
    expect(w.observe(299_000, 'a')).to.equal(true);
    expect(w.observe(300_000, 'b')).to.equal(false);
    expect(w.quiet(300_000)).to.equal(false);
  });
  it('reads a live process’s CPU time from /proc, and nothing for a gone one', () => {
    const own = cpuTicks(process.pid);
    if (own === undefined) return; // no /proc here
    expect(own).to.be.a('number').and.to.be.at.least(0);
    expect(cpuTicks(2 ** 22 + 12345)).to.equal(undefined);
  });
});
