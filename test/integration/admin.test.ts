import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import crypto from 'node:crypto';
import { expect } from 'chai';
import { createPool, type Pool } from '../../common/data/db.js';
import { TEST_PEPPER } from '../helpers/app.js';
import { testServices } from '../helpers/services.js';
import { runAdmin, runAdminWithInput } from '../helpers/admin.js';
import { parseConfig } from '../../common/config.js';
import { loadSigningKeys } from '../../common/security/keys.js';
import { moderatorSignIn } from '../../common/usecases/moderation.js';

describe('admin tool (npm run -s admin -- ...)', function () {
  this.timeout(60_000);
  let env: NodeJS.ProcessEnv;
  let pool: Pool;

  before(async () => {
    const services = await testServices();
    env = {
      ...process.env,
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      CLIENT_SECRET_PEPPER: TEST_PEPPER,
      LOG_LEVEL: 'warn',
    };
    pool = createPool(services.databaseUrl, 2);
  });
  after(() => pool.end());

  const admin = (...args: string[]) => runAdmin(env, ...args);

  it('provisions a studio, a game, a player and a link, printing exactly one JSON object each', async () => {
    const studio = await admin('studio', 'create', '--name', 'CLI Studio', '--json');
    expect(studio.code).to.equal(0);
    const s = JSON.parse(studio.stdout) as { id: string; name: string };
    expect(s).to.have.keys('id', 'name');

    const game = await admin(
      'game',
      'create',
      '--studio',
      s.id,
      '--title',
      'CLI Game',
      '--redirect-uri',
      'https://cli.example/cb',
      '--redirect-uri',
      'http://127.0.0.1:9999/cb',
      '--json',
    );
    expect(game.code, game.stderr).to.equal(0);
    const g = JSON.parse(game.stdout) as {
      id: string;
      studioId: string;
      clientId: string;
      clientSecret: string;
      redirectUris: string[];
    };
    expect(g).to.have.keys('id', 'studioId', 'title', 'clientId', 'clientSecret', 'redirectUris');
    expect(g.redirectUris).to.deep.equal(['https://cli.example/cb', 'http://127.0.0.1:9999/cb']);
    expect(Buffer.from(g.clientSecret, 'base64url').length).to.be.at.least(32);
    const stored = await pool.query<{ client_secret_hash: Buffer }>(
      'SELECT client_secret_hash FROM games WHERE id = $1',
      [g.id],
    );
    expect(stored.rows[0]!.client_secret_hash.toString('utf8')).to.not.include(g.clientSecret);

    const player = await admin(
      'player',
      'create',
      '--full-name',
      'Grace Hopper',
      '--gamer-tag',
      `amazing-${Date.now()}`,
      '--password',
      'long enough pw',
      '--kyc',
      '--json',
    );
    expect(player.code, player.stderr).to.equal(0);
    const p = JSON.parse(player.stdout) as Record<string, unknown>;
    expect(p).to.include({ fullName: 'Grace Hopper', isKycVerified: true, trustScore: 100 });
    expect(p.serviceId).to.match(/^plr_/);

    const link = await admin(
      'player',
      'link',
      '--service-id',
      p.serviceId as string,
      '--client-id',
      g.clientId,
      '--json',
    );
    expect(link.code, link.stderr).to.equal(0);
    expect(JSON.parse(link.stdout)).to.include({ serviceId: p.serviceId, gameId: g.id, linked: true });

    const rotated = await admin('game', 'rotate-secret', '--client-id', g.clientId, '--json');
    const r = JSON.parse(rotated.stdout) as { clientSecret: string; clientId: string };
    expect(r.clientId).to.equal(g.clientId);
    expect(r.clientSecret).to.not.equal(g.clientSecret);
  });

  it('player export: the whole record to stdout or a file; an unknown player is a 404 on stderr', async () => {
    const player = await admin(
      'player',
      'create',
      '--full-name',
      'Export Me',
      '--gamer-tag',
      `export-${Date.now()}`,
      '--password',
      'correct horse battery',
      '--json',
    );
    expect(player.code, player.stderr).to.equal(0);
    const { serviceId } = JSON.parse(player.stdout) as { serviceId: string };
    const out = await admin('player', 'export', '--service-id', serviceId);
    expect(out.code, out.stderr).to.equal(0);
    const doc = JSON.parse(out.stdout) as { manifest: { serviceId: string }; player: { fullName: string } };
    expect(doc.manifest.serviceId).to.equal(serviceId);
    expect(doc.player.fullName).to.equal('Export Me');
    const file = path.join(os.tmpdir(), `export-${Date.now()}.json`);
    const toFile = await admin('player', 'export', '--service-id', serviceId, '--out', file, '--json');
    expect(toFile.code, toFile.stderr).to.equal(0);
    expect(JSON.parse(toFile.stdout)).to.include({ serviceId, out: file });
    expect(
      (JSON.parse(fs.readFileSync(file, 'utf8')) as { player: { fullName: string } }).player.fullName,
    ).to.equal('Export Me');
    fs.rmSync(file);
    const unknown = await admin('player', 'export', '--service-id', 'nobody-here');
    expect(unknown.code).to.not.equal(0);
    expect(unknown.stderr).to.match(/not found/i);
    expect(unknown.stdout).to.equal('');
  });

  it('player erase: refused without --yes; with it, erased now with its receipt, in the ledger; retention --dry-run changes nothing', async () => {
    const ledger = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pt-ledger-')), 'ledger.jsonl');
    const withLedger = (...args: string[]) => runAdmin({ ...env, ERASURE_LEDGER: ledger }, ...args);
    const tag = `erase-${Date.now()}`;
    const player = await admin(
      'player',
      'create',
      '--full-name',
      'Erase Me',
      '--gamer-tag',
      tag,
      '--password',
      'correct horse battery',
      '--json',
    );
    const { serviceId } = JSON.parse(player.stdout) as { serviceId: string };
    const unsure = await withLedger('player', 'erase', '--service-id', serviceId);
    expect(unsure.code).to.equal(2);
    expect(unsure.stderr).to.include('--yes');
    expect((await pool.query('SELECT 1 FROM players WHERE service_id = $1', [serviceId])).rowCount).to.equal(
      1,
    );
    const erased = await withLedger('player', 'erase', '--service-id', serviceId, '--yes', '--json');
    expect(erased.code, erased.stderr).to.equal(0);
    const e = JSON.parse(erased.stdout) as {
      id: string;
      state: string;
      requestedBy: string;
      receipt: { player: number };
    };
    expect([e.state, e.requestedBy, e.receipt.player]).to.deep.equal(['done', 'operator', 1]);
    expect(fs.readFileSync(ledger, 'utf8')).to.include(e.id).and.not.include(serviceId);
    const { rows } = await pool.query<{ full_name: string }>(
      'SELECT full_name FROM players WHERE gamer_tag = $1',
      [tag],
    );
    expect(rows).to.deep.equal([]);
    const again = await withLedger('player', 'erase', '--service-id', serviceId, '--yes');
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/not found/i);

    const dry = await admin('retention', 'run', '--dry-run', '--json');
    expect(dry.code, dry.stderr).to.equal(0);
    const d = JSON.parse(dry.stdout) as {
      dryRun: boolean;
      kinds: { kind: string; wouldRemove: number; windowDays: number }[];
    };
    expect(d.dryRun).to.equal(true);
    expect(d.kinds.map((k) => k.kind)).to.deep.equal([
      'evidence',
      'reportText',
      'resolvedCases',
      'trustHistory',
      'audit',
      'signIns',
      'transparencyPayloads',
      'notifierContacts',
      'misuseRecords',
    ]);
    expect(d.kinds.every((k) => Number.isInteger(k.wouldRemove) && k.windowDays > 0)).to.equal(true);
    const ran = await admin('retention', 'run', '--json');
    expect(ran.code, ran.stderr).to.equal(0);
    const r = JSON.parse(ran.stdout) as {
      dryRun: boolean;
      requestedBy: string;
      kinds: { removed: number }[];
    };
    expect(r).to.include({ dryRun: false, requestedBy: 'operator' });
    expect(r.kinds.every((k) => Number.isInteger(k.removed))).to.equal(true);
    const { rows: runs } = await pool.query(`SELECT 1 FROM retention_runs WHERE requested_by = 'operator'`);
    expect(runs).to.have.length(1);
  });

  it('rejects bad input with a message on stderr, a non-zero exit and no change', async () => {
    const before = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM games');
    const badUri = await admin(
      'game',
      'create',
      '--studio',
      '00000000-0000-0000-0000-000000000000',
      '--title',
      'X',
      '--redirect-uri',
      'http://evil.example/cb',
      '--json',
    );
    expect(badUri.code).to.not.equal(0);
    expect(badUri.stdout).to.equal('');
    expect(badUri.stderr).to.match(/--redirect-uri item 0: must use https/);
    const noStudio = await admin(
      'game',
      'create',
      '--studio',
      '00000000-0000-0000-0000-000000000000',
      '--title',
      'X',
      '--redirect-uri',
      'https://ok.example/cb',
    );
    expect(noStudio.code).to.not.equal(0);
    expect(noStudio.stderr).to.match(/Studio .* was not found/);
    const missing = await admin('studio', 'create', '--json');
    expect(missing.code).to.not.equal(0);
    expect(missing.stderr).to.match(/--name is required/);
    const reserved = await admin(
      'player',
      'create',
      '--service-id',
      'me',
      '--full-name',
      'X',
      '--gamer-tag',
      `me-${Date.now()}`,
      '--password',
      'long enough pw',
    );
    expect(reserved.code, 'serviceId "me" would shadow /v1/player/me').to.not.equal(0);
    expect(reserved.stderr).to.match(
      /--service-id: .*must not be one of \[me\]|--service-id: contains an invalid value/,
    );
    const unknown = await admin('frobnicate');
    expect(unknown.code).to.not.equal(0);
    expect(unknown.stderr).to.match(/unknown command/);
    const after = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM games');
    expect(after.rows[0]!.n).to.equal(before.rows[0]!.n);
  });

  it('passwords from standard input; a moderator password reset ends their console sessions', async () => {
    const username = `stdin-mod-${Date.now()}`;
    const created = await runAdminWithInput(
      env,
      'a password typed nowhere\n',
      'moderator',
      'create',
      '--username',
      username,
      '--display-name',
      'Stdin Mod',
      '--role',
      'moderator',
      '--password-stdin',
      '--json',
    );
    expect(created.code, created.stderr).to.equal(0);
    const signIn = (password: string) =>
      moderatorSignIn(pool, { username, password, address: '203.0.113.9', now: new Date() });
    expect((await signIn('a password typed nowhere')).ok).to.equal(true);
    const { id } = JSON.parse(created.stdout) as { id: string };
    await pool.query(
      `INSERT INTO console_sessions (id_hash, moderator_id, csrf_token, expires_at)
       VALUES (decode(md5(random()::text), 'hex'), $1, 'csrf', now() + interval '1 hour')`,
      [id],
    );
    const reset = await runAdminWithInput(
      env,
      'the new long password\n',
      'moderator',
      'reset-password',
      '--username',
      username,
      '--password-stdin',
      '--json',
    );
    expect(reset.code, reset.stderr).to.equal(0);
    expect(JSON.parse(reset.stdout)).to.deep.equal({
      username,
      passwordReset: true,
      consoleSessionsEnded: 1,
    });
    expect((await signIn('a password typed nowhere')).ok).to.equal(false);
    expect((await signIn('the new long password')).ok).to.equal(true);
    const unknown = await runAdminWithInput(
      env,
      'whatever long pw\n',
      'moderator',
      'reset-password',
      '--username',
      'nobody-here',
      '--password-stdin',
    );
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.match(/nobody-here/);
    // Without a terminal and without --password-stdin, nothing is guessed.
    const none = await admin('moderator', 'reset-password', '--username', username);
    expect(none.code).to.equal(2);
    expect(none.stderr).to.match(/--password-stdin is required/);
  });

  it('games without OAuth, redirect URIs added and removed, errors that name the flags, keys generate', async () => {
    const studio = JSON.parse((await admin('studio', 'create', '--name', 'Redirects', '--json')).stdout) as {
      id: string;
    };
    const game = await admin('game', 'create', '--studio', studio.id, '--title', 'Server only', '--json');
    expect(game.code, game.stderr).to.equal(0);
    const { clientId } = JSON.parse(game.stdout) as { clientId: string; redirectUris: string[] };
    const updated = await admin(
      'game',
      'update',
      '--client-id',
      clientId,
      '--add-redirect-uri',
      'https://game.example/cb',
      '--add-redirect-uri',
      'http://127.0.0.1:7777/cb',
      '--json',
    );
    expect(updated.code, updated.stderr).to.equal(0);
    expect(JSON.parse(updated.stdout)).to.deep.equal({
      clientId,
      redirectUris: ['http://127.0.0.1:7777/cb', 'https://game.example/cb'],
    });
    const removed = await admin(
      'game',
      'update',
      '--client-id',
      clientId,
      '--remove-redirect-uri',
      'http://127.0.0.1:7777/cb',
      '--json',
    );
    expect(JSON.parse(removed.stdout).redirectUris).to.deep.equal(['https://game.example/cb']);
    const bad = await admin(
      'game',
      'update',
      '--client-id',
      clientId,
      '--add-redirect-uri',
      'http://game.example/cb',
    );
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/--add-redirect-uri item 0: must use https/);
    const badCreate = await admin(
      'game',
      'create',
      '--studio',
      studio.id,
      '--title',
      'X',
      '--redirect-uri',
      'ftp://x',
    );
    expect(badCreate.stderr).to.match(/--redirect-uri item 0: /);
    expect(badCreate.stderr).to.not.match(/redirectUris/);

    const keys = await runAdmin(
      { ...env, DATABASE_URL: 'postgres://127.0.0.1:1/none' },
      'keys',
      'generate',
      '--json',
    );
    expect(keys.code, keys.stderr).to.equal(0); // no database needed
    const { kid, jwk } = JSON.parse(keys.stdout) as { kid: string; jwk: { d: string; kid: string } };
    expect(jwk.kid).to.equal(kid);
    const loaded = await loadSigningKeys(parseConfig({ JWT_SIGNING_KEY: JSON.stringify(jwk) }));
    expect(loaded.current.kid).to.equal(kid);
  });

  it('migrate --status and --dry-run change nothing; db url names the server; db backup points an external one to its own tools', async () => {
    const status = await admin('migrate', '--status', '--json');
    expect(status.code, status.stderr).to.equal(0);
    const s = JSON.parse(status.stdout) as {
      applied: { name: string }[];
      pending: string[];
      unknown: string[];
      pendingFunctions: string[];
    };
    const files = fs
      .readdirSync('common/data/migrations')
      .filter((f) => f.endsWith('.sql'))
      .map((f) => f.replace(/\.sql$/, ''))
      .sort();
    expect(s.applied.map((m) => m.name)).to.deep.equal(files);
    expect(s.pending).to.deep.equal([]);
    expect(s.unknown).to.deep.equal([]);
    expect(s.pendingFunctions).to.deep.equal([]);
    expect(JSON.parse((await admin('migrate', '--dry-run', '--json')).stdout)).to.deep.equal({
      wouldApply: [],
    });
    expect((await admin('migrate', '--dry-run')).stdout).to.equal('nothing to apply\n');
    const url = JSON.parse((await admin('db', 'url', '--json')).stdout) as { url: string; embedded: boolean };
    expect(url).to.deep.equal({ url: env.DATABASE_URL, embedded: false });
    const external = await admin('db', 'backup', '--out', '/tmp/never.tar.gz');
    expect(external.code).to.equal(1);
    expect(external.stderr).to.match(/DATABASE_URL is set: .*pg_dump/);
    expect(fs.existsSync('/tmp/never.tar.gz')).to.equal(false);
  });

  it('manages moderators (create, disable, enable, list) and webhooks (create, list, delete)', async () => {
    const username = `cli-mod-${Date.now()}`;
    const created = await admin(
      'moderator',
      'create',
      '--username',
      username,
      '--display-name',
      'CLI Mod',
      '--role',
      'admin',
      '--password',
      'a long enough password',
      '--json',
    );
    expect(created.code, created.stderr).to.equal(0);
    const mod = JSON.parse(created.stdout) as Record<string, unknown>;
    expect(mod).to.include({ username, role: 'admin', disabled: false });
    expect(created.stdout).to.not.match(/password|scrypt/i);
    const taken = await admin(
      'moderator',
      'create',
      '--username',
      username,
      '--display-name',
      'Again',
      '--role',
      'moderator',
      '--password',
      'a long enough password',
    );
    expect(taken.code).to.not.equal(0);
    expect(taken.stderr).to.match(/taken/);
    const short = await admin(
      'moderator',
      'create',
      '--username',
      `${username}-2`,
      '--display-name',
      'X',
      '--role',
      'owner',
      '--password',
      'short',
    );
    expect(short.code).to.not.equal(0);
    expect(short.stderr)
      .to.match(/role/)
      .and.match(/password/);
    const disabled = JSON.parse(
      (await admin('moderator', 'disable', '--username', username, '--json')).stdout,
    );
    expect(disabled).to.include({ disabled: true });
    const enabled = JSON.parse((await admin('moderator', 'enable', '--username', username, '--json')).stdout);
    expect(enabled).to.include({ disabled: false });
    const listed = JSON.parse((await admin('moderator', 'list', '--json')).stdout) as {
      moderators: { username: string }[];
    };
    expect(listed.moderators.map((m) => m.username)).to.include(username);
    expect((await admin('moderator', 'disable', '--username', 'nobody-here')).code).to.not.equal(0);

    const studio = JSON.parse(
      (await admin('studio', 'create', '--name', 'Hook Studio', '--json')).stdout,
    ) as {
      id: string;
    };
    const hook = await admin(
      'webhook',
      'create',
      '--studio',
      studio.id,
      '--url',
      'https://hooks.example.com/cli',
      '--event',
      'case.resolved',
      '--json',
    );
    expect(hook.code, hook.stderr).to.equal(0);
    const h = JSON.parse(hook.stdout) as { id: string; secret: string; events: string[] };
    expect(h.secret).to.match(/^whsec_/);
    expect(h.events).to.deep.equal(['case.resolved']);
    const refused = await admin('webhook', 'create', '--studio', studio.id, '--url', 'https://10.0.0.1/hook');
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.match(/private or reserved address .*OUTBOUND_ALLOWLIST/);
    for (const unknown of [crypto.randomUUID(), 'not-a-studio']) {
      const orphan = await admin(
        'webhook',
        'create',
        '--studio',
        unknown,
        '--url',
        'https://hooks.example/x',
      );
      expect(orphan.code, unknown).to.not.equal(0);
      expect(orphan.stderr, unknown).to.match(/Studio .* was not found/);
    }
    const hooks = JSON.parse((await admin('webhook', 'list', '--studio', studio.id, '--json')).stdout) as {
      webhooks: { id: string; studioId: string; secret?: string }[];
    };
    expect(hooks.webhooks).to.have.length(1);
    expect(hooks.webhooks[0]).to.include({ id: h.id, studioId: studio.id }).and.not.have.property('secret');
    const deleted = await admin('webhook', 'delete', '--studio', studio.id, '--id', h.id, '--json');
    expect(JSON.parse(deleted.stdout)).to.deep.equal({ id: h.id, deleted: true });
    expect((await admin('webhook', 'delete', '--studio', studio.id, '--id', h.id)).code).to.not.equal(0);
  });

  it('usage errors exit 2 with the usage on stderr; output is readable text unless --json', async () => {
    for (const args of [[], ['frobnicate'], ['studio', 'create'], ['studio', 'list', '--no-such-flag']]) {
      const res = await admin(...args);
      expect(res.code, args.join(' ')).to.equal(2);
      expect(res.stdout, args.join(' ')).to.equal('');
      expect(res.stderr, args.join(' ')).to.include('Usage: npm run -s admin');
    }
    const human = await admin('studio', 'create', '--name', 'Readable Studio');
    expect(human.code).to.equal(0);
    expect(human.stdout).to.match(/^id: [0-9a-f-]{36}\nname: Readable Studio\n$/);
    expect(() => JSON.parse(human.stdout) as unknown).to.throw();
    // A list reads as a list: a "- " before each item, no "--" lines between them.
    const status = await admin('migrate', '--status');
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).not.to.match(/^\s*--$/m);
    expect(status.stdout).to.match(/^applied:\n {2}- name: 001_/m);
  });

  it('--help lists the commands', async () => {
    const help = await admin('--help');
    expect(help.code).to.equal(0);
    for (const cmd of [
      'studio create',
      'game create',
      'game rotate-secret',
      'player create',
      'player link',
      'studio list',
      'game list',
      'player list',
    ])
      expect(help.stdout).to.include(cmd);
  });

  it("game set-limits overrides a game's limits, restores a default, and refuses a bad name or value", async () => {
    const studio = JSON.parse(
      (await admin('studio', 'create', '--name', 'Limits Studio', '--json')).stdout,
    ) as {
      id: string;
    };
    const game = JSON.parse(
      (
        await admin(
          'game',
          'create',
          '--studio',
          studio.id,
          '--title',
          'Limits Game',
          '--redirect-uri',
          'https://limits.example/cb',
          '--json',
        )
      ).stdout,
    ) as { clientId: string };
    const stored = async () =>
      (await pool.query('SELECT limits FROM games WHERE client_id = $1', [game.clientId])).rows[0]!.limits;

    const set = await admin(
      'game',
      'set-limits',
      '--client-id',
      game.clientId,
      '--limit',
      'reportsPerSecond=1000',
      '--limit',
      'studioBudget=30',
      '--json',
    );
    expect(set.code, set.stderr).to.equal(0);
    expect(JSON.parse(set.stdout)).to.deep.equal({
      clientId: game.clientId,
      limits: { reportsPerSecond: 1000, studioBudget: 30 },
    });
    const cleared = await admin(
      'game',
      'set-limits',
      '--client-id',
      game.clientId,
      '--limit',
      'studioBudget=default',
    );
    expect(cleared.code, cleared.stderr).to.equal(0);
    expect(await stored()).to.deep.equal({ reportsPerSecond: 1000 });

    for (const bad of ['studioBudget=101', 'noSuchLimit=5', 'reportsPerSecond=fast', 'reportsPerSecond=0']) {
      const res = await admin('game', 'set-limits', '--client-id', game.clientId, '--limit', bad);
      expect(res.code, bad).to.not.equal(0);
      expect(res.stderr, bad).to.not.equal('');
    }
    expect(await stored()).to.deep.equal({ reportsPerSecond: 1000 });
    const unknown = await admin(
      'game',
      'set-limits',
      '--client-id',
      'gm_nobody',
      '--limit',
      'studioBudget=1',
    );
    expect(unknown.code).to.not.equal(0);
  });
});
