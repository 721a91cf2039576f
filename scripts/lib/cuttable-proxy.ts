import net from 'node:net';

/**
 * A loopback TCP proxy in front of a real server that can be cut and restored on the same port: to
 * the processes behind it the server is down (every connection dropped, new ones refused) and then
 * back, without stopping a server that others share or that the caller does not own. Used by the
 * fault drills and the tests.
 */
export class CuttableProxy {
  private server: net.Server | undefined;
  private sockets = new Set<net.Socket>();
  private frozen = false;
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
      if (this.frozen) for (const s of [client, upstream]) s.pause();
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /**
   * A server that stops answering without closing anything (a stopped process, a full network):
   * connections stay open and accepted, nothing flows either way until thaw().
   */
  freeze(): void {
    this.frozen = true;
    for (const s of this.sockets) s.pause();
  }

  thaw(): void {
    this.frozen = false;
    for (const s of this.sockets) s.resume();
  }

  /** Drops every connection and refuses new ones until open() again. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise((r) => server.close(r));
  }

  get isOpen(): boolean {
    return this.server !== undefined;
  }

  /** `original` (the server's URL) with the proxy's address in its place. */
  url(original = 'redis://127.0.0.1'): string {
    const u = new URL(original);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString().replace(/\/$/, '');
  }
}
