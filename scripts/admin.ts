import fs from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfigOrExit, type Config } from '../common/config.js';
import { backupEmbedded, restoreEmbedded } from '../common/data/backup.js';
import { migrationStatus } from '../common/data/migrate.js';
import { embeddedServer, providePostgres } from '../common/services/postgres.js';
import { createPool } from '../common/data/db.js';
import { findGameByClientId, listGames, listPlayers, listStudios } from '../common/data/repos/accounts.js';
import { importPlayers } from './player-import.js';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { openPlayerExport } from '../common/usecases/player-export.js';
import { getErasure, requestErasure, runErasure } from '../common/usecases/erasure.js';
import { runRetentionNow } from '../common/usecases/retention.js';
import { resolvePepper } from '../common/dev-secrets.js';
import { AppError, notFound } from '../common/errors.js';
import { isUuid } from '../common/domain/ids.js';
import { listModerators, setModeratorDisabled } from '../common/data/repos/moderation.js';
import { deleteWebhook, listWebhooks } from '../common/data/repos/webhooks.js';
import { AddressPolicy } from '../common/net/addresses.js';
import { createModerator, resetModeratorPassword } from '../common/usecases/moderation.js';
import { generateSigningJwk } from '../common/security/keys.js';
import { StartupError } from '../common/startup.js';
import { registerWebhook } from '../common/usecases/webhooks.js';
import { presentWebhook } from '../common/views.js';
import { createLogger } from '../common/logger.js';
import { provideBackends } from '../common/runtime.js';
import {
  linkPlayer,
  provisionGame,
  provisionPlayer,
  provisionStudio,
  rotateSecret,
  setGameLimits,
  updateRedirectUris,
} from '../common/usecases/provisioning.js';

const HELP = `player-trust admin tool

Usage: npm run -s admin -- <command> [options] [--json]

  studio create --name <name>
  studio list
  game create --studio <studioId> --title <title> [--redirect-uri <uri> ...] [--require-pkce]
      (no --redirect-uri: a game that never signs players in with OAuth)
  game update --client-id <clientId> [--add-redirect-uri <uri> ...] [--remove-redirect-uri <uri> ...]
  game rotate-secret --client-id <clientId>
  game set-limits --client-id <clientId> --limit <name>=<value|default> [--limit ...]
      names: reportsPerSecond reportsBurst readsPerSecond readsBurst webhooksPerSecond
             webhooksBurst reporterQuota studioBudget ("default" removes the override)
  game list
  player create [--service-id <id>] --full-name <name> --gamer-tag <tag> --password-stdin [--kyc]
  player link --service-id <id> --client-id <clientId>
  player list
  player export --service-id <id> [--out <file.json>]
      the player's whole record as one JSON document (docs/compliance.md "Personal data"), to the file or stdout
  player erase --service-id <id> --yes
      erase the player's personal data now (GDPR Art. 17; docs/compliance.md "Personal data"): written to the
      erasure ledger, applied, and its receipt printed. Cannot be undone: --yes says you mean it.
  retention run [--dry-run]
      remove what is past its retention window now, kind by kind (the worker does it every
      RETENTION_INTERVAL_MS); --dry-run says what would go and changes nothing
  player import --file <players.jsonl|players.csv> [--client-id <clientId>] [--format jsonl|csv]
      one player a line: {"serviceId": "...", "gamerTag": "...", "fullName": "..."}, or CSV with
      the header serviceId,gamerTag,fullName. Creates new players and links every one to the game;
      a serviceId that exists is "already present" (so it is safe to run again after an
      interruption); invalid lines are listed with their numbers and the command exits 1.
  moderator create --username <name> --display-name <name> --role moderator|admin --password-stdin
  moderator reset-password --username <name> --password-stdin
      (a new password; the moderator's console sessions end)
  moderator disable --username <name>  |  moderator enable --username <name>
  moderator list
  webhook create --studio <studioId> --url <https url> [--event offense.created --event ...]
  webhook list [--studio <studioId>]
  webhook delete --studio <studioId> --id <webhookId>
  keys generate                a new ES256 private key (JWK) for JWT_SIGNING_KEY; needs no database
  migrate [--status | --dry-run]
      apply pending database migrations and exit; --status lists applied and pending ones,
      --dry-run lists what would be applied and changes nothing
  db url                       how to reach the embedded PostgreSQL now (its port changes on every start)
  db backup --out <file.tar.gz>
      the embedded PostgreSQL (a base backup, taken while the service runs) with DATA_DIR's secrets
  db restore --from <file.tar.gz>
      with the service stopped: the backup's data and secrets replace DATA_DIR's (kept aside)

Passwords: --password-stdin reads the password from standard input (one line), so it is neither in
the shell's history nor visible in ps; without it, on a terminal, you are asked for it. --password <pw>
still works for scripts that accept those risks.

With --json a command prints exactly one JSON object on stdout. It uses DATABASE_URL, or the
embedded PostgreSQL under DATA_DIR (.data by default), the same as the service.
`;

