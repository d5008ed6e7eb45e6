/**
 * The syslog witness. What each transport can tell:
 *  - UDP: nothing. A datagram lost on the way, or sent to a port nobody listens on, looks like one
 *    delivered; only local errors (no route, name lookup) are reported.
 *  - TCP and TLS (RFC 5425/6587 octet counting: `<length> <message>` on one connection): a
 *    receiver that cannot be reached, a handshake that fails and a connection that breaks are
 *    reported. Syslog has no acknowledgement, so the records written just before a break may be
 *    lost: that loss is never silent, the break is reported.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { hostname } from 'node:os';
import { connectTls, DEFAULT_WITNESS_TIMEOUT_MS, hostPort, resolveTls, withTimeout, type ResolvedTls, type WitnessTlsOptions } from './witness-net.js';
import { QueuedWitness, type Queued, type WitnessHooks } from './witness-queue.js';

export interface SyslogWitnessOptions {
  host: string;
  /** Default 514 for udp and tcp, 6514 for tls. */
  port?: number;
  /** Syslog facility (default 13, log audit). */
  facility?: number;
  /** Default `udp`, which cannot report a lost record. */
  transport?: 'udp' | 'tcp' | 'tls';
  tls?: WitnessTlsOptions;
  /** A connection or write that takes longer fails (default 10 s). */
  timeoutMs?: number;
}

function syslogMessage(item: Queued, facility: number): string {
  // <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG, severity 6 (informational).
  return `<${facility * 8 + 6}>1 ${item.ts} ${HOST} pve-code-mcp ${process.pid} audit - ${item.line}`;
}

const HOST = hostname().replace(/[^\x21-\x7e]/g, '') || '-';

/** UDP: only local send errors can be seen; a lost datagram cannot. */
export class UdpSyslogWitness extends QueuedWitness {
  readonly description: string;
  private readonly socket: UdpSocket;

  constructor(
    private readonly options: SyslogWitnessOptions,
    hooks: WitnessHooks,
  ) {
    super(hooks);
    this.description = `syslog udp://${hostPort(options.host, options.port ?? 514)}`;
    this.socket = createSocket(options.host.includes(':') ? 'udp6' : 'udp4');
    this.socket.on('error', () => undefined);
    this.socket.unref();
  }

  protected publish(item: Queued): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.send(syslogMessage(item, this.options.facility ?? 13), this.options.port ?? 514, this.options.host, (err) => (err ? reject(err) : resolve()));
    });
  }

  protected release(): void {
    this.socket.close();
  }
}

/** TCP or TLS with octet-counting framing; one connection, opened on demand and kept. */
export class StreamSyslogWitness extends QueuedWitness {
  readonly description: string;
  private socket: Socket | undefined;
  private publishing = false;
  private readonly port: number;
  private readonly timeoutMs: number;
  private readonly trust: ResolvedTls | undefined;

  constructor(
    private readonly options: SyslogWitnessOptions,
    hooks: WitnessHooks,
  ) {
    super(hooks);
    const secure = options.transport === 'tls';
    this.port = options.port ?? (secure ? 6514 : 514);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WITNESS_TIMEOUT_MS;
    this.trust = secure ? resolveTls(options.tls, 'audit.witness.syslog.tls') : undefined;
    this.description = `syslog ${secure ? 'tls' : 'tcp'}://${hostPort(options.host, this.port)}`;
  }

  protected async publish(item: Queued): Promise<void> {
    this.publishing = true;
    try {
      const socket = this.socket ?? (await this.connect());
      const message = Buffer.from(syslogMessage(item, this.options.facility ?? 13), 'utf8');
      const frame = Buffer.concat([Buffer.from(`${message.length} `, 'ascii'), message]);
      await withTimeout(new Promise<void>((resolve, reject) => socket.write(frame, (err) => (err ? reject(err) : resolve()))), this.timeoutMs, `writing took longer than ${this.timeoutMs} ms`, () =>
        socket.destroy(),
      );
    } catch (err) {
      this.socket?.destroy();
      this.socket = undefined;
      throw err;
    } finally {
      this.publishing = false;
    }
  }

  private async connect(): Promise<Socket> {
    const { host } = this.options;
    const socket = this.trust
      ? await connectTls(host, this.port, this.trust, this.timeoutMs)
      : await withTimeout(
          new Promise<Socket>((resolve, reject) => {
            const s = tcpConnect({ host, port: this.port });
            s.once('connect', () => resolve(s));
            s.once('error', reject);
          }),
          this.timeoutMs,
          `no connection within ${this.timeoutMs} ms`,
        );
    socket.setKeepAlive(true);
    socket.unref();
    socket.on('error', () => undefined);
    // A receiver that goes away between records: the records just written may be lost, say so now.
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (!this.publishing) this.fail(`the connection to the audit witness ${this.description} was closed by the other end: the records sent just before may be lost`);
    });
    // The receiver never writes; reading keeps a half-closed connection noticed.
    socket.resume();
    this.socket = socket;
    return socket;
  }

  protected release(): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.end();
  }
}
