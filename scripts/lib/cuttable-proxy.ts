import net from 'node:net';

/**
 * A loopback TCP proxy in front of a real server that a test can cut and restore on the same port,
 * to play "Redis is down" without stopping the Redis other tests share.
 */
export class CuttableProxy {
  private server: net.Server | undefined;
  private sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static forUrl(url: string): CuttableProxy {
    const u = new URL(url);
    return new CuttableProxy(u.hostname, Number(u.port));
  }

  async open(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Drops every connection and refuses new ones until open() again. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise((r) => server.close(r));
  }

  url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
}
