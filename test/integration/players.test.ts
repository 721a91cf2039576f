import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  createTenant,
  createTestPlayer,
  startTestApi,
  TEST_PEPPER,
  type Tenant,
  type TestApi,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import type { AppError } from '../../common/errors.js';
import { provisionPlayer } from '../../common/usecases/provisioning.js';
import { runAdmin } from '../helpers/admin.js';

const uid = () => crypto.randomBytes(5).toString('hex');

describe('players in bulk: POST /v1/players and admin player import', function () {
  this.timeout(120_000);
  let api: TestApi;
  let tenant: Tenant;
  before(async () => {
    api = await startTestApi();
    tenant = await createTenant(api.pool, 'Bulk');
  });
  after(() => api.close());

  interface Profile {
    serviceId: string;
    gamerTag: string;
    fullName: string;
    trustScore: number;
    isKycVerified: boolean;
    code?: string;
  }
  const create = (json: unknown, t: Tenant = tenant) =>
    call<Profile>(api.url, 'POST', '/v1/players', { headers: t.headers, json });
  const linkedTo = async (serviceId: string, t: Tenant = tenant) => {
    const { rows } = await api.pool.query(
      `SELECT 1 FROM player_games pg JOIN players p ON p.id = pg.player_id
        WHERE p.service_id = $1 AND pg.game_id = $2`,
      [serviceId, t.game.id],
    );
    return rows.length === 1;
  };
  const countPlayers = async (where: string, params: unknown[]) =>
    (await api.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM players WHERE ${where}`, params))
      .rows[0]!.n;

  describe('POST /v1/players', () => {
    it('creates a player linked to the calling game, and a retry returns the same player', async () => {
      const serviceId = `studio-${uid()}`;
      const gamerTag = `Tag${uid()}`;
      const res = await create({ serviceId, gamerTag, fullName: 'Ada Lovelace' });
      expect(res.status).to.equal(201);
      expect(res.headers.get('location')).to.equal(`/v1/player/${serviceId}`);
      expect(res.body).to.include({
        serviceId,
        gamerTag,
        fullName: 'Ada Lovelace',
        trustScore: 100,
        isKycVerified: false,
      });
      expect(await linkedTo(serviceId)).to.equal(true);

      const again = await create({ serviceId, gamerTag, fullName: 'Ada Lovelace' });
      expect(again.status).to.equal(200);
      expect(again.body.serviceId).to.equal(serviceId);
      expect(await countPlayers('service_id = $1', [serviceId])).to.equal(1);

      // The player can be reported at once.
      const report = await call(api.url, 'POST', `/v1/afk/submitReport/${serviceId}`, {
        spec: '/v1/afk/submitReport/{serviceId}',
        headers: tenant.headers,
        json: { report: { isAfk: true } },
      });
      expect(report.status).to.equal(201);
    });

    it('generates a serviceId when none is given', async () => {
      const res = await create({ gamerTag: `Gen${uid()}`, fullName: 'Generated' });
      expect(res.status).to.equal(201);
      expect(res.body.serviceId).to.match(/^[A-Za-z0-9_-]{1,64}$/);
      expect(await linkedTo(res.body.serviceId)).to.equal(true);
    });

    it("refuses another game's player and a taken gamer tag with 409, linking nothing", async () => {
      const someone = await createTestPlayer(api.pool);
      const foreign = await create({ serviceId: someone.serviceId, gamerTag: `X${uid()}`, fullName: 'X' });
      expect(foreign.status).to.equal(409);
      expect(foreign.body.code).to.equal('already_exists');
      expect(await linkedTo(someone.serviceId), 'no link without the player signing in').to.equal(false);

      const tagged = await create({
        serviceId: `s-${uid()}`,
        gamerTag: someone.gamerTag,
        fullName: 'Copycat',
      });
      expect(tagged.status).to.equal(409);
      expect(tagged.body.code).to.equal('already_exists');

      // Another studio's game cannot claim this studio's player by retrying its serviceId.
      const mine = await create({ serviceId: `mine-${uid()}`, gamerTag: `Mine${uid()}`, fullName: 'Mine' });
      const other = await createTenant(api.pool, 'Other');
      const claim = await create(
        { serviceId: mine.body.serviceId, gamerTag: mine.body.gamerTag, fullName: 'Mine' },
        other,
      );
      expect(claim.status).to.equal(409);
      expect(await linkedTo(mine.body.serviceId, other)).to.equal(false);
    });

    it('refuses bad input with 400 and creates nothing', async () => {
      const tag = `Bad${uid()}`;
      for (const json of [
        {},
        { fullName: 'No tag' },
        { gamerTag: tag },
        { gamerTag: tag, fullName: 'x', serviceId: 'me' },
        { gamerTag: tag, fullName: 'x', serviceId: 'has space' },
        { gamerTag: tag, fullName: 'x', serviceId: 'x'.repeat(65) },
        { gamerTag: `${tag}\u0007`, fullName: 'x' },
        { gamerTag: tag, fullName: 'x', isKycVerified: true },
        { gamerTag: 'x'.repeat(65), fullName: 'x' },
        { gamerTag: tag, fullName: 42 },
      ]) {
        const res = await create(json);
        expect(res.status, JSON.stringify(json)).to.equal(400);
        expect(res.body.code).to.equal('validation_failed');
      }
      expect(await countPlayers('gamer_tag LIKE $1', [`${tag}%`])).to.equal(0);
    });

    it("holds an operator's player (admin player create) to the same name rules", async () => {
      const tag = `Op${uid()}`;
      for (const names of [
        { gamerTag: `${tag}\u0007`, fullName: 'x' },
        { gamerTag: tag, fullName: 'Bell\u0007' },
      ]) {
        const err = await provisionPlayer(api.pool, { ...names, password: 'correct horse battery' }).then(
          () => undefined,
          (e: AppError) => e,
        );
        expect(err?.code, JSON.stringify(names)).to.equal('validation_failed');
      }
      expect(await countPlayers('gamer_tag LIKE $1', [`${tag}%`])).to.equal(0);
    });

    it('ten simultaneous creations of one serviceId: one 201, nine 200, one player', async () => {
      const serviceId = `race-${uid()}`;
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          create({ serviceId, gamerTag: `Race${serviceId}`, fullName: 'Racer' }),
        ),
      );
      expect(results.map((r) => r.status).sort()).to.deep.equal([
        200, 200, 200, 200, 200, 200, 200, 200, 200, 201,
      ]);
      expect(await countPlayers('service_id = $1', [serviceId])).to.equal(1);
    });

    it('needs the game credentials', async () => {
      const res = await call(api.url, 'POST', '/v1/players', { json: { gamerTag: 'x', fullName: 'y' } });
      expect(res.status).to.equal(401);
    });
  });

  describe('admin player import', () => {
    let dir: string;
    before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt-import-'))));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    const admin = (...args: string[]) =>
      runAdmin(
        {
          ...process.env,
          DATABASE_URL: api.config.databaseUrl,
          REDIS_URL: api.config.redisUrl,
          CLIENT_SECRET_PEPPER: TEST_PEPPER,
          LOG_LEVEL: 'warn',
        },
        ...args,
      );

    interface Summary {
      lines: number;
      created: number;
      alreadyPresent: number;
      invalid: number;
      invalidLines: { line: number; message: string }[];
    }

    it('imports JSONL in batches, reports invalid lines by number, links to the game, and is safe to run again', async () => {
      const prefix = `imp-${uid()}`;
      const taken = await createTestPlayer(api.pool);
      const lines: string[] = [];
      for (let i = 0; i < 5000; i++)
        lines.push(
          JSON.stringify({
            serviceId: `${prefix}-${i}`,
            gamerTag: `${prefix}-tag-${i}`,
            fullName: `Player ${i}`,
          }),
        );
      lines.splice(10, 0, '{not json'); // line 11
      lines.splice(20, 0, JSON.stringify({ serviceId: `${prefix}-x`, gamerTag: `${prefix}-x` })); // line 21: no fullName
      lines.splice(
        30,
        0,
        JSON.stringify({ serviceId: `${prefix}-y`, gamerTag: taken.gamerTag, fullName: 'Y' }),
      ); // line 31
      lines.splice(40, 0, lines[0]!); // line 41: the first line again
      lines.splice(50, 0, ''); // line 51: blank, skipped
      const file = path.join(dir, 'players.jsonl');
      // Interrupted after the first 3,000 lines: the first run saw only those.
      const importForGame = (f: string) =>
        admin('player', 'import', '--file', f, '--client-id', tenant.game.clientId, '--json');
      fs.writeFileSync(file, `${lines.slice(0, 3000).join('\n')}\n`);
      const first = await importForGame(file);
      const firstSummary = JSON.parse(first.stdout) as Summary;
      expect(firstSummary.created).to.equal(2995);

      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      const res = await importForGame(file);
      expect(res.code, res.stderr).to.equal(1); // some lines invalid
      const summary = JSON.parse(res.stdout) as Summary;
      expect(summary).to.include({ lines: 5004, created: 2005, alreadyPresent: 2996, invalid: 3 });
      expect(summary.invalidLines.map((l) => l.line)).to.deep.equal([11, 21, 31]);
      expect(summary.invalidLines[1]!.message).to.match(/fullName/);
      expect(summary.invalidLines[2]!.message).to.match(/belongs to another player/);
      expect(res.stderr).to.match(/imported 5005\/5005 lines: 2005 created, 2996 already present, 3 invalid/);
      expect(await countPlayers('service_id LIKE $1', [`${prefix}-%`])).to.equal(5000);
      const linked = await api.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM player_games pg JOIN players p ON p.id = pg.player_id
          WHERE p.service_id LIKE $1 AND pg.game_id = $2`,
        [`${prefix}-%`, tenant.game.id],
      );
      expect(linked.rows[0]!.n).to.equal(5000);

      const again = JSON.parse((await admin('player', 'import', '--file', file, '--json')).stdout) as Summary;
      expect(again).to.include({ created: 0, alreadyPresent: 5001, invalid: 3 });
    });

    it('imports CSV with a header (quoted fields too), in readable text without --json', async () => {
      const prefix = `csv-${uid()}`;
      const file = path.join(dir, 'players.csv');
      fs.writeFileSync(
        file,
        [
          'serviceId,gamerTag,fullName',
          `${prefix}-1,${prefix}-a,"Lovelace, Ada"`,
          `${prefix}-2,${prefix}-b,Grace Hopper`,
          `${prefix}-3,,Nobody`,
          `${prefix}-4,${prefix}-d,"unterminated`,
        ].join('\n'),
      );
      const res = await admin('player', 'import', '--file', file);
      expect(res.code).to.equal(1);
      expect(res.stdout).to.match(/created: 2/);
      expect(res.stdout).to.match(/line 4: gamerTag/);
      expect(res.stdout).to.match(/line 5: /);
      const { rows } = await api.pool.query<{ full_name: string }>(
        'SELECT full_name FROM players WHERE service_id = $1',
        [`${prefix}-1`],
      );
      expect(rows[0]!.full_name).to.equal('Lovelace, Ada');
    });

    it('usage errors exit 2', async () => {
      expect((await admin('player', 'import')).code).to.equal(2);
      expect((await admin('player', 'import', '--file', path.join(dir, 'missing.jsonl'))).code).to.equal(2);
      expect((await admin('player', 'import', '--file', 'x', '--format', 'xml')).code).to.equal(2);
    });
  });
});
