import pg from 'pg';

/**
 * A DATABASE_URL may name several PostgreSQL hosts, as libpq's multi-host syntax does
 * (`postgres://user:pw@db-1:5432,db-2:5432/player_trust`): a primary and its standbys, of which any
 * may be promoted (pg_auto_failover, Patroni). node-postgres connects to one host only, so this module
 * finds the one that takes writes: it connects to each in turn and asks `SHOW transaction_read_only`
 * (libpq's target_session_attrs=read-write does the same), remembers the answer, and looks again
 * when a connection fails or lands on a host that no longer takes writes. Requests meanwhile get a
 * 503 with Retry-After, never a write on a standby.
 */
export interface Host {
  host: string;
  port: number;
}

const MULTI = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/;

/** The hosts of a URL with more than one, or undefined for an ordinary single-host URL. */
export function hostsOf(url: string): Host[] | undefined {
  const m = MULTI.exec(url);
  if (!m || !m[3]!.includes(',')) return undefined;
  return m[3]!.split(',').map((part) => {
    const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(part);
    if (v6) return { host: v6[1]!, port: Number(v6[2] ?? 5432) };
    const [host, port] = part.split(':');
    return { host: host!, port: Number(port ?? 5432) };
  });
}

/** The URL with one host in place of the list. */
export function urlForHost(url: string, h: Host): string {
  const m = MULTI.exec(url)!;
  const host = h.host.includes(':') ? `[${h.host}]` : h.host;
  return `${m[1]}${m[2] ?? ''}${host}:${h.port}${m[4]}`;
}

export class NoWritableHost extends Error {
  override name = 'NoWritableHost';
  // The error handler answers 503 with Retry-After for it (api/middleware/errors.ts).
  readonly code = 'no_writable_host';
}

/** For a one-off connection (migrations, the admin tool): the URL of the host that takes writes. */
export async function writableUrl(url: string): Promise<string> {
  const hosts = hostsOf(url);
  return hosts ? urlForHost(url, await new WritableHost(url, hosts).get()) : url;
}

/** Which host takes writes now: found by asking each, remembered until it fails. */
export class WritableHost {
  private current: Host | undefined;
  private finding: Promise<Host> | undefined;

  constructor(
    private readonly url: string,
    readonly hosts: Host[],
    private readonly connectTimeoutMs = 3000,
  ) {}

  /** The remembered host, or the first that answers transaction_read_only = off. */
  get(): Promise<Host> {
    if (this.current) return Promise.resolve(this.current);
    this.finding ??= this.find().finally(() => (this.finding = undefined));
    return this.finding;
  }

  /** Forgets the remembered host (it failed, or it no longer takes writes). */
  forget(host?: Host): void {
    if (!host || (this.current && this.current.host === host.host && this.current.port === host.port))
      this.current = undefined;
  }

  private async find(): Promise<Host> {
    const reasons: string[] = [];
    for (const h of this.hosts) {
      const client = new pg.Client({
        connectionString: urlForHost(this.url, h),
        connectionTimeoutMillis: this.connectTimeoutMs,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const { rows } = await client.query<{ transaction_read_only: string }>('SHOW transaction_read_only');
        if (rows[0]!.transaction_read_only === 'off') {
          this.current = h;
          return h;
        }
        reasons.push(`${h.host}:${h.port} is read-only`);
      } catch (err) {
        reasons.push(`${h.host}:${h.port}: ${(err as Error).message}`);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    throw new NoWritableHost(`no PostgreSQL host takes writes (${reasons.join('; ')})`);
  }
}

/**
 * A pg.Client for a pool over several hosts: it connects to the host that takes writes, checks
 * again on the connection itself (a failover may have happened since), and otherwise fails so the
 * pool gives the request a 503 and the next connection looks anew.
 */
export function writableHostClient(writable: WritableHost): typeof pg.Client {
  return class extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: Error) => void): Promise<pg.Client> | void {
      const connecting = (async () => {
        const target = await writable.get();
        // The fields node-postgres's connect() dials.
        (this as unknown as Host).host = target.host;
        (this as unknown as Host).port = target.port;
        try {
          await super.connect();
        } catch (err) {
          writable.forget(target);
          throw err;
        }
        const { rows } = await super.query<{ transaction_read_only: string }>('SHOW transaction_read_only');
        if (rows[0]!.transaction_read_only !== 'off') {
          writable.forget(target);
          await this.end().catch(() => undefined);
          throw new NoWritableHost(`${target.host}:${target.port} no longer takes writes (a failover)`);
        }
        this.on('error', () => writable.forget(target));
        return this as pg.Client;
      })();
      if (!callback) return connecting;
      connecting.then(
        () => callback(undefined as unknown as Error),
        (err: Error) => callback(err),
      );
    }
  } as unknown as typeof pg.Client;
}
