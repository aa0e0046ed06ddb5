import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** True when nothing listens on 127.0.0.1:`port` (we can bind it ourselves). */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** The first free port of `preferred`, `preferred + 1`, ...; an ephemeral one when all ten are taken. */
export async function freePort(preferred: number): Promise<number> {
  for (let port = preferred; port < preferred + 10; port++) {
    if (await portIsFree(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Sends PING over a raw socket. Answers 'pong', 'auth' (a Redis that wants a password) or 'none' (no Redis:
 * refused, timed out, or something else answered). No client library: this runs before we know which URL to use.
 */
export function pingRedis(
  port: number,
  host = '127.0.0.1',
  timeoutMs = 1_500,
): Promise<'pong' | 'auth' | 'none'> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    let answer = '';
    const done = (result: 'pong' | 'auth' | 'none'): void => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done('none'));
    socket.once('error', () => done('none'));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      if (!answer.includes('\r\n')) return;
      if (answer.startsWith('+PONG')) done('pong');
      else if (/^-(NOAUTH|WRONGPASS)/.test(answer)) done('auth');
      else done('none');
    });
  });
}

/** A long-running server process this launcher started and must stop. */
export class OwnedProcess {
  private exited: Promise<void>;
  private hasExited = false;
  /** Set when the process could not be started at all (binary missing, permission denied). */
  spawnError?: Error;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logFile: string,
    private readonly stopSignal: NodeJS.Signals,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', () => {
        this.hasExited = true;
        resolve();
      });
      child.once('error', (err) => {
        this.spawnError = err;
        this.hasExited = true;
        resolve();
      });
    });
  }

  get running(): boolean {
    return !this.hasExited;
  }

  /** Polite signal first; SIGKILL once `graceMs` has passed. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.child.kill(this.stopSignal);
    const timer = sleep(graceMs).then(() => 'timeout' as const);
    if ((await Promise.race([this.exited.then(() => 'exited' as const), timer])) === 'timeout') {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** Last resort from a process 'exit' handler, where nothing asynchronous runs any more. */
  killNow(): void {
    if (this.running) this.child.kill(this.stopSignal);
  }

  whenExited(): Promise<void> {
    return this.exited;
  }
}

/**
 * Starts a server in its own process group (so a Ctrl-C in the terminal reaches the launcher, which then stops
 * the app processes before their database), with its output in `logFile`.
 */
export function spawnServer(
  name: string,
  command: string,
  args: string[],
  logFile: string,
  stopSignal: NodeJS.Signals,
  options: Pick<SpawnOptions, 'uid' | 'gid' | 'env' | 'cwd'> = {},
): OwnedProcess {
  const log = fs.openSync(logFile, 'a');
  try {
    const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', log, log] });
    return new OwnedProcess(name, child, logFile, stopSignal);
  } finally {
    fs.closeSync(log);
  }
}

/** The last lines of a log file, for error messages. */
export function tail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