class UsageError extends Error {}

/**
 * What a person reads: one "name: value" line per field, lists one item per block, nested objects
 * indented. --json prints the same data as one JSON object instead.
 */
function humanReadable(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}(none)`;
    // A list as a list: one "- " a line for plain values; an object's fields under its "- ".
    return value
      .map((item) =>
        item && typeof item === 'object' && !(item instanceof Date)
          ? humanReadable(item, `${indent}  `).replace(/^ */, `${indent}- `)
          : `${indent}- ${item instanceof Date ? item.toISOString() : String(item)}`,
      )
      .join('\n');
  }
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => {
        if (v instanceof Date) return `${indent}${k}: ${v.toISOString()}`;
        if (v && typeof v === 'object') return `${indent}${k}:\n${humanReadable(v, `${indent}  `)}`;
        return `${indent}${k}: ${v === null || v === undefined ? '-' : String(v)}`;
      })
      .join('\n');
  }
  return `${indent}${String(value)}`;
}

const OPTIONS = {
  name: { type: 'string' },
  studio: { type: 'string' },
  title: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  'require-pkce': { type: 'boolean' },
  'client-id': { type: 'string' },
  'service-id': { type: 'string' },
  'full-name': { type: 'string' },
  'gamer-tag': { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'add-redirect-uri': { type: 'string', multiple: true },
  'remove-redirect-uri': { type: 'string', multiple: true },
  kyc: { type: 'boolean' },
  username: { type: 'string' },
  'display-name': { type: 'string' },
  role: { type: 'string' },
  url: { type: 'string' },
  event: { type: 'string', multiple: true },
  limit: { type: 'string', multiple: true },
  id: { type: 'string' },
  file: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  from: { type: 'string' },
  status: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  yes: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The flag an operator typed, for a field a use case names in its error. */
const FLAG_OF: Record<string, string> = {
  studioId: '--studio',
  title: '--title',
  redirectUris: '--redirect-uri',
  add: '--add-redirect-uri',
  remove: '--remove-redirect-uri',
  requirePkce: '--require-pkce',
  clientId: '--client-id',
  serviceId: '--service-id',
  fullName: '--full-name',
  gamerTag: '--gamer-tag',
  password: '--password-stdin',
  username: '--username',
  displayName: '--display-name',
  role: '--role',
  name: '--name',
  url: '--url',
  events: '--event',
};
const flagOf = (field: string) => {
  const [head, ...rest] = field.split('.');
  return FLAG_OF[head!] ? [FLAG_OF[head!], ...rest].join(' item ') : field;
};

/**
 * A password from standard input (--password-stdin: one line, its line break dropped), from a
 * prompt on a terminal (not echoed), or from --password (visible in ps and the shell's history).
 */
async function passwordOf(values: { password?: string; 'password-stdin'?: boolean }): Promise<string> {
  if (values['password-stdin']) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  if (values.password !== undefined) return values.password;
  if (!process.stdin.isTTY)
    throw new UsageError('--password-stdin is required (the password on standard input)');
  process.stderr.write('Password: ');
  process.stdin.setRawMode(true);
  let typed = '';
  try {
    // Character by character: a pasted password arrives with its Enter in one chunk.
    read: for await (const chunk of process.stdin) {
      for (const ch of (chunk as Buffer).toString('utf8')) {
        if (ch === '\u0003') throw new UsageError('cancelled');
        if (ch === '\r' || ch === '\n') break read;
        typed = ch === '\u007f' ? typed.slice(0, -1) : typed + ch;
      }
    }
  } finally {
    process.stdin.setRawMode(false);
    process.stdin.pause();
    process.stderr.write('\n');
  }
  return typed;
}

function need(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const command = positionals.join(' ');
  if (values.help || command === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === '') {
    process.stderr.write(`a command is needed\n\n${HELP}`);
    return 2;
  }
  const known = [
    'studio create',
    'studio list',
    'game create',
    'game update',
    'game rotate-secret',
    'game set-limits',
    'game list',
    'player create',
    'player link',
    'player list',
    'player import',
    'player export',
    'player erase',
    'retention run',
    'moderator create',
    'moderator reset-password',
    'moderator disable',
    'moderator enable',
    'moderator list',
    'webhook create',
    'webhook list',
    'webhook delete',
    'migrate',
    'keys generate',
    'db url',
    'db backup',
    'db restore',
  ];
  if (!known.includes(command)) {
    process.stderr.write(`unknown command: ${command}\n\n${HELP}`);
    return 2;
  }
  if (command === 'keys generate') {
    // No database: an operator makes the key before anything runs.
    const jwk = await generateSigningJwk();
    process.stdout.write(
      values.json
        ? `${JSON.stringify({ kid: jwk.kid, jwk })}\n`
        : `JWT_SIGNING_KEY='${JSON.stringify(jwk)}'\n` +
            `# kid ${jwk.kid}. Keep it secret; every API process needs the same one. On rotation, put the\n` +
            `# previous key in JWT_PREVIOUS_KEYS (a JSON array) until the tokens it signed have expired.\n`,
    );
    return 0;
  }

  const config = loadConfigOrExit();
  if (command.startsWith('db ')) {
    const result = await databaseCommand(command, values, config);
    process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${humanReadable(result)}\n`);
    return 0;
  }
  if (command === 'migrate' && (values.status || values['dry-run'])) {
    const result = await migrationStatus(config);
    const pending = [...result.pending, ...result.pendingFunctions];
    process.stdout.write(
      values.json
        ? `${JSON.stringify(values['dry-run'] ? { wouldApply: pending } : result)}\n`
        : values['dry-run']
          ? `${pending.length ? `would apply:\n${pending.map((m) => `  ${m}`).join('\n')}` : 'nothing to apply'}\n`
          : `${humanReadable(result)}\n`,
    );
    return 0;
  }
  // Logs go to stderr so stdout carries only the command's answer.
  const log = createLogger(process.env.LOG_LEVEL ?? 'warn', 'admin', process.stderr);
  const backends = await provideBackends(config, log);
  const pool = createPool(backends.databaseUrl, 2, log);
  try {
    const pepper = () => resolvePepper(config);
    let result: unknown;
    let exitCode = 0;
    switch (command) {
      case 'migrate':
        result = { migrated: true };
        break;
      case 'studio create':
        result = await provisionStudio(pool, { name: need(values, 'name') });
        break;
      case 'studio list':
        result = { studios: (await listStudios(pool)).map((s) => ({ id: s.id, name: s.name })) };
        break;
      case 'game create':
        result = await provisionGame(pool, pepper(), {
          studioId: need(values, 'studio'),
          title: need(values, 'title'),
          redirectUris: values['redirect-uri'] ?? [],
          requirePkce: values['require-pkce'] ?? false,
        });
        break;
      case 'game update': {
        const add = values['add-redirect-uri'] ?? [];
        const remove = values['remove-redirect-uri'] ?? [];
        if (add.length + remove.length === 0)
          throw new UsageError('--add-redirect-uri or --remove-redirect-uri is required');
        result = await updateRedirectUris(pool, { clientId: need(values, 'client-id'), add, remove });
        break;
      }
      case 'game rotate-secret':
        result = await rotateSecret(pool, pepper(), { clientId: need(values, 'client-id') });
        break;
      case 'game set-limits': {
        const limits: Record<string, number | null> = {};
        for (const pair of values.limit ?? []) {
          const m = /^([A-Za-z]+)=(default|\d+)$/.exec(pair);
          if (!m) throw new UsageError(`--limit takes <name>=<whole number|default>, not "${pair}"`);
          limits[m[1]!] = m[2] === 'default' ? null : Number(m[2]);
        }
        if (Object.keys(limits).length === 0) throw new UsageError('--limit is required');
        result = await setGameLimits(pool, { clientId: need(values, 'client-id'), limits });
        break;
      }
      case 'game list':
        result = {
          games: (await listGames(pool)).map((g) => ({
            id: g.id,
            studioId: g.studioId,
            title: g.title,
            clientId: g.clientId,
            redirectUris: g.redirectUris,
          })),
        };
        break;
      case 'player create':
        result = await provisionPlayer(pool, {
          ...(values['service-id'] ? { serviceId: values['service-id'] } : {}),
          fullName: need(values, 'full-name'),
          gamerTag: need(values, 'gamer-tag'),
          password: await passwordOf(values),
          kyc: values.kyc ?? false,
        });
        break;
      case 'player link':
        result = await linkPlayer(pool, {
          serviceId: need(values, 'service-id'),
          clientId: need(values, 'client-id'),
        });
        break;
      case 'player list':
        result = { players: await listPlayers(pool) };
        break;
      case 'player export': {
        const serviceId = need(values, 'service-id');
        const chunks = await openPlayerExport(
          pool,
          serviceId,
          { kind: 'admin' },
          { now: new Date(), appealWindowDays: config.appealWindowDays, caps: config.penaltyCaps },
        );
        const out = typeof values.out === 'string' ? values.out : undefined;
        // Streamed: a history of any length in bounded memory, to the file or to stdout.
        await pipeline(Readable.from(chunks), out ? fs.createWriteStream(out) : process.stdout, {
          end: !!out,
        });
        if (!out) {
          process.stdout.write('\n');
          return 0;
        }
        result = { serviceId, out, bytes: fs.statSync(out).size };
        break;
      }
      case 'player erase': {
        const serviceId = need(values, 'service-id');
        if (!values.yes)
          throw new UsageError(
            `erasing ${serviceId} cannot be undone: add --yes to erase their personal data now`,
          );
        const { erasure } = await requestErasure(pool, config.erasureLedger, serviceId, { kind: 'operator' });
        // Applied here, not left to a worker: the operator sees the receipt.
        await runErasure(pool, config.erasureLedger, erasure.id, new Date());
        result = await getErasure(pool, erasure.id);
        break;
      }
      case 'retention run':
        result = await runRetentionNow(
          pool,
          config.retentionDays,
          { kind: 'operator' },
          { dryRun: !!values['dry-run'] },
        );
        break;
      case 'player import': {
        const file = need(values, 'file');
        const format = values.format;
        if (format !== undefined && format !== 'jsonl' && format !== 'csv')
          throw new UsageError('--format is jsonl or csv');
        if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
        let gameId: string | undefined;
        if (values['client-id']) {
          const game = await findGameByClientId(pool, values['client-id']);
          if (!game) throw notFound(`Game with client id ${values['client-id']}`);
          gameId = game.id;
        }
        const summary = await importPlayers(pool, {
          file,
          ...(format ? { format } : {}),
          ...(gameId ? { gameId } : {}),
          progress: process.stderr,
        });
        result = values.json
          ? summary
          : {
              ...summary,
              invalidLines:
                summary.invalidLines.length > 50
                  ? [
                      ...summary.invalidLines.slice(0, 50).map((l) => `line ${l.line}: ${l.message}`),
                      `... and ${summary.invalidLines.length - 50} more (--json lists them all)`,
                    ]
                  : summary.invalidLines.map((l) => `line ${l.line}: ${l.message}`),
            };
        exitCode = summary.invalid > 0 ? 1 : 0;
        break;
      }
      case 'moderator create':
        result = await createModerator(pool, {
          username: need(values, 'username'),
          displayName: need(values, 'display-name'),
          role: need(values, 'role'),
          password: await passwordOf(values),
        });
        break;
      case 'moderator reset-password':
        result = await resetModeratorPassword(pool, {
          username: need(values, 'username'),
          password: await passwordOf(values),
        });
        break;
      case 'moderator disable':
      case 'moderator enable': {
        const username = need(values, 'username');
        result = await setModeratorDisabled(pool, username, command === 'moderator disable');
        if (!result) throw notFound(`Moderator ${username}`);
        break;
      }
      case 'moderator list':
        result = { moderators: await listModerators(pool) };
        break;
      case 'webhook create': {
        const { webhook, secret } = await registerWebhook(
          pool,
          pepper(),
          new AddressPolicy(config.outboundAllowlist),
          need(values, 'studio'),
          {
            url: need(values, 'url'),
            ...(values.event ? { events: values.event } : {}),
          },
        );
        result = { ...presentWebhook(webhook), secret };
        break;
      }
      case 'webhook list': {
        const studio = values.studio;
        if (studio !== undefined && !isUuid(studio)) throw notFound(`Studio ${studio}`);
        result = {
          webhooks: (await listWebhooks(pool, studio)).map((w) => ({
            ...presentWebhook(w),
            studioId: w.studioId,
          })),
        };
        break;
      }
      case 'webhook delete': {
        const studio = need(values, 'studio');
        const id = need(values, 'id');
        if (!isUuid(studio) || !isUuid(id) || !(await deleteWebhook(pool, studio, id)))
          throw notFound(`Webhook ${id} of studio ${studio}`);
        result = { id, deleted: true };
        break;
      }
    }
    process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${humanReadable(result)}\n`);
    return exitCode;
  } finally {
    await pool.end();
    await backends.stop();
  }
}

