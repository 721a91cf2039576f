import { expect } from 'chai';
import { AppError } from '../../../../common/errors.js';
import { period, type PeriodFields } from '../../../../common/usecases/sanctions.js';

const now = new Date('2026-11-27T12:00:00Z');
const WAVE: PeriodFields = {
  start: 'runAt',
  end: 'sanction.durationSeconds',
  duration: 'sanction.durationSeconds',
  endAccepted: false,
};

/** The field errors a period refuses with. */
function refusal(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    return (err as AppError).fields;
  }
  throw new Error('accepted');
}

describe("a sanction's period names its faults by the caller's fields", () => {
  it("a sanction's own fields: startsAt, expiresAt, durationSeconds", () => {
    expect(refusal(() => period({ type: 'temporary_ban', reason: 'x' }, now))).to.deep.equal([
      { field: 'durationSeconds', message: 'a temporary_ban needs durationSeconds or expiresAt' },
    ]);
    expect(
      refusal(() => period({ type: 'temporary_ban', reason: 'x', durationSeconds: 10 }, now)),
    ).to.deep.equal([{ field: 'expiresAt', message: 'must be at least 60 seconds after startsAt' }]);
    expect(
      refusal(() => period({ type: 'permanent_ban', reason: 'x', durationSeconds: 3600 }, now)),
    ).to.deep.equal([{ field: 'expiresAt', message: 'a permanent ban does not expire' }]);
  });

  it("a wave's: its run time and its sanction's duration, with no end time to offer", () => {
    expect(refusal(() => period({ type: 'temporary_ban', reason: 'x' }, now, WAVE))).to.deep.equal([
      { field: 'sanction.durationSeconds', message: 'a temporary_ban needs durationSeconds' },
    ]);
    expect(
      refusal(() => period({ type: 'temporary_ban', reason: 'x', durationSeconds: 10 }, now, WAVE)),
    ).to.deep.equal([{ field: 'sanction.durationSeconds', message: 'must be at least 60 seconds long' }]);
    expect(
      refusal(() =>
        period(
          {
            type: 'chat_restriction',
            reason: 'x',
            durationSeconds: 3600,
            startsAt: new Date('2026-11-26T00:00:00Z'),
          },
          now,
          WAVE,
        ),
      ),
    ).to.deep.equal([{ field: 'runAt', message: 'must not be in the past' }]);
    expect(
      refusal(() =>
        period({ type: 'temporary_ban', reason: 'x', durationSeconds: 11 * 365 * 86_400 }, now, WAVE),
      ),
    ).to.deep.equal([{ field: 'sanction.durationSeconds', message: 'must be at most 10 years long' }]);
  });

  it('a period within the limits is its start and end', () => {
    expect(period({ type: 'temporary_ban', reason: 'x', durationSeconds: 3600 }, now, WAVE)).to.deep.equal({
      startsAt: now,
      expiresAt: new Date('2026-11-27T13:00:00Z'),
    });
  });
});
