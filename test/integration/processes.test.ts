import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { expect } from 'chai';
import { createPool, type Pool } from '../../common/data/db.js';
import { Queue } from 'bullmq';
import { offenseBatchJobId, QUEUES } from '../../common/queues/index.js';
import { createTenant, createTestPlayer, startTestApi, TEST_PEPPER, testSigningKey } from '../helpers/app.js';
import { TestHttpServer } from '../helpers/http-server.js';
import { testServices } from '../helpers/services.js';

interface Proc {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

// Generous: three cold `tsx` processes compile the sources on a shared two-core machine.
// On a timeout the error carries each process's last log lines: the only clue to why it stalled.
let describeProcesses: () => string = () => '';
async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 40_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`not met within ${ms} ms: ${what}\n${describeProcesses()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the API and worker processes', function () {
  this.timeout(120_000);
  let env: NodeJS.ProcessEnv;
  let pool: Pool;
  const procs: Proc[] = [];

  function launch(file: string, extraEnv: NodeJS.ProcessEnv = {}): Proc {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Record<string, unknown>[] = [];
    let buffer = '';
    child.stdout!.on('data', (c: Buffer) => {
      buffer += c.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const p of parts) if (p.startsWith('{')) lines.push(JSON.parse(p) as Record<string, unknown>);
    });
    child.stderr!.on('data', (c: Buffer) => process.stderr.write(c));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const proc = { child, lines, exited };
    procs.push(proc);
    return proc;
  }

  before(async () => {
    describeProcesses = () =>
      procs
        .map(
          (p) =>
            `--- ${p.child.spawnargs.at(-1)} (exit ${p.child.exitCode})\n${p.lines
              .slice(-8)
              .map((l) => JSON.stringify(l))
              .join('\n')}`,
        )
        .join('\n');
    const services = await testServices();
    env = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      PORT: '0',
      LOG_LEVEL: 'info',
      QUEUE_PREFIX: `p${crypto.randomBytes(4).toString('hex')}`,
      CLIENT_SECRET_PEPPER: TEST_PEPPER,
      JWT_SIGNING_KEY: JSON.stringify(await testSigningKey()),
      SHUTDOWN_GRACE_MS: '5000',
      OUTBOX_RECONCILE_INTERVAL_MS: '0', // the database is shared with other tests' queue prefixes
    };
    pool = createPool(services.databaseUrl, 2);
  });
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await pool.end();
  });

  it('a report flows from the API through both workers, and SIGTERM stops every process with exit 0', async () => {
    const api = launch('api/server.ts');
    const enrichment = launch('worker/enrichment.ts');
    const review = launch('worker/review.ts');
    const listening = await waitFor('the API listens', async () =>
      api.lines.find((l) => l.msg === 'api listening'),
    );
    await waitFor(
      'both workers started',
      async () =>
        enrichment.lines.some((l) => l.msg === 'worker started') &&
        review.lines.some((l) => l.msg === 'worker started'),
    );
    const url = listening.url as string;

    const tenant = await createTenant(pool);
    const player = await createTestPlayer(pool);
    const res = await fetch(`${url}/v1/anticheat/submitReport/${player.serviceId}`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        report: { isCheatDetected: true, severity: 'high', logs: ['line one', 'line two'] },
      }),
    });
    expect(res.status).to.equal(201);
    const offenseId = ((await res.json()) as { report: { _id: string } }).report._id;

    // Review worker: the offense is filed into the open case of its player and type.
    const filed = await waitFor('the review worker filed the offense', async () => {
      const { rows } = await pool.query<{
        reports_count: number;
        total_penalty: number;
        highest_severity: string;
      }>(
        `SELECT c.reports_count, c.total_penalty, c.highest_severity FROM case_offenses co JOIN review_cases c ON c.id = co.case_id WHERE co.offense_id = $1`,
        [offenseId],
      );
      return rows[0];
    });
    expect(filed).to.deep.equal({ reports_count: 1, total_penalty: 15, highest_severity: 'high' });
    // Enrichment worker: the log evidence item carries its size, line count and hash.
    const evidence = await waitFor('the enrichment worker enriched the evidence', async () => {
      const { rows } = await pool.query<{ evidence: { enrichment?: Record<string, unknown> }[] }>(
        'SELECT evidence FROM offenses WHERE id = $1',
        [offenseId],
      );
      return rows[0]!.evidence[0]!.enrichment ? rows[0]!.evidence : undefined;
    });
    expect(evidence[0]!.enrichment).to.include({
      kind: 'text',
      chars: 'line one\nline two'.length,
      lines: 2,
      sha256: crypto.createHash('sha256').update('line one\nline two').digest('hex'),
    });

    // Graceful stop: in-flight work finishes, each process exits 0.
    for (const p of [api, enrichment, review]) p.child.kill('SIGTERM');
    expect(await Promise.all([api.exited, enrichment.exited, review.exited])).to.deep.equal([0, 0, 0]);
    expect(api.lines.some((l) => l.msg === 'api stopped')).to.equal(true);
  });

  it('API_PROCESSES=2: two API processes on one port serve as one; one that dies is replaced; SIGTERM stops all with exit 0', async () => {
    const api = launch('api/server.ts', { API_PROCESSES: '2' });
    const listening = await waitFor('two API processes listen', async () => {
      const found = api.lines.filter((l) => l.msg === 'api listening');
      return found.length >= 2 && found;
    });
    const pids = [...new Set(listening.map((l) => l.pid as number))];
    expect(pids).to.have.length(2);
    expect(pids).to.not.include(api.child.pid);
    const url = listening[0]!.url as string;
    expect(listening[1]!.url).to.equal(url); // one port, shared
    const tenant = await createTenant(pool);
    const player = await createTestPlayer(pool);
    const report = (n: number) =>
      fetch(`${url}/v1/toxicity/submitReport/${player.serviceId}`, {
        method: 'POST',
        headers: { ...tenant.headers, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ report: { isToxic: true, severity: 'low', matchId: `ap-${n}` } }),
      }).then((r) => r.status);
    expect(await Promise.all(Array.from({ length: 20 }, (_, n) => report(n)))).to.deep.equal(
      new Array(20).fill(201),
    );
    // Exact across both processes' group commits: every offense stored once, every point taken once.
    const { rows } = await pool.query<{ n: number; score: number; taken: number }>(
      `SELECT p.offense_count AS n, p.trust_score::int AS score, sum(o.penalty_points)::int AS taken
         FROM players p JOIN offenses o ON o.player_id = p.id WHERE p.service_id = $1 GROUP BY p.id`,
      [player.serviceId],
    );
    expect(rows[0]!.n).to.equal(20);
    expect(rows[0]!.score).to.equal(Math.max(0, 100 - rows[0]!.taken));
    // /metrics speaks for the service: whichever process a scrape lands on (a new connection each),
    // it counts the requests both served, so counters never go backwards between scrapes.
    const reportsCounted = (text: string) =>
      text
        .split('\n')
        .filter(
          (l) =>
            l.startsWith('player_trust_http_requests_total{') &&
            l.includes('route="/v1/toxicity/submitReport/:serviceId"') &&
            l.includes('status="201"'),
        )
        .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
    const scraped: number[] = [];
    const scrapes: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${url}/metrics`, { headers: { connection: 'close' } });
      expect(res.status).to.equal(200);
      const text = await res.text();
      scraped.push(reportsCounted(text));
      scrapes.push(
        Number(
          /^player_trust_http_requests_total\{[^}]*route="\/metrics"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0,
        ),
      );
    }
    expect(scraped).to.deep.equal(new Array(6).fill(20));
    for (let i = 1; i < scrapes.length; i++) expect(scrapes[i]).to.be.at.least(scrapes[i - 1]!);
    process.kill(pids[0]!, 'SIGKILL');
    const replaced = await waitFor('a replacement listens', async () =>
      api.lines.find((l) => l.msg === 'api listening' && !pids.includes(l.pid as number)),
    );
    expect(replaced.url).to.equal(url);
    expect(await report(100)).to.equal(201);
    api.child.kill('SIGTERM');
    expect(await api.exited).to.equal(0);
    for (const pid of [pids[1]!, replaced.pid as number])
      expect(() => process.kill(pid, 0), `process ${pid} still runs`).to.throw();
  });

  it('npm run api and npm run worker:review stop with their npm pid, as a supervisor signals it: nothing outlives npm', async () => {
    const npmRun = (script: string) => {
      const child = spawn('npm', ['run', '-s', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      return { child, output: () => output, exited };
    };
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const pidOf = (output: string, msg: string) =>
      Number(new RegExp(`"pid":(\\d+)[^\\n]*"msg":"${msg}"`).exec(output)?.[1]);
    for (const [script, started, stopped, signal] of [
      ['api', 'api listening', 'api stopped', 'SIGTERM'],
      ['worker:review', 'worker started', 'worker stopped', 'SIGINT'],
    ] as const) {
      const run = npmRun(script);
      try {
        const pid = await waitFor(`${script} started`, async () => pidOf(run.output(), started) || undefined);
        expect(pid).to.not.equal(run.child.pid); // the real process, not npm
        run.child.kill(signal);
        await waitFor(`${script} gone after ${signal} to npm`, async () => !alive(pid), 20_000);
        expect(run.output(), script).to.include(`"msg":"${stopped}"`);
        await run.exited;
      } finally {
        run.child.kill('SIGKILL');
      }
    }
  });

  it('a worker killed with SIGKILL mid-job: another picks the job up after the stalled interval, and its effects land once', async () => {
    // The evidence host holds the first fetch open, so the first worker is mid-job when it is killed.
    const host = await new TestHttpServer().start();
    let holding = true;
    host.handler = (_req, res) => {
      if (!holding) res.writeHead(200, { 'content-type': 'image/png' }).end('AFTER-RESTART');
    };
    const workerEnv = {
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      WORKER_LOCK_DURATION_MS: '1500',
      WORKER_STALLED_INTERVAL_MS: '1000',
    };
    const api = await startTestApi({ QUEUE_PREFIX: env.QUEUE_PREFIX! });
    try {
      const first = launch('worker/enrichment.ts', workerEnv);
      await waitFor('the first worker started', async () =>
        first.lines.some((l) => l.msg === 'worker started'),
      );
      const tenant = await createTenant(pool);
      const player = await createTestPlayer(pool);
      const res = await fetch(`${api.url}/v1/anticheat/submitReport/${player.serviceId}`, {
        method: 'POST',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          report: { isCheatDetected: true, evidence: [{ type: 'screenshot', url: host.url('/shot.png') }] },
        }),
      });
      expect(res.status).to.equal(201);
      const offenseId = ((await res.json()) as { report: { _id: string } }).report._id;
      await waitFor('the first worker is fetching the evidence', async () => host.received.length === 1);

      first.child.kill('SIGKILL');
      expect(await first.exited).to.equal(null); // killed, not exited
      holding = false;
      const second = launch('worker/enrichment.ts', workerEnv);

      const evidence = await waitFor('the second worker enriched the evidence', async () => {
        const { rows } = await pool.query<{ evidence: { enrichment?: Record<string, unknown> }[] }>(
          'SELECT evidence FROM offenses WHERE id = $1',
          [offenseId],
        );
        return rows[0]!.evidence[0]!.enrichment ? rows[0]!.evidence : undefined;
      });
      expect(evidence).to.have.length(1);
      expect(evidence[0]!.enrichment).to.include({
        status: 200,
        sha256: crypto.createHash('sha256').update('AFTER-RESTART').digest('hex'),
      });
      expect(second.lines.some((l) => String(l.msg).includes('stalled'))).to.equal(true);
      // The job completed once; the host saw the killed fetch and the one that finished, no more.
      const queue = new Queue(QUEUES.enrichment, {
        connection: { url: (await testServices()).redisUrl },
        prefix: env.QUEUE_PREFIX,
      });
      try {
        const job = await queue.getJob(offenseBatchJobId(QUEUES.enrichment, offenseId));
        expect(await job!.getState()).to.equal('completed');
        expect(job!.returnvalue).to.deep.equal({ offenses: 1, enrichedItems: 1, missing: [] });
      } finally {
        await queue.close();
      }
      await new Promise((r) => setTimeout(r, 1500)); // a second, wrongful run would fetch again by now
      expect(host.received).to.have.length(2);

      second.child.kill('SIGTERM');
      expect(await second.exited).to.equal(0);
    } finally {
      await api.close();
      await host.close();
    }
  });

  it('a process with a bad configuration stops at once, naming the variable', async () => {
    const bad = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
      env: { ...env, PORT: 'not-a-port' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    bad.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise((r) => bad.once('exit', r));
    expect(code).to.equal(1);
    expect(stderr).to.match(/PORT/);
  });
});
