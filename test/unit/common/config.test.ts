import os from 'node:os';
import { expect } from 'chai';
import { ConfigError, parseConfig } from '../../../common/config.js';
import { QUEUES } from '../../../common/queues/index.js';
import { concurrencyOf } from '../../../worker/run.js';

describe('configuration', () => {
  it('applies documented defaults to an empty development environment', () => {
    const config = parseConfig({});
    expect(config.port).to.equal(3000);
    expect(config.tokenTtlSeconds).to.equal(3600);
    expect(config.penaltyCaps).to.deep.equal({ cheating: 20, griefing: 15, toxicity: 10, afk: 5 });
    expect(config.dataDir).to.match(/\.data$/);
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it('listens on all interfaces in production (images, Procfile platforms), on loopback elsewhere', () => {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/pt',
      REDIS_URL: 'redis://redis:6379',
      CLIENT_SECRET_PEPPER: 'p'.repeat(32),
      JWT_SIGNING_KEY: '{}',
      PUBLIC_URL: 'https://trust.example.com',
      METRICS_TOKEN: 't'.repeat(16),
    };
    expect(parseConfig(production).host).to.equal('0.0.0.0');
    expect(parseConfig({ ...production, HOST: '10.0.0.5' }).host).to.equal('10.0.0.5');
    expect(parseConfig({}).host).to.equal('127.0.0.1');
    expect(parseConfig({ NODE_ENV: 'test' }).host).to.equal('127.0.0.1');
  });

  it('names every bad variable in one error', () => {
    expect(() => parseConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.includes('PORT')
      .and.includes('LOG_LEVEL')
      .and.includes('DATABASE_URL');
  });

  it('sets how many jobs each worker kind runs at once', () => {
    const defaults = parseConfig({});
    expect(
      [QUEUES.enrichment, QUEUES.review, QUEUES.webhooks].map((q) => concurrencyOf(defaults, q)),
    ).to.deep.equal([50, 50, 50]);
    const set = parseConfig({
      WORKER_CONCURRENCY: '3',
      ENRICHMENT_WORKER_CONCURRENCY: '7',
      REVIEW_WORKER_CONCURRENCY: '120',
    });
    expect(
      [QUEUES.enrichment, QUEUES.review, QUEUES.webhooks].map((q) => concurrencyOf(set, q)),
    ).to.deep.equal([7, 120, 3]);
    expect(() => parseConfig({ REVIEW_WORKER_CONCURRENCY: '0' })).to.throw(/REVIEW_WORKER_CONCURRENCY/);
    expect(() => parseConfig({ ENRICHMENT_WORKER_CONCURRENCY: '201' })).to.throw(
      /ENRICHMENT_WORKER_CONCURRENCY/,
    );
  });

  it('refuses to raise the spec-fixed penalty caps', () => {
    expect(() => parseConfig({ PENALTY_CAP_ANTICHEAT: '21' })).to.throw(/PENALTY_CAP_ANTICHEAT/);
    expect(() => parseConfig({ PENALTY_CAP_GRIEFING: '16' })).to.throw(/PENALTY_CAP_GRIEFING/);
    expect(parseConfig({ PENALTY_CAP_ANTICHEAT: '12' }).penaltyCaps.cheating).to.equal(12);
  });

  it('requires real servers and secrets in production', () => {
    let message = '';
    try {
      parseConfig({ NODE_ENV: 'production' });
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'CLIENT_SECRET_PEPPER',
      'JWT_SIGNING_KEY',
      'PUBLIC_URL',
      'METRICS_TOKEN',
    ])
      expect(message).to.match(new RegExp(`${name}: is required`));
  });

  it('reads the strike ladder, and names STRIKE_LADDER when it is wrong', () => {
    expect(
      parseConfig({ STRIKE_LADDER: '1=warning,3=chat_restriction/12h,5=permanent_ban' }).strikeLadder,
    ).to.deep.equal([
      { strikes: 1, type: 'warning', durationSeconds: null },
      { strikes: 3, type: 'chat_restriction', durationSeconds: 43_200 },
      { strikes: 5, type: 'permanent_ban', durationSeconds: null },
    ]);
    expect(parseConfig({}).strikeLadder.map((r) => r.strikes)).to.deep.equal([2, 4, 8]);
    // A restriction's rung may last a number of finished matches instead of a time (issue 54).
    expect(
      parseConfig({ STRIKE_LADDER: '2=matchmaking_restriction/10matches,4=temporary_ban/7d' }).strikeLadder,
    ).to.deep.equal([
      { strikes: 2, type: 'matchmaking_restriction', durationSeconds: null, matches: 10 },
      { strikes: 4, type: 'temporary_ban', durationSeconds: 604_800 },
    ]);
    for (const bad of [
      '2=temporary_ban/5matches',
      '2=chat_restriction/0matches',
      '2=chat_restriction/1001matches',
      '2=temporary_ban',
      '2=shadow_ban/1d',
      '3=warning,2=warning',
      '2=permanent_ban/1d',
      'two',
    ])
      expect(() => parseConfig({ STRIKE_LADDER: bad }), bad).to.throw(/STRIKE_LADDER/);
  });
  it('API_PROCESSES: a count, or "auto" for one per core; 0 or words are refused', () => {
    expect(parseConfig({}).apiProcesses).to.equal(1);
    expect(parseConfig({ API_PROCESSES: '3' }).apiProcesses).to.equal(3);
    expect(parseConfig({ API_PROCESSES: 'auto' }).apiProcesses).to.equal(os.availableParallelism());
    expect(() => parseConfig({ API_PROCESSES: '0' })).to.throw(/API_PROCESSES/);
    expect(() => parseConfig({ API_PROCESSES: 'many' })).to.throw(/API_PROCESSES/);
  });
});
