import crypto from 'node:crypto';
import { UnrecoverableError, type Job } from 'bullmq';
import { expect } from 'chai';
import { AddressPolicy } from '../../common/net/addresses.js';
import { OutboundError, safeFetch } from '../../common/net/safe-fetch.js';
import { QUEUES } from '../../common/queues/index.js';
import { enrichmentProcessor, type EnrichedItem } from '../../worker/processors/enrichment.js';
import { startWorker, type RunningWorker } from '../../worker/run.js';
import { createLogger } from '../../common/logger.js';
import { createTenant, createTestPlayer, startTestApi, type TestApi } from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { eventually, TestHttpServer } from '../helpers/http-server.js';

const sha256 = (s: string | Buffer) => crypto.createHash('sha256').update(s).digest('hex');

async function expectOutboundError(p: Promise<unknown>, code: string): Promise<OutboundError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(OutboundError);
    expect((err as OutboundError).code, (err as Error).message).to.equal(code);
    return err as OutboundError;
  }
  throw new Error(`expected OutboundError ${code}`);
}

describe('safeFetch: outbound requests that never reach a refused address', () => {
  let server: TestHttpServer;
  // A server on another loopback address, outside the allow-list: it must never see a request.
  let forbidden: TestHttpServer;
  const policy = new AddressPolicy(['127.0.0.1']);
  const fetchOpts = { policy, timeoutMs: 2000, maxBytes: 1024, maxRedirects: 3 };

  before(async () => {
    server = await new TestHttpServer().start();
    forbidden = await new TestHttpServer('127.0.0.2').start();
  });
  after(async () => {
    await server.close();
    await forbidden.close();
  });
  beforeEach(() => {
    server.received.length = 0;
    forbidden.received.length = 0;
  });

  it('follows redirects on the allow-list and reports status, type, size, hash and final URL', async () => {
    server.handler = (req, res) => {
      if (req.path === '/start') res.writeHead(302, { location: '/hop' }).end();
      else if (req.path === '/hop') res.writeHead(301, { location: server.url('/file.png') }).end();
      else res.writeHead(200, { 'content-type': 'image/png' }).end('PNG-BYTES');
    };
    const res = await safeFetch({ ...fetchOpts, url: server.url('/start') });
    expect(res).to.deep.include({
      status: 200,
      contentType: 'image/png',
      bytesRead: 9,
      truncated: false,
      sha256: sha256('PNG-BYTES'),
      finalUrl: server.url('/file.png'),
      redirects: 2,
    });
  });

  it('refuses literal private, loopback and metadata addresses before connecting', async () => {
    for (const url of [
      'http://10.0.0.1/x',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/x',
      'http://[::ffff:192.168.0.1]/x',
      forbidden.url('/direct'),
    ]) {
      const err = await expectOutboundError(safeFetch({ ...fetchOpts, url }), 'address_blocked');
      expect(err.transient).to.equal(false);
    }
    expect(forbidden.received).to.have.length(0);
  });

  it('refuses a redirect hop into a refused address, without connecting to it', async () => {
    server.handler = (_req, res) => res.writeHead(302, { location: forbidden.url('/secret') }).end();
    await expectOutboundError(safeFetch({ ...fetchOpts, url: server.url('/bounce') }), 'address_blocked');
    expect(server.received).to.have.length(1);
    expect(forbidden.received).to.have.length(0);
  });

  it('checks the addresses a host name resolves to (localhost is loopback, refused without the allow-list)', async () => {
    await expectOutboundError(
      safeFetch({ ...fetchOpts, policy: new AddressPolicy(), url: `http://localhost:${server.port}/x` }),
      'address_blocked',
    );
    expect(server.received).to.have.length(0);
  });

  it('stops after the redirect limit', async () => {
    server.handler = (_req, res) => res.writeHead(302, { location: '/again' }).end();
    await expectOutboundError(safeFetch({ ...fetchOpts, url: server.url('/loop') }), 'too_many_redirects');
    expect(server.received).to.have.length(4); // the first request and three hops
  });

  it('reads at most maxBytes and hashes exactly those bytes', async () => {
    const body = Buffer.alloc(10_000, 'a');
    server.handler = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
    const res = await safeFetch({ ...fetchOpts, url: server.url('/big') });
    expect(res.truncated).to.equal(true);
    expect(res.bytesRead).to.equal(1024);
    expect(res.sha256).to.equal(sha256(body.subarray(0, 1024)));
  });

  it('a body of exactly maxBytes is complete, not truncated', async () => {
    server.handler = (_req, res) => res.writeHead(200).end(Buffer.alloc(1024, 'b'));
    const res = await safeFetch({ ...fetchOpts, url: server.url('/exact') });
    expect(res).to.include({ truncated: false, bytesRead: 1024 });
  });

  it('gives up after the timeout with a transient error', async () => {
    server.handler = () => undefined; // never answers
    const started = Date.now();
    const err = await expectOutboundError(
      safeFetch({ ...fetchOpts, timeoutMs: 300, url: server.url('/hang') }),
      'timeout',
    );
    expect(err.transient).to.equal(true);
    expect(Date.now() - started).to.be.lessThan(2000);
  });

  it('refuses schemes other than http and https, and URLs with credentials', async () => {
    await expectOutboundError(safeFetch({ ...fetchOpts, url: 'file:///etc/passwd' }), 'invalid_url');
    await expectOutboundError(safeFetch({ ...fetchOpts, url: 'http://user:pw@127.0.0.1/' }), 'invalid_url');
  });

  it('a refused connection is transient (worth a retry)', async () => {
    const closed = await new TestHttpServer().start();
    const url = closed.url('/gone');
    await closed.close();
    const err = await expectOutboundError(safeFetch({ ...fetchOpts, url }), 'connection_failed');
    expect(err.transient).to.equal(true);
  });
});

