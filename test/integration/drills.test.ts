import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { DrillRig, formatResult } from '../../scripts/drills/harness.js';
import { loadDrills, runDrill } from '../../scripts/drills/registry.js';

const DRILLS = await loadDrills();
import { testServices } from '../helpers/services.js';

/**
 * The fault drills of `npm run drill`, shortened: 2 s faults under 15 reports/s, on the test run's
 * PostgreSQL and Redis (behind cuttable proxies) with the real API and worker processes.
 */
describe('fault drills (shortened)', function () {
  this.timeout(180_000);
  let rig: DrillRig;
  const dir = path.resolve('.test-data', `drill-${process.pid}`);

  before(async () => {
    const services = await testServices();
    rig = await DrillRig.start({
      dir,
      databaseUrl: services.databaseUrl,
      redisUrl: services.redisUrl,
      // Shortened: a dead worker's statements are claimed for 10 s (twice this), not production's
      // minute; still longer than its stalled job takes to run again, so the quiet crash is met.
      env: { TDB_TIMEOUT_MS: '5000' },
    });
    // Sequentially: four cold tsx starts at once on two cores take longer than one after another.
    for (const kind of ['api', 'enrichment', 'review'] as const) await rig.launch(kind);
  });
  let failed = false;
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });
  after(async () => {
    await rig?.stop();
    // The processes' logs are the clue when a drill fails: kept then (path in the message), removed otherwise.
    if (failed) process.stderr.write(`drill process logs kept in ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  });

  // redis-crash needs a Redis of the rig's own: it runs below, on a rig with its own servers.
  for (const name of [...DRILLS].filter(([n, c]) => c.kind === 'rig' && n !== 'redis-crash').map(([n]) => n))
    it(`${name}: nothing lost, nothing doubled`, async () => {
      const result = await runDrill(rig, DRILLS, name, { faultSeconds: 2, steadySeconds: 1.5, rate: 15 });
      expect(result.ok, formatResult(result)).to.equal(true);
      expect(result.checks.length).to.be.greaterThan(5);
    });
});

describe('the redis-crash drill (shortened), on servers of its own', function () {
  this.timeout(240_000);
  let rig: DrillRig;
  const dir = path.resolve('.test-data', `drill-crash-${process.pid}`);
  let failed = false;

  before(async () => {
    // Its own PostgreSQL and Redis: Redis is killed, and the reconciler (off on a shared database)
    // must be on to bring the lost jobs back.
    rig = await DrillRig.start({ dir });
    for (const kind of ['api', 'enrichment', 'review'] as const) await rig.launch(kind);
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });
  after(async () => {
    await rig?.stop();
    if (failed) process.stderr.write(`drill process logs kept in ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  });

  it('redis-crash: acknowledged jobs lost with the last second of the AOF are re-added; nothing lost, nothing doubled', async () => {
    const result = await runDrill(rig, DRILLS, 'redis-crash', {
      faultSeconds: 3,
      steadySeconds: 2,
      rate: 20,
    });
    expect(result.ok, formatResult(result)).to.equal(true);
    expect(result.checks.map((c) => c.name)).to.include('acknowledged writes were lost');
  });
});