/**
 * The embedded server's address, backup and restore. An operator's own PostgreSQL (DATABASE_URL) is
 * backed up with the tools of its own version (docs/operators.md "Backups").
 */
async function databaseCommand(command: string, values: Record<string, unknown>, config: Config) {
  if (command === 'db url') {
    if (config.databaseUrl) return { url: config.databaseUrl, embedded: false };
    const url = embeddedServer(config.dataDir).url;
    if (!url)
      throw new AppError(
        409,
        'not_running',
        `The embedded PostgreSQL on ${config.dataDir} is not running: npm start starts it (its port changes on every start).`,
      );
    return { url, embedded: true, dataDir: config.dataDir };
  }
  if (config.databaseUrl)
    throw new AppError(
      409,
      'external_database',
      'DATABASE_URL is set: back up and restore that PostgreSQL with the tools of its own version (pg_dump / pg_restore, or pg_basebackup); see docs/operators.md "Backups".',
    );
  if (command === 'db backup') {
    const out = need(values, 'out');
    // The running server, or one started for the backup and stopped after it.
    const server = await providePostgres({ dataDir: config.dataDir });
    try {
      return await backupEmbedded(config.dataDir, out);
    } finally {
      await server.stop();
    }
  }
  const restored = await restoreEmbedded(config.dataDir, need(values, 'from'));
  // Started once here: the WAL is replayed to the backup's end now, and a broken backup says so now.
  const server = await providePostgres({ dataDir: config.dataDir });
  try {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pgmigrations');
    await client.end();
    return {
      restoredFrom: need(values, 'from'),
      ...restored.manifest,
      migrations: rows[0]!.n,
      keptAside: restored.keptAside,
    };
  } finally {
    await server.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${HELP}`);
      process.exit(2);
    } else if (err instanceof AppError) {
      const fields = err.fields?.map((f) => `  ${flagOf(f.field)}: ${f.message}`).join('\n');
      process.stderr.write(`${err.detail}${fields ? `\n${fields}` : ''}\n`);
    } else if (err instanceof StartupError) process.stderr.write(`${err.message}\n`);
    else process.stderr.write(`admin failed: ${(err as Error | undefined)?.message ?? String(err)}\n`);
    process.exit(1);
  },
);