describe('evidence enrichment worker', function () {
  this.timeout(60_000);
  let api: TestApi;
  let worker: RunningWorker;
  let evidence: TestHttpServer;
  let forbidden: TestHttpServer;

  before(async () => {
    evidence = await new TestHttpServer().start();
    forbidden = await new TestHttpServer('127.0.0.2').start();
    api = await startTestApi({ OUTBOUND_ALLOWLIST: '127.0.0.1', EVIDENCE_FETCH_MAX_BYTES: '2048' });
    worker = await startWorker(
      api.config,
      QUEUES.enrichment,
      enrichmentProcessor,
      createLogger('silent', 'w'),
    );
  });
  after(async () => {
    await worker.stop();
    await api.close();
    await evidence.close();
    await forbidden.close();
  });

  async function report(evidenceItems: object[], extra: object = {}) {
    const tenant = await createTenant(api.pool);
    const player = await createTestPlayer(api.pool);
    const res = await call(api.url, 'POST', `/v1/anticheat/submitReport/${player.serviceId}`, {
      spec: '/v1/anticheat/submitReport/{serviceId}',
      headers: tenant.headers,
      json: { report: { isCheatDetected: true, severity: 'high', evidence: evidenceItems, ...extra } },
    });
    expect(res.status).to.equal(201);
    return (res.body as { report: { _id: string } }).report._id;
  }

  /** The processor called directly, outside any worker: to run a job again, or twice at once. */
  const directProcessor = () =>
    enrichmentProcessor({
      pool: api.pool,
      log: createLogger('silent', 't'),
      config: api.config,
      pepper: 'unused',
      dispatch: () => undefined,
    });

  const evidenceOf = async (offenseId: string) =>
    (
      await api.pool.query<{ evidence: EnrichedItem[] }>('SELECT evidence FROM offenses WHERE id = $1', [
        offenseId,
      ])
    ).rows[0]!.evidence;

  const enriched = (offenseId: string) =>
    eventually(`offense ${offenseId} enriched`, async () => {
      const items = await evidenceOf(offenseId);
      return items.every((i) => i.enrichment) ? items : undefined;
    });

  it('records each URL item (status, type, size, hash, final URL) and normalises text logs', async () => {
    evidence.handler = (req, res) => {
      if (req.path === '/clip') res.writeHead(302, { location: '/clip.mp4' }).end();
      else res.writeHead(200, { 'content-type': 'video/mp4' }).end('MP4DATA');
    };
    const id = await report([{ type: 'video', url: evidence.url('/clip') }], { logs: 'one\r\ntwo\r\nthree' });
    const items = await enriched(id);
    const video = items.find((i) => i.type === 'video')!;
    expect(video.enrichment).to.deep.include({
      kind: 'url',
      reachable: true,
      status: 200,
      contentType: 'video/mp4',
      bytes: 7,
      truncated: false,
      sha256: sha256('MP4DATA'),
      finalUrl: evidence.url('/clip.mp4'),
      error: null,
      attempts: 1,
    });
    const logs = items.find((i) => i.type === 'text')!;
    expect(logs.content).to.equal('one\ntwo\nthree');
    expect(logs.enrichment).to.deep.include({
      kind: 'text',
      lines: 3,
      chars: 13,
      sha256: sha256('one\ntwo\nthree'),
    });
  });

  it('records a refused private address and a redirect into one as permanent failures, reaching neither', async () => {
    evidence.handler = (_req, res) => res.writeHead(302, { location: forbidden.url('/internal') }).end();
    const id = await report([
      { type: 'screenshot', url: 'http://169.254.169.254/latest/meta-data/iam' },
      { type: 'screenshot', url: evidence.url('/redirect-inside') },
    ]);
    const items = await enriched(id);
    for (const item of items)
      expect(item.enrichment).to.deep.include({ kind: 'url', reachable: false, status: null, attempts: 1 });
    expect((items[0]!.enrichment as { error: { code: string } }).error.code).to.equal('address_blocked');
    expect((items[1]!.enrichment as { error: { code: string } }).error.code).to.equal('address_blocked');
    expect(forbidden.received).to.have.length(0);
  });

  it('records a 404 at once, and retries a 503 with backoff until it succeeds', async () => {
    let flaky = 0;
    evidence.handler = (req, res) => {
      if (req.path === '/missing.png') res.writeHead(404).end();
      else if (++flaky === 1) res.writeHead(503).end();
      else res.writeHead(200, { 'content-type': 'image/png' }).end('LATER');
    };
    const id = await report([
      { type: 'screenshot', url: evidence.url('/missing.png') },
      { type: 'screenshot', url: evidence.url('/flaky.png') },
    ]);
    const items = await enriched(id);
    expect(items[0]!.enrichment).to.deep.include({ reachable: true, status: 404, attempts: 1 });
    expect(items[1]!.enrichment).to.deep.include({
      reachable: true,
      status: 200,
      attempts: 2,
      sha256: sha256('LATER'),
    });
    // The 404 item was not fetched again on the retry.
    expect(evidence.requestsTo('/missing.png')).to.have.length(1);
    expect(evidence.requestsTo('/flaky.png')).to.have.length(2);
  });

  it('hashes at most EVIDENCE_FETCH_MAX_BYTES and marks the item truncated', async () => {
    const body = Buffer.alloc(5000, 'z');
    evidence.handler = (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(body);
    const id = await report([{ type: 'screenshot', url: evidence.url('/huge.png') }]);
    const [item] = await enriched(id);
    expect(item!.enrichment).to.deep.include({
      bytes: 2048,
      truncated: true,
      sha256: sha256(body.subarray(0, 2048)),
    });
  });

  it('a re-run changes nothing and fetches nothing again', async () => {
    evidence.handler = (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('ONCE');
    const id = await report([{ type: 'screenshot', url: evidence.url('/once.png') }], { logs: 'x' });
    const first = await enriched(id);
    const fetched = evidence.requestsTo('/once.png').length;
    const result = await directProcessor()({
      id: 'again',
      data: { offenseId: id },
      attemptsMade: 0,
      opts: { attempts: 8 },
    } as Job);
    expect(result).to.deep.equal({ offenseId: id, enrichedItems: 0 });
    expect(await evidenceOf(id)).to.deep.equal(first);
    expect(evidence.requestsTo('/once.png')).to.have.length(fetched);
  });

  it('two runs of one job at once: the later write finds the evidence changed and adds nothing', async () => {
    let served = 0;
    evidence.handler = (_req, res) => {
      const n = ++served;
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'image/png' }).end(`RUN${n}`),
        n === 1 ? 200 : 600,
      );
    };
    // No worker: both runs are driven here, the second starting while the first still fetches.
    await worker.worker.pause();
    try {
      const id = await report([{ type: 'screenshot', url: evidence.url('/race.png') }]);
      const processor = directProcessor();
      const job = (jobId: string) =>
        ({ id: jobId, data: { offenseId: id }, attemptsMade: 0, opts: { attempts: 8 } }) as Job;
      const first = processor(job('a'));
      await new Promise((r) => setTimeout(r, 50));
      const [a, b] = await Promise.all([first, processor(job('b'))]);
      expect([a, b]).to.deep.equal([
        { offenseId: id, enrichedItems: 1 },
        { offenseId: id, enrichedItems: 0 },
      ]);
      const [item] = await evidenceOf(id);
      expect(item!.enrichment).to.include({ sha256: sha256('RUN1') });
    } finally {
      worker.worker.resume();
    }
  });

  it('jobs run at once share their reads and writes; two runs of one job in one batch still write once', async () => {
    await worker.worker.pause();
    try {
      const ids = await Promise.all([1, 2, 3].map((i) => report([], { logs: `run ${i}\r\nsecond line` })));
      const processor = directProcessor();
      const job = (offenseId: string, jobId: string) =>
        ({ id: jobId, data: { offenseId }, attemptsMade: 0, opts: { attempts: 8 } }) as Job;
      // Started in one tick: one read and one write statement serve all four runs.
      const results = await Promise.all([
        ...ids.map((id, i) => processor(job(id, `j${i}`))),
        processor(job(ids[0]!, 'again')),
      ]);
      expect(results.slice(1, 3)).to.deep.equal(
        ids.slice(1).map((id) => ({ offenseId: id, enrichedItems: 1 })),
      );
      expect([results[0]!.enrichedItems, results[3]!.enrichedItems].sort()).to.deep.equal([0, 1]);
      for (const [i, id] of ids.entries()) {
        const [logs] = await evidenceOf(id);
        expect(logs!.content).to.equal(`run ${i + 1}\nsecond line`);
        expect(logs!.enrichment).to.deep.include({ kind: 'text', lines: 2 });
      }
    } finally {
      worker.worker.resume();
    }
  });

  it('fails a job with a bad payload at once, without retrying (UnrecoverableError)', async () => {
    const processor = directProcessor();
    for (const data of [
      {},
      { offenseId: 'not-a-uuid' },
      { offenseId: crypto.randomUUID() },
      { offenseIds: [] },
      { offenseIds: [crypto.randomUUID(), 'not-a-uuid'] },
      { offenseIds: [crypto.randomUUID()] },
    ]) {
      try {
        await processor({ id: 'bad', data, attemptsMade: 0, opts: { attempts: 8 } } as Job);
        expect.fail('should have thrown');
      } catch (err) {
        expect(err).to.be.instanceOf(UnrecoverableError);
      }
    }
  });

  it("a batch's job: what one offense could not reach yet is retried, the others' work is kept and not done twice", async () => {
    let flaky = 0;
    evidence.handler = (req, res) => {
      if (req.path === '/flaky.png' && ++flaky === 1) res.writeHead(503).end();
      else res.writeHead(200, { 'content-type': 'image/png' }).end(req.path);
    };
    // Filed by the API, each with its own jobs; run here again as one batch's job.
    const ids = [
      await report([{ type: 'screenshot', url: evidence.url('/a.png') }]),
      await report([{ type: 'screenshot', url: evidence.url('/flaky.png') }]),
      await report([{ type: 'text', content: 'line\r\nline' }]),
    ];
    await Promise.all(ids.map((id) => enriched(id)));
    await api.pool.query(
      `UPDATE offenses SET evidence = (SELECT jsonb_agg(e - 'enrichment') FROM jsonb_array_elements(evidence) e)
        WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    flaky = 0;
    const before = evidence.requestsTo('/a.png').length;
    const processor = directProcessor();
    const gone = crypto.randomUUID();
    const job = (attemptsMade: number) =>
      ({
        id: 'batch',
        data: { offenseIds: [...ids, gone] },
        attemptsMade,
        opts: { attempts: 8 },
      }) as unknown as Job;
    const first = await processor(job(0)).then(
      () => undefined,
      (err: Error) => err,
    );
    // The offense and the item by ids, the fault by its code; never the link (kept in Redis with the job).
    expect(first?.message).to.equal(
      `evidence not reachable yet (attempt 1): offense ${ids[1]} evidence 0: http_503`,
    );
    expect(first?.message).to.not.include('flaky');
    expect((await evidenceOf(ids[0]!))[0]!.enrichment).to.deep.include({ status: 200 });
    expect((await evidenceOf(ids[1]!))[0]!.enrichment).to.equal(undefined);
    expect((await evidenceOf(ids[2]!))[0]!.enrichment).to.not.equal(undefined);
    // The retry fetches only what is still missing; the missing offense is named, not fatal.
    expect(await processor(job(1))).to.deep.equal({ offenses: 4, enrichedItems: 1, missing: [gone] });
    expect((await evidenceOf(ids[1]!))[0]!.enrichment).to.deep.include({ status: 200, attempts: 2 });
    expect(evidence.requestsTo('/a.png')).to.have.length(before + 1);
  });
});
