import { expect } from 'chai';
import { createLogger, OutageLog } from '../../../common/logger.js';
import { LogCapture } from '../../helpers/app.js';

describe('OutageLog', () => {
  it('logs an outage once, then at most every interval with the count left out, and its end once', () => {
    const capture = new LogCapture();
    let now = 0;
    const outage = new OutageLog(createLogger('info', 't', capture), 'redis', 30_000, () => now);
    for (let i = 0; i < 40; i++, now += 250) outage.error(new Error('ECONNREFUSED')); // 10 s at 4 a second
    expect(capture.lines).to.have.length(1);
    now = 31_000;
    outage.error(new Error('ECONNREFUSED'));
    expect(capture.lines).to.have.length(2);
    expect(capture.lines[1]).to.include({ suppressed: 39, msg: 'redis still failing' });
    outage.recovered();
    outage.recovered();
    expect(capture.lines.map((l) => l.msg)).to.deep.equal([
      'redis failing; repeats are logged at most every 30 s',
      'redis still failing',
      'redis working again',
    ]);
  });
});
