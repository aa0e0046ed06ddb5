import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message the server accepted, as mailparser reads it, with the envelope it came in. */
export interface ReceivedMail {
  envelopeTo: string[];
  mail: ParsedMail;
}

/**
 * A real SMTP server on 127.0.0.1 (a random port) for the e-mail tests: it accepts what nodemailer sends
 * and keeps each message parsed by mailparser. `answer(address, code, times)` makes the next `times`
 * deliveries to that address get an SMTP reply `code` at RCPT TO (451: try later; 550: no such mailbox).
 */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  /** RCPT TO commands seen per address, refused ones included. */
  readonly attempts = new Map<string, number>();
  private readonly answers = new Map<string, { code: number; times: number }>();
  private readonly server: SMTPServer;
  url = '';

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        const to = address.address.toLowerCase();
        this.attempts.set(to, (this.attempts.get(to) ?? 0) + 1);
        const answer = this.answers.get(to);
        if (answer && answer.times > 0) {
          answer.times -= 1;
          const err = Object.assign(new Error(answer.code >= 500 ? 'No such mailbox' : 'Try again later'), {
            responseCode: answer.code,
          });
          callback(err);
          return;
        }
        callback();
      },
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            this.received.push({
              envelopeTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              mail,
            });
            callback();
          })
          .catch((err: Error) => callback(err));
      },
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.server.server.address() as AddressInfo;
    this.url = `smtp://127.0.0.1:${port}`;
  }

  answer(address: string, code: number, times = Infinity): void {
    this.answers.set(address.toLowerCase(), { code, times });
  }

  to(address: string): ReceivedMail[] {
    return this.received.filter((r) => r.envelopeTo.includes(address.toLowerCase()));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
