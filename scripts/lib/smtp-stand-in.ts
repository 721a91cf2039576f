import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  to: string;
  from: string;
  messageId: string;
  subject: string;
  text: string;
  html: string;
  headers: Map<string, unknown>;
}

/**
 * A real SMTP server for the suite and the drills (nodemailer's smtp-server), on a loopback port,
 * keeping what it takes, with the faults a mail server has, by recipient: `bounce…@` is refused for
 * good at RCPT TO (550 5.1.1, as an unknown mailbox is), `later…@` is deferred (451 4.7.1, as
 * greylisting does) the first `deferrals` times. `delayMs` holds the final reply to DATA back (a slow
 * server), and a message counts as taken only when that reply reaches a client still connected: one
 * whose client died waiting was never accepted (the sender will send it again, which is no duplicate).
 * stop() closes it (a dead server: connections refused), start() opens it again on the same port.
 */
export class SmtpStandIn {
  readonly received: ReceivedMail[] = [];
  private server: SMTPServer | undefined;
  private readonly deferred = new Map<string, number>();
  port = 0;
  delayMs = 0;
  /** Messages whose final reply is being held back right now. */
  inFlight = 0;
  private readonly connected = new Set<string>();

  constructor(private readonly deferrals = 2) {}

  get url() {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = new SMTPServer({
      authOptional: true,
      onConnect: (session, callback) => {
        this.connected.add(session.id);
        callback();
      },
      onClose: (session) => {
        this.connected.delete(session.id);
      },
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo: (address: SMTPServerAddress, _session, callback) => {
        const to = address.address.toLowerCase();
        if (to.startsWith('bounce')) {
          const err = new Error('5.1.1 Recipient address rejected: user unknown') as Error & {
            responseCode: number;
          };
          err.responseCode = 550;
          return callback(err);
        }
        if (to.startsWith('later')) {
          const seen = this.deferred.get(to) ?? 0;
          this.deferred.set(to, seen + 1);
          if (seen < this.deferrals) {
            const err = new Error('4.7.1 Greylisted, try again later') as Error & { responseCode: number };
            err.responseCode = 451;
            return callback(err);
          }
        }
        return callback();
      },
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then(async (parsed) => {
            if (this.delayMs) {
              this.inFlight++;
              await new Promise((r) => setTimeout(r, this.delayMs));
              this.inFlight--;
            }
            if (!this.connected.has(session.id)) return callback(new Error('the client is gone'));
            for (const rcpt of session.envelope.rcptTo)
              this.received.push({
                to: rcpt.address.toLowerCase(),
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                messageId: parsed.messageId ?? '',
                subject: parsed.subject ?? '',
                text: parsed.text ?? '',
                html: typeof parsed.html === 'string' ? parsed.html : '',
                headers: parsed.headers as Map<string, unknown>,
              });
            callback();
          })
          .catch((err: Error) => callback(err));
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  to(address: string): ReceivedMail[] {
    return this.received.filter((m) => m.to === address.toLowerCase());
  }
}
